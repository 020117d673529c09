"""The guardrail core: hazard catalogue, batteries, what a rail judges, policy and the rail itself.

Nothing here imports LangGraph or LangChain agents: the LangGraph nodes
(`langchain_jev.graph`) and the agent middleware (`langchain_jev.middleware`)
are thin spokes over it.

- `catalog`: the hazard categories (MLCommons S1-S14, prompt injection, jailbreak) and strictness presets;
- `battery`: `HazardBattery`, the prescribed questions of one direction, asked in one request;
- `subjects`: what a rail judges, read from the messages of a turn;
- `policy`: the report of a check, refusal wording, and the policy (mode, on_error, exit behaviour);
- `rail`: one check of one direction, with its policy applied;
- `hidden`: the config of runs no stream consumer may see (a rail's battery, an unchecked draft).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.errors import GuardrailRefusedError, GuardrailUndecidedError
    from langchain_jev.guardrails.battery import HazardAssessment, HazardBattery
    from langchain_jev.guardrails.catalog import HAZARDS, STRICTNESS_PRESETS, Hazard
    from langchain_jev.guardrails.policy import GuardrailPolicy, GuardrailReport

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "GuardrailPolicy": "langchain_jev.guardrails.policy",
    "GuardrailReport": "langchain_jev.guardrails.policy",
    "GuardrailRefusedError": "langchain_jev.errors",
    "GuardrailUndecidedError": "langchain_jev.errors",
    "HAZARDS": "langchain_jev.guardrails.catalog",
    "Hazard": "langchain_jev.guardrails.catalog",
    "HazardAssessment": "langchain_jev.guardrails.battery",
    "HazardBattery": "langchain_jev.guardrails.battery",
    "STRICTNESS_PRESETS": "langchain_jev.guardrails.catalog",
}

__all__ = [
    "GuardrailPolicy",
    "GuardrailReport",
    "GuardrailRefusedError",
    "GuardrailUndecidedError",
    "HAZARDS",
    "Hazard",
    "HazardAssessment",
    "HazardBattery",
    "STRICTNESS_PRESETS",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
