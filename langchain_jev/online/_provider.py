"""Which decision model a deployed rule asks: the judge's own, told as LangSmith's rule names it.

A LangSmith decision-model rule asks one of three providers; a judge's model maps
to one of them, or cannot travel:

=========================================  =======================  ====================
the judge's model                          ``provider``             also sent
=========================================  =======================  ====================
`JevDecisionModel`, ``TypeSafeClassifier``  ``typesafe``             ``model``
  on Jev's own API
the same on another base URL               ``typesafe_compatible``  ``model``, ``base_url``
langchain-openai's ``OpenAIDecisions``     ``openai_decisions``     ``model``; ``base_url``,
                                                                    ``timeout_seconds``,
                                                                    ``max_retries`` when set
a `CachedDecisionModel`                    its inner model's        (the cache stays here)
a chat model, a jury, anything else        refused                  --
=========================================  =======================  ====================

No key travels: the rule's model calls carry the workspace's own secrets
(``TYPESAFE_API_KEY`` or ``OPENAI_API_KEY``), and a base URL that holds
credentials is refused without echoing them.

Example:
    >>> from langchain_jev.models import JevDecisionModel
    >>> rule_model(JevDecisionModel(model="jev-2", api_key="sk-test", base_url="https://api.typesafe.ai"))
    RuleModel(provider='typesafe', model='jev-2', base_url=None, timeout_seconds=None, max_retries=None)

"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from langchain_core.decisions import BaseDecisionModel
from typesafe_sdk.constants import BASE_URL_ENV, DEFAULT_BASE_URL

from langchain_jev._errors import JevConfigurationError

__all__ = ["Provider", "RuleModel", "rule_model"]

Provider = Literal["typesafe", "typesafe_compatible", "openai_decisions"]
"""The decision-model providers a LangSmith rule asks."""


@dataclass(frozen=True)
class RuleModel:
    """The decision model a rule asks, as the rule's body names it.

    Example:
        >>> RuleModel("typesafe_compatible", "jev-2", base_url="https://jev.example.com").body()
        {'provider': 'typesafe_compatible', 'model': 'jev-2', 'base_url': 'https://jev.example.com'}

    """

    provider: Provider
    """``typesafe``, ``typesafe_compatible`` or ``openai_decisions``."""
    model: str
    """The model's name (``jev-latest``, ``gpt-6-luna``, ...)."""
    base_url: str | None = None
    """The endpoint the rule calls directly (required for ``typesafe_compatible``)."""
    timeout_seconds: int | None = None
    """Seconds each model call may take (``openai_decisions`` only)."""
    max_retries: int | None = None
    """Retries of a failed model call (``openai_decisions`` only)."""

    def body(self) -> dict[str, Any]:
        """The rule-body fields of this model (those set)."""
        fields = {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "timeout_seconds": self.timeout_seconds,
            "max_retries": self.max_retries,
        }
        return {key: value for key, value in fields.items() if value is not None}


def rule_model(model: BaseDecisionModel) -> RuleModel:
    """The provider, model and endpoint a rule asks for ``model`` (a judge's decision model).

    Raises:
        JevConfigurationError: the model cannot travel to LangSmith (a chat model, a
            jury, a scripted or other model), or its base URL holds credentials.

    Example:
        >>> from langchain_jev.models import JevDecisionModel
        >>> rule_model(JevDecisionModel(model="jev-2", api_key="sk-test", base_url="https://jev.example.com/"))
        RuleModel(provider='typesafe_compatible', model='jev-2', base_url='https://jev.example.com', \
timeout_seconds=None, max_retries=None)

    """
    from langchain_jev.models._cache import CachedDecisionModel
    from langchain_jev.models._jev import JevDecisionModel
    from langchain_jev.models._openai_decisions import OpenAIDecisionsModel
    from langchain_jev.models._typesafe_classifier import TypeSafeClassifierDecisionModel

    while isinstance(model, CachedDecisionModel):
        model = model.inner
    if isinstance(model, JevDecisionModel):
        given = getattr(getattr(model.client or model.async_client, "_config", None), "base_url", None)
        return _typesafe(model.model, model.base_url or given or os.environ.get(BASE_URL_ENV))
    if isinstance(model, TypeSafeClassifierDecisionModel):
        return _typesafe(model.model, getattr(model.classifier, "base_url", None))
    if isinstance(model, OpenAIDecisionsModel):
        decisions = model.decisions
        timeout = getattr(decisions, "timeout", None)
        retries = getattr(decisions, "max_retries", None)
        return RuleModel(
            "openai_decisions",
            model.model,
            base_url=_endpoint(getattr(decisions, "base_url", None)),
            timeout_seconds=math.ceil(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else None,
            max_retries=retries if isinstance(retries, int) and not isinstance(retries, bool) else None,
        )
    raise JevConfigurationError(_cannot_travel(model))


def _typesafe(name: str, base_url: str | None) -> RuleModel:
    endpoint = _endpoint(base_url)
    if endpoint is None or endpoint == DEFAULT_BASE_URL.rstrip("/"):
        return RuleModel("typesafe", name)
    return RuleModel("typesafe_compatible", name, base_url=endpoint)


def _endpoint(base_url: Any) -> str | None:
    """A base URL as the rule sends it (no trailing slash), refused when it holds credentials."""
    if base_url is None or not str(base_url).strip():
        return None
    text = str(base_url).strip().rstrip("/")
    parts = urlsplit(text)
    if parts.username is not None or parts.password is not None or parts.query:
        raise JevConfigurationError(
            "the judge's decision model has a base URL with credentials or a query in it; a rule's "
            "base URL is saved in LangSmith as given, so give the URL alone (the rule's model calls "
            "carry the workspace's TYPESAFE_API_KEY or OPENAI_API_KEY secret)"
        )
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise JevConfigurationError(
            f"the judge's decision model has the base URL {parts.scheme or '(no scheme)'}://..., "
            "which a LangSmith rule cannot call: give an http(s) URL"
        )
    return text


def _cannot_travel(model: BaseDecisionModel) -> str:
    from langchain_jev.models._chat import ChatModelDecisionModel
    from langchain_jev.models._jury import JuryDecisionModel

    if isinstance(model, JuryDecisionModel):
        what = "a jury (JuryDecisionModel): a rule asks one decision model, and a jury combines several"
    elif isinstance(model, ChatModelDecisionModel):
        what = "a chat model (ChatModelDecisionModel): a LangSmith decision-model rule cannot ask one"
    else:
        what = f"a {type(model).__name__}, which LangSmith does not know"
    return (
        f"this judge's decision model cannot travel to LangSmith: it is {what}. A rule asks Jev "
        "(JevDecisionModel), a TypeSafe-compatible endpoint (JevDecisionModel(base_url=...)) or OpenAI "
        "Decisions (langchain-openai's OpenAIDecisions); give the judge one of those, or judge the "
        "project's runs with this model on the client with the monitor"
    )
