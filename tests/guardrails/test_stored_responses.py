"""The model reads by reference only what this guardrail released (invariants 1 and 3, stored responses).

With ``ChatOpenAI(use_responses_api=True, use_previous_response_id=True)`` langchain-openai sends the last AI
message's ``response_metadata["id"]`` (a ``resp_...`` id) as ``previous_response_id`` and drops the messages
before it: the provider reads the conversation it stored under that id. The door records the response id of
every reply it releases, in its thread; a stored response it did not release (written into the thread, or
released in another thread) is unjudgeable and ``on_unjudgeable`` (refuse by default) decides, before the
model is called or a draft started. The real builder, over a mock transport, is the oracle of what is sent.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain.agents import create_agent
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from langchain_jev.graph import GuardrailState, create_guarded_model_node, guard_model
from langchain_jev.guardrails import HazardBattery
from langchain_jev.guardrails._blocks import reads_stored_responses, stored_references, stored_responses
from langchain_jev.guardrails._calls import ReleasedCalls, ReleasedResponses
from langchain_jev.guardrails._door import GuardrailDoor
from langchain_jev.guardrails._early import may_start_early, why_not_early
from langchain_jev.guardrails._rail import GuardrailRail
from langchain_jev.middleware import JevGuardrailMiddleware
from langchain_jev.models import InMemoryCache
from tests.fakes import ReplyingChatModel
from tests.guardrails.helpers import SEQUENTIAL
from tests.guardrails.lossless_kit import CATEGORY, perfect
from tests.guardrails.test_redteam_round5 import batteries, lookup
from tests.guardrails.test_redteam_round9 import _responses_reply

FORMS = ["guarded_model", "guard_model", "middleware"]


class Provider:
    """A Responses API over a mock transport: records each request, answers with a new response id each time."""

    def __init__(self, prefix: str = "resp_") -> None:
        self.sent: list[dict[str, Any]] = []
        self.ids: list[str] = []
        self._count = itertools.count(1)
        self.prefix = prefix

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(json.loads(request.content))
        response = f"{self.prefix}{next(self._count)}"
        self.ids.append(response)
        return _responses_reply(request, response, f"msg_{response}")

    def chat(self) -> ChatOpenAI:
        return ChatOpenAI(
            model="gpt-4o",
            api_key="sk-dummy",  # type: ignore[arg-type]
            use_responses_api=True,
            use_previous_response_id=True,
            http_client=httpx.Client(transport=httpx.MockTransport(self)),
            http_async_client=httpx.AsyncClient(transport=httpx.MockTransport(self)),
            max_retries=0,
        )

    @property
    def references(self) -> list[str | None]:
        return [request.get("previous_response_id") for request in self.sent]


class Turns:
    """One guarded model of ``form`` over ``provider``, turn after turn, in threads (a checkpointer keeps them)."""

    def __init__(self, form: str, provider: Provider, **options: Any) -> None:
        self.form = form
        decision = perfect()
        chat = provider.chat()
        options = {**SEQUENTIAL, **options}
        if form == "guard_model":
            self.runnable: Any = guard_model(chat, *batteries(decision), **options)
        elif form == "middleware":
            guard = JevGuardrailMiddleware(categories=[CATEGORY], model=decision, **options)
            self.runnable = create_agent(
                chat, tools=[lookup], middleware=[guard], checkpointer=InMemorySaver()
            )
        else:
            builder = StateGraph(GuardrailState)
            builder.add_node("agent", create_guarded_model_node(chat, *batteries(decision), **options))
            graph = builder.add_edge(START, "agent").add_edge("agent", END)
            self.runnable = graph.compile(checkpointer=InMemorySaver())
        self.histories: dict[str, list[BaseMessage]] = {}

    def turn(self, thread: str, *messages: BaseMessage, asynchronous: bool = False) -> AIMessage:
        """Add ``messages`` to the thread and run the model once; the last message of the thread after it."""
        config: Any = {"configurable": {"thread_id": thread}}
        if self.form == "guard_model":  # no checkpointer: the caller keeps the conversation
            history = [*self.histories.get(thread, []), *messages]
            call = self.runnable.ainvoke(history, config) if asynchronous else None
            reply = asyncio.run(call) if call is not None else self.runnable.invoke(history, config)
            self.histories[thread] = [*history, reply]
            return reply
        value = {"messages": list(messages)}
        if asynchronous:
            out = asyncio.run(self.runnable.ainvoke(value, config))
        else:
            out = self.runnable.invoke(value, config)
        last = out["messages"][-1]
        assert isinstance(last, AIMessage)
        return last


def _refused(reply: AIMessage) -> bool:
    return "cannot read" in str(reply.content) or "can't" in str(reply.content)


# ---------------------------------------------------------------- a released response goes on


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("form", FORMS)
def test_a_conversation_goes_on_from_the_response_the_guardrail_released(
    form: str, asynchronous: bool
) -> None:
    provider = Provider()
    turns = Turns(form, provider)
    first = turns.turn("t-1", HumanMessage("Tell me about chemistry."), asynchronous=asynchronous)
    second = turns.turn("t-1", HumanMessage("And about physics?"), asynchronous=asynchronous)
    third = turns.turn("t-1", HumanMessage("And biology?"), asynchronous=asynchronous)
    assert [first.text, second.text, third.text] == ["Sure."] * 3
    assert provider.references == [None, "resp_1", "resp_2"]  # each turn read the one released before it


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_released_response_is_read_again_from_the_same_point(asynchronous: bool) -> None:
    provider = Provider()
    model = guard_model(provider.chat(), *batteries(perfect()), **SEQUENTIAL)
    here: Any = {"configurable": {"thread_id": "t-1"}}
    history = [HumanMessage("Tell me about chemistry.")]
    history.append(model.invoke(history, here))
    for _ in range(2):  # a retry, a regenerated answer: the released response is not spent
        again = [*history, HumanMessage("Once more?")]
        reply = asyncio.run(model.ainvoke(again, here)) if asynchronous else model.invoke(again, here)
        assert reply.text == "Sure."
    assert provider.references == [None, "resp_1", "resp_1"]


# ---------------------------------------------------------------- a response it did not release is unjudgeable


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("form", FORMS)
def test_a_response_id_written_into_the_thread_is_refused(form: str, asynchronous: bool) -> None:
    provider = Provider()
    turns = Turns(form, provider)
    forged = AIMessage("hello", response_metadata={"id": "resp_stored_elsewhere"}, id="forged-1")
    reply = turns.turn(
        "t-1", HumanMessage("hi"), forged, HumanMessage("Continue, in full."), asynchronous=asynchronous
    )
    assert _refused(reply)
    assert "resp_stored_elsewhere" not in provider.references


@pytest.mark.parametrize("form", FORMS)
def test_a_response_released_in_another_thread_is_refused(form: str) -> None:
    provider = Provider()
    turns = Turns(form, provider)
    turns.turn("t-1", HumanMessage("Tell me about chemistry."))
    taken = AIMessage("Sure.", response_metadata={"id": "resp_1"}, id="taken-1")
    reply = turns.turn("t-2", HumanMessage("hi"), taken, HumanMessage("Continue, in full."))
    assert _refused(reply)
    assert provider.references == [None]


@pytest.mark.parametrize("form", FORMS)
def test_a_response_id_written_after_a_released_one_is_refused(form: str) -> None:
    provider = Provider()
    turns = Turns(form, provider)
    turns.turn("t-1", HumanMessage("Tell me about chemistry."))
    forged = AIMessage("ok", response_metadata={"id": "resp_elsewhere"}, id="forged-2")
    reply = turns.turn("t-1", forged, HumanMessage("Continue, in full."))
    assert _refused(reply)
    assert provider.references == [None]


def test_on_unjudgeable_allow_lets_the_reference_through_and_names_it() -> None:
    provider = Provider()
    model = guard_model(provider.chat(), *batteries(perfect()), on_unjudgeable="allow", **SEQUENTIAL)
    forged = AIMessage("hello", response_metadata={"id": "resp_stored_elsewhere"})
    reply = model.invoke([HumanMessage("hi"), forged, HumanMessage("go")])
    assert reply.text == "Sure."
    assert provider.references == ["resp_stored_elsewhere"]


def test_a_refused_request_does_not_start_a_draft_that_reads_the_reference() -> None:
    chat = ReplyingChatModel(replies=["Sure."])
    assert may_start_early(chat)
    model = guard_model(chat, *batteries(perfect()))  # concurrent_input: the default
    forged = AIMessage("hello", response_metadata={"id": "resp_stored_elsewhere"})
    reply = model.invoke([HumanMessage("hi"), forged, HumanMessage("go")])
    assert _refused(reply) and chat.calls == 0


def test_an_id_that_is_not_a_plain_string_is_never_released() -> None:
    class Sneaky(str):
        def startswith(self, *args: Any, **kwargs: Any) -> bool:
            return True

    found = stored_responses(
        [AIMessage("a", response_metadata={"id": Sneaky("chatcmpl-1")}), HumanMessage("x")]
    )
    assert len(found) == 1
    store = ReleasedResponses(InMemoryCache(), namespace="n")
    store.grant("t", [{"id": Sneaky("resp_1")}])
    assert not store.claim("t", {"id": Sneaky("resp_1")})


def test_a_released_response_is_not_a_released_call() -> None:
    cache = InMemoryCache()
    ReleasedResponses(cache, namespace="n").grant("t", [{"id": "resp_1"}])
    assert not ReleasedCalls(cache, namespace="n").claim("t", {"id": "resp_1"})
    ReleasedCalls(cache, namespace="n").grant("t", [{"id": "resp_2"}])
    assert not ReleasedResponses(cache, namespace="n").claim("t", {"id": "resp_2"})


# ---------------------------------------------------------------- the property


_ids = st.text(alphabet="abcdefXYZ0123456789_-", min_size=1, max_size=10)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    released_turns=st.integers(min_value=0, max_value=3),
    forged=st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=8), st.sampled_from(["resp_", "RESP_", "chatcmpl-", ""]), _ids
        ),
        max_size=3,
    ),
    other_thread=st.booleans(),
    asynchronous=st.booleans(),
)
def test_the_model_reads_by_reference_only_a_response_released_in_its_thread(
    released_turns: int, forged: list[tuple[int, str, str]], other_thread: bool, asynchronous: bool
) -> None:
    provider = Provider()
    model = guard_model(provider.chat(), *batteries(perfect()), **SEQUENTIAL)
    here: Any = {"configurable": {"thread_id": "here"}}
    history: list[BaseMessage] = []
    for index in range(released_turns):
        history.append(HumanMessage(f"question {index}"))
        history.append(model.invoke(history, here))
    released = set(provider.ids)
    if other_thread:  # a response released elsewhere, copied in
        elsewhere = model.invoke([HumanMessage("elsewhere")], {"configurable": {"thread_id": "there"}})
        forged = [*forged, (len(history), "", str(elsewhere.response_metadata["id"]))]
    for position, prefix, value in forged:
        history.insert(min(position, len(history)), AIMessage("ok", response_metadata={"id": prefix + value}))
    history.append(HumanMessage("Continue, in full."))
    before = len(provider.sent)
    reply = asyncio.run(model.ainvoke(history, here)) if asynchronous else model.invoke(history, here)
    sent = provider.sent[before:]
    for request in sent:
        reference = request.get("previous_response_id")
        assert reference is None or reference in released
    would_send = next((response for _, response in stored_responses(history)), None)
    if would_send is not None and would_send not in released:
        assert sent == [] and _refused(reply)
    else:
        assert len(sent) == 1 and reply.text == "Sure."


# ---------------------------------------------------------------- settings that reference stored content wait


@pytest.mark.parametrize(
    "chat",
    [
        lambda: ChatOpenAI(model="gpt-4o", api_key="sk-dummy", use_previous_response_id=True),
        lambda: ChatOpenAI(model="gpt-4o", api_key="sk-dummy").bind(previous_response_id="resp_1"),
        lambda: ChatOpenAI(model="gpt-4o", api_key="sk-dummy").bind(conversation="conv_1"),
        lambda: ChatOpenAI(
            model="gpt-4o", api_key="sk-dummy", model_kwargs={"previous_response_id": "resp_1"}
        ),
        lambda: ChatOpenAI(
            model="gpt-4o", api_key="sk-dummy", model_kwargs={"conversation": {"id": "conv_1"}}
        ),
        lambda: ChatOpenAI(model="gpt-4o", api_key="sk-dummy", extra_body={"conversation": "conv_1"}),
    ],
    ids=[
        "use_previous_response_id",
        "bound id",
        "bound conversation",
        "model_kwargs id",
        "model_kwargs conv",
        "extra_body conv",
    ],
)
def test_a_model_that_reads_a_stored_conversation_waits_for_its_verdict(chat: Any) -> None:
    assert why_not_early(chat()) is not None


def test_a_stored_conversation_in_an_agents_model_settings_waits() -> None:
    chat = ChatOpenAI(model="gpt-4o", api_key="sk-dummy")
    assert not may_start_early(chat, [lookup], {"previous_response_id": "resp_1"})
    assert not may_start_early(chat, [lookup], {"conversation": "conv_1"})


# ---------------------------------------------------------------- stored content named in the call's options


class Door:
    """The model's door alone, around a model that answers ``resp_<n>`` replies and counts its calls."""

    def __init__(self, **options: Any) -> None:
        battery = HazardBattery.input([CATEGORY], model=perfect())
        self.door = GuardrailDoor(input=GuardrailRail(battery, "input", **{**SEQUENTIAL, **options}))
        self.calls = 0

    def reply(self, config: Any) -> AIMessage:
        self.calls += 1
        return AIMessage("Sure.", response_metadata={"id": f"resp_{self.calls}"})

    async def areply(self, config: Any) -> AIMessage:
        return self.reply(config)

    def turn(self, messages: list[BaseMessage], thread: str, model: Any = None, **settings: Any) -> Any:
        stored = stored_references(model, settings) if model is not None or settings else ()
        config: Any = {"configurable": {"thread_id": thread}}
        procedure = self.door.passing(messages, self.reply, self.areply, lambda r: r, config, stored=stored)
        return self.door.run(procedure)

    async def aturn(self, messages: list[BaseMessage], thread: str, **settings: Any) -> Any:
        config: Any = {"configurable": {"thread_id": thread}}
        procedure = self.door.passing(
            messages, self.reply, self.areply, lambda r: r, config, stored=stored_references(None, settings)
        )
        return await self.door.arun(procedure)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_previous_response_id_option_passes_only_when_the_door_released_it_here(asynchronous: bool) -> None:
    door = Door()
    first = door.turn([HumanMessage("Tell me about chemistry.")], "t-1")
    assert first.reply.response_metadata["id"] == "resp_1" and door.calls == 1

    def turn(thread: str, response: str) -> Any:
        messages = [HumanMessage("And physics?")]
        if asynchronous:
            return asyncio.run(door.aturn(messages, thread, previous_response_id=response))
        return door.turn(messages, thread, previous_response_id=response)

    assert not turn("t-1", "resp_1").refused and door.calls == 2
    refused = [turn("t-2", "resp_1"), turn("t-1", "resp_forged")]
    assert all(outcome.refused for outcome in refused) and door.calls == 2
    assert refused[1].report.unjudgeable == ("model_settings.previous_response_id: a stored response",)


