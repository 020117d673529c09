"""Invariant 3, allow-lists only: who may see a hidden run, and which models may start before their verdict.

**Hidden runs** (the model's draft, the battery's run) carry no handler of the
caller's but the allow-listed record-only tracers (LangSmith's by default,
``allowed_tracers`` to add others), whichever way a handler comes: the config
(a list, a manager's inheritable handlers), the context (``collect_runs``, a
``register_configure_hook`` variable, an environment hook, debug mode), the
model itself (``callbacks=``, ``with_config``, ``with_listeners``). Real handlers
watch: one that posts each finished message (``on_llm_end``), a ``BaseTracer``
that forwards tokens and run outputs to a chat UI (as Chainlit's does), an async
handler, each through the guarded model node, ``guard_model`` and the middleware.
Every handler is shown the turn (the released reply or refusal) and nothing of a
hidden run: no draft written for a refused request, no refused reply, no run
tagged as the guardrail's. LangSmith's own tracer, over a fake LangSmith API on
loopback, records the hidden runs.

**Early start** (the concurrent input check) only for a model whose every tool is
a recognised client tool and whose every setting is known to be inert, checked on
the real provider classes (langchain-openai, langchain-anthropic,
langchain-google-genai, dummy keys) and by generated tool lists and settings
against the providers' own request builders.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypedDict

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.callbacks import (
    AsyncCallbackHandler,
    BaseCallbackHandler,
    CallbackManager,
    StreamingStdOutCallbackHandler,
)
from langchain_core.globals import set_debug
from langchain_core.language_models import BaseChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from langchain_core.tracers.base import BaseTracer
from langchain_core.tracers.context import collect_runs, register_configure_hook
from langchain_core.tracers.event_stream import _AstreamEventsCallbackHandler
from langchain_core.tracers.langchain import LangChainTracer
from langchain_core.tracers.schemas import Run
from langchain_core.tracers.stdout import ConsoleCallbackHandler
from langsmith import Client
from pydantic import BaseModel, PrivateAttr

from langchain_jev import ChatModelDecisionModel, JevConfigurationError
from langchain_jev.graph import guard_model
from langchain_jev.guardrails import GuardrailSettings, HazardBattery
from langchain_jev.guardrails import _early as early
from langchain_jev.guardrails._early import INERT_OPTIONS, client_tool, may_start_early, why_not_early
from tests.fakes import ReplyingChatModel
from tests.guardrails.helpers import KeywordDecisionModel, WaitsForTheModel
from tests.guardrails.test_concurrent import door_only
from tests.models.chat.helpers import ToolCallingChatModel, tool_reply
from tests.support.fake_langsmith import Posted, fake_langsmith_api

langchain_openai = pytest.importorskip("langchain_openai")
langchain_anthropic = pytest.importorskip("langchain_anthropic")
langchain_google_genai = pytest.importorskip("langchain_google_genai")
ChatOpenAI = langchain_openai.ChatOpenAI
ChatAnthropic = langchain_anthropic.ChatAnthropic
ChatGoogleGenerativeAI = langchain_google_genai.ChatGoogleGenerativeAI

MARK = "nerve agent"
KEYWORDS = {"indiscriminate_weapons": (MARK,)}
REQUEST = "How do I make a nerve agent at home?"
LEAK = "DRAFT-LEAK written for a refused request"
DRAFT = "To make a nerve agent, combine the precursors."
INPUT_REFUSAL = "I can't help with that request: it was flagged for indiscriminate weapons."
OUTPUT_REFUSAL = "I can't share that response: it was flagged for indiscriminate weapons."
FORMS = ["guarded_model", "guard_model", "middleware"]
HIDDEN_TAGS = ("nostream", "jev_guardrail", "jev_guarded_draft")
"""The tags of the guardrail's hidden runs (the draft's, the battery's)."""
SECRETS = (LEAK, "combine the precursors")
"""What only a hidden run holds: the draft for a refused request, the refused reply."""

# ---------------------------------------------------------------- the handlers that watch


class Posts(BaseCallbackHandler):
    """Posts each finished message to a chat (``on_llm_end``), and notes every run it is told of."""

    def __init__(self) -> None:
        self.posted: list[str] = []
        self.tags: list[str] = []

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self.posted.append(repr(response))

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.tags.extend(kwargs.get("tags") or [])

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.tags.extend(kwargs.get("tags") or [])

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self.posted.append(repr(outputs))

    @property
    def seen(self) -> str:
        return "\n".join(self.posted)


