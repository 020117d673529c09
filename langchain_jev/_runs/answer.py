"""The answer of a run's outputs, whatever the shape of what the target returned."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from langchain_jev._conversation import message_text
from langchain_jev._runs.keys import ANSWER_KEYS, CONTEXT_KEYS, MESSAGES_KEY, STRUCTURED_KEY
from langchain_jev._runs.values import as_text, first_key, read_message, read_messages

__all__ = ["Reply", "answer_from_outputs", "messages_reply", "read_reply", "value_reply"]


def answer_from_outputs(outputs: Mapping[str, Any]) -> str | None:
    """The answer of run outputs, whatever the shape of what the target returned; None when there is none.

    In order: outputs that are a message's own fields (LangSmith records a target
    that returned a message so) give its text; an `ANSWER_KEYS` value; an agent's
    ``structured_response`` (an agent built with a ``response_format``, whose last
    AI message is the call of the structured-output tool), as JSON; the final AI
    message of ``messages``; else the one value beside the documents; else those
    values together, as JSON (LangSmith records a pydantic model or a dataclass
    returned as a mapping so as its fields). A value that is a list of messages
    gives its final AI message: the last one without tool calls after the last
    human message. Messages, documents and other values are read as text.

    Outputs that name an answer key, ``messages`` or ``structured_response`` but
    give nothing under it have no answer.

    Example:
        >>> answer_from_outputs({"output": "Rayleigh scattering."})
        'Rayleigh scattering.'
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> answer_from_outputs({"output": AIMessage("Hello!")})
        'Hello!'
        >>> answer_from_outputs({"output": [HumanMessage("Hi"), AIMessage("Hello!")]})
        'Hello!'
        >>> answer_from_outputs({"content": "Hello!", "type": "ai", "tool_calls": []})
        'Hello!'
        >>> answer_from_outputs({"messages": [{"role": "user", "content": "Hi"},
        ...                                   {"role": "assistant", "content": "Hello!"}]})
        'Hello!'
        >>> answer_from_outputs({"messages": [], "structured_response": {"city": "Paris"}})
        '{"city": "Paris"}'
        >>> answer_from_outputs({"label": "positive"})
        'positive'
        >>> answer_from_outputs({"city": "Paris", "country": "France"})
        '{"city": "Paris", "country": "France"}'

    """
    reply = read_reply(outputs)
    return None if reply is None else reply.answer


@dataclasses.dataclass(frozen=True)
class Reply:
    """The answer read from outputs, and the conversation it closes when it came from messages."""

    answer: str
    messages: Sequence[BaseMessage] = ()
    """The messages the answer was read from (their tool calls are the turn's)."""
    asked: Sequence[BaseMessage] = ()
    """The messages before the answer, up to the last human message (the question)."""


def read_reply(outputs: Mapping[str, Any]) -> Reply | None:
    """Where `answer_from_outputs` finds the answer."""
    message = read_message(outputs)
    if message is not None:
        return Reply(message_text(message), [message])
    key = first_key(outputs, ANSWER_KEYS)
    if key is not None:
        return value_reply(outputs[key])
    if outputs.get(STRUCTURED_KEY) is not None:
        return Reply(as_text(outputs[STRUCTURED_KEY]))
    messages = read_messages(outputs.get(MESSAGES_KEY))
    if messages:
        return messages_reply(messages)
    if any(name in outputs for name in (*ANSWER_KEYS, STRUCTURED_KEY, MESSAGES_KEY)):
        return None  # the answer's own key is there, empty: nothing else stands in for it
    rest = {k: v for k, v in outputs.items() if k not in CONTEXT_KEYS and v is not None}
    if not rest:
        return None
    if len(rest) == 1:
        return value_reply(next(iter(rest.values())))
    return Reply(as_text(rest))


def value_reply(value: Any) -> Reply | None:
    """An output value as the answer: a list of messages gives its final AI message."""
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) and value:
        messages = [read_message(item) for item in value]
        if all(m is not None for m in messages):
            return messages_reply([m for m in messages if m is not None])
    return Reply(as_text(value))


def messages_reply(messages: Sequence[BaseMessage]) -> Reply | None:
    """The final AI message of a conversation (the last without tool calls after the last human one)."""
    last_human = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    for index in range(len(messages) - 1, last_human, -1):
        message = messages[index]
        if isinstance(message, AIMessage) and not message.tool_calls:
            return Reply(message_text(message), messages, messages[: last_human + 1])
    return None
