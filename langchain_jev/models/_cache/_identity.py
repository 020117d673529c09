"""What tells one decision model's answers from another's: its identity, part of every cache key."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from langchain_core.decisions import BaseDecisionModel
from langchain_core.runnables import Runnable

__all__ = ["model_identity"]

_ENDPOINT_ATTRIBUTES = (
    "base_url",
    "openai_api_base",
    "anthropic_api_url",
    "api_base",
    "api_url",
    "azure_endpoint",
    "endpoint",
    "endpoint_url",
)
_SETTINGS = ("strategy", "system_message", "top_logprobs", "combine", "disagreement", "quorum")
"""Settings that shape a model's answers: a chat model's strategy and prompt, a jury's combining."""


def model_identity(model: Any) -> dict[str, Any]:
    """What tells one decision model's answers from another's, for the cache key.

    Wrappers that do not change answers (pacing) are looked through. The identity
    holds the model's class, its name, its endpoint (``base_url`` of a Jev model or
    of a langchain-typesafe classifier, the base URL of a chat model) and the
    settings that shape a chat model's answers; and, under ``parts``, the identity
    of every model it is made of (the classifier an adapter wraps, the models of a
    jury or of any other wrapper, another cache's model), so a model asked at
    another endpoint, however deep, is asked again. Secrets never take part.

    Example:
        >>> from langchain_jev.models import JevDecisionModel
        >>> one = model_identity(JevDecisionModel(api_key="k", base_url="http://a.test"))
        >>> other = model_identity(JevDecisionModel(api_key="k", base_url="http://b.test"))
        >>> one["endpoint"], one == other
        ('http://a.test', False)

    """
    return _identity(model, 0)


_PARTS_DEPTH = 8
"""How deeply models made of models are followed (deeper parts count by class alone)."""
_NOT_PARTS = frozenset({"inner", "chat_model", "cache", "client", "async_client"})
"""Fields that are looked through or read apart, not listed among the parts."""


def _identity(model: Any, depth: int) -> dict[str, Any]:
    while isinstance(getattr(model, "inner", None), BaseDecisionModel) and not _is_cache(model):
        model = model.inner
    name = getattr(model, "model", None)
    identity: dict[str, Any] = {
        "class": f"{type(model).__module__}.{type(model).__qualname__}",
        "model": name if name is None or isinstance(name, (str, int, float, bool)) else str(name),
        "endpoint": _endpoint(model),
    }
    chat = getattr(model, "chat_model", None)
    if chat is not None:
        identity["chat_model"] = f"{type(chat).__module__}.{type(chat).__qualname__}"
        identity["endpoint"] = identity["endpoint"] or _endpoint(chat)
        for name in ("model_name", "model", "temperature"):
            value = getattr(chat, name, None)
            if value is None or isinstance(value, (str, int, float, bool)):
                identity[f"chat_{name}"] = value
    for name in _SETTINGS:
        value = getattr(model, name, None)
        if value is not None and isinstance(value, (str, int, float, bool)):
            identity[name] = value
    if _is_cache(model):
        identity["parts"] = {"inner": _identity(model.inner, depth + 1)}
    elif depth < _PARTS_DEPTH:
        parts = {key: value for key, value in _parts(model, depth) if value is not None}
        if parts:
            identity["parts"] = parts
    return identity


def _is_cache(model: Any) -> bool:
    """A cached model (it says so with ``answers_from_cache``): listed with its inner model as its part."""
    return getattr(type(model), "answers_from_cache", False) is True


def _parts(model: Any, depth: int) -> Iterator[tuple[str, Any]]:
    """The identity of each model a model holds in its fields: one, or a list or mapping of them."""
    fields = getattr(type(model), "model_fields", None)
    if not isinstance(fields, Mapping):
        return
    for key in fields:
        if key in _NOT_PARTS:
            continue
        value = getattr(model, key, None)
        if _is_model(value):
            yield key, _identity(value, depth + 1)
        elif isinstance(value, Mapping) and value and all(_is_model(item) for item in value.values()):
            yield key, {str(k): _identity(item, depth + 1) for k, item in value.items()}
        elif (
            isinstance(value, Sequence)
            and not isinstance(value, (str, bytes))
            and value
            and all(_is_model(item) for item in value)
        ):
            yield key, [_identity(item, depth + 1) for item in value]


def _is_model(value: Any) -> bool:
    """A decision model, a chat model, a classifier: anything that answers (a LangChain Runnable)."""
    return isinstance(value, (BaseDecisionModel, Runnable))


def _endpoint(obj: Any) -> str | None:
    for name in ("client", "async_client"):  # a client given to the model is where it asks
        config = getattr(getattr(obj, name, None), "_config", None)
        value = getattr(config, "base_url", None)
        if isinstance(value, str) and value:
            return value.rstrip("/")
    for name in _ENDPOINT_ATTRIBUTES:
        value = getattr(obj, name, None)
        if isinstance(value, str) and value:
            return value.rstrip("/")
        if value is not None and not isinstance(value, (bool, int, float)) and str(value).startswith("http"):
            return str(value).rstrip("/")
    for name in ("root_client", "root_async_client"):  # a provider SDK's client (langchain-openai's)
        value = getattr(getattr(obj, name, None), "base_url", None)
        if value is not None and str(value).startswith("http"):
            return str(value).rstrip("/")
    return None
