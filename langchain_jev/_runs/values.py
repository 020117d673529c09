"""Reading the values a run holds: messages, documents, text and plain JSON data.

`read_message` and `read_messages` read messages in any of their recorded forms, `as_text`
any value as the text a judge reads, `to_plain` any value as JSON-ready data;
`first_key` and `descendants` find where a value is (a key, a child run).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, convert_to_messages, messages_from_dict
from langsmith.schemas import RunBase

from langchain_jev._conversation import message_text

__all__ = ["as_text", "descendants", "first_key", "is_document", "read_message", "read_messages", "to_plain"]


def first_key(mapping: Mapping[str, Any], keys: Sequence[str]) -> str | None:
    """The first of ``keys`` that ``mapping`` holds a value (not None) under."""
    return next((key for key in keys if mapping.get(key) is not None), None)


def descendants(run: RunBase, *, stop_at: tuple[str, ...]) -> Iterator[RunBase]:
    """Every run below ``run``, depth first in order; the children of ``stop_at`` types are skipped."""
    for child in getattr(run, "child_runs", None) or ():
        yield child
        if child.run_type not in stop_at:
            yield from descendants(child, stop_at=stop_at)


def read_messages(value: Any) -> list[BaseMessage]:
    """Read a conversation: messages or message dicts; a list of lists gives its last list."""
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)) or not value:
        return []
    if all(isinstance(item, Sequence) and not isinstance(item, (str, tuple)) for item in value):
        value = value[-1]
    messages: list[BaseMessage] = []
    for item in value:
        message = read_message(item)
        if message is not None:
            messages.append(message)
    return messages


def read_message(value: Any) -> BaseMessage | None:
    """A message, or a mapping in a form it is recorded in (a dict, ``dumpd``, ``message_to_dict``)."""
    if isinstance(value, BaseMessage):
        return value
    if not isinstance(value, Mapping):
        return None
    try:
        if "data" in value and "type" in value and "content" not in value:
            return messages_from_dict([dict(value)])[0]
        if value.get("lc") == 1 or (("role" in value or "type" in value) and "content" in value):
            return convert_to_messages([dict(value)])[0]
    except (ValueError, TypeError, KeyError, NotImplementedError):
        return None
    return None


def is_document(value: Any) -> bool:
    """Whether ``value`` is a document (anything with a text ``page_content``)."""
    return hasattr(value, "page_content") and isinstance(value.page_content, str)


def as_text(value: Any) -> str:
    """Any output value as the text a judge reads."""
    if isinstance(value, str):
        return str(value)
    message = read_message(value) if isinstance(value, Mapping) else value
    if isinstance(message, BaseMessage):
        return message_text(message)
    if is_document(value):
        return str(value.page_content)
    plain = to_plain(value)
    if isinstance(plain, str):
        return plain
    return json.dumps(plain, ensure_ascii=False, sort_keys=True)


def to_plain(value: Any) -> Any:
    """A JSON-ready copy: messages and documents become text, unknown objects ``str``."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, BaseMessage):
        return message_text(value)
    if is_document(value):
        return str(value.page_content)
    if isinstance(value, Mapping):
        if value.get("lc") == 1:
            message = read_message(value)
            if message is not None:
                return message_text(message)
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if callable(getattr(value, "model_dump", None)) and not isinstance(value, type):
        return to_plain(value.model_dump(mode="json"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_plain(dataclasses.asdict(value))
    return str(value)
