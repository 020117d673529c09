"""Errors of the chat-model decision model (defined with the others in `langchain_jev.errors`)."""

from __future__ import annotations

from langchain_jev.errors import ChatModelOutputError, LogprobsUnavailableError

__all__ = ["ChatModelOutputError", "LogprobsUnavailableError"]