class ForwardsToTheUI(BaseTracer):
    """A tracer that forwards tokens and run outputs to a chat UI, as Chainlit's ``LangchainCallbackHandler`` does."""

    def __init__(self) -> None:
        super().__init__()
        self.ui: list[str] = []
        self.tags: list[str] = []

    def _persist_run(self, run: Run) -> None:
        pass

    def _on_llm_new_token(self, run: Run, token: str, chunk: Any) -> None:
        self.ui.append(token)

    def _on_run_create(self, run: Run) -> None:
        self.tags.extend(run.tags or [])

    def _on_llm_end(self, run: Run) -> None:
        self.ui.append(repr(run.outputs))

    def _on_chain_end(self, run: Run) -> None:
        self.ui.append(repr(run.outputs))

    @property
    def seen(self) -> str:
        return "\n".join(self.ui)


class AsyncPosts(AsyncCallbackHandler):
    """An async handler posting each finished message."""

    def __init__(self) -> None:
        self.posted: list[str] = []
        self.tags: list[str] = []

    async def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self.posted.append(repr(response))

    async def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.tags.extend(kwargs.get("tags") or [])

    async def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.tags.extend(kwargs.get("tags") or [])

    async def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self.posted.append(repr(outputs))

    @property
    def seen(self) -> str:
        return "\n".join(self.posted)


Watcher = Posts | ForwardsToTheUI | AsyncPosts
WATCHERS = {
    "posts on_llm_end": Posts,
    "tracer forwarding to a UI": ForwardsToTheUI,
    "async handler": AsyncPosts,
}


def assert_saw_no_hidden_run(watcher: Watcher, *, saw: str) -> None:
    """The watcher was shown the turn (``saw``) and nothing of a hidden run."""
    for secret in SECRETS:
        assert secret not in watcher.seen, f"{type(watcher).__name__} saw a hidden run's {secret!r}"
    assert not set(HIDDEN_TAGS) & set(watcher.tags), f"{type(watcher).__name__} was told of a hidden run"
    assert saw in watcher.seen, f"{type(watcher).__name__} was not shown the turn"


# ---------------------------------------------------------------- the model and the forms


def replies(decision: WaitsForTheModel | None = None) -> list[Any]:
    """A draft for a refused request ("DRAFT-LEAK"), a refused reply for "chemistry", else "Sure.".

    With a ``decision`` that waits for the model (`WaitsForTheModel`), each call is counted for it."""

    def reply(messages: list[BaseMessage]) -> AIMessage:
        if decision is not None:
            decision._handshake.called()
        last = str(messages[-1].content)
        if MARK in repr(messages):
            return AIMessage(LEAK)
        if "chemistry" in last:
            return AIMessage(DRAFT)
        return AIMessage("Sure.")

    return [reply] * 12


def model(**fields: Any) -> ReplyingChatModel:
    return ReplyingChatModel(replies=replies(), **fields)


def watched(**fields: Any) -> tuple[ReplyingChatModel, WaitsForTheModel]:
    """The model, and a decision model whose input checks answer only once the model was called beside them:
    so every draft these tests watch for is really written (see `WaitsForTheModel`)."""
    decision = WaitsForTheModel(keywords=KEYWORDS)
    return ReplyingChatModel(replies=replies(decision), **fields), decision


def build(form: str, chat: Any, decision: KeywordDecisionModel | None = None, **options: Any) -> Any:
    """``chat`` behind its door alone (input and output batteries; the model starts beside its input check)."""
    return door_only(
        form, chat, decision if decision is not None else KeywordDecisionModel(keywords=KEYWORDS), **options
    )


def thread(name: str = "t") -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


async def run(graph: Any, way: str, text: str, config: dict[str, Any]) -> Any:
    request = {"messages": [HumanMessage(text)]}
    if way == "invoke":
        return graph.invoke(request, config)
    if way == "ainvoke":
        return await graph.ainvoke(request, config)
    return [event async for event in graph.astream_events(request, config, version="v2")]


