"""Reading what a chat model returned: its reply as a message and a parsed payload, then as answers.

`message_reply`, `structured_reply` and `native_reply` read the output of a plain, a
``with_structured_output`` and a bound structured call into a `Reply`; `read_reply` reads a
reply's answers (from its payload as written, else from its text); `raw_text` is the reply
as text, for a corrective retry and an error; `Tally` sums the replies of one classification.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.decisions import Question
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.ai import UsageMetadata, add_usage
from langchain_core.runnables import Runnable

from langchain_jev._conversation import message_text
from langchain_jev.models import _unique_json as unique_json
from langchain_jev.models._chat.parse import Reading, read_payload, read_text
from langchain_jev.models._chat.schema import SCHEMA_TITLE

__all__ = [
    "Reply",
    "Tally",
    "bound_model",
    "message_reply",
    "native_reply",
    "raw_text",
    "read_reply",
    "structured_reply",
]


@dataclass(frozen=True)
class Reply:
    """What came back for one request."""

    message: AIMessage
    parsed: Any = None
    """The structured output as the model's parser read it, or None (read the text)."""


@dataclass
class Tally:
    """The replies of one classification, for usage and the model name."""

    messages: list[AIMessage] = field(default_factory=list)
    fell_back: bool = False

    def add(self, outcomes: Sequence[Reply | Exception]) -> None:
        self.messages.extend(o.message for o in outcomes if isinstance(o, Reply))

    def usage(self) -> UsageMetadata | None:
        total: UsageMetadata | None = None
        for message in self.messages:
            if message.usage_metadata is not None:
                total = add_usage(total, message.usage_metadata)
        return total

    def model(self, default: str) -> str:
        for message in self.messages:
            name = message.response_metadata.get("model_name")
            if isinstance(name, str) and name:
                return name
        return default


def _as_ai(message: Any) -> AIMessage:
    if isinstance(message, AIMessage):
        return message
    if isinstance(message, BaseMessage):
        return AIMessage(content=message.content, response_metadata=message.response_metadata)
    return AIMessage(content=str(message))


def message_reply(output: Any) -> Reply:
    """Read what a plain (or logprobs-bound) chat model call returned."""
    return Reply(_as_ai(output))


def structured_reply(output: Any) -> Reply:
    """Read what ``with_structured_output(..., include_raw=True)`` returned."""
    if isinstance(output, BaseMessage):
        return Reply(_as_ai(output))
    if isinstance(output, Mapping) and "raw" in output:
        return Reply(_as_ai(output["raw"]), output.get("parsed"))
    return Reply(AIMessage(content=json.dumps(output, default=str)), output)


def native_reply(output: Any) -> Reply:
    """Read what the model bound for structured output returned: its tool call's arguments, else its text."""
    message = _as_ai(output)
    calls = message.tool_calls
    if calls:
        named = [call for call in calls if call.get("name") == SCHEMA_TITLE]
        return Reply(message, (named or calls)[0].get("args"))
    return Reply(message)


def bound_model(structured: Runnable[Any, Any]) -> Runnable[Any, Any] | None:
    """The chat model as ``with_structured_output(..., include_raw=True)`` binds it, or None.

    LangChain's chat models return ``RunnableMap(raw=bound_model) | parsers``; calling the
    bound model alone sends the same request, and the reply is read here, without the
    parsers' steps (which an async call would run in threads).
    """
    steps = getattr(getattr(structured, "first", None), "steps__", None)
    bound = steps.get("raw") if isinstance(steps, Mapping) and len(steps) == 1 else None
    return bound if isinstance(bound, Runnable) else None


def raw_text(message: AIMessage) -> str:
    """The reply as text: its text, else its tool-call arguments as sent (or as JSON, once parsed)."""
    text = message_text(message)
    if text.strip():
        return text
    if message.tool_calls:
        sent = next(_sent_arguments(message), None)
        parsed = message.tool_calls[0].get("args", {})
        return sent if sent is not None else json.dumps(parsed, ensure_ascii=False)
    if message.invalid_tool_calls:
        return str(message.invalid_tool_calls[0].get("args") or "")
    return text


def _sent_arguments(message: AIMessage) -> Iterator[str]:
    """The tool-call arguments as the model wrote them (OpenAI's wire form keeps them as JSON text)."""
    calls = message.additional_kwargs.get("tool_calls")
    for call in calls if isinstance(calls, list) else ():
        function = call.get("function") if isinstance(call, Mapping) else None
        arguments = function.get("arguments") if isinstance(function, Mapping) else None
        if isinstance(arguments, str):
            yield arguments


def _as_written(message: AIMessage, parsed: Any) -> Any:
    """A structured reply read from the JSON text it was parsed from, by the one rule of `unique_json`.

    A provider's parser keeps the last of a key given twice; where the reply's JSON
    text is at hand (its tool-call arguments as sent, or its text), the text that
    parses to ``parsed`` is read again so that an answer given twice is seen as
    ambiguous, never picked. Elsewhere ``parsed`` is what there is.
    """
    texts = [*_sent_arguments(message), message_text(message)]
    for text in texts:
        if not text.strip():
            continue
        try:
            if json.loads(text) != parsed:
                continue
            return unique_json.loads(text)[0]
        except (ValueError, RecursionError):
            continue
    return parsed


def read_reply(reply: Reply, questions: Mapping[str, Question]) -> Reading:
    if reply.parsed is not None:
        return read_payload(_as_written(reply.message, reply.parsed), questions)
    return read_text(raw_text(reply.message), questions)
