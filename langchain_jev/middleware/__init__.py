"""LangChain agent middleware (extra `middleware`) of langchain-jev: self-refine and the guardrail.

Names are imported lazily, so importing this package stays cheap and works
without the `langchain` extra until a middleware is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.middleware._guardrail import JevGuardrailMiddleware, JevGuardrailState
    from langchain_jev.middleware._self_refine import JevSelfRefineMiddleware, SelfRefineAgentState

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "JevGuardrailMiddleware": "langchain_jev.middleware._guardrail",
    "JevGuardrailState": "langchain_jev.middleware._guardrail",
    "JevSelfRefineMiddleware": "langchain_jev.middleware._self_refine",
    "SelfRefineAgentState": "langchain_jev.middleware._self_refine",
}

__all__ = [
    "JevGuardrailMiddleware",
    "JevGuardrailState",
    "JevSelfRefineMiddleware",
    "SelfRefineAgentState",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
