"""The expected output of a dataset example's reference outputs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_jev._conversation import input_from_messages, message_text
from langchain_jev._runs.answer import value_reply
from langchain_jev._runs.keys import EXPECTED_KEYS, MESSAGES_KEY
from langchain_jev._runs.values import first_key, read_message, read_messages, to_plain

__all__ = ["expected_from_reference"]


def expected_from_reference(reference: Mapping[str, Any] | None) -> Any:
    """The expected output of an example's reference outputs, or None when there are none.

    A message's own fields (a message recorded as the reference) give its text; an
    `EXPECTED_KEYS` value (a list of messages gives its final AI message); else the
    final AI message of a conversation under ``messages``; else the single value of
    a one-key mapping; else the whole mapping. Messages and documents become text;
    the rest stays as it is (any JSON value).

    Example:
        >>> expected_from_reference({"answer": "Paris"})
        'Paris'
        >>> expected_from_reference({"label": "positive"})
        'positive'
        >>> expected_from_reference({"city": "Paris", "country": "France"})
        {'city': 'Paris', 'country': 'France'}
        >>> expected_from_reference({"messages": [{"role": "user", "content": "Capital?"},
        ...                                       {"role": "assistant", "content": "Paris"}]})
        'Paris'

    """
    if not reference:
        return None
    message = read_message(reference)
    if message is not None:
        return message_text(message)
    key = first_key(reference, EXPECTED_KEYS)
    if key is not None:
        return _expected_value(reference[key])
    messages = read_messages(reference.get(MESSAGES_KEY))
    if messages:
        final = input_from_messages(messages).answer
        if final is not None:
            return final
    if len(reference) == 1:
        return _expected_value(next(iter(reference.values())))
    return to_plain(dict(reference))


def _expected_value(value: Any) -> Any:
    """A reference value: a list of messages gives its final AI message; anything else as `to_plain`."""
    listed = isinstance(value, Sequence) and not isinstance(value, (str, bytes))
    reply = value_reply(value) if listed else None
    if reply is not None and reply.messages:
        return reply.answer
    return to_plain(value)
