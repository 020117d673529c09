"""Errors of the chat-model decision model (defined with the others in `langchain_jev._errors`)."""

from __future__ import annotations

from langchain_jev._errors import ChatModelOutputError, LogprobsUnavailableError

__all__ = ["ChatModelOutputError", "LogprobsUnavailableError"]
