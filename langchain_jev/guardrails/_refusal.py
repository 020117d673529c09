"""A refusal's wording, and the messages that take the refused ones' place in the thread (pure).

- `default_refusal` / `refusal_text`: what a refusal says, by default or by ``refusal_message``;
- `refusal_reply`: the refusal as the AI message released in a reply's place;
- `withheld_request` / `refusal_messages`: the placeholders (same ids) that replace
  what was refused, so no later turn shows it to the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.tool import ToolCall

from langchain_jev._errors import JevConfigurationError
from langchain_jev.guardrails._categories import find_hazard
from langchain_jev.guardrails._refusal_block import refusal_metadata

if TYPE_CHECKING:
    from langchain_jev.guardrails._judged import Subject
    from langchain_jev.guardrails._policy import ExitBehavior, GuardrailReport, RefusalMessage

__all__ = [
    "WITHHELD_REQUEST",
    "WITHHELD_TOOL_RESULT",
    "default_refusal",
    "refusal_messages",
    "refusal_reply",
    "refusal_text",
    "withheld_request",
]

WITHHELD_TOOL_RESULT = "[withheld: the safety check flagged this tool result]"
"""What replaces the content of a tool result a rail flagged."""

WITHHELD_REQUEST = "[withheld: the safety check refused this request]"
"""What replaces a refused human message in the thread, so no later turn shows it to the model."""


def _titles(names: Any) -> str:
    titles = [find_hazard(name).title for name in names]
    if len(titles) <= 1:
        return "".join(titles)
    return f"{', '.join(titles[:-1])} and {titles[-1]}"


_OPENINGS: Mapping[str, str] = MappingProxyType(
    {
        "input": "I can't help with that request",
        "output": "I can't share that response",
        "tool_results": "I stopped before using a tool result",
    }
)


def default_refusal(report: GuardrailReport) -> str:
    """The default refusal wording, naming the flagged categories.

    Example:
        >>> from langchain_jev.guardrails import GuardrailReport
        >>> default_refusal(GuardrailReport("input", True, {"violent_crimes": 0.9, "hate": 0.7}))
        "I can't help with that request: it was flagged for violent crimes and hate."
        >>> default_refusal(GuardrailReport("output", True, error="TimeoutError: timed out"))
        "I can't share that response: the safety check could not be completed."

    """
    opening = _OPENINGS[report.check]
    if report.categories:
        return f"{opening}: it was flagged for {_titles(report.categories)}."
    if report.unjudgeable and report.error is None:
        return f"{opening}: it carries media the safety check cannot read."
    if report.borderline:
        return f"{opening}: the safety check was unsure about {_titles(report.borderline)}."
    if report.undecided:
        return f"{opening}: the safety check could not decide on {_titles(report.undecided)}."
    return f"{opening}: the safety check could not be completed."


def refusal_text(message: RefusalMessage | None, report: GuardrailReport) -> str:
    """The refusal text for a report: the default wording, the string, or the callable's result."""
    if message is None:
        return default_refusal(report)
    if isinstance(message, str):
        return message
    text = message(report)
    if not isinstance(text, str):
        raise JevConfigurationError(
            f"refusal_message returned {type(text).__name__}; it must return a string"
        )
    return text


def refusal_reply(report: GuardrailReport, text: str) -> AIMessage:
    """The refusal as an AI message, carrying the report under ``response_metadata["jev_guardrail"]``.

    Its content is the text; its ``content_blocks`` end with LangChain's standard
    ``refusal`` block (`langchain_jev.guardrails._refusal_block`).

    Example:
        >>> from langchain_jev.guardrails import GuardrailReport
        >>> reply = refusal_reply(GuardrailReport("output", True, {"hate": 0.9}), "No.")
        >>> reply.content, reply.response_metadata["jev_guardrail"]["categories"]
        ('No.', {'hate': 0.9})
        >>> reply.content_blocks[-1]["type"], reply.content_blocks[-1]["refusal"]
        ('refusal', 'No.')

    """
    return AIMessage(content=text, response_metadata=refusal_metadata(report.to_dict(), text))


