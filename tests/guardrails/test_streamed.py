"""Streamed output checks: with ``stream_chunks=N`` the reply is judged as it streams and each chunk is
shown once it is judged clean.

The chat model (`PacedChat`) streams its tokens ``N`` at a time and waits for the door's check of one
chunk before it writes the next, so every chunk boundary is known and no test depends on timing. The
decision model is the perfect keyword classifier, recording every text it judged. What the streams
show (``stream_mode="messages"``, ``stream(version="v2")``, ``astream_events`` v2, and the protocol
events of ``stream_events(version="v3")``) must be exactly the judged chunks, in order; a flagged chunk stops the stream, nothing after it is shown, and the thread
and its checkpoints keep what was shown followed by the refusal.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.decisions import ClassifierResponse
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from pydantic import Field, PrivateAttr

from langchain_jev import GuardrailRefusedError, JevConfigurationError
from langchain_jev.graph import GuardrailState, create_guarded_model_node, guard_model
from langchain_jev.guardrails import GuardrailSettings, HazardBattery
from langchain_jev.middleware import JevGuardrailMiddleware
from tests.fakes import RunRecorder
from tests.guardrails.helpers import KeywordDecisionModel

MARK = "nerve agent"
KEYWORDS = {"indiscriminate_weapons": (MARK,)}
REFUSAL = "I can't share that response: it was flagged for indiscriminate weapons."
FORMS = ["guarded_model", "guard_model", "middleware"]
STREAMS = [
    "stream:messages",
    "astream:messages",
    "stream:v2",
    "astream:v2",
    "astream_events:v2",
    "stream_events:v3",
    "astream_events:v3",
]
QUICK = ["stream:messages", "astream:v2", "astream_events:v2", "stream_events:v3", "astream_events:v3"]
SIZE = 4

sent: list[dict[str, Any]] = []


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    sent.append({"to": to, "body": body})
    return "sent"


@pytest.fixture(autouse=True)
def _no_emails() -> Iterator[None]:
    sent.clear()
    yield
    sent.clear()


def streams(quick: list[str] = QUICK) -> list[Any]:
    return [s if s in quick else pytest.param(s, marks=pytest.mark.slow) for s in STREAMS]


def words(*texts: str) -> list[str]:
    """Tokens as a chat model streams them: each word with the space before it."""
    text = " ".join(texts)
    return [word if i == 0 else f" {word}" for i, word in enumerate(text.split(" "))]


class Judged:
    """The door's output checks the decision model answered, counted: `PacedChat` waits on them.

    The waits are hang guards only (30 s): the door's check always comes, or the door drops the draft
    (async, cancelling the wait)."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.count = 0
        self.waiting: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    def note(self) -> None:
        with self.changed:
            self.count += 1
            self.changed.notify_all()
            waiting = list(self.waiting)
        for loop, event in waiting:
            loop.call_soon_threadsafe(event.set)

    def wait(self, count: int) -> None:
        with self.changed:
            self.changed.wait_for(lambda: self.count >= count, timeout=30)

    async def await_(self, count: int) -> None:
        event = asyncio.Event()
        entry = (asyncio.get_running_loop(), event)
        with self.changed:
            self.waiting.append(entry)
        try:
            async with asyncio.timeout(30):
                while True:
                    event.clear()
                    with self.changed:
                        if self.count >= count:
                            return
                    await event.wait()
        finally:
            with self.changed:
                self.waiting.remove(entry)


class Judge(KeywordDecisionModel):
    """The keyword classifier, counting the output checks it answered."""

    _judged: Judged = PrivateAttr(default_factory=Judged)

    def _classify(self, state: Any, questions: dict[str, Any]) -> ClassifierResponse:
        answer = super()._classify(state, questions)
        if "assistant_answer" in state:
            self._judged.note()
        return answer

    @property
    def answers(self) -> list[str]:
        """Every reply text the door judged, in order (chunks with their context, then the rest)."""
        return [s["assistant_answer"] for s in self.states if "assistant_answer" in s]


