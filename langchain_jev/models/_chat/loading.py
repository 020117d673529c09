"""Turning what a user passes as the chat model into a `BaseChatModel`, and naming it."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel

from langchain_jev._errors import JevConfigurationError
from langchain_jev._extras import install_hint

__all__ = ["chat_model_name", "chat_model_provider", "load_chat_model"]


def load_chat_model(chat_model: Any) -> BaseChatModel:
    """Return ``chat_model`` as a `BaseChatModel`; a ``"provider:model"`` string is initialised.

    A string goes to ``langchain.chat_models.init_chat_model``, which needs the
    ``chat`` extra (``pip install -e ".[chat]"`` in a checkout) and the
    provider's own package (for example ``langchain-openai``).

    Raises:
        JevConfigurationError: not a chat model or a string, or ``langchain`` is missing.

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> fake = GenericFakeChatModel(messages=iter([]))
        >>> load_chat_model(fake) is fake
        True

    """
    if isinstance(chat_model, BaseChatModel):
        return chat_model
    if isinstance(chat_model, str):
        if not chat_model.strip():
            raise JevConfigurationError("chat_model must not be an empty string")
        try:
            from langchain.chat_models import init_chat_model
        except ImportError:
            raise JevConfigurationError(
                f"chat_model {chat_model!r} is a model string, which needs langchain's "
                f"init_chat_model: {install_hint('chat')} or pass a BaseChatModel instance"
            ) from None
        model = init_chat_model(chat_model)
        if not isinstance(model, BaseChatModel):
            raise JevConfigurationError(
                f"chat_model {chat_model!r} did not resolve to a BaseChatModel, got {type(model).__name__}"
            )
        return model
    raise JevConfigurationError(
        "chat_model must be a LangChain BaseChatModel or a 'provider:model' string, "
        f"got {type(chat_model).__name__}"
    )


def _ls_params(chat_model: BaseChatModel) -> dict[str, Any]:
    try:
        return dict(chat_model._get_ls_params())
    except Exception:  # a provider's tracing parameters must not stop the judge
        return {}


def chat_model_name(chat_model: BaseChatModel) -> str:
    """The chat model's name as tracing reports it (``ls_model_name``), else its type.

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> chat_model_name(GenericFakeChatModel(messages=iter([])))
        'generic-fake-chat-model'

    """
    name = _ls_params(chat_model).get("ls_model_name")
    for candidate in (name, getattr(chat_model, "model_name", None), getattr(chat_model, "model", None)):
        if isinstance(candidate, str) and candidate:
            return candidate
    return chat_model._llm_type


def chat_model_provider(chat_model: BaseChatModel) -> str:
    """The chat model's provider as tracing reports it (``ls_provider``), else its type.

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> chat_model_provider(GenericFakeChatModel(messages=iter([])))
        'genericfakechatmodel'

    """
    provider = _ls_params(chat_model).get("ls_provider")
    return provider if isinstance(provider, str) and provider else chat_model._llm_type