async def refused_request_and_reply(graph: Any, way: str, config: dict[str, Any]) -> None:
    """A refused request (its draft written beside the check), then, in another thread, a refused reply."""
    for name, text, refusal in (
        ("request", REQUEST, INPUT_REFUSAL),
        ("reply", "Tell me about chemistry.", OUTPUT_REFUSAL),
    ):
        turn = {**config, **thread(name)}
        await run(graph, way, text, turn)
        assert graph.get_state(turn).values["messages"][-1].content == refusal


# ---------------------------------------------------------------- class C: handlers in the config


@pytest.mark.parametrize("way", ["invoke", "ainvoke", "astream_events"])
@pytest.mark.parametrize("watcher", WATCHERS)
@pytest.mark.parametrize("form", FORMS)
async def test_a_handler_in_the_config_sees_the_turn_but_no_hidden_run(
    form: str, watcher: str, way: str
) -> None:
    watching = WATCHERS[watcher]()
    chat, decision = watched()
    await refused_request_and_reply(build(form, chat, decision), way, {**thread(), "callbacks": [watching]})
    assert decision._met == [True, True]  # each draft was written, beside its input check
    assert_saw_no_hidden_run(watching, saw=OUTPUT_REFUSAL)


@pytest.mark.parametrize("form", FORMS)
def test_a_manager_with_inheritable_handlers_reaches_no_hidden_run(form: str) -> None:
    posts, forwards = Posts(), ForwardsToTheUI()
    manager = CallbackManager([posts], inheritable_handlers=[posts, forwards])
    graph = build(form, *watched())
    asyncio.run(refused_request_and_reply(graph, "invoke", {**thread(), "callbacks": manager}))
    assert_saw_no_hidden_run(posts, saw=OUTPUT_REFUSAL)
    assert_saw_no_hidden_run(forwards, saw=OUTPUT_REFUSAL)


# ---------------------------------------------------------------- class C: handlers the model carries


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("how", ["callbacks=", "with_config", "with_listeners"])
def test_a_handler_the_model_carries_sees_no_draft(form: str, how: str) -> None:
    if form == "middleware" and how != "callbacks=":
        pytest.skip("create_agent takes a chat model, not a binding")
    posts, seen = Posts(), []
    chat, decision = watched(callbacks=[posts] if how == "callbacks=" else None)
    carrying: Any = chat
    if how == "with_config":
        carrying = chat.with_config(callbacks=[posts])
    elif how == "with_listeners":
        carrying = chat.with_listeners(on_end=lambda run: seen.append(repr(run.outputs)))
    asyncio.run(refused_request_and_reply(build(form, carrying, decision), "invoke", thread()))
    assert decision._met == [True, True]
    assert not any(secret in posts.seen + "".join(seen) for secret in SECRETS)


class Prompts(BaseCallbackHandler):
    """Records what every chat model run it is told of was sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.sent.append(repr(messages))


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_handler_on_the_batterys_own_chat_model_never_sees_what_it_judges(asynchronous: bool) -> None:
    """The output battery judges the draft with a chat model of the caller's carrying its own handler."""
    prompts = Prompts()
    flagging = {"indiscriminate_weapons": {"reasoning": "A recipe.", "yes_probability": 0.97}}
    judge_chat = ToolCallingChatModel(replies=[tool_reply(flagging)], callbacks=[prompts])
    judge = ChatModelDecisionModel(judge_chat, strategy="structured")
    guarded = guard_model(model(), HazardBattery.output(list(KEYWORDS), model=judge))
    request = [HumanMessage("Tell me about chemistry.")]
    reply = asyncio.run(guarded.ainvoke(request)) if asynchronous else guarded.invoke(request)
    assert reply.content == OUTPUT_REFUSAL  # the judge's chat model was asked, and flagged the draft
    assert not any("combine the precursors" in sent for sent in prompts.sent) and prompts.sent == []


def test_a_handler_on_the_model_sees_the_reply_where_nothing_is_hidden() -> None:
    """Outside a hidden run (no output check, stream_tokens) the model's own handler keeps its runs."""
    posts = Posts()
    graph = build("guarded_model", model(callbacks=[posts]), stream_tokens=True)
    graph.invoke({"messages": [HumanMessage("Hello there.")]}, thread())
    assert "Sure." in posts.seen


# ---------------------------------------------------------------- class C: handlers from the context