class PacedChat(BaseChatModel):
    """Streams ``tokens`` ``pace`` at a time, each batch once the door judged the one before, then its tool calls."""

    tokens: list[str]
    pace: int = SIZE
    calls: list[dict[str, Any]] = Field(default_factory=list)
    hold: int | None = None
    """Before this token the model waits: sync, until released; async, until cancelled (30 s at most)."""
    _release: threading.Event = PrivateAttr(default_factory=threading.Event)
    _ended: threading.Event = PrivateAttr(default_factory=threading.Event)
    _judged: Judged | None = PrivateAttr(default=None)
    _streamed: list[int] = PrivateAttr(default_factory=list)
    _cancelled: list[bool] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "paced-chat"

    def _calling(self) -> bool:
        """Tool calls on the first call only (an agent calls the model again with the tool's result)."""
        return bool(self.calls) and len(self._streamed) == 0

    def _due(self, index: int) -> int | None:
        return index // self.pace if index and index % self.pace == 0 and self._judged is not None else None

    def _calls_chunk(self) -> ChatGenerationChunk:
        chunks = [
            {
                "name": c["name"],
                "args": __import__("json").dumps(c["args"]),
                "id": c["id"],
                "index": i,
                "type": "tool_call_chunk",
            }
            for i, c in enumerate(self.calls)
        ]
        return ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=chunks))

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Any:
        streamed = 0
        try:
            for index, token in enumerate(self.tokens):
                due = self._due(index)
                if due is not None and self._judged is not None:
                    self._judged.wait(due)
                if index == self.hold:
                    self._release.wait(30)
                yield ChatGenerationChunk(message=AIMessageChunk(content=token))
                streamed += 1
            due = self._due(len(self.tokens))
            if due is not None and self._judged is not None:
                self._judged.wait(due)
            if self._calling():
                yield self._calls_chunk()
        finally:
            self._streamed.append(streamed)
            self._ended.set()

    async def _astream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Any:
        streamed = 0
        try:
            for index, token in enumerate(self.tokens):
                due = self._due(index)
                if due is not None and self._judged is not None:
                    await self._judged.await_(due)
                if index == self.hold:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(asyncio.Event().wait(), 30)
                yield ChatGenerationChunk(message=AIMessageChunk(content=token))
                streamed += 1
            due = self._due(len(self.tokens))
            if due is not None and self._judged is not None:
                await self._judged.await_(due)
            if self._calling():
                yield self._calls_chunk()
        except asyncio.CancelledError:
            self._cancelled.append(True)
            raise
        finally:
            self._streamed.append(streamed)
            self._ended.set()

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        calls = self.calls if self._calling() else []
        self._streamed.append(len(self.tokens))
        return ChatResult(
            generations=[ChatGeneration(message=AIMessage("".join(self.tokens), tool_calls=calls))]
        )

    def bind_tools(self, tools: Any, **kwargs: Any) -> PacedChat:  # type: ignore[override]
        return self


