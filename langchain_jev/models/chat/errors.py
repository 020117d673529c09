"""Errors of the chat-model decision model."""

from __future__ import annotations

from langchain_jev.errors import JevError

__all__ = ["ChatModelOutputError", "LogprobsUnavailableError"]


class ChatModelOutputError(JevError, ValueError):
    """The chat model's reply could not be read, even after a corrective retry.

    The message says what failed and shows the start of the raw output, so the
    cause can be seen without a trace.

    Example:
        >>> try:
        ...     raise ChatModelOutputError("the reply is not valid JSON; raw output: 'Sure!'")
        ... except ValueError as error:
        ...     print(error)
        the reply is not valid JSON; raw output: 'Sure!'

    """


class LogprobsUnavailableError(ChatModelOutputError):
    """The ``"logprobs"`` strategy got a reply without token log-probabilities.

    Probabilities are never invented: use a provider that returns OpenAI-style
    ``logprobs`` (ChatOpenAI, vLLM, Ollama's OpenAI-compatible endpoint), or the
    ``"structured"`` or ``"auto"`` strategy.

    Example:
        >>> issubclass(LogprobsUnavailableError, ChatModelOutputError)
        True

    """
