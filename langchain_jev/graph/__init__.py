"""LangGraph nodes and graphs of langchain-jev: self-refine, the guardrail node, the guarded model node.

`add_guardrail` wires a guardrail node into a `StateGraph` so a refusal ends the
turn (no edge out of it) and its report is kept; a node wired by hand is checked
on its first run (`GuardrailWiringWarning` when the state drops the report).

The guardrail core they use lives in `langchain_jev.guardrails`; its public
names are re-exported here too. Names are imported lazily, so importing this
package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.errors import GuardrailCheckError, GuardrailRefusedError, GuardrailUndecidedError
    from langchain_jev.graph.builder import add_guardrail
    from langchain_jev.graph.guarded_model import (
        create_guarded_model_node,
        create_guarded_tool_node,
        guard_model,
    )
    from langchain_jev.graph.guardrail import GuardrailState, create_guardrail_node
    from langchain_jev.graph.self_refine import SelfRefineState, create_self_refine_graph
    from langchain_jev.graph.wiring import GuardrailWiringWarning
    from langchain_jev.guardrails.battery import HazardAssessment, HazardBattery
    from langchain_jev.guardrails.catalog import HAZARDS, STRICTNESS_PRESETS, Hazard
    from langchain_jev.guardrails.policy import GuardrailReport
    from langchain_jev.guardrails.review import review_token
    from langchain_jev.guardrails.settings import GuardrailSettings
    from langchain_jev.refine import SelfRefineDraft

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "GuardrailCheckError": "langchain_jev.errors",
    "GuardrailSettings": "langchain_jev.guardrails.settings",
    "review_token": "langchain_jev.guardrails.review",
    "GuardrailReport": "langchain_jev.guardrails.policy",
    "GuardrailState": "langchain_jev.graph.guardrail",
    "GuardrailRefusedError": "langchain_jev.errors",
    "GuardrailUndecidedError": "langchain_jev.errors",
    "GuardrailWiringWarning": "langchain_jev.graph.wiring",
    "HAZARDS": "langchain_jev.guardrails.catalog",
    "Hazard": "langchain_jev.guardrails.catalog",
    "HazardAssessment": "langchain_jev.guardrails.battery",
    "HazardBattery": "langchain_jev.guardrails.battery",
    "STRICTNESS_PRESETS": "langchain_jev.guardrails.catalog",
    "SelfRefineDraft": "langchain_jev.refine",
    "SelfRefineState": "langchain_jev.graph.self_refine",
    "add_guardrail": "langchain_jev.graph.builder",
    "create_guarded_model_node": "langchain_jev.graph.guarded_model",
    "create_guarded_tool_node": "langchain_jev.graph.guarded_model",
    "create_guardrail_node": "langchain_jev.graph.guardrail",
    "create_self_refine_graph": "langchain_jev.graph.self_refine",
    "guard_model": "langchain_jev.graph.guarded_model",
}

__all__ = [
    "GuardrailCheckError",
    "GuardrailSettings",
    "GuardrailReport",
    "GuardrailState",
    "GuardrailRefusedError",
    "GuardrailUndecidedError",
    "GuardrailWiringWarning",
    "HAZARDS",
    "Hazard",
    "HazardAssessment",
    "HazardBattery",
    "STRICTNESS_PRESETS",
    "SelfRefineDraft",
    "SelfRefineState",
    "add_guardrail",
    "create_guarded_model_node",
    "create_guarded_tool_node",
    "create_guardrail_node",
    "create_self_refine_graph",
    "guard_model",
    "review_token",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