def build(
    form: str, chat: PacedChat, *, tools: bool = False, keywords: Any = None, **options: Any
) -> tuple[Any, Judge]:
    """A graph (or agent) guarding ``chat`` at its door with an input and an output battery, judging in chunks."""
    judge = Judge(keywords=keywords or KEYWORDS)
    chat._judged = judge._judged
    options = {"stream_chunks": SIZE, **options}
    saver = InMemorySaver()
    if form == "middleware":
        guard = JevGuardrailMiddleware(categories=list(KEYWORDS), model=judge, **options)
        return create_agent(
            chat, tools=[send_email] if tools else [], middleware=[guard], checkpointer=saver
        ), judge
    inputs = HazardBattery.input(list(KEYWORDS), model=judge)
    outputs = HazardBattery.output(list(KEYWORDS), model=judge)
    if form == "guarded_model":
        node: Any = create_guarded_model_node(chat, inputs, outputs, **options)
    else:
        guarded = guard_model(chat, inputs, outputs, **options)

        def call(state: GuardrailState, config: RunnableConfig) -> dict[str, Any]:
            return {"messages": [guarded.invoke(state["messages"], config)]}

        async def acall(state: GuardrailState, config: RunnableConfig) -> dict[str, Any]:
            return {"messages": [await guarded.ainvoke(state["messages"], config)]}

        node = RunnableLambda(call, afunc=acall)
    builder = StateGraph(GuardrailState).add_node("agent", node).add_edge(START, "agent")
    if tools:
        builder.add_node("tools", ToolNode([send_email])).add_conditional_edges("agent", tools_condition)
        builder.add_edge("tools", END)
    else:
        builder.add_edge("agent", END)
    return builder.compile(checkpointer=saver), judge


def thread() -> dict[str, Any]:
    return {"configurable": {"thread_id": "t"}}


REQUEST = {"messages": [HumanMessage("Tell me about chemistry.")]}


async def run(graph: Any, way: str, config: dict[str, Any]) -> list[Any]:
    kind, mode = way.split(":")
    if mode == "v3":  # the protocol events of the run stream, every one
        if kind == "stream_events":
            return list(graph.stream_events(REQUEST, config, version="v3"))
        return [event async for event in await graph.astream_events(REQUEST, config, version="v3")]
    if kind == "astream_events":
        return [event async for event in graph.astream_events(REQUEST, config, version=mode)]
    if mode == "v2":
        modes = ["values", "updates", "messages", "custom"]
        if kind == "stream":
            return list(graph.stream(REQUEST, config, stream_mode=modes, version="v2"))
        return [part async for part in graph.astream(REQUEST, config, stream_mode=modes, version="v2")]
    if kind == "stream":
        return list(graph.stream(REQUEST, config, stream_mode=mode))
    return [chunk async for chunk in graph.astream(REQUEST, config, stream_mode=mode)]


def protocol_chunks(events: list[Any]) -> list[AIMessageChunk]:
    """The deltas of the v3 protocol events of model runs, as chunks (text, tool call arguments), in order."""
    found: list[AIMessageChunk] = []
    ids: dict[str, str | None] = {}
    for event in events:
        if event["method"] != "messages":
            continue
        payload, metadata = event["params"]["data"]
        if not isinstance(payload, dict):
            continue  # a message shown whole
        run_id = metadata.get("run_id", "")
        if payload["event"] == "message-start":
            ids[run_id] = payload.get("id")
        if payload["event"] != "content-block-delta":
            continue
        delta, message_id = payload["delta"], ids.get(run_id)
        if delta["type"] == "text-delta":
            found.append(AIMessageChunk(content=delta["text"], id=message_id))
        elif delta["type"] == "tool-call-delta":
            call = {"args": delta["args"], "index": payload["index"], "type": "tool_call_chunk"}
            found.append(AIMessageChunk(content="", tool_call_chunks=[call], id=message_id))
    return found


def shown_chunks(parts: list[Any], way: str) -> list[BaseMessage]:
    """The AI message chunks a consumer of ``way`` was shown, in order."""
    if way.endswith(":v3"):
        return list(protocol_chunks(parts))
    if way.startswith("astream_events"):
        found = [e["data"]["chunk"] for e in parts if e["event"] == "on_chat_model_stream"]
    elif way.endswith(":v2"):
        found = [p["data"][0] for p in parts if p["type"] == "messages"]
    else:
        found = [message for message, _ in parts]
    return [m for m in found if isinstance(m, AIMessageChunk)]


def saved(graph: Any) -> str:
    saver = graph.checkpointer
    return repr(saver.storage) + repr(saver.writes) + repr(saver.blobs)