def _withheld(message: BaseMessage, text: str) -> BaseMessage:
    """``message`` with its content withheld, in place (same id and class, so the thread stays valid)."""
    marker = {"jev_guardrail": "withheld"}
    if isinstance(message, ToolMessage):
        return ToolMessage(
            content=text,
            id=message.id,
            tool_call_id=message.tool_call_id,
            name=message.name,
            status="error",
            response_metadata=marker,
        )
    if isinstance(message, AIMessage):
        calls: list[ToolCall] = [
            ToolCall(name=c["name"], args={}, id=c.get("id"), type="tool_call") for c in message.tool_calls
        ]
        return AIMessage(content=text, id=message.id, tool_calls=calls, response_metadata=marker)
    if isinstance(message, SystemMessage):
        return SystemMessage(content=text, id=message.id, response_metadata=marker)
    if isinstance(message, FunctionMessage):
        return FunctionMessage(content=text, id=message.id, name=message.name, response_metadata=marker)
    if isinstance(message, ChatMessage):
        return ChatMessage(content=text, id=message.id, role=message.role, response_metadata=marker)
    return HumanMessage(content=text, id=message.id, response_metadata=marker)


def _replaceable(message: BaseMessage, check: str, strict: bool) -> bool:
    if message.id is not None:
        return True
    if strict:
        raise JevConfigurationError(
            f"the {check} guardrail must replace a {type(message).__name__} that has "
            "no id; keep messages in a channel with the add_messages reducer (MessagesState)"
        )
    return False


def withheld_request(
    messages: tuple[BaseMessage, ...] | list[BaseMessage],
    text: str = WITHHELD_REQUEST,
    *,
    strict: bool = False,
) -> list[BaseMessage]:
    """Placeholders for refused messages: each keeps its id, class and tool call ids; its content is withheld.

    The content is ``text``, or `WITHHELD_TOOL_RESULT` for a tool result.

    A message without an id cannot be replaced in a thread: ``strict`` raises
    `JevConfigurationError` for one (a thread's messages), else it is left out (a
    message that is not in the thread, such as a system prompt added at the call).
    """
    return [
        _withheld(m, WITHHELD_TOOL_RESULT if isinstance(m, ToolMessage) else text)
        for m in messages
        if _replaceable(m, "input", strict)
    ]


def refusal_messages(
    subject: Subject,
    report: GuardrailReport,
    text: str,
    exit_behavior: ExitBehavior = "end",
    *,
    strict: bool = True,
) -> list[BaseMessage]:
    """The message updates of a refusal, for a ``messages`` channel with the add_messages reducer.

    - input: every message judged is replaced in the thread by a placeholder
      (`WITHHELD_REQUEST`, same id, class and tool call ids), so no later turn
      shows it to the model, and the refusal is appended (``"replace"``: the last
      placeholder is the refusal text, and nothing is appended: the model answers it);
    - output: the checked AI message is removed and the refusal appended;
    - tool results: the flagged tool messages keep their ids and tool call ids but
      their content is withheld, and the refusal is appended (``"replace"``: not
      appended, the model reads the withheld results).

    Raises:
        JevConfigurationError: with ``strict``, a message to replace has no id (the
            messages channel does not use the add_messages reducer), so it cannot
            be replaced; without ``strict`` such messages are left out.

    """
    refusal = refusal_reply(report, text)
    if report.check == "input":
        updates = withheld_request(subject.messages, strict=strict)
        if exit_behavior == "replace":
            if updates:
                updates[-1] = _withheld(updates[-1], text)
            return updates
        return [*updates, refusal]
    updates = []
    for message in subject.messages:
        if not _replaceable(message, report.check, strict) or message.id is None:
            continue
        if isinstance(message, ToolMessage):
            updates.append(_withheld(message, WITHHELD_TOOL_RESULT))
        else:
            updates.append(RemoveMessage(id=message.id))
    if report.check == "tool_results" and exit_behavior == "replace":
        return updates
    return [*updates, refusal]
