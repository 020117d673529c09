"""The newer protocol's readers (``stream_events(version="v3")``) of an agent guarded with ``stream_chunks=N``.

They are shown each chunk as protocol events once it is judged clean, while the model still writes (not
the reply whole at the end), and never a chunk before it was judged: a flagged chunk and everything after
it is not shown, the refusal takes their place. `test_streamed` pins the same for every form and stream
(v3 among them); here a LangChain fake chat model streams into a real ``create_agent`` agent, and the
marker of a hazard comes in one-letter tokens, split across the chunk boundaries at every offset.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import PrivateAttr

from langchain_jev import JevConfigurationError
from langchain_jev.guardrails import GuardrailSettings
from langchain_jev.middleware import JevGuardrailMiddleware
from tests.guardrails.helpers import StreamingChat
from tests.guardrails.test_streamed import (
    KEYWORDS,
    MARK,
    REFUSAL,
    REQUEST,
    Judge,
    PacedChat,
    protocol_chunks,
    saved,
    thread,
)

SIZE = 4
REPLY = "Lentils are small legumes that cook quickly in simmering water and need no soaking first"


class HeldChat(StreamingChat):
    """LangChain's fake chat model, streaming word by word, that holds before token ``hold``.

    It goes on once a reader was shown a delta (`shown` set), or after 10 s: whether a reader saw part of
    the reply while the model was still writing it is then known, with no timing in the test."""

    hold: int = 12
    _shown: threading.Event = PrivateAttr(default_factory=threading.Event)
    _released_by_reader: list[bool] = PrivateAttr(default_factory=list)

    def _stream(self, *args: Any, **kwargs: Any) -> Any:
        for index, chunk in enumerate(super()._stream(*args, **kwargs)):
            if index == self.hold:
                self._released_by_reader.append(self._shown.wait(10))
            yield chunk


def agent(chat: Any, judge: Judge) -> Any:
    guard = JevGuardrailMiddleware(categories=list(KEYWORDS), model=judge, stream_chunks=SIZE)
    return create_agent(chat, middleware=[guard], checkpointer=InMemorySaver())


def deltas(event: dict[str, Any]) -> str | None:
    """The text of a text delta of a model run (None for any other event)."""
    if event["method"] != "messages" or not isinstance(event["params"]["data"][0], dict):
        return None
    payload = event["params"]["data"][0]
    delta = payload.get("delta") if payload["event"] == "content-block-delta" else None
    return delta["text"] if delta and delta["type"] == "text-delta" else None


@pytest.mark.parametrize("way", ["sync", "async"])
async def test_v3_readers_are_shown_judged_chunks_while_the_model_still_writes(way: str) -> None:
    chat = HeldChat(messages=iter([AIMessage(REPLY)]))
    judge = Judge(keywords=KEYWORDS)
    graph = agent(chat, judge)
    events: list[Any] = []

    def seen(event: dict[str, Any]) -> None:
        events.append(event)
        if deltas(event):
            chat._shown.set()  # the model goes on: a reader was shown part of its reply

    if way == "sync":
        for event in graph.stream_events(REQUEST, thread(), version="v3"):
            seen(event)
    else:
        async for event in await graph.astream_events(REQUEST, thread(), version="v3"):
            seen(event)

    assert chat._released_by_reader == [True]  # shown before the model wrote its 13th token
    texts = [t for t in map(deltas, events) if t]
    assert len(texts) > 1 and "".join(texts) == REPLY  # in chunks, each once, the whole reply
    for text in texts:
        assert any(answer.endswith(text) for answer in judge.answers)  # each one judged before
    reply = graph.get_state(thread()).values["messages"][-1]
    assert reply.content == REPLY and {c.id for c in protocol_chunks(events)} == {reply.id}


def one_letter_tokens(offset: int) -> list[str]:
    return list(f"{'x' * offset}Lentils cook fast; a {MARK} is AFTER-THE-FLAG and more after")


@pytest.mark.parametrize("offset", range(SIZE))
@pytest.mark.parametrize("way", ["stream_events", "astream_events"])
async def test_a_marker_split_across_one_letter_chunks_is_never_shown_on_v3_nor_anything_after(
    way: str, offset: int
) -> None:
    tokens = one_letter_tokens(offset)
    chat = PacedChat(tokens=tokens)  # one letter a token, SIZE letters a chunk
    judge = Judge(keywords=KEYWORDS)
    chat._judged = judge._judged
    graph = agent(chat, judge)

    if way == "stream_events":
        events = list(graph.stream_events(REQUEST, thread(), version="v3"))
    else:
        events = [event async for event in await graph.astream_events(REQUEST, thread(), version="v3")]

    texts = [str(c.content) for c in protocol_chunks(events)]
    assert texts[-1] == f"\n\n{REFUSAL}"  # the refusal is the last thing shown
    shown = "".join(texts[:-1])
    text = "".join(tokens)
    end = text.index(MARK) + len(MARK)
    assert text.startswith(shown) and len(shown) < end  # the chunk that completes the marker is not shown
    assert len(shown) > end - SIZE - 1  # every clean chunk before it is (the marker was judged whole)
    for chunk in texts[:-1]:
        assert any(answer.endswith(chunk) for answer in judge.answers[:-1])  # judged before it was shown
    assert MARK in judge.answers[-1]  # the check that flagged it read it whole
    for hidden in (MARK, "AFTER-THE-FLAG"):
        assert hidden not in repr(events) and hidden not in saved(graph)
    assert graph.get_state(thread()).values["messages"][-1].content == f"{shown}\n\n{REFUSAL}"


class ProtocolReader(BaseCallbackHandler):
    """A handler of the caller's that reads the protocol's events alone (no ``on_llm_new_token``)."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def on_stream_event(self, event: Any, **kwargs: Any) -> None:
        self.events.append(dict(event))


def test_a_handler_reading_protocol_events_is_shown_judged_chunks_and_is_no_tracer() -> None:
    chat = PacedChat(tokens=one_letter_tokens(0))
    judge = Judge(keywords=KEYWORDS)
    chat._judged = judge._judged
    reader = ProtocolReader()
    list(agent(chat, judge).stream(REQUEST, {**thread(), "callbacks": [reader]}, stream_mode="values"))
    texts = [e["delta"]["text"] for e in reader.events if e["event"] == "content-block-delta"]
    assert texts[-1] == f"\n\n{REFUSAL}" and all(len(text) == SIZE for text in texts[:-1])
    assert MARK not in repr(reader.events)  # the hidden draft's events never reached it
    with pytest.raises(JevConfigurationError, match="ProtocolReader feeds a stream"):
        GuardrailSettings(allowed_tracers=[ProtocolReader])