CLEAN = words(
    "Lentils are small legumes that cook quickly in simmering water and need no soaking first, ever"
)
assert len(CLEAN) % SIZE == 0
FLAGGED = words(
    "Lentils are small legumes", "that cook in water;", "a nerve agent is", "AFTER-THE-FLAG words follow here"
)
assert all(len(FLAGGED[i : i + SIZE]) == SIZE for i in range(0, len(FLAGGED), SIZE))


# ---------------------------------------------------------------- what is shown is exactly what was judged


@pytest.mark.parametrize("way", streams())
@pytest.mark.parametrize("form", FORMS)
async def test_a_flagged_chunk_stops_the_stream_and_only_the_judged_chunks_were_shown(
    form: str, way: str
) -> None:
    chat = PacedChat(tokens=FLAGGED)
    graph, judge = build(form, chat)
    config = thread()

    parts = await run(graph, way, config)

    chunks = shown_chunks(parts, way)
    texts = [str(c.content) for c in chunks]
    judged_chunks = ["".join(FLAGGED[i : i + SIZE]) for i in range(0, 2 * SIZE, SIZE)]
    assert texts == [*judged_chunks, f"\n\n{REFUSAL}"]  # two clean chunks, then the refusal; nothing after
    assert (
        judge.answers
        == [  # what the battery saw: each chunk with what was shown before it (under 200 characters)
            "".join(FLAGGED[0:SIZE]),
            "".join(FLAGGED[0 : 2 * SIZE]),
            "".join(FLAGGED[0 : 3 * SIZE]),
        ]
    )
    for answer, text in zip(judge.answers, texts[:2], strict=False):
        assert answer.endswith(text)  # every shown token was inside a judged text
    assert "".join(texts[:2]) == "".join(FLAGGED[: 2 * SIZE])
    state = graph.get_state(config).values
    assert state["messages"][-1].content == "".join(FLAGGED[: 2 * SIZE]) + f"\n\n{REFUSAL}"
    assert state["messages"][-1].id == chunks[0].id  # the reply the stream showed, under its id
    for text in (MARK, "AFTER-THE-FLAG"):
        assert text not in repr(parts) and text not in repr(state) and text not in saved(graph)


@pytest.mark.parametrize("way", ["stream:messages", "astream:messages"])
@pytest.mark.parametrize("form", FORMS)
async def test_a_flagged_chunk_stops_the_models_stream(form: str, way: str) -> None:
    chat = PacedChat(tokens=FLAGGED, hold=3 * SIZE)  # the model holds after the flagged chunk
    graph, _ = build(form, chat)
    try:
        parts = await run(graph, way, thread())
    finally:
        chat._release.set()
    assert str(shown_chunks(parts, way)[-1].content) == f"\n\n{REFUSAL}"
    if way.startswith("astream"):
        assert chat._cancelled == [True] and chat._streamed == [3 * SIZE]  # the call was cancelled
    else:
        assert chat._ended.wait(30)  # the worker thread ends on its own, at the token after its release
        assert chat._streamed == [3 * SIZE]  # its next token was refused: the stream stopped there


@pytest.mark.parametrize("way", streams())
@pytest.mark.parametrize("form", FORMS)
async def test_a_clean_reply_is_shown_chunk_by_chunk_and_once(form: str, way: str) -> None:
    chat = PacedChat(tokens=CLEAN)
    graph, judge = build(form, chat)
    config = thread()

    parts = await run(graph, way, config)

    chunks = shown_chunks(parts, way)
    texts = [str(c.content) for c in chunks if c.content]
    assert len(texts) == len(CLEAN) // SIZE and "".join(texts) == "".join(CLEAN)  # shown once, in chunks
    assert len({c.id for c in chunks}) == 1
    reply = graph.get_state(config).values["messages"][-1]
    assert reply.content == "".join(CLEAN) and reply.id == chunks[0].id
    assert len(judge.answers) == len(CLEAN) // SIZE + 1  # each chunk, then the rest (its metadata)


