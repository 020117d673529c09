"""Lazy faces: a face's public names stand once, in its ``__init__.pyi`` stub, and load on first use.

A face (``langchain_jev.guardrails``) writes each name it exports in one place, the stub
beside its ``__init__.py``, one re-export a line, as scikit-image does with
``lazy_loader.attach_stub``::

    from langchain_jev.guardrails._battery import HazardBattery as HazardBattery

Type checkers and IDEs read the stub (``X as X`` marks a re-export, PEP 484); the API
reference reads it too (griffe merges the stub, ``docs/griffe_faces.py`` takes its names
for the face's ``__all__``). At run time the ``__init__.py`` keeps its docstring map and
asks `lazy_exports_from_stub`, which reads the same lines with `ast`, once::

    __getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)

The stub holds its docstring, re-exports from the package's own modules in that form, and
bare annotations of dunder names the ``__init__.py`` defines itself (``__version__: str``);
anything else is refused when the face loads, so the stub says exactly what the face
exports. A name that left the face for another (`langchain_jev._moved.MOVED_NAMES`) still
loads, with a warning.

Example:
    >>> import langchain_jev.guardrails as guardrails
    >>> stub_exports("langchain_jev.guardrails", stub_of(guardrails.__file__))["HazardBattery"]
    'langchain_jev.guardrails._battery'
    >>> "HazardBattery" in guardrails.__all__, guardrails.__all__ == dir(guardrails)
    (True, True)

"""

from __future__ import annotations

import _ast  # the syntax tree (ast.py is this and helpers: a millisecond more on `import langchain_jev`)
import functools
import os
import sys
from collections.abc import Callable
from importlib import import_module
from typing import Any

from langchain_jev._moved import moved_name

_MAX_STUB_BYTES = 64 * 1024  # a face's stub is a list of names; a larger file is refused unread


def stub_of(init_file: str) -> str:
    """The stub beside a face's ``__init__.py`` (``.../__init__.pyi``)."""
    return os.path.splitext(init_file)[0] + ".pyi"


@functools.cache
def stub_exports(package: str, stub: str) -> dict[str, str]:
    """The names a face's stub re-exports, each with the absolute module defining it, in stub order.

    Raises ImportError, naming the line, on anything a face's stub may not hold (see the module's
    docstring): fail closed, so a stub cannot promise type checkers a name the face does not load.
    """
    with open(stub, "rb") as file:
        data = file.read(_MAX_STUB_BYTES + 1)
    if len(data) > _MAX_STUB_BYTES:
        raise ImportError(f"{stub}: over {_MAX_STUB_BYTES} bytes, no face's stub")
    tree = compile(data.decode("utf-8"), stub, "exec", _ast.PyCF_ONLY_AST)  # what ast.parse does
    body = tree.body if isinstance(tree, _ast.Module) else []
    top = package.split(".")[0] + "."
    exports: dict[str, str] = {}
    for number, node in enumerate(body):
        if number == 0 and isinstance(node, _ast.Expr) and isinstance(node.value, _ast.Constant):
            continue  # the docstring
        if isinstance(node, _ast.AnnAssign) and node.value is None and _is_dunder(node.target):
            continue  # defined by the __init__.py itself (__version__)
        if not (isinstance(node, _ast.ImportFrom) and not node.level and (node.module or "").startswith(top)):
            raise ImportError(f"{stub}:{node.lineno}: a face's stub holds `from {top}... import X as X` only")
        for alias in node.names:
            if alias.asname != alias.name or alias.name in exports:
                raise ImportError(f"{stub}:{node.lineno}: write `{alias.name} as {alias.name}`, once")
            exports[alias.name] = node.module or ""
    return exports


def lazy_exports_from_stub(
    package: str, init_file: str
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """Return the ``__getattr__``, ``__dir__`` and ``__all__`` of a face whose names are in its stub.

    A name loads from its module on first use and is then kept in the face's globals, so it is
    imported once; a name that left the face for another face loads from there, with a warning
    (`langchain_jev._moved.moved_name`); any other is an AttributeError. ``__all__`` and
    ``dir()`` are the stub's names, sorted.
    """
    exports = stub_exports(package, stub_of(init_file))
    names = sorted(exports)

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            return moved_name(package, name)
        value = getattr(import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return list(names)

    return __getattr__, __dir__, list(names)


def _is_dunder(target: _ast.expr) -> bool:
    return isinstance(target, _ast.Name) and target.id.startswith("__") and target.id.endswith("__")