_FORWARDING: ContextVar[Any] = ContextVar("jev_test_forwarding", default=None)
register_configure_hook(_FORWARDING, inheritable=True)
_FROM_ENV: ContextVar[Any] = ContextVar("jev_test_from_env", default=None)
register_configure_hook(_FROM_ENV, True, ForwardsToTheUI, "JEV_TEST_FORWARD_TO_UI")


@pytest.mark.parametrize("form", FORMS)
def test_a_handler_a_context_hook_adds_sees_no_hidden_run(form: str) -> None:
    forwards = ForwardsToTheUI()
    token = _FORWARDING.set(forwards)
    try:
        with collect_runs() as collected:
            asyncio.run(refused_request_and_reply(build(form, *watched()), "invoke", thread()))
    finally:
        _FORWARDING.reset(token)
    assert_saw_no_hidden_run(forwards, saw=OUTPUT_REFUSAL)
    assert collected.traced_runs, "the run collector saw the turn"
    assert not any(secret in repr(collected.traced_runs) for secret in SECRETS)


def test_a_handler_made_from_the_environment_or_debug_mode_refuses_the_turn(monkeypatch: Any) -> None:
    graph = build("guarded_model", model())
    monkeypatch.setenv("JEV_TEST_FORWARD_TO_UI", "true")
    with pytest.raises(JevConfigurationError, match="JEV_TEST_FORWARD_TO_UI adds a ForwardsToTheUI"):
        graph.invoke({"messages": [HumanMessage(REQUEST)]}, thread())
    monkeypatch.delenv("JEV_TEST_FORWARD_TO_UI")
    set_debug(True)
    try:
        with pytest.raises(JevConfigurationError, match=r"debug mode \(set_debug\(True\)\)"):
            build("guard_model", model()).invoke({"messages": [HumanMessage(REQUEST)]}, thread())
        printing = build("guard_model", model(), allowed_tracers=[ConsoleCallbackHandler])
        out = printing.invoke({"messages": [HumanMessage("Hello there.")]}, thread())
        assert out["messages"][-1].content == "Sure."
    finally:
        set_debug(False)


# ---------------------------------------------------------------- the allow-list: LangSmith's, and others added


@pytest.fixture
def langsmith_api() -> Iterator[tuple[str, list[Posted]]]:
    """A fake LangSmith API on loopback, recording every body the client posts: its URL and what it got."""
    with fake_langsmith_api() as api:
        yield api


@pytest.mark.parametrize("form", FORMS)
def test_langsmiths_tracer_records_the_hidden_runs_and_an_added_tracer_may_too(
    form: str, langsmith_api: tuple[str, list[Posted]]
) -> None:
    url, posted = langsmith_api
    client = Client(api_key="fake-key", api_url=url, auto_batch_tracing=False)
    tracer, recorded, posts = (
        LangChainTracer(client=client, project_name="guarded"),
        ForwardsToTheUI(),
        Posts(),
    )

    class Recorder(ForwardsToTheUI):
        """A record-only tracer of the caller's, allow-listed by class."""

    recorder = Recorder()
    graph = build(form, *watched(), allowed_tracers=[Recorder])
    config = {**thread(), "callbacks": [tracer, recorder, recorded, posts]}
    asyncio.run(refused_request_and_reply(graph, "invoke", config))
    tracer.wait_for_futures()
    sent = b"".join(post.body for post in posted).decode("utf-8", "replace")
    assert LEAK in sent and "combine the precursors" in sent and "jev_guardrail" in sent
    assert LEAK in recorder.seen and "jev_guarded_draft" in recorder.tags
    assert_saw_no_hidden_run(recorded, saw=OUTPUT_REFUSAL)  # its subclass is allowed, not it
    assert_saw_no_hidden_run(posts, saw=OUTPUT_REFUSAL)


