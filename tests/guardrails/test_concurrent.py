"""The concurrent input check: the model's call starts with the input check, and its draft goes nowhere
until the check is clean.

`concurrent_input=True` (the default for a chat model) lets the model read a request while it is
judged; what it must never do is let the draft out. The attacks of `test_door` (routes around the
input node, reused ids, other roles, keys nobody listed) are run against the concurrent door: the
model answers any request carrying the marker with a draft that would leak ("DRAFT-LEAK", and a
tool call sending an email), and that draft must reach no stream, returned state, thread state,
checkpoint or tool. The attack classes run a few ways each (what they vary is the input check, which
`test_door` runs every way); every way of running a graph is run on the handshake test. A handshake (the decision model answers an input check only once the chat model
was called) proves the call really starts beside the check; async, a refused request cancels the
call; sync, the refusal does not wait for it, and a streaming call stops at its next token.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.decisions import ClassifierResponse
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from pydantic import PrivateAttr

from langchain_jev import GuardrailCheckError
from langchain_jev.graph import GuardrailState, create_guarded_model_node, guard_model
from langchain_jev.guardrails import HazardBattery
from langchain_jev.guardrails._early import client_tool, may_start_early
from langchain_jev.middleware import JevGuardrailMiddleware
from tests.fakes import ReplyingChatModel
from tests.guardrails.helpers import KeywordDecisionModel, WaitsForTheModel
from tests.guardrails.test_door import (
    FORMS,
    HIDING,
    INPUT_REFUSAL,
    KEYWORDS,
    MARK,
    OUTPUT_REFUSAL,
    REQUEST,
    ROLES,
    ROUTES,
    HungDecisionModel,
    StreamWriterChat,
    WrapperChat,
    _hidden_in,
    _routes,
    build,
    drive,
    saved,
    sent_emails,
    thread,
    ways,
)

LEAK = "DRAFT-LEAK"
CONCURRENT = {"concurrent_input": True}


def leaky() -> ReplyingChatModel:
    """Answers a request carrying the marker with a draft that must never get out; "Sure." otherwise."""

    def reply(messages: list[BaseMessage]) -> AIMessage:
        if MARK in repr(messages):
            call = {"name": "send_email", "args": {"to": "x@example.com", "body": LEAK}, "id": "leak"}
            return AIMessage(f"{LEAK}: here is how.", tool_calls=[call])
        return AIMessage("Sure.")

    return ReplyingChatModel(replies=[reply] * 12)


@pytest.fixture(autouse=True)
def _no_emails() -> Iterator[None]:
    sent_emails.clear()
    yield
    sent_emails.clear()


def assert_no_draft(graph: Any, shown: Any, config: dict[str, Any]) -> None:
    """The draft answering a refused request reached no stream, state, checkpoint or tool."""
    assert LEAK not in repr(shown), "a stream showed the draft"
    assert LEAK not in repr(graph.get_state(config).values), "the thread holds the draft"
    assert LEAK not in saved(graph), "a checkpoint holds the draft"
    assert not sent_emails, "a tool ran on the draft's call"
    if (
        getattr(graph, "_form", None) != "guard_model"
    ):  # guard_model in the user's node cannot write the thread
        assert MARK not in repr(graph.get_state(config).values), "the thread holds the request"


async def harmless(graph: Any, config: dict[str, Any]) -> None:
    out = await graph.ainvoke({"messages": [HumanMessage("Hello there.")]}, config)
    assert out["messages"][-1].content == "Sure."


# ---------------------------------------------------------------- the attacks, against the concurrent door


@pytest.mark.parametrize("way", ["invoke", "astream:messages", "stream:v2", "astream_events:v2"])
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("form", FORMS)
async def test_a_route_around_the_input_node_never_lets_the_draft_out(
    form: str, route: str, way: str
) -> None:
    graph, config = build(form, leaky(), **CONCURRENT), thread()
    await harmless(graph, config)

    shown = await drive(graph, way, _routes(form)[route], config)

    assert_no_draft(graph, shown, config)


@pytest.mark.parametrize("way", ["invoke", "astream:values", "stream:messages"])
@pytest.mark.parametrize("form", FORMS)
async def test_a_request_resent_under_a_reused_id_never_lets_the_draft_out(form: str, way: str) -> None:
    graph, config = build(form, leaky(), **CONCURRENT), thread()
    await harmless(graph, config)
    refused = await graph.ainvoke({"messages": [HumanMessage(REQUEST, id="req")]}, config)
    assert refused["messages"][-1].content == INPUT_REFUSAL

    shown = await drive(
        graph, way, {"messages": [HumanMessage(REQUEST, id="req"), HumanMessage("go on")]}, config
    )

    assert_no_draft(graph, shown, config)


@pytest.mark.parametrize("way", ["invoke", "astream:messages"])
@pytest.mark.parametrize("role", [r for r in ROLES if r != "name field"])
@pytest.mark.parametrize("form", FORMS)
async def test_every_role_and_field_is_judged_before_the_draft_gets_out(
    form: str, role: str, way: str
) -> None:
    graph, config = build(form, leaky(), **CONCURRENT), thread()
    await harmless(graph, config)

    shown = await drive(graph, way, {"messages": ROLES[role]}, config)

    assert_no_draft(graph, shown, config)


@pytest.mark.parametrize(
    "where", [w for w in HIDING if w not in ("response_metadata", "name", "tool call id")]
)
@pytest.mark.parametrize("form", FORMS)
async def test_a_request_in_any_key_never_lets_the_draft_out(form: str, where: str) -> None:
    graph, config = build(form, leaky(), **CONCURRENT), thread()
    await harmless(graph, config)
    shown = await drive(
        graph, "astream:messages", {"messages": [HumanMessage(_hidden_in(where, REQUEST).content)]}, config
    )
    assert_no_draft(graph, shown, config)


# ---------------------------------------------------------------- the call really starts beside the check


def handshaking(decision: WaitsForTheModel) -> ReplyingChatModel:
    def reply(messages: list[BaseMessage]) -> AIMessage:
        decision._handshake.called()
        return leaky().replies[0](messages)

    return ReplyingChatModel(replies=[reply] * 12)


def door_only(
    form: str, model: BaseChatModel, decision: KeywordDecisionModel, *, output: bool = True, **options: Any
) -> Any:
    """The model behind its door alone (no input node): the door's own input check decides."""
    if form == "middleware":
        guard = JevGuardrailMiddleware(
            categories=list(KEYWORDS), model=decision, check_output=output, **options
        )
        graph = create_agent(model, middleware=[guard], checkpointer=InMemorySaver())
        graph._form = form
        return graph
    batteries = [HazardBattery.input(list(KEYWORDS), model=decision)]
    if output:
        batteries.append(HazardBattery.output(list(KEYWORDS), model=decision))
    if form == "guarded_model":
        node: Any = create_guarded_model_node(model, *batteries, **options)
    else:
        guarded = guard_model(model, *batteries, **options)

        def call(state: GuardrailState, config: RunnableConfig) -> dict[str, Any]:
            return {"messages": [guarded.invoke(state["messages"], config)]}

        async def acall(state: GuardrailState, config: RunnableConfig) -> dict[str, Any]:
            return {"messages": [await guarded.ainvoke(state["messages"], config)]}

        node = RunnableLambda(call, afunc=acall)
    builder = (
        StateGraph(GuardrailState).add_node("agent", node).add_edge(START, "agent").add_edge("agent", END)
    )
    graph = builder.compile(checkpointer=InMemorySaver())
    graph._form = form
    return graph


