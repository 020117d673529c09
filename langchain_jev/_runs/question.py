"""The question of a run's (or an example's) inputs, and the conversation it was asked in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage

from langchain_jev._conversation import message_text
from langchain_jev._runs.keys import MESSAGES_KEY, QUESTION_KEYS, RUNNABLE_INPUT_KEY
from langchain_jev._runs.values import as_text, first_key, read_message, read_messages

__all__ = [
    "asked_in",
    "conversation_from_inputs",
    "from_conversation",
    "question_from_inputs",
    "unwrap_inputs",
]

_ROLES = {"human": "user", "ai": "assistant"}


def unwrap_inputs(inputs: Mapping[str, Any]) -> Mapping[str, Any]:
    """The example inputs inside a run's inputs: wrappers that tracing added are opened.

    LangSmith records a Runnable target (a compiled graph, ``graph.invoke``, an LCEL
    chain, an agent) as ``{"input": <example inputs>, "config": ..., ...}``, and a
    function target under the name of its one argument: ``{"x": <example inputs>}``.
    Both are opened (a few levels at most); anything else is returned as it is.

    Example:
        >>> unwrap_inputs({"input": {"question": "Capital of France?"}, "config": None})
        {'question': 'Capital of France?'}
        >>> unwrap_inputs({"x": {"question": "Capital of France?"}})
        {'question': 'Capital of France?'}
        >>> unwrap_inputs({"question": "Capital of France?"})
        {'question': 'Capital of France?'}

    """
    for _ in range(4):
        wrapped = inputs.get(RUNNABLE_INPUT_KEY)
        others = {*QUESTION_KEYS, MESSAGES_KEY} - {RUNNABLE_INPUT_KEY}
        if not (isinstance(wrapped, Mapping) and not any(inputs.get(k) is not None for k in others)):
            wrapped = next(iter(inputs.values())) if len(inputs) == 1 else None
        if not isinstance(wrapped, Mapping) or read_message(wrapped) is not None:
            return inputs
        inputs = wrapped
    return inputs


def question_from_inputs(inputs: Mapping[str, Any]) -> str | None:
    """The question of run or example inputs: a `QUESTION_KEYS` value, else the last human message.

    The inputs are opened first (`unwrap_inputs`). A conversation is read under
    ``messages``, or under a question key that holds a list of messages.

    Example:
        >>> question_from_inputs({"query": "Why is the sky blue?"})
        'Why is the sky blue?'
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> question_from_inputs({"messages": [HumanMessage("Hi"), AIMessage("Hello"),
        ...                                    HumanMessage("How are you?")]})
        'How are you?'
        >>> question_from_inputs({"input": {"question": "Capital of France?"}, "config": None})
        'Capital of France?'

    """
    asked = asked_in(inputs)
    return None if asked is None else asked[0]


def conversation_from_inputs(inputs: Mapping[str, Any]) -> list[dict[str, str]] | None:
    """The conversation the question was asked in, when it has more than the question.

    Every message as ``{"role": "user" | "assistant" | "system" | "tool", "content": text}``,
    in order, the question last; None when the question is not read from a
    conversation, or the conversation is the question alone.

    Example:
        >>> conversation_from_inputs({"messages": [
        ...     {"role": "user", "content": "I am planning a trip."},
        ...     {"role": "assistant", "content": "Where to?"},
        ...     {"role": "user", "content": "Paris. Is it safe?"}]})[1]
        {'role': 'assistant', 'content': 'Where to?'}
        >>> conversation_from_inputs({"question": "Is Paris safe?"}) is None
        True

    """
    asked = asked_in(inputs)
    return None if asked is None else asked[1]


def asked_in(inputs: Mapping[str, Any]) -> tuple[str, list[dict[str, str]] | None] | None:
    """The question of inputs and the conversation it was asked in (see `question_from_inputs`)."""
    inputs = unwrap_inputs(inputs)
    key = first_key(inputs, QUESTION_KEYS)
    if key is not None:
        messages = read_messages(inputs[key])
        return from_conversation(messages) if messages else (as_text(inputs[key]), None)
    messages = read_messages(inputs.get(MESSAGES_KEY))
    if messages:
        return from_conversation(messages)
    return None


def from_conversation(messages: Sequence[BaseMessage]) -> tuple[str, list[dict[str, str]] | None] | None:
    """The last human message, and the whole conversation when it holds more than that."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            if len(messages) == 1:
                return message_text(message), None
            turns = [{"role": _ROLES.get(m.type, m.type), "content": message_text(m)} for m in messages]
            return message_text(message), turns
    return None
