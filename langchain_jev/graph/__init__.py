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

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
