"""Turning whatever a user passes as ``model=`` into a decision model."""

from __future__ import annotations

from typing import Any

from langchain_core.decisions import BaseDecisionModel

from langchain_jev._errors import JevConfigurationError
from langchain_jev.models._secrets import remember_settings

__all__ = ["as_decision_model"]


def as_decision_model(model: Any) -> BaseDecisionModel:
    """Return ``model`` as a `BaseDecisionModel`.

    Accepts a `BaseDecisionModel` (as is); None (a `JevDecisionModel` from the
    environment); a typesafe-sdk ``TypeSafeClient`` or ``AsyncTypeSafeClient``
    (wrapped in a `JevDecisionModel`); langchain-typesafe's ``TypeSafeClassifier``
    (adapted); langchain-openai's ``OpenAIDecisions`` or ``OpenAIClassifier`` (adapted as
    an ``OpenAIDecisionsModel``, a refused answer that criterion's ERROR); a LangChain
    chat model (wrapped in a ``ChatModelDecisionModel``);
    a ``"provider:model"`` string such as ``"openai:gpt-4o-mini"`` (a chat model
    made by LangChain's ``init_chat_model``, which needs the ``chat`` extra and the
    provider's package), ``"jev:NAME"`` for a `JevDecisionModel` of that model, or
    ``"openai-decisions:NAME"`` for langchain-openai's ``OpenAIDecisions`` of that model
    (its key from ``OPENAI_API_KEY``).

    Raises:
        JevConfigurationError: anything else, a string that is not ``provider:model``,
            a provider LangChain does not know, or a string without the ``chat`` extra
            (the message gives the ``pip install`` line).

    Every secret setting of the model (see `langchain_jev.models._secrets.SECRET_SETTINGS`:
    a member's ``api_key``, a chat model's key or ``Authorization`` header) is known as
    a key from here on, so it is redacted from every result, trace, comment and error.

    Example:
        >>> type(as_decision_model("jev:jev-2")).__name__, as_decision_model("jev:jev-2").model
        ('JevDecisionModel', 'jev-2')
        >>> as_decision_model("gpt-4o-mini")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JevConfigurationError: model 'gpt-4o-mini': a model string names its provider...

    """
    resolved = _resolved(model)
    remember_settings(resolved)  # every secret setting it holds is redacted wherever the package writes
    return resolved


def _resolved(model: Any) -> BaseDecisionModel:
    from langchain_jev.models._openai_decisions import OpenAIDecisionsModel, is_openai_decisions

    if is_openai_decisions(model):  # OpenAIClassifier too: on its own, one refusal sinks every answer
        return OpenAIDecisionsModel(decisions=model)
    if isinstance(model, BaseDecisionModel):
        return model
    if isinstance(model, str):
        return _from_string(model)
    from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient

    from langchain_jev.models._jev import JevDecisionModel

    if model is None:
        return JevDecisionModel()
    if isinstance(model, TypeSafeClient):
        return JevDecisionModel(client=model)
    if isinstance(model, AsyncTypeSafeClient):
        return JevDecisionModel(async_client=model)
    if type(model).__name__ == "TypeSafeClassifier" and type(model).__module__.startswith(
        "langchain_typesafe"
    ):
        from langchain_jev.models._typesafe_classifier import TypeSafeClassifierDecisionModel

        return TypeSafeClassifierDecisionModel(classifier=model)
    from langchain_core.language_models import BaseChatModel

    if isinstance(model, BaseChatModel):
        from langchain_jev.models._chat import ChatModelDecisionModel

        return ChatModelDecisionModel(model)
    raise JevConfigurationError(
        "model must be a langchain_core BaseDecisionModel, a typesafe-sdk TypeSafeClient or "
        "AsyncTypeSafeClient, a langchain-typesafe TypeSafeClassifier, a langchain-openai "
        "OpenAIDecisions, a LangChain chat model, "
        "a 'provider:model' string (e.g. 'openai:gpt-4o-mini'), "
        f"or None for Jev from the environment; got {type(model).__name__}"
    )


_JEV_PROVIDERS = ("jev", "typesafe")
_OPENAI_DECISIONS = "openai-decisions"


def _from_string(text: str) -> BaseDecisionModel:
    """A decision model named by a ``provider:model`` string."""
    provider, colon, name = (part.strip() for part in text.strip().partition(":"))
    if not (colon and provider and name):
        raise JevConfigurationError(
            f"model {text!r}: a model string names its provider, as 'provider:model' (for example "
            "'openai:gpt-4o-mini', or 'jev:jev-latest' for Jev); or pass a chat model or decision model"
        )
    if provider.lower() in _JEV_PROVIDERS:
        from langchain_jev.models._jev import JevDecisionModel

        return JevDecisionModel(model=name)
    if provider.lower() == _OPENAI_DECISIONS:
        from langchain_jev.models._openai_decisions import from_model_name

        return from_model_name(name)
    from langchain_jev.models._chat import ChatModelDecisionModel

    try:
        return ChatModelDecisionModel(f"{provider}:{name}")
    except JevConfigurationError:
        raise
    except ValueError as error:
        if "model_provider" not in str(error) and "model provider" not in str(error):
            raise
        raise JevConfigurationError(
            f"model {text!r}: LangChain knows no chat model provider {provider!r}; write "
            "'provider:model' with a provider of langchain's init_chat_model (openai, anthropic, "
            "google_genai, mistralai, ollama, ...), 'jev:NAME' for Jev, or pass a chat model instance"
        ) from None