def test_allowed_tracers_are_checked_when_the_settings_are_made() -> None:
    assert GuardrailSettings(allowed_tracers=[ForwardsToTheUI]).tracers == (LangChainTracer, ForwardsToTheUI)
    assert GuardrailSettings().tracers == (LangChainTracer,)
    with pytest.raises(
        JevConfigurationError, match=r"allowed_tracers takes callback handler classes .* an instance"
    ):
        GuardrailSettings(allowed_tracers=[ForwardsToTheUI()])
    with pytest.raises(
        JevConfigurationError,
        match="allowed_tracers must be a list of tracer classes, got ForwardsToTheUI alone",
    ):
        GuardrailSettings(allowed_tracers=ForwardsToTheUI)  # type: ignore[arg-type]
    with pytest.raises(JevConfigurationError, match="_AstreamEventsCallbackHandler feeds a stream"):
        GuardrailSettings(allowed_tracers=[_AstreamEventsCallbackHandler])
    with pytest.raises(JevConfigurationError, match="StreamingStdOutCallbackHandler feeds a stream"):
        GuardrailSettings(allowed_tracers=[StreamingStdOutCallbackHandler])
    with pytest.raises(JevConfigurationError, match="got str"):
        guard_model(
            model(), HazardBattery.output(list(KEYWORDS), model=KeywordDecisionModel()), allowed_tracers=[str]
        )


# ---------------------------------------------------------------- class D: real provider classes


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return query


class Person(BaseModel):
    """A person."""

    name: str


class Weather(TypedDict):
    """The weather in a city."""

    city: str


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def openai(**settings: Any) -> Any:
    return ChatOpenAI(api_key="sk-dummy", **settings)


def anthropic(**settings: Any) -> Any:
    return ChatAnthropic(model="claude-sonnet-4-5", api_key="sk-dummy", **settings)


def gemini(**settings: Any) -> Any:
    return ChatGoogleGenerativeAI(model="gemini-2.5-flash", google_api_key="dummy", **settings)


PROVIDER_MODELS = {"openai": openai, "anthropic": anthropic, "gemini": gemini}

ACTING: dict[str, Any] = {
    "Gemini google_search": lambda: gemini().bind_tools([{"google_search": {}}]),
    "Gemini code_execution": lambda: gemini().bind_tools([{"code_execution": {}}]),
    "Gemini url_context": lambda: gemini().bind_tools([{"url_context": {}}]),
    "Gemini tool object with search": lambda: gemini().bind_tools(
        [__import__("google.genai.types", fromlist=["Tool"]).Tool(google_search={})]
    ),
    "Anthropic mcp_servers=": lambda: anthropic(
        mcp_servers=[{"type": "url", "url": "https://mcp.example", "name": "m"}]
    ),
    "Anthropic mcp_servers bound": lambda: anthropic().bind(
        mcp_servers=[{"type": "url", "url": "https://x", "name": "m"}]
    ),
    "Anthropic web search": lambda: anthropic().bind_tools(
        [{"type": "web_search_20250305", "name": "web_search"}]
    ),
    "Anthropic container": lambda: anthropic(container="container-1"),
    "OpenAI tools in model_kwargs": lambda: openai(model_kwargs={"tools": [{"type": "web_search_preview"}]}),
    "OpenAI tools in extra_body": lambda: openai(extra_body={"tools": [{"type": "code_interpreter"}]}),
    "OpenAI search settings": lambda: openai(web_search_options={}),
    "OpenAI search model": lambda: openai(model="gpt-4o-search-preview"),
    "OpenAI built-in tool": lambda: openai().bind_tools([{"type": "web_search"}]),
    "OpenAI MCP tool": lambda: openai().bind_tools(
        [{"type": "mcp", "server_url": "https://x", "server_label": "x"}]
    ),
    "OpenAI file search": lambda: openai().bind(tools=[{"type": "file_search", "vector_store_ids": ["v"]}]),
    "OpenAI context management": lambda: openai(context_management=[{"type": "compaction"}]),
    "Gemini cached content": lambda: gemini(cached_content="cachedContents/abc"),
}


@pytest.mark.parametrize("case", ACTING)
def test_a_provider_that_acts_during_the_call_waits_for_the_verdict(case: str) -> None:
    assert not may_start_early(ACTING[case]()), why_not_early(ACTING[case]())


@pytest.mark.parametrize("provider", PROVIDER_MODELS)
def test_a_provider_with_client_tools_and_inert_settings_starts_early(provider: str) -> None:
    make = PROVIDER_MODELS[provider]
    chat = make(temperature=0.2, max_retries=1, timeout=5) if provider != "gemini" else make(temperature=0.2)
    assert why_not_early(chat) is None
    assert why_not_early(chat.bind_tools([lookup, Person, Weather, add], tool_choice="any")) is None
    assert why_not_early(chat, [lookup], {"parallel_tool_calls": False}) is None


