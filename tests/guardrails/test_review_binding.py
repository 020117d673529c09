"""Reviews are bound to one decision: a review token counts for one thread, one pause and one text, once.

A check put to a human (``on_inconclusive="interrupt"``) pauses the graph; the
reviewer resumes with ``review_token(key, request)`` made from the paused value.
The token is refused on another thread, at a later pause of the same thread, for
another text, once it expired, and when it is presented again; a reviewed allow
is recorded for its thread only, so the same text elsewhere is put to review
anew. Every form: the input node, the guarded model node, ``guard_model`` inside
a node, and the agent middleware. The pure reading (`read_review`) is tested with
generated perturbations of every part of the binding.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command

from langchain_jev import JevConfigurationError
from langchain_jev.graph import GuardrailState, create_guarded_model_node, create_guardrail_node, guard_model
from langchain_jev.guardrails import GuardrailSettings, HazardBattery, review_token
from langchain_jev.guardrails._review import ReviewBinding, read_review, review_id
from langchain_jev.middleware import JevGuardrailMiddleware
from tests.fakes import JevWire
from tests.guardrails.helpers import SEQUENTIAL, chat

KEY = "a review key nobody else holds"
TEXT = "Describe them."
REPLY = "A fair reply."


def undecided() -> Any:
    """Jev that leaves every category without an answer: every check is inconclusive."""
    return JevWire({}, default=None).model()


def options(**more: Any) -> dict[str, Any]:
    return {"on_inconclusive": "interrupt", "review_key": KEY, "review_store": lambda item: None, **more}


def graph_for(form: str, **more: Any) -> Any:
    """One input rail of ``form`` around a chat model that always answers REPLY, with a checkpointer."""
    model = chat(*[REPLY] * 20)
    inputs = HazardBattery.input(["hate"], model=undecided())
    if form == "middleware":
        guard = JevGuardrailMiddleware(
            check_output=False, categories=["hate"], model=undecided(), **options(**more), **SEQUENTIAL
        )
        return create_agent(model, middleware=[guard], checkpointer=InMemorySaver())
    builder = StateGraph(GuardrailState)
    if form == "input_node":
        builder.add_node(
            "guard",
            create_guardrail_node(inputs, next_node="agent", **options(**more)),
            destinations=("agent", END),
        )
        builder.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
        builder.add_edge(START, "guard")
    elif form == "guarded_model":
        builder.add_node("agent", create_guarded_model_node(model, inputs, **options(**more), **SEQUENTIAL))
        builder.add_edge(START, "agent")
    else:
        guarded = guard_model(model, inputs, **options(**more), **SEQUENTIAL)
        builder = StateGraph(MessagesState)
        builder.add_node("agent", lambda state: {"messages": [guarded.invoke(state["messages"])]})
        builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    return builder.compile(checkpointer=InMemorySaver())


FORMS = ["input_node", "guarded_model", "guard_model", "middleware"]


def thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


def paused(graph: Any, name: str, text: str = TEXT) -> Any:
    out = graph.invoke({"messages": [HumanMessage(text, id=f"{name}-{text}")]}, thread(name))
    (pending,) = out["__interrupt__"]
    return pending


def token_for(pending: Any, **kwargs: Any) -> str:
    """The reviewer's token for the paused value (what the docs tell a reviewer to make)."""
    return review_token(KEY, pending.value, **kwargs)


def allow(pending: Any, **kwargs: Any) -> dict[str, str]:
    return {"decision": "allow", "token": token_for(pending, **kwargs)}


def allowed(out: dict[str, Any]) -> bool:
    return bool(out["messages"][-1].content == REPLY and not out.get("__interrupt__"))


@pytest.mark.parametrize("form", FORMS)
def test_the_reviewer_s_token_allows_its_own_pause(form: str) -> None:
    graph = graph_for(form)
    pending = paused(graph, "a")
    out = graph.invoke(Command(resume=allow(pending)), thread("a"))
    assert allowed(out)


@pytest.mark.parametrize("form", FORMS)
def test_a_token_made_for_one_thread_refuses_on_another(form: str) -> None:
    graph = graph_for(form)
    first, _ = paused(graph, "a"), paused(graph, "b")  # the same text, paused in two threads
    out = graph.invoke(Command(resume=allow(first)), thread("b"))
    assert not allowed(out), "a token allowed a pause of another thread"


@pytest.mark.parametrize("form", ["guarded_model", "guard_model", "middleware"])
def test_a_token_refuses_at_a_later_pause_of_its_thread_for_the_same_text(form: str) -> None:
    graph = graph_for(form, context_messages=0)  # each check judges the new message alone
    first = paused(graph, "a")
    assert allowed(graph.invoke(Command(resume=allow(first)), thread("a")))
    again = graph.invoke({"messages": [HumanMessage(TEXT, id="the same text, sent again")]}, thread("a"))
    (later,) = again["__interrupt__"]
    assert later.value["fingerprint"] == first.value["fingerprint"]  # the same text, a later pause
    out = graph.invoke(Command(resume=allow(first)), thread("a"))
    assert not allowed(out), "the first pause's token allowed a later one"


@pytest.mark.parametrize("form", FORMS)
def test_an_expired_token_refuses(form: str) -> None:
    graph = graph_for(form, review_ttl=60.0)
    pending = paused(graph, "a")
    out = graph.invoke(Command(resume=allow(pending, issued_at=time.time() - 120)), thread("a"))
    assert not allowed(out), "a token past review_ttl allowed the pause"


