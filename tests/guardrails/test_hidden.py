"""Runs nobody but an allowed tracer sees: `hidden_config`, `hidden_context`, `hidden_runnable`, with real
streams and tracers; `unstreamed_config` (streams only left out) and `visible_config` (streams only kept)."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.runnables.utils import coro_with_context
from langchain_core.tracers.event_stream import _AstreamEventsCallbackHandler
from langchain_core.tracers.langchain import LangChainTracer
from langgraph.graph import START, MessagesState, StateGraph

from langchain_jev.guardrails._hidden import (
    NOSTREAM_TAGS,
    hidden_config,
    hidden_context,
    hidden_runnable,
    is_stream_handler,
    stream_handlers,
    unstreamed_config,
    visible_config,
)
from tests.fakes import RunRecorder

SECRET = "a draft nobody has checked"


def test_hidden_config_keeps_only_the_allowed_tracers_of_a_manager() -> None:
    recorder, stream, other = RunRecorder(), _AstreamEventsCallbackHandler(), _Tokens()
    manager = CallbackManager([recorder, stream, other], inheritable_handlers=[recorder, stream, other])
    config = hidden_config({"callbacks": manager, "tags": ["mine"]}, "jev_guardrail", tracers=(RunRecorder,))
    hidden = config["callbacks"]
    assert isinstance(hidden, CallbackManager)
    assert hidden.handlers == [recorder] and hidden.inheritable_handlers == [recorder]
    assert manager.handlers == [recorder, stream, other]  # the caller's manager is left alone
    assert config["tags"] == ["mine", *NOSTREAM_TAGS, "jev_guardrail"]
    assert hidden_config({"callbacks": manager})["callbacks"].handlers == []  # by default, LangSmith's only

    class Forwarding(LangChainTracer):
        """A subclass of LangSmith's tracer is another class: it may forward what it is shown."""

    kept = LangChainTracer()
    assert hidden_config({"callbacks": [kept, Forwarding()]})["callbacks"] == [kept]
    assert is_stream_handler(stream) and not is_stream_handler(recorder)


def test_unstreamed_config_leaves_out_the_streams_alone() -> None:
    recorder, stream, tokens = RunRecorder(), _AstreamEventsCallbackHandler(), _Tokens()
    config = unstreamed_config({"callbacks": [recorder, stream, tokens]}, "jev_judge")
    assert config["callbacks"] == [recorder] and config["tags"] == [*NOSTREAM_TAGS, "jev_judge"]


def _graph(hide: bool) -> Any:
    chat = GenericFakeChatModel(messages=iter([AIMessage(SECRET)]))

    def node(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        draft = chat.invoke(
            state["messages"], hidden_config(config, tracers=(RunRecorder,)) if hide else config
        )
        assert draft.content == SECRET
        return {"messages": [AIMessage("checked")]}

    return StateGraph(MessagesState).add_node("agent", node).add_edge(START, "agent").compile()


async def _events(graph: Any, recorder: RunRecorder) -> list[Any]:
    request = {"messages": [HumanMessage("hi")]}
    return [event async for event in graph.astream_events(request, {"callbacks": [recorder]})]


def test_a_hidden_model_run_is_in_no_stream_but_in_the_trace() -> None:
    recorder = RunRecorder()
    shown = asyncio.run(_events(_graph(hide=True), recorder))
    assert SECRET not in repr(shown)
    assert any(SECRET in repr(run.outputs) for run in recorder.of_type("llm"))
    chunks = list(_graph(hide=True).stream({"messages": [HumanMessage("hi")]}, stream_mode="messages"))
    assert SECRET not in repr(chunks) and "checked" in repr(chunks)


def test_without_hiding_the_same_graph_shows_the_draft() -> None:
    shown = asyncio.run(_events(_graph(hide=False), RunRecorder()))
    assert SECRET in repr(shown)


def test_hidden_context_hides_runs_that_read_their_config_from_the_context() -> None:
    chat = GenericFakeChatModel(messages=iter([AIMessage(SECRET), AIMessage(SECRET)]))

    def call(state: MessagesState) -> dict[str, Any]:
        with hidden_context("mine") as context:
            context.run(chat.invoke, state["messages"])
        return {"messages": [AIMessage("checked")]}

    async def acall(state: MessagesState) -> dict[str, Any]:
        with hidden_context("mine") as context:
            await coro_with_context(chat.ainvoke(state["messages"]), context)
        return {"messages": [AIMessage("checked")]}

    graph = (
        StateGraph(MessagesState)
        .add_node("agent", RunnableLambda(call, afunc=acall))
        .add_edge(START, "agent")
        .compile()
    )
    shown = asyncio.run(_events(graph, RunRecorder()))
    assert SECRET not in repr(shown)
    chunks = list(graph.stream({"messages": [HumanMessage("hi")]}, stream_mode="messages"))
    assert SECRET not in repr(chunks)


class _Tokens(BaseCallbackHandler):
    """A handler of the user's that forwards tokens (as a web socket feeder would)."""

    def __init__(self) -> None:
        self.tokens: list[str] = []

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.tokens.append(token)


class _AlwaysStreaming(GenericFakeChatModel):
    """A chat model set to stream whoever listens (``streaming=True``, as ``ChatOpenAI(streaming=True)``)."""

    streaming: bool = False


def test_a_handler_that_forwards_tokens_is_a_stream_and_never_sees_a_hidden_draft() -> None:
    tokens, recorder = _Tokens(), RunRecorder()
    assert is_stream_handler(tokens) and not is_stream_handler(recorder)
    chat = _AlwaysStreaming(messages=iter([AIMessage(SECRET)]), streaming=True)
    hidden = hidden_config({"callbacks": [tokens, recorder]}, tracers=(RunRecorder,))
    draft = chat.invoke([HumanMessage("hi")], hidden)
    assert draft.content == SECRET
    assert tokens.tokens == []  # it streamed, to nobody but the trace
    assert any(SECRET in repr(run.outputs) for run in recorder.of_type("llm"))


def test_visible_config_keeps_only_the_stream_handlers() -> None:
    tokens, recorder, stream = _Tokens(), RunRecorder(), _AstreamEventsCallbackHandler()
    manager = CallbackManager([recorder, stream, tokens], inheritable_handlers=[recorder, stream, tokens])
    visible = visible_config({"callbacks": manager, "tags": ["mine"]})
    assert visible["callbacks"].handlers == [stream, tokens] and visible["tags"] == ["mine"]
    assert stream_handlers({"callbacks": manager}) == [stream, tokens]
    assert visible_config({"callbacks": [recorder, tokens]})["callbacks"] == [tokens]


def test_hidden_runnable_strips_a_models_own_handlers_inside_a_hidden_run_only() -> None:
    own, listened = RunRecorder(), []
    chat = GenericFakeChatModel(messages=iter([AIMessage(SECRET)] * 3), callbacks=[own])
    bound = chat.bind(stop=["x"]).with_config(callbacks=[_Tokens()]).with_listeners(on_end=listened.append)
    assert hidden_runnable(bound) is bound  # outside a hidden run: itself
    with hidden_context() as context:
        stripped = context.run(hidden_runnable, bound)
        assert context.run(stripped.invoke, "hi").content == SECRET
    assert own.roots == [] and listened == []
    assert bound.invoke("hi").content == SECRET and own.roots and listened  # the caller's model is unchanged
    with hidden_context(tracers=(RunRecorder,)) as context:
        kept = context.run(hidden_runnable, chat)
    assert kept is chat  # nothing to strip: the model itself
