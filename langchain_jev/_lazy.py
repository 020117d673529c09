"""Lazy exports for the package's ``__init__`` modules: import a name on first use."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

from langchain_jev._moved import moved_name


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return the ``__getattr__`` and ``__dir__`` of a package whose names load lazily.

    ``exports`` maps each public name to the module defining it; a loaded name is
    cached in ``namespace`` (the package's globals) so it is imported only once. A
    name that left the package for another face still loads, with a warning
    (`langchain_jev._moved.MOVED_NAMES`).
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            return moved_name(package, name)
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(namespace.get("__all__", exports))

    return __getattr__, __dir__
