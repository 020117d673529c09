"""Turning whatever a user passes as ``model=`` into a decision model."""

from __future__ import annotations

from typing import Any

from langchain_core.decisions import BaseDecisionModel

from langchain_jev.errors import JevConfigurationError

__all__ = ["as_decision_model"]


def as_decision_model(model: Any) -> BaseDecisionModel:
    """Return ``model`` as a `BaseDecisionModel`.

    Accepts a `BaseDecisionModel` (as is); None (a `JevDecisionModel` from the
    environment); a typesafe-sdk ``TypeSafeClient`` or ``AsyncTypeSafeClient``
    (wrapped in a `JevDecisionModel`); langchain-typesafe's ``TypeSafeClassifier``
    (adapted); a LangChain chat model (wrapped in a ``ChatModelDecisionModel``).
    """
    if isinstance(model, BaseDecisionModel):
        return model
    from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient

    from langchain_jev.models.jev import JevDecisionModel

    if model is None:
        return JevDecisionModel()
    if isinstance(model, TypeSafeClient):
        return JevDecisionModel(client=model)
    if isinstance(model, AsyncTypeSafeClient):
        return JevDecisionModel(async_client=model)
    if type(model).__name__ == "TypeSafeClassifier" and type(model).__module__.startswith(
        "langchain_typesafe"
    ):
        from langchain_jev.models.typesafe_classifier import TypeSafeClassifierDecisionModel

        return TypeSafeClassifierDecisionModel(classifier=model)
    from langchain_core.language_models import BaseChatModel

    if isinstance(model, BaseChatModel):
        from langchain_jev.models.chat import ChatModelDecisionModel

        return ChatModelDecisionModel(model)
    raise JevConfigurationError(
        "model must be a langchain_core BaseDecisionModel, a typesafe-sdk TypeSafeClient or "
        "AsyncTypeSafeClient, a langchain-typesafe TypeSafeClassifier, a LangChain chat model, "
        f"or None for Jev from the environment; got {type(model).__name__}"
    )