def test_the_middleware_reads_the_agents_tools_and_model_settings() -> None:
    assert not may_start_early(openai(), [lookup, {"type": "web_search"}])
    assert not may_start_early(openai(), [lookup], {"web_search_options": {}})
    assert not may_start_early(anthropic(), [lookup], {"mcp_servers": [{"type": "url", "url": "https://x"}]})
    assert may_start_early(anthropic(), [lookup], {"tool_choice": "auto"})


def _chat_completion() -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4o-mini",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": LEAK}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        },
    )


class WaitsForTheProvider(KeywordDecisionModel):
    """A keyword classifier whose input check answers once the provider was sent a request, or after ``patience``.

    A door that starts the model beside its check is answered as soon as the provider reads the request; one
    that waits for the verdict is answered after ``patience`` seconds, and whether the provider came first is
    recorded (a door that starts early under load may miss it: the test then passes for the wrong reason, never
    fails for one)."""

    patience: float = 30.0
    _provider_called: threading.Event = PrivateAttr(default_factory=threading.Event)
    _met: list[bool] = PrivateAttr(default_factory=list)

    def _classify(self, state: Any, questions: dict[str, Any]) -> Any:
        if "assistant_answer" not in state:
            self._met.append(self._provider_called.wait(timeout=self.patience))
        return super()._classify(state, questions)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("acting", [True, False], ids=["built-in tool in model_kwargs", "client tools only"])
def test_a_real_chatopenai_reads_a_refused_request_only_when_it_can_only_write(
    form: str, acting: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over a plain HTTP client (httpx's own transport, answered here): with a built-in tool the request never
    reaches the provider."""
    sent: list[httpx.Request] = []
    decision = WaitsForTheProvider(keywords=KEYWORDS, patience=3.0 if acting else 30.0)

    def provider(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        decision._provider_called.set()
        return _chat_completion()

    settings = {"model_kwargs": {"tools": [{"type": "web_search_preview"}]}} if acting else {}

    def handle(transport: httpx.HTTPTransport, request: httpx.Request) -> httpx.Response:
        request.read()
        return provider(request)

    monkeypatch.setattr(httpx.HTTPTransport, "handle_request", handle)  # the client stays a plain one
    chat = openai(http_client=httpx.Client(), max_retries=0, **settings)
    target = chat if form == "middleware" else chat.bind_tools([lookup])
    out = build(form, target, decision=decision).invoke({"messages": [HumanMessage(REQUEST)]}, thread())
    assert out["messages"][-1].content == INPUT_REFUSAL
    assert LEAK not in repr(out)
    if acting:
        assert sent == [] and decision._met == [False], "the provider read the request before its verdict"
    else:  # the model only writes, so it started beside the check: its draft went nowhere
        assert decision._met == [True]
        assert any(MARK in request.content.decode() for request in sent)


class _ProviderSearch(BaseChatModel):
    """Stands for a chat model of a provider package the guardrail does not know."""

    @property
    def _llm_type(self) -> str:
        return "search"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage("found"))])


def test_a_model_class_of_an_unknown_installed_package_waits(monkeypatch: Any) -> None:
    here = Path(__file__).resolve().parent
    assert may_start_early(_ProviderSearch())  # the caller's own class
    early._callers.cache_clear()
    monkeypatch.setattr(early, "_installed_roots", lambda: (here,))
    try:
        assert why_not_early(_ProviderSearch()) == (
            "_ProviderSearch (tests) is a model class the guardrail does not know the settings of"
        )
        assert may_start_early(GenericFakeChatModel(messages=iter([])))  # langchain-core's own
        assert may_start_early(openai())  # a provider the guardrail knows
    finally:
        early._callers.cache_clear()


class _Wrapper(BaseChatModel):
    """A chat model of the caller's that answers through a provider model it holds."""

    inner: Any = None

    @property
    def _llm_type(self) -> str:
        return "wrapper"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.inner.invoke(messages))])


