"""LangGraph nodes and graphs of langchain-jev.

Names are imported lazily, so importing this package stays cheap.
"""

from __future__ import annotations

from langchain_jev._lazy import lazy_exports

# public name -> module that defines it (each spoke adds its own lines)
_EXPORTS: dict[str, str] = {
    "GuardrailReport": "langchain_jev.graph.guardrail_policy",
    "GuardrailState": "langchain_jev.graph.guardrail",
    "GuardrailUndecidedError": "langchain_jev.graph.guardrail_policy",
    "HAZARDS": "langchain_jev.graph.hazard_catalog",
    "Hazard": "langchain_jev.graph.hazard_catalog",
    "HazardAssessment": "langchain_jev.graph.hazards",
    "HazardBattery": "langchain_jev.graph.hazards",
    "STRICTNESS_PRESETS": "langchain_jev.graph.hazard_catalog",
    "SelfRefineDraft": "langchain_jev.refine",
    "SelfRefineState": "langchain_jev.graph.self_refine",
    "create_guarded_model_node": "langchain_jev.graph.guardrail_model",
    "create_guardrail_node": "langchain_jev.graph.guardrail",
    "create_self_refine_graph": "langchain_jev.graph.self_refine",
    "guard_model": "langchain_jev.graph.guardrail_model",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