@pytest.mark.parametrize(
    "way",
    ways(["invoke", "ainvoke", "stream:messages", "astream:messages", "stream:custom", "astream_events:v2"]),
)
@pytest.mark.parametrize("form", FORMS)
async def test_the_model_is_called_while_its_input_is_judged_and_the_refused_draft_goes_nowhere(
    form: str, way: str
) -> None:
    decision = WaitsForTheModel(keywords=KEYWORDS)
    model = handshaking(decision)
    graph, config = door_only(form, model, decision), thread()
    await drive(graph, way, {"messages": [HumanMessage("Hello there.")]}, config)
    assert graph.get_state(config).values["messages"][-1].content == "Sure."

    shown = await drive(graph, way, {"messages": [HumanMessage(REQUEST)]}, config)

    assert decision._met == [True, True], "the model was not called while its input was judged"
    assert_no_draft(graph, shown, config)
    assert graph.get_state(config).values["messages"][-1].content == INPUT_REFUSAL
    assert any(MARK in repr(received) for received in model.received)  # it read it, and nothing came of it


def test_sequential_calls_the_model_only_once_its_input_is_clean() -> None:
    decision = KeywordDecisionModel(keywords=KEYWORDS)
    model = leaky()
    graph, config = door_only("guarded_model", model, decision, concurrent_input=False), thread()
    graph.invoke({"messages": [HumanMessage(REQUEST)]}, config)
    assert model.calls == 0


