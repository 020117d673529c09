"""LangGraph nodes and graphs of langchain-jev.

Names are imported lazily, so importing this package stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# public name -> module that defines it (each spoke adds its own lines)
_EXPORTS: dict[str, str] = {
    "SelfRefineDraft": "langchain_jev.refine",
    "SelfRefineState": "langchain_jev.graph.self_refine",
    "create_self_refine_graph": "langchain_jev.graph.self_refine",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