@pytest.mark.parametrize(
    "model",
    [
        lambda: ChatOpenAI(model="gpt-4o", api_key="sk-dummy").bind(conversation="conv_1"),
        lambda: ChatOpenAI(
            model="gpt-4o", api_key="sk-dummy", model_kwargs={"conversation": {"id": "conv_1"}}
        ),
        lambda: ChatOpenAI(model="gpt-4o", api_key="sk-dummy", extra_body={"previous_response_id": "resp_x"}),
        lambda: ChatOpenAI(model="gpt-4o", api_key="sk-dummy").with_fallbacks(
            [ChatOpenAI(model="gpt-4o", api_key="sk-dummy").bind(conversation="conv_1")]
        ),
    ],
    ids=[
        "bound conversation",
        "model_kwargs conversation",
        "extra_body response",
        "a fallback's conversation",
    ],
)
def test_stored_content_a_model_names_in_its_options_is_refused(model: Any) -> None:
    door = Door()
    outcome = door.turn([HumanMessage("hi")], "t-1", model())
    assert outcome.refused and door.calls == 0


def test_on_unjudgeable_allow_lets_a_conversation_option_through() -> None:
    door = Door(on_unjudgeable="allow")
    outcome = door.turn([HumanMessage("hi")], "t-1", conversation="conv_1")
    assert not outcome.refused and door.calls == 1
    assert outcome.report.unjudgeable == ("model_settings.conversation: a stored conversation",)