# ---------------------------------------------------------------- dropping the draft


class HangingChat(BaseChatModel):
    """A chat model whose call never ends on its own: async it waits to be cancelled, sync to be released."""

    _started: threading.Event = PrivateAttr(default_factory=threading.Event)
    _release: threading.Event = PrivateAttr(default_factory=threading.Event)
    _ended: threading.Event = PrivateAttr(default_factory=threading.Event)
    _cancelled: list[bool] = PrivateAttr(default_factory=list)
    _streamed: list[int] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "hanging-chat"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        self._started.set()
        self._release.wait(30)
        self._ended.set()
        return ChatResult(generations=[ChatGeneration(message=AIMessage(f"{LEAK} after all"))])

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        self._started.set()
        try:
            await asyncio.wait_for(asyncio.Event().wait(), 30)
        except asyncio.CancelledError:
            self._cancelled.append(True)
            raise
        finally:
            self._ended.set()
        return ChatResult(generations=[ChatGeneration(message=AIMessage(LEAK))])

    def bind_tools(self, tools: Any, **kwargs: Any) -> HangingChat:  # type: ignore[override]
        return self


class StreamingHangingChat(HangingChat):
    """Streams one token, then waits to be released before the next: a dropped draft stops there."""

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Any:
        streamed = 0
        try:
            for token in [LEAK, " more", " and more"]:
                if streamed == 1:
                    self._started.set()
                    self._release.wait(30)
                yield ChatGenerationChunk(message=AIMessageChunk(content=token))
                streamed += 1
        finally:
            self._streamed.append(streamed)
            self._ended.set()


class WaitsForStart(KeywordDecisionModel):
    """A keyword classifier whose input checks wait until the chat model started."""

    _chat: Any = PrivateAttr(default=None)

    def _classify(self, state: Any, questions: dict[str, Any]) -> ClassifierResponse:
        if "assistant_answer" not in state:
            assert self._chat._started.wait(30)
        return super()._classify(state, questions)


def _hanging(form: str, chat: HangingChat, **options: Any) -> Any:
    decision = WaitsForStart(keywords=KEYWORDS)
    decision._chat = chat
    return door_only(form, chat, decision, **options)


@pytest.mark.parametrize("form", FORMS)
async def test_async_a_refused_request_cancels_the_models_call(form: str) -> None:
    chat = HangingChat()
    graph, config = _hanging(form, chat), thread()
    out = await graph.ainvoke({"messages": [HumanMessage(REQUEST)]}, config)
    assert out["messages"][-1].content == INPUT_REFUSAL
    assert chat._cancelled == [True] and chat._ended.is_set()
    assert_no_draft(graph, [out], config)


@pytest.mark.parametrize("form", FORMS)
def test_sync_a_refusal_does_not_wait_for_the_model_and_its_late_reply_is_dropped(form: str) -> None:
    chat = HangingChat()
    graph, config = _hanging(form, chat), thread()
    try:
        out = graph.invoke({"messages": [HumanMessage(REQUEST)]}, config)
        assert not chat._ended.is_set()  # the model is still writing: the refusal did not wait for it
    finally:
        chat._release.set()
    assert chat._ended.wait(30)
    assert out["messages"][-1].content == INPUT_REFUSAL
    assert_no_draft(graph, [out], config)


