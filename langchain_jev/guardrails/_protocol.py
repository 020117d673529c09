"""A released reply as the newer protocol events (``stream_events(version="v3")``): pure functions.

Readers of v3 take a model's run as protocol events (``message-start``, a
``content-block-start`` / ``-delta`` / ``-finish`` per block, ``message-finish``),
which LangGraph forwards from a handler's ``on_stream_event``; tokens
(``on_llm_new_token``) do not reach them. `langchain_jev.guardrails._release`
shows each judged chunk both ways. These functions give the events a chunk adds
to what was shown before it, and the events that end what was shown, built by
langchain-core's own converter (the one a chat model's stream goes through), so
a v3 reader assembles exactly the chunks shown, in order.

Example:
    >>> from langchain_core.messages import AIMessageChunk
    >>> first = AIMessageChunk("Rinse the", id="run-1")
    >>> [e["event"] for e in added_events(None, first)]
    ['message-start', 'content-block-start', 'content-block-delta']
    >>> [e["delta"]["text"] for e in added_events(first, AIMessageChunk(" lentils", id="run-1"))]
    [' lentils']
    >>> [e["event"] for e in ending_events(first + AIMessageChunk(" lentils", id="run-1"))]
    ['content-block-finish', 'message-finish']

"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.messages import AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.runnables import RunnableConfig

from langchain_jev.guardrails._hidden import stream_handlers

try:  # the protocol's converter, in langchain-core releases that stream the v3 protocol
    from langchain_core.language_models._compat_bridge import chunks_to_events
except ImportError:  # pragma: no cover - an older langchain-core: no v3 reader to show
    chunks_to_events = None  # type: ignore[assignment]

__all__ = ["PROTOCOL", "added_events", "ending_events", "protocol_readers"]

PROTOCOL = chunks_to_events is not None
"""True when this langchain-core streams the v3 protocol (and these functions give events)."""

_ENDING = frozenset({"content-block-finish", "message-finish"})


def _reads_events(handler: Any) -> bool:
    """True for a handler whose class implements ``on_stream_event`` (beyond its base's no-op)."""
    for base in (AsyncCallbackHandler, BaseCallbackHandler):  # the nearer base first
        if isinstance(handler, base):
            return type(handler).on_stream_event is not base.on_stream_event
    return False


def protocol_readers(config: RunnableConfig | None) -> bool:
    """True when a streaming handler of ``config`` reads the protocol's events (its ``on_stream_event``).

    LangGraph's handler of ``stream_events(version="v3")`` does; the handlers of
    ``stream_mode="messages"`` and ``astream_events`` v1 / v2 do not.
    """
    return PROTOCOL and any(_reads_events(handler) for handler in stream_handlers(config))


def _events(chunks: Sequence[AIMessageChunk]) -> list[dict[str, Any]]:
    if chunks_to_events is None:  # pragma: no cover - an older langchain-core
        return []
    generations = iter([ChatGenerationChunk(message=chunk) for chunk in chunks])
    return [dict(event) for event in chunks_to_events(generations)]


def _opening(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events before the ending ones (the converter ends every block and the message only at the end)."""
    for index, event in enumerate(events):
        if event.get("event") in _ENDING:
            return events[:index]
    return events


def added_events(shown: AIMessageChunk | None, chunk: AIMessageChunk) -> list[dict[str, Any]]:
    """The events ``chunk`` adds after ``shown`` (every chunk shown before it, added up; None: none).

    The first chunk opens the message; a block seen for the first time opens it;
    each slice of text, reasoning or tool call arguments is a delta.
    """
    before = _opening(_events([shown])) if shown is not None else []
    after = _opening(_events([shown, chunk] if shown is not None else [chunk]))
    return after[len(before) :]


def ending_events(shown: AIMessageChunk) -> list[dict[str, Any]]:
    """The events that end what was ``shown`` (every chunk shown, added up).

    Each block finished, then the message.
    """
    events = _events([shown])
    return events[len(_opening(events)) :]