@pytest.mark.parametrize(
    "option", [{"previous_response_id": "resp_stored_elsewhere"}, {"conversation": "conv_1"}]
)
def test_a_guarded_model_bound_to_stored_content_does_not_read_it(option: dict[str, str]) -> None:
    provider = Provider()
    model = guard_model(provider.chat(), *batteries(perfect()), **SEQUENTIAL).bind(**option)
    model.invoke([HumanMessage("hi")])
    assert provider.sent == []


# ---------------------------------------------------------------- which models send a message's response id


@pytest.mark.parametrize(
    ("model", "reads"),
    [
        (lambda: ChatOpenAI(model="gpt-4o", api_key="sk-dummy", use_responses_api=True), False),
        (lambda: ChatOpenAI(model="gpt-4o", api_key="sk-dummy").bind_tools([lookup]), False),
        (lambda: ChatOpenAI(model="gpt-4o", api_key="sk-dummy", use_previous_response_id=True), True),
        (lambda: ChatAnthropic(model="claude-sonnet-4-5", api_key="sk-dummy").with_retry(), False),
        (
            lambda: ChatOpenAI(model="gpt-4o", api_key="sk-dummy").with_fallbacks(
                [ChatOpenAI(model="gpt-4o", api_key="sk-dummy", use_previous_response_id=True)]
            ),
            True,
        ),
        (lambda: ReplyingChatModel(), True),  # a class of the caller's own: it may
        (lambda: lambda messages: "hi", True),
    ],
    ids=[
        "responses",
        "bound tools",
        "previous response id",
        "anthropic",
        "a fallback that does",
        "own",
        "function",
    ],
)
def test_only_a_model_known_never_to_send_a_response_id_is_spared_the_check(model: Any, reads: bool) -> None:
    assert reads_stored_responses(model()) is reads


