"""LangGraph nodes and graphs of langchain-jev: self-refine, the guardrail node, the guarded model node.

`add_guardrail` wires a guardrail node into a `StateGraph` so a refusal ends the
turn (no edge out of it) and its report is kept; a node wired by hand is checked
on its first run (`GuardrailWiringWarning` when the state drops the report).

The guardrail core they use (`GuardrailSettings`, `HazardBattery`, the hazard
catalogue, `GuardrailReport`, `review_token`) is imported from
`langchain_jev.guardrails`, and the guardrail errors from `langchain_jev`: each
name has one face. Names are imported lazily, so importing this package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev._refine import ATTEMPT_METADATA, DRAFT_TAG, SelfRefineDraft
    from langchain_jev.graph._builder import add_guardrail
    from langchain_jev.graph._guarded_model import (
        create_guarded_model_node,
        create_guarded_tool_node,
        guard_model,
    )
    from langchain_jev.graph._guardrail import GuardrailState, create_guardrail_node
    from langchain_jev.graph._self_refine import SelfRefineState, create_self_refine_graph
    from langchain_jev.graph._wiring import GuardrailWiringWarning

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "GuardrailState": "langchain_jev.graph._guardrail",
    "GuardrailWiringWarning": "langchain_jev.graph._wiring",
    "ATTEMPT_METADATA": "langchain_jev._refine",
    "DRAFT_TAG": "langchain_jev._refine",
    "SelfRefineDraft": "langchain_jev._refine",
    "SelfRefineState": "langchain_jev.graph._self_refine",
    "add_guardrail": "langchain_jev.graph._builder",
    "create_guarded_model_node": "langchain_jev.graph._guarded_model",
    "create_guarded_tool_node": "langchain_jev.graph._guarded_model",
    "create_guardrail_node": "langchain_jev.graph._guardrail",
    "create_self_refine_graph": "langchain_jev.graph._self_refine",
    "guard_model": "langchain_jev.graph._guarded_model",
}

__all__ = [
    "ATTEMPT_METADATA",
    "DRAFT_TAG",
    "GuardrailState",
    "GuardrailWiringWarning",
    "SelfRefineDraft",
    "SelfRefineState",
    "add_guardrail",
    "create_guarded_model_node",
    "create_guarded_tool_node",
    "create_guardrail_node",
    "create_self_refine_graph",
    "guard_model",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