@pytest.mark.parametrize("form", FORMS)
def test_a_reviewed_allow_counts_in_its_thread_only(form: str) -> None:
    graph = graph_for(form)
    pending = paused(graph, "a")
    assert allowed(graph.invoke(Command(resume=allow(pending)), thread("a")))
    other = graph.invoke({"messages": [HumanMessage(TEXT, id=f"a-{TEXT}")]}, thread("b"))
    assert other.get("__interrupt__"), "the text a human allowed in one thread passed unreviewed in another"


@pytest.mark.parametrize("form", ["guarded_model", "middleware"])
def test_a_reviewed_allow_still_counts_in_its_own_thread(form: str) -> None:
    graph = graph_for(form)
    pending = paused(graph, "a")
    assert allowed(graph.invoke(Command(resume=allow(pending)), thread("a")))
    later = graph.invoke({"messages": [HumanMessage("Thanks.")]}, thread("a"))
    (second,) = later["__interrupt__"]  # only the new message is put to review
    assert second.value["fingerprint"] != pending.value["fingerprint"]


@pytest.mark.parametrize("form", FORMS)
def test_the_token_is_in_no_returned_state_nor_the_thread_s_history(form: str) -> None:
    graph = graph_for(form)
    pending = paused(graph, "a")
    answer = allow(pending)
    out = graph.invoke(Command(resume=answer), thread("a"))
    mac = answer["token"].split(".")[1]
    assert mac not in repr(out) and mac not in repr(graph.get_state(thread("a")))
    assert mac not in repr(list(graph.get_state_history(thread("a"))))


def test_two_reviews_in_one_step_each_count_once_as_langgraph_replays_the_first() -> None:
    """The input and the output both put to review in one model step: the step runs again from its start."""
    model = chat(*[REPLY] * 5)
    judge = undecided()
    node = create_guarded_model_node(
        model,
        HazardBattery.input(["hate"], model=judge),
        HazardBattery.output(["hate"], model=judge),
        **options(),
        **SEQUENTIAL,
    )
    builder = StateGraph(GuardrailState).add_node("agent", node)
    graph = builder.add_edge(START, "agent").add_edge("agent", END).compile(checkpointer=InMemorySaver())
    first = paused(graph, "a")
    assert first.value["jev_guardrail"] == "input"
    out = graph.invoke(Command(resume=allow(first)), thread("a"))
    (second,) = out["__interrupt__"]
    assert second.value["jev_guardrail"] == "output" and second.value["review_id"] != first.value["review_id"]
    assert allowed(graph.invoke(Command(resume=allow(second)), thread("a")))


def test_review_token_takes_the_paused_request_and_says_so() -> None:
    with pytest.raises(JevConfigurationError, match="takes the paused review request"):
        review_token(KEY, "0123456789abcdef")  # type: ignore[arg-type]
    with pytest.raises(JevConfigurationError, match="has no thread_id, review_id"):
        review_token(KEY, {"fingerprint": "f"})


@pytest.mark.parametrize("ttl", [0, -1.0, float("inf"), float("nan"), "1h", True])
def test_a_review_ttl_that_is_not_a_positive_number_of_seconds_is_refused_by_name(ttl: Any) -> None:
    with pytest.raises(JevConfigurationError, match="review_ttl must be a number of seconds > 0"):
        GuardrailSettings(review_ttl=ttl)


# ---------------------------------------------------------------- the reading, generated

BINARY = b"a review key nobody else holds"
THE = ReviewBinding("thread-1", review_id("thread-1", "agent:task-1", "input"), "0123456789abcdef")
MADE = 1_800_000_000
TTL = 3600.0

words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=12)


@st.composite
def presentations(draw: st.DrawFn) -> tuple[ReviewBinding, float, int, bool]:
    """A pause the token is presented to, the time, how many times it was accepted before, and a replay."""
    thread = draw(st.one_of(st.just(THE.thread_id), words))
    pause = draw(st.one_of(st.just(THE.review_id), words.map(lambda ns: review_id(thread, ns, "input"))))
    text = draw(st.one_of(st.just(THE.fingerprint), words))
    now = MADE + draw(st.floats(-2 * TTL, 3 * TTL, allow_nan=False))
    uses = draw(st.integers(0, 3))
    return ReviewBinding(thread, pause, text), now, uses, draw(st.booleans())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(presentations())
def test_only_the_exact_pause_within_its_time_is_allowed_and_only_once(
    case: tuple[ReviewBinding, float, int, bool],
) -> None:
    binding, now, uses, replayed = case
    request = {"thread_id": THE.thread_id, "review_id": THE.review_id, "fingerprint": THE.fingerprint}
    value = {"decision": "allow", "token": review_token(BINARY, request, issued_at=MADE)}
    ok, problem = read_review(value, binding, BINARY, now=now, ttl=TTL, spent=uses > 0, replayed=replayed)
    exact = binding == THE
    in_time = MADE - 300 <= now <= MADE + TTL
    first = uses == 0 and in_time
    assert ok is (exact and (first or (uses > 0 and replayed))), (binding, now, uses, replayed, problem)
    assert (problem is None) is ok


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.integers(0, 2**40))
def test_no_made_up_token_is_allowed(token: str, issued: int) -> None:
    for candidate in (token, f"{issued}.{token}", f"{MADE}.{'0' * 64}"):
        value = {"decision": "allow", "token": candidate}
        assert read_review(value, THE, BINARY, now=MADE, ttl=TTL)[0] is False
