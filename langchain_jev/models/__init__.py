"""Decision models a judge can ask: Jev, any chat model, and adapters."""

from langchain_jev.models.jev import JevDecisionModel
from langchain_jev.models.resolve import as_decision_model
from langchain_jev.models.response import DecisionResponse

__all__ = ["DecisionResponse", "JevDecisionModel", "as_decision_model"]