@pytest.mark.parametrize("output", ["no output check", "output judged in chunks"])
@pytest.mark.parametrize("form", FORMS)
def test_sync_a_streaming_draft_stops_at_its_next_token(form: str, output: str) -> None:
    chat = StreamingHangingChat()
    options = {"output": False} if output == "no output check" else {"stream_chunks": 1}
    graph, config = _hanging(form, chat, **options), thread()
    try:
        chunks = list(graph.stream({"messages": [HumanMessage(REQUEST)]}, config, stream_mode="messages"))
    finally:
        chat._release.set()
    assert chat._ended.wait(30)
    assert chat._streamed == [1]  # the token after the refusal was never handed on: the stream stopped
    assert graph.get_state(config).values["messages"][-1].content == INPUT_REFUSAL
    assert_no_draft(graph, chunks, config)


# ---------------------------------------------------------------- what passed, and where it is safe


def test_replace_drops_the_draft_and_asks_the_model_again_on_the_placeholder() -> None:
    decision = KeywordDecisionModel(keywords=KEYWORDS)
    model = leaky()
    graph, config = door_only("middleware", model, decision, exit_behavior="replace"), thread()
    out = graph.invoke({"messages": [HumanMessage(REQUEST)]}, config)
    assert out["messages"][-1].content == "Sure."
    assert_no_draft(graph, [out], config)
    assert MARK not in repr(model.received[-1])  # the answer released read the placeholder


def test_each_turn_judges_only_what_is_new_and_the_dropped_draft_never_counts_as_judged() -> None:
    decision = KeywordDecisionModel(keywords=KEYWORDS)
    guard = JevGuardrailMiddleware(categories=list(KEYWORDS), model=decision)
    agent = create_agent(leaky(), middleware=[guard], checkpointer=InMemorySaver())
    config = thread()
    for n in range(3):
        agent.invoke({"messages": [HumanMessage(f"Question {n}?")]}, config)
    agent.invoke({"messages": [HumanMessage(REQUEST)]}, config)
    inputs = [s["user_question"] for s in decision.states if "assistant_answer" not in s]
    assert inputs == ["Question 0?", "Question 1?", "Question 2?", REQUEST]
    history = agent.get_state(config).values["messages"]
    rail = guard.input_rail
    assert rail is not None
    assert rail.ledger.judged_prefix(history) == len(history) - 2  # the refused turn never entered it
    drafted = [*history[:-2], HumanMessage(REQUEST), AIMessage(f"{LEAK}: here is how.")]
    assert rail.ledger.judged_prefix(drafted) == len(history) - 2


def test_a_function_is_called_only_once_its_input_is_clean() -> None:
    calls: list[Any] = []

    def model(messages: list[BaseMessage]) -> str:
        calls.append(messages)
        return LEAK

    guarded = guard_model(
        model, HazardBattery.input(list(KEYWORDS), model=KeywordDecisionModel(keywords=KEYWORDS))
    )
    assert guarded.invoke([HumanMessage(REQUEST)]).content == INPUT_REFUSAL
    assert not calls


def test_a_model_bound_to_provider_side_tools_is_called_only_once_its_input_is_clean() -> None:
    model = leaky()
    bound = model.bind(tools=[{"type": "web_search"}])
    guarded = guard_model(
        bound, HazardBattery.input(list(KEYWORDS), model=KeywordDecisionModel(keywords=KEYWORDS))
    )
    assert guarded.invoke([HumanMessage(REQUEST)]).content == INPUT_REFUSAL
    assert model.calls == 0


def test_the_middleware_calls_a_model_with_provider_side_tools_only_once_its_input_is_clean() -> None:
    decision = KeywordDecisionModel(keywords=KEYWORDS)
    model = leaky()
    guard = JevGuardrailMiddleware(categories=list(KEYWORDS), model=decision)
    agent = create_agent(
        model, tools=[{"type": "web_search_20250305", "name": "web_search"}], middleware=[guard]
    )
    out = agent.invoke({"messages": [HumanMessage(REQUEST)]})
    assert out["messages"][-1].content == INPUT_REFUSAL and model.calls == 0


