"""LangGraph agent middleware (extra `middleware`) of langchain-jev.

Names are imported lazily, so importing this package stays cheap and works
without the `langchain` extra until a middleware is used.
"""

from __future__ import annotations

from langchain_jev._lazy import lazy_exports

# public name -> module that defines it (each spoke adds its own lines)
_EXPORTS: dict[str, str] = {
    "JevGuardrailMiddleware": "langchain_jev.middleware.guardrail",
    "JevGuardrailState": "langchain_jev.middleware.guardrail",
    "JevSelfRefineMiddleware": "langchain_jev.middleware.self_refine",
    "SelfRefineAgentState": "langchain_jev.middleware.self_refine",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
