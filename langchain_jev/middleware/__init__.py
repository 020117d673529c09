"""LangGraph agent middleware (extra `middleware`) of langchain-jev.

Names are imported lazily, so importing this package stays cheap and works
without the `langchain` extra until a middleware is used.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# public name -> module that defines it (each spoke adds its own lines)
_EXPORTS: dict[str, str] = {
    "JevGuardrailMiddleware": "langchain_jev.middleware.guardrail",
    "JevGuardrailState": "langchain_jev.middleware.guardrail",
    "JevSelfRefineMiddleware": "langchain_jev.middleware.self_refine",
    "SelfRefineAgentState": "langchain_jev.middleware.self_refine",
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