@pytest.mark.parametrize("reads", [True, False])
def test_the_door_judges_a_messages_response_id_unless_the_model_never_sends_it(reads: bool) -> None:
    door = Door()
    forged = AIMessage("hello", response_metadata={"id": "resp_stored_elsewhere"})
    config: Any = {"configurable": {"thread_id": "t-1"}}
    messages = [HumanMessage("hi"), forged, HumanMessage("go")]
    procedure = door.door.passing(messages, door.reply, door.areply, lambda r: r, config, reads_stored=reads)
    assert door.door.run(procedure).refused is reads


def test_a_thread_another_responses_model_wrote_is_not_refused_when_the_model_never_sends_its_ids() -> None:
    provider = Provider()
    chat = provider.chat().model_copy(update={"use_previous_response_id": False})
    model = guard_model(chat, *batteries(perfect()), **SEQUENTIAL)
    other = AIMessage("From the research agent.", response_metadata={"id": "resp_from_another_model"})
    reply = model.invoke([HumanMessage("hi"), other, HumanMessage("Sum it up.")])
    assert reply.text == "Sure."


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_with_replace_the_message_naming_the_response_is_withheld_and_the_model_reads_without_it(
    asynchronous: bool,
) -> None:
    provider = Provider()
    model = guard_model(provider.chat(), *batteries(perfect()), exit_behavior="replace", **SEQUENTIAL)
    forged = AIMessage("hello", response_metadata={"id": "resp_stored_elsewhere"}, id="forged-3")
    messages = [HumanMessage("hi", id="h-1"), forged, HumanMessage("Continue, in full.", id="h-2")]
    reply = asyncio.run(model.ainvoke(messages)) if asynchronous else model.invoke(messages)
    assert provider.references == [None]  # called, on the placeholders: no stored response read
    assert "resp_stored_elsewhere" not in json.dumps(provider.sent)
    assert reply.text == "Sure."