def test_variants_the_issue_did_not_name_wait_too() -> None:
    """A wrapper's inner model with a built-in tool, another server speaking a provider's API (OpenRouter's
    ``:online`` search suffix, a local server), a search model by name, a binding's ``extra_body``."""
    assert not may_start_early(_Wrapper(inner=openai().bind_tools([{"type": "web_search"}])))
    assert not may_start_early(_Wrapper(inner=[gemini().bind_tools([{"google_search": {}}])]))
    assert may_start_early(_Wrapper(inner=openai().bind_tools([lookup])))
    assert not may_start_early(openai(base_url="https://openrouter.ai/api/v1", model="openai/gpt-4o:online"))
    assert not may_start_early(openai(base_url="http://127.0.0.1:8000/v1"))
    assert not may_start_early(anthropic(base_url="https://proxy.example/anthropic"))
    assert not may_start_early(openai(model="o4-mini-deep-research"))
    assert not may_start_early(openai().bind(extra_body={"plugins": [{"id": "web"}]}))
    assert not may_start_early(
        openai(), [{"type": "function", "function": {"name": "f"}, "defer_loading": True}]
    )
    assert may_start_early(openai(base_url="https://api.openai.com/v1"))


def test_anything_but_a_chat_model_waits() -> None:
    assert not may_start_early(RunnableLambda(lambda messages: "hi"))
    assert not may_start_early(openai().with_structured_output(Person))  # a sequence with a parser after it
    assert may_start_early(openai().bind_tools([lookup]).with_retry())


# ---------------------------------------------------------------- class D: generated tools and settings


CLIENT_TOOLS = st.sampled_from(
    [
        lookup,
        Person,
        Weather,
        add,
        {"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}},
        {"type": "function", "name": "f", "parameters": {"type": "object"}, "strict": True},
        {"type": "custom", "name": "g", "description": "free text"},
        {"name": "h", "description": "d", "input_schema": {"type": "object"}},
        {"name": "i", "description": "d", "parameters": {"type": "object"}},
    ]
)
BUILT_IN_TYPES = st.text(min_size=1, max_size=30).filter(lambda kind: kind not in ("function", "custom"))
OTHER_TOOLS = st.one_of(
    st.builds(lambda kind: {"type": kind}, BUILT_IN_TYPES),
    st.builds(lambda kind, name: {"type": kind, "name": name}, BUILT_IN_TYPES, st.text(min_size=1)),
    st.sampled_from(
        [
            {"google_search": {}},
            {"code_execution": {}},
            {"url_context": {}},
            {"google_search_retrieval": {"dynamic_retrieval_config": {}}},
            {"type": "mcp", "server_url": "https://x", "server_label": "x"},
            {"type": "web_search_20250305", "name": "web_search"},
            {"type": "function", "function": {"name": "f"}, "server": "x"},
            {"name": "h", "input_schema": {}, "allowed_callers": ["code_execution_20250825"]},
        ]
    ),
    st.dictionaries(st.text(min_size=1, max_size=12), st.text(max_size=8), min_size=1, max_size=4).filter(
        lambda tool: not client_tool(tool)
    ),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(CLIENT_TOOLS.map(lambda t: (True, t)), OTHER_TOOLS.map(lambda t: (False, t))), max_size=5
    )
)
def test_a_model_starts_early_exactly_when_every_tool_is_an_allow_listed_client_tool(
    drawn: list[tuple[bool, Any]],
) -> None:
    tools = [tool for _, tool in drawn]
    expected = all(client for client, _ in drawn)
    chat = GenericFakeChatModel(messages=iter([]))
    assert may_start_early(chat.bind(tools=tools)) is expected
    assert may_start_early(chat, tools) is expected


def _payload_tools(tools: list[Any]) -> list[Any] | None:
    """The tools langchain-openai's own request builder sends when ``tools`` are bound (None: it cannot build it)."""
    try:
        body = openai()._get_request_payload([HumanMessage("hi")], tools=tools)
    except Exception:
        return None
    return list(body.get("tools") or [])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.sampled_from(
            ["type", "name", "function", "parameters", "description", "server_url", "input_schema"]
        ),
        st.one_of(
            st.sampled_from(["function", "custom", "web_search", "mcp", "f"]),
            st.dictionaries(
                st.sampled_from(["name", "parameters", "description"]), st.sampled_from(["f", "g"])
            ),
        ),
        max_size=5,
    )
)
def test_what_starts_early_is_sent_by_the_provider_as_a_client_tool_only(tool: dict[str, Any]) -> None:
    """Oracle: langchain-openai's request builder. A tool that starts early is sent as a function or custom tool."""
    if not may_start_early(GenericFakeChatModel(messages=iter([])), [tool]):
        return
    sent = _payload_tools([tool])
    if sent is None:
        return  # the request cannot be built: the provider is never called
    assert all(isinstance(t, dict) and t.get("type") in (None, "function", "custom") for t in sent), sent