def test_stream_tokens_calls_the_model_only_once_its_input_is_clean() -> None:
    decision = KeywordDecisionModel(keywords=KEYWORDS)
    model = leaky()
    graph, config = door_only("guarded_model", model, decision, stream_tokens=True), thread()
    graph.invoke({"messages": [HumanMessage(REQUEST)]}, config)
    assert model.calls == 0


def test_where_a_call_may_start_early() -> None:
    chat = leaky()
    assert may_start_early(chat) and may_start_early(chat.bind(tools=[{"type": "function", "function": {"name": "f"}}]))
    assert not may_start_early(chat.bind(tools=[{"type": "code_interpreter"}]))
    assert not may_start_early(chat, [{"type": "mcp", "server_url": "https://example.com"}])
    assert not may_start_early(RunnableLambda(lambda messages: "hi"))
    assert client_tool({"name": "f", "input_schema": {}}) and client_tool({"type": "custom", "name": "g"})


# ---------------------------------------------------------------- the draft's own ways out, and failures


@pytest.mark.parametrize(
    "way", ["stream:custom", "astream:custom", "astream:messages", "astream_events:v2", "stream:v2"]
)
@pytest.mark.parametrize("chat_kind", ["stream writer and custom event", "nested model call"])
@pytest.mark.parametrize("chunks", [None, 2], ids=["judged whole", "judged in chunks"])
@pytest.mark.parametrize("form", FORMS)
async def test_a_draft_running_beside_its_check_never_leaks_from_inside_the_model_call(
    form: str, chat_kind: str, chunks: int | None, way: str
) -> None:
    model = StreamWriterChat() if chat_kind.startswith("stream writer") else WrapperChat()
    options: dict[str, Any] = {"stream_chunks": chunks} if chunks else {}
    graph, config = door_only(form, model, KeywordDecisionModel(keywords=KEYWORDS), **options), thread()
    shown = await drive(graph, way, {"messages": [HumanMessage("Tell me about chemistry.")]}, config)
    assert MARK not in repr(shown)
    assert MARK not in repr(graph.get_state(config).values) and MARK not in saved(graph)
    assert graph.get_state(config).values["messages"][-1].content == OUTPUT_REFUSAL


class EchoingInputs(KeywordDecisionModel):
    """Fails every input check (its error quotes the input), after the chat model started."""

    _chat: Any = PrivateAttr(default=None)

    def _classify(self, state: Any, questions: dict[str, Any]) -> ClassifierResponse:
        if "assistant_answer" not in state:
            assert self._chat._started.wait(30)
            raise ValueError(f"cannot read {state!r}")
        return super()._classify(state, questions)


@pytest.mark.parametrize("form", FORMS)
async def test_an_input_check_that_raises_drops_the_draft_and_cancels_its_call(form: str) -> None:
    chat = HangingChat()
    decision = EchoingInputs(keywords=KEYWORDS)
    decision._chat = chat
    graph, config = door_only(form, chat, decision, on_error="raise"), thread()
    with pytest.raises(GuardrailCheckError):
        await graph.ainvoke({"messages": [HumanMessage(REQUEST)]}, config)
    assert chat._cancelled == [True]
    assert LEAK not in saved(graph)


@pytest.mark.parametrize("run", ["sync", "async"])
@pytest.mark.parametrize("form", FORMS)
async def test_the_input_check_keeps_its_deadline_beside_the_model_and_its_expiry_drops_the_draft(
    form: str, run: str
) -> None:
    decision = HungDecisionModel(keywords=KEYWORDS)
    try:
        graph, config = door_only(form, leaky(), decision, timeout=0.2), thread()
        request = {"messages": [HumanMessage(REQUEST)]}
        out = graph.invoke(request, config) if run == "sync" else await graph.ainvoke(request, config)
    finally:
        decision._release.set()
    assert (
        out["messages"][-1].response_metadata["jev_guardrail"]["error"] == "TimeoutError: the check timed out"
    )
    assert_no_draft(graph, [out], config)