async def test_a_hazard_longer_than_the_context_is_missed_by_the_chunks_and_caught_by_final_check() -> None:
    long = " ".join(["nerve", *["agent"] * 60])  # longer than any chunk with its context (in characters)
    tokens = words("Here is a", long, "in the lines below")
    for final, expected in ((False, "".join(tokens)), (True, REFUSAL)):
        chat = PacedChat(tokens=tokens)
        graph, judge = build(
            "guarded_model", chat, final_check=final, keywords={"indiscriminate_weapons": (long,)}
        )
        parts = await run(graph, "astream:messages", thread())
        assert graph.get_state(thread()).values["messages"][-1].content == expected
        assert all(long not in answer for answer in judge.answers[:-1])  # no chunk check saw it whole
        if final:
            assert judge.answers[-1] == "".join(tokens)  # the whole reply, judged once at the end
            assert long not in saved(graph)
            assert str(shown_chunks(parts, "astream:messages")[-1].content) == f"\n\n{REFUSAL}"


async def test_with_context_a_hazard_split_at_a_chunk_boundary_is_caught_by_the_next_chunk() -> None:
    tokens = words("Here is a nerve", "agent that I describe", "in the lines below")
    chat = PacedChat(tokens=tokens)
    graph, judge = build("middleware", chat)
    parts = await run(graph, "astream:messages", thread())
    assert [str(c.content) for c in shown_chunks(parts, "astream:messages")] == [
        "".join(tokens[:SIZE]),
        f"\n\n{REFUSAL}",
    ]
    assert judge.answers[1] == "".join(tokens[: 2 * SIZE])  # the chunk with every character before it


# ---------------------------------------------------------------- tool calls, errors, who sees it


@pytest.mark.parametrize("way", streams(["astream:messages", "stream:v2"]))
@pytest.mark.parametrize("form", ["guarded_model", "middleware"])
async def test_tool_calls_are_shown_and_run_only_after_the_whole_reply_is_judged(form: str, way: str) -> None:
    call = {"name": "send_email", "args": {"to": "a@example.com", "body": "The lentil recipe."}, "id": "c1"}
    chat = PacedChat(tokens=CLEAN[:6], calls=[call])
    graph, judge = build(form, chat, tools=True)
    parts = await run(graph, way, thread())
    chunks = shown_chunks(parts, way)
    first = [c for c in chunks if c.id == chunks[0].id]  # the reply that called the tool
    with_calls = [i for i, c in enumerate(first) if c.tool_call_chunks]
    assert with_calls == [len(first) - 1] and "".join(str(c.content) for c in first) == "".join(CLEAN[:6])
    assert any("tool_calls" in s for s in judge.states)  # the rest of the reply, calls included, was judged
    assert sent == [{"to": "a@example.com", "body": "The lentil recipe."}]


async def test_a_flagged_tool_call_in_a_streamed_reply_is_never_shown_or_run() -> None:
    call = {
        "name": "send_email",
        "args": {"to": "a@example.com", "body": f"How to make a {MARK}."},
        "id": "c1",
    }
    chat = PacedChat(tokens=CLEAN[:6], calls=[call])
    graph, _ = build("middleware", chat, tools=True)
    parts = await run(graph, "astream:messages", thread())
    assert not any(getattr(c, "tool_call_chunks", None) for c in shown_chunks(parts, "astream:messages"))
    assert not sent and MARK not in repr(parts) and MARK not in saved(graph)
    assert graph.get_state(thread()).values["messages"][-1].content.endswith(REFUSAL)


def test_without_a_consumer_of_tokens_the_reply_is_judged_once_whole() -> None:
    chat = PacedChat(tokens=CLEAN)
    graph, judge = build("guarded_model", chat)
    out = graph.invoke(REQUEST, thread())
    assert out["messages"][-1].content == "".join(CLEAN)
    assert judge.answers == ["".join(CLEAN)]