INERT_SETTINGS: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "openai": {
        "temperature": st.floats(0, 2),
        "max_tokens": st.integers(1, 4000),
        "top_p": st.floats(0, 1),
        "seed": st.integers(0, 100),
        "use_responses_api": st.booleans(),
        "reasoning_effort": st.sampled_from(["low", "high"]),
        "model_kwargs": st.just({"user": "u-1", "prompt_cache_key": "k"}),
        "extra_body": st.just({"metadata": None, "service_tier": "auto"}),
        "store": st.booleans(),
    },
    "anthropic": {
        "temperature": st.floats(0, 1),
        "max_tokens": st.integers(1, 4000),
        "betas": st.just(["context-1m-2025-08-07"]),
        "thinking": st.just({"type": "enabled", "budget_tokens": 1024}),
        "model_kwargs": st.just({"service_tier": "auto"}),
    },
    "gemini": {
        "temperature": st.floats(0, 2),
        "max_output_tokens": st.integers(1, 4000),
        "safety_settings": st.just({}),
        "thinking_budget": st.integers(0, 1000),
        "labels": st.just({"team": "a"}),
    },
}
ACTING_SETTINGS: dict[str, dict[str, Any]] = {
    "openai": {
        "model_kwargs": {"tools": [{"type": "web_search_preview"}]},
        "extra_body": {"tools": [{"type": "code_interpreter", "container": {"type": "auto"}}]},
        "model_kwargs_search": {"web_search_options": {}},
        "context_management": [{"type": "compaction"}],
    },
    "anthropic": {
        "mcp_servers": [{"type": "url", "url": "https://mcp.example", "name": "m"}],
        "container": "container-1",
        "model_kwargs": {"tools": [{"type": "web_search_20250305", "name": "web_search"}]},
        "context_management": {"edits": []},
    },
    "gemini": {"cached_content": "cachedContents/abc", "model_kwargs": {"tools": [{"google_search": {}}]}},
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_real_provider_model_starts_early_exactly_when_its_settings_are_inert(data: st.DataObject) -> None:
    provider = data.draw(st.sampled_from(sorted(PROVIDER_MODELS)))
    inert = data.draw(st.fixed_dictionaries({}, optional=INERT_SETTINGS[provider]))
    acting = data.draw(st.sampled_from([None, *sorted(ACTING_SETTINGS[provider])]))
    chosen = dict(inert)
    if acting is not None:
        chosen[acting.removesuffix("_search")] = ACTING_SETTINGS[provider][acting]
    chat = PROVIDER_MODELS[provider](**chosen)
    assert may_start_early(chat) is (acting is None), (chosen, why_not_early(chat))


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=20), st.integers(), max_size=3))
def test_a_call_option_starts_early_only_when_it_is_known_to_be_inert(options: dict[str, Any]) -> None:
    chat = GenericFakeChatModel(messages=iter([]))
    expected = all(key in INERT_OPTIONS and key not in ("tools", "functions") for key in options)
    if set(options) & {"tools", "functions"}:
        return  # an integer is no list of tools (checked apart)
    assert may_start_early(chat.bind(**options)) is expected


def test_a_refusal_names_what_made_the_model_wait() -> None:
    assert why_not_early(gemini().bind_tools([{"google_search": {}}])) == (
        "the tool ['google_search'] is not a client tool the guardrail recognises"
    )
    assert why_not_early(openai(model_kwargs={"tools": [{"type": "web_search_preview"}]})) == (
        "the tool 'web_search_preview' is not a client tool the guardrail recognises"
    )
    assert why_not_early(anthropic(mcp_servers=[{"type": "url", "url": "https://x", "name": "m"}])) == (
        "the setting 'mcp_servers' of ChatAnthropic is not one the guardrail knows to be inert"
    )
    assert json.dumps(why_not_early(lambda m: m)).startswith('"function is not a chat model')