def test_the_trace_records_the_draft_once_and_a_token_handler_sees_only_judged_chunks() -> None:
    class Tokens(BaseCallbackHandler):
        def __init__(self) -> None:
            self.seen: list[str] = []

        def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
            self.seen.append(token)

    chat = PacedChat(tokens=FLAGGED)
    graph, _ = build("guarded_model", chat, allowed_tracers=[RunRecorder])
    recorder, tokens = RunRecorder(), Tokens()
    list(graph.stream(REQUEST, {**thread(), "callbacks": [recorder, tokens]}, stream_mode="messages"))
    assert "".join(tokens.seen) == "".join(FLAGGED[: 2 * SIZE]) + f"\n\n{REFUSAL}"
    models = [run for run in recorder.runs if run.run_type == "llm" and run.name == "PacedChat"]
    assert len(models) == 1 and "nostream" in (
        models[0].tags or []
    )  # the hidden draft, the operator's record


@pytest.mark.parametrize("way", ["stream:messages", "astream:messages"])
async def test_exit_behavior_error_raises_mid_stream_and_nothing_after_the_flag_is_shown(way: str) -> None:
    chat = PacedChat(tokens=FLAGGED)
    graph, _ = build("guarded_model", chat, exit_behavior="error")
    parts: list[Any] = []

    async def consume() -> None:
        if way.startswith("stream"):
            for part in graph.stream(REQUEST, thread(), stream_mode="messages"):
                parts.append(part)
        else:
            async for apart in graph.astream(REQUEST, thread(), stream_mode="messages"):
                parts.append(apart)

    with pytest.raises(GuardrailRefusedError, match="indiscriminate_weapons"):
        await consume()
    assert [str(m.content) for m, _ in parts] == ["".join(FLAGGED[i : i + SIZE]) for i in (0, SIZE)]
    assert MARK not in saved(graph)


def test_streaming_settings_are_checked_by_name() -> None:
    with pytest.raises(JevConfigurationError, match="stream_chunks must be a whole number"):
        GuardrailSettings(stream_chunks=0)
    with pytest.raises(JevConfigurationError, match="final_check applies to a reply judged as it streams"):
        GuardrailSettings(final_check=True)
    with pytest.raises(JevConfigurationError, match="chunk_context applies"):
        GuardrailSettings(chunk_context=100)
    with pytest.raises(JevConfigurationError, match="contradict"):
        GuardrailSettings(stream_chunks=8, stream_tokens=True)
    with pytest.raises(JevConfigurationError, match="cannot wait for a human"):
        GuardrailSettings(stream_chunks=8, on_inconclusive="interrupt", review_key="k" * 32)
    with pytest.raises(JevConfigurationError, match="concurrent_input must be True or False"):
        GuardrailSettings(concurrent_input="yes")  # type: ignore[arg-type]
    assert GuardrailSettings(stream_chunks=20).context_characters == 200
    with pytest.raises(
        JevConfigurationError, match="chunk_context must be a whole number of characters >= 64"
    ):
        GuardrailSettings(stream_chunks=20, chunk_context=5)


class WholeChat(PacedChat):
    """A chat model with no streaming of its own: it writes its reply whole."""

    _stream = BaseChatModel._stream
    _astream = BaseChatModel._astream


@pytest.mark.parametrize("way", ["stream:messages", "astream:messages"])
@pytest.mark.parametrize("form", FORMS)
async def test_a_model_that_does_not_stream_is_judged_once_and_shown_once_whole(form: str, way: str) -> None:
    graph, judge = build(form, WholeChat(tokens=CLEAN))
    parts = await run(graph, way, thread())
    assert [str(m.content) for m, _ in parts if isinstance(m, AIMessage)] == ["".join(CLEAN)]
    assert judge.answers == ["".join(CLEAN)]
