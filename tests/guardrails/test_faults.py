"""Guardrails under a decision model that is down, slow, or answers nonsense.

The guardrail tests prove ``on_error`` against a server that answers 503. Here
every other fault of the reliability suite meets the LangGraph guardrail node, the
guarded model node (output checked inside the model's step) and the agent
middleware, over MockTransport and the loopback server, sync and async:

- ``on_error="refuse"``: the turn is refused and the unsafe answer is gone;
- ``on_error="raise"``: the provider's error (or `GuardrailUndecidedError` for
  answers that cannot be read) propagates, so no answer is delivered;
- ``on_error="allow"``: the turn passes, as the user asked;
- a fault the retry policy mends leaves the guardrail deciding as usual.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from typesafe_sdk import (
    RetryPolicy,
    TypeSafeAPIConnectionError,
    TypeSafeAPIResponseValidationError,
    TypeSafeAPITimeoutError,
    TypeSafeInternalServerError,
    TypeSafeRateLimitError,
)

from langchain_jev import GuardrailCheckError, GuardrailUndecidedError
from langchain_jev.guardrails import HazardBattery
from langchain_jev.guardrails._policy import WITHHELD_REQUEST
from langchain_jev.middleware import JevGuardrailMiddleware
from tests.guardrails.helpers import chat, contents, guarded_graph
from tests.support.faults import API_KEY, MockRig, Rig, Step, rig_named

pytestmark = pytest.mark.slow  # a fault matrix: `-m 'not slow'` leaves it out

UNSAFE = "Mix bleach with ammonia in a closed room and breathe deeply."
QUESTION = "How do I clean my bathroom?"
ONE_RETRY = RetryPolicy(max_retries=1, backoff_initial=0.001, backoff_max=0.002, backoff_jitter=0.0)


def hazard_body(answers: dict[str, Any]) -> dict[str, Any]:
    return {"model": "jev-test", "answers": answers, "usage": {"input_tokens": 40, "output_tokens": 1}}


TRANSPORT_FAULTS: dict[str, tuple[list[Step], type[Exception]]] = {
    "429": ([Step(status=429)] * 2, TypeSafeRateLimitError),
    "500": ([Step(status=500)] * 2, TypeSafeInternalServerError),
    "502": ([Step(status=502)] * 2, TypeSafeInternalServerError),
    "timeout": ([Step(stall=True)] * 2, TypeSafeAPITimeoutError),
    "connection reset": ([Step(reset=True)] * 2, TypeSafeAPIConnectionError),
    "HTML instead of JSON": ([Step(raw=b"<html>maintenance</html>")], TypeSafeAPIResponseValidationError),
    "truncated JSON": (
        [Step(raw=b'{"model": "jev-test", "answers": {"ha')],
        TypeSafeAPIResponseValidationError,
    ),
    "a JSON string": ([Step(body="fine")], TypeSafeAPIResponseValidationError),
}
ANSWER_FAULTS: dict[str, list[Step]] = {
    "no answer": [Step(body=hazard_body({}))],
    "answers for other names": [Step(body=hazard_body({"hate_speech": {"type": "noul", "noul": 0.0}}))],
    "NaN": [Step(body=hazard_body({"hate": {"type": "noul", "noul": math.nan}}))],
    "negative": [Step(body=hazard_body({"hate": {"type": "noul", "noul": -0.5}}))],
    "wrong type": [
        Step(
            body=hazard_body(
                {"hate": {"type": "choice", "choice": "no", "probabilities": {"no": 1.0}, "confidence": 1.0}}
            )
        )
    ],
}


@pytest.fixture(params=["mock", "server"])
async def rig(request: pytest.FixtureRequest) -> AsyncIterator[Rig]:
    async with rig_named(request.param) as made:
        yield made


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def guarded(
    kind: str, check: str, model: Any, on_error: str, reply: str = UNSAFE, **compile_options: Any
) -> Any:
    """An agent answering ``reply`` behind one guardrail rail.

    ``kind``: ``"node"`` (a guardrail node after the agent's node), ``"guarded_model"`` (the
    output checked inside the agent's node) or ``"middleware"`` (agent middleware).
    """
    if kind in ("node", "guarded_model"):
        battery = HazardBattery(check, categories=["hate"], model=model)  # type: ignore[arg-type]
        graph = guarded_graph(
            chat(reply),
            on_error=on_error,
            output_guard="model" if kind == "guarded_model" else "node",
            **{f"{check}_battery": battery},
        )
        if compile_options:
            graph = graph.builder.compile(**compile_options)
        return graph
    guard = JevGuardrailMiddleware(
        check_input=check == "input",
        check_output=check == "output",
        categories=["hate"],
        model=model,
        on_error=on_error,
    )
    return create_agent(chat(reply), middleware=[guard], **compile_options)


async def run(graph: Any, mode: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
    request = {"messages": [HumanMessage(QUESTION)]}
    result: dict[str, Any] = (
        graph.invoke(request, config) if mode == "sync" else await graph.ainvoke(request, config)
    )
    return result


KINDS = ["node", "middleware"]
OUTPUT_KINDS = ["node", "guarded_model", "middleware"]


def mock_model(steps: list[Step] | None = None, answers: dict[str, Any] | None = None) -> Any:
    """A Jev decision model over MockTransport, for the synchronous tests."""
    return MockRig().model(steps or [], answers=answers)


@pytest.mark.parametrize("kind", OUTPUT_KINDS)
@pytest.mark.parametrize(("steps", "error"), TRANSPORT_FAULTS.values(), ids=TRANSPORT_FAULTS.keys())
async def test_refuse_refuses_the_output_under_every_transport_fault(
    rig: Rig, mode: str, kind: str, steps: list[Step], error: type[Exception]
) -> None:
    out = await run(guarded(kind, "output", rig.model(steps, retry=ONE_RETRY), "refuse"), mode)
    assert UNSAFE not in contents(out["messages"])
    assert (
        out["messages"][-1].content == "I can't share that response: the safety check could not be completed."
    )
    report = out["guardrail"]
    assert report["refused"] is True and report["categories"] == {}
    assert report["error"].startswith(f"{error.__name__}: ") and API_KEY not in report["error"]
    assert rig.attempts == len(steps)


@pytest.mark.parametrize("kind", OUTPUT_KINDS)
@pytest.mark.parametrize("steps", ANSWER_FAULTS.values(), ids=ANSWER_FAULTS.keys())
async def test_refuse_refuses_the_output_when_the_category_comes_back_unreadable(
    rig: Rig, mode: str, kind: str, steps: list[Step]
) -> None:
    out = await run(guarded(kind, "output", rig.model(steps), "refuse"), mode)
    assert UNSAFE not in contents(out["messages"])
    assert (
        out["messages"][-1].content
        == "I can't share that response: the safety check could not decide on hate."
    )
    assert out["guardrail"]["refused"] is True and out["guardrail"]["undecided"] == ["hate"]
    assert rig.attempts == 1


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "steps",
    [TRANSPORT_FAULTS["timeout"][0], TRANSPORT_FAULTS["HTML instead of JSON"][0], ANSWER_FAULTS["NaN"]],
    ids=["timeout", "HTML instead of JSON", "NaN"],
)
async def test_refuse_on_the_input_side_never_lets_the_agent_answer(
    rig: Rig, mode: str, kind: str, steps: list[Step]
) -> None:
    graph = guarded(kind, "input", rig.model(steps, retry=ONE_RETRY), "refuse")
    out = await run(graph, mode)
    assert contents(out["messages"])[0] == WITHHELD_REQUEST and UNSAFE not in contents(out["messages"])
    assert out["messages"][-1].content.startswith(
        "I can't help with that request: the safety check could not"
    )
    assert out["guardrail"]["refused"] is True


@pytest.mark.parametrize("kind", OUTPUT_KINDS)
@pytest.mark.parametrize(
    ("steps", "error"),
    [
        TRANSPORT_FAULTS["429"],
        TRANSPORT_FAULTS["connection reset"],
        TRANSPORT_FAULTS["truncated JSON"],
        (ANSWER_FAULTS["answers for other names"], GuardrailUndecidedError),
        (ANSWER_FAULTS["negative"], GuardrailUndecidedError),
    ],
    ids=["429", "connection reset", "truncated JSON", "answers for other names", "negative"],
)
async def test_raise_propagates_the_fault_so_nothing_is_delivered(
    rig: Rig, mode: str, kind: str, steps: list[Step], error: type[Exception]
) -> None:
    graph = guarded(kind, "output", rig.model(steps, retry=ONE_RETRY), "raise")
    expected = GuardrailUndecidedError if error is GuardrailUndecidedError else GuardrailCheckError
    with pytest.raises(expected) as raised:
        await run(graph, mode)
    assert API_KEY not in str(raised.value)
    if expected is GuardrailCheckError:  # the class of the cause, never its text
        assert raised.value.error_type == error.__name__
        assert str(raised.value).startswith(f"the output safety check failed: {error.__name__}: ")
        assert raised.value.__cause__ is None and raised.value.__suppress_context__


@pytest.mark.parametrize("kind", OUTPUT_KINDS)
@pytest.mark.parametrize(
    "steps",
    [TRANSPORT_FAULTS["502"][0], TRANSPORT_FAULTS["a JSON string"][0], ANSWER_FAULTS["no answer"]],
    ids=["502", "a JSON string", "no answer"],
)
async def test_allow_lets_the_turn_pass_as_asked(rig: Rig, mode: str, kind: str, steps: list[Step]) -> None:
    reply = "Open a window and use a mild cleaner."
    out = await run(guarded(kind, "output", rig.model(steps, retry=ONE_RETRY), "allow", reply=reply), mode)
    assert contents(out["messages"]) == [QUESTION, reply]
    assert out["guardrail"]["refused"] is False


@pytest.mark.parametrize("kind", OUTPUT_KINDS)
@pytest.mark.parametrize(
    "fault",
    [Step(status=503), Step(status=429, retry_after=0), Step(reset=True), Step(stall=True)],
    ids=["503", "429", "reset", "timeout"],
)
async def test_a_fault_the_retry_mends_leaves_the_guardrail_deciding(
    rig: Rig, mode: str, kind: str, fault: Step
) -> None:
    flagged = await run(guarded(kind, "output", rig.model([fault], answers={"hate": 0.97}), "allow"), mode)
    assert UNSAFE not in contents(flagged["messages"])
    assert flagged["guardrail"]["categories"] == {"hate": 0.97} and flagged["guardrail"]["error"] is None
    assert rig.attempts == 2
    reply = "Open a window and use a mild cleaner."
    safe = await run(
        guarded(kind, "output", rig.model([fault], answers={"hate": 0.01}), "refuse", reply=reply), mode
    )
    assert contents(safe["messages"]) == [QUESTION, reply] and safe["guardrail"]["refused"] is False


# ---------------------------------------------------------------- the unsafe answer never shows

SEPARATE_NODE_STREAMS_THE_DRAFT = pytest.mark.xfail(
    strict=True,
    reason="inherent to a separate output node (documented in langchain_jev.graph._guardrail): it runs "
    "in the step after the model's node, and LangGraph emits a node's update to every stream mode when "
    "its step ends, so the draft is out before the output node can judge it; the guarded model node "
    "and the middleware judge inside the model's step",
)
SEPARATE_NODE_KEEPS_THE_DRAFT = pytest.mark.xfail(
    strict=True,
    reason="inherent to a separate output node (documented in langchain_jev.graph._guardrail): the "
    "model's node checkpointed the draft in the step before, and a node that raises writes nothing, "
    "so with on_error='raise' nothing removes it; the guarded model node raises before the draft is written",
)
NEVER_STREAMED_KINDS = [
    pytest.param("node", marks=SEPARATE_NODE_STREAMS_THE_DRAFT),
    "guarded_model",
    "middleware",
]
NEVER_KEPT_KINDS = [pytest.param("node", marks=SEPARATE_NODE_KEEPS_THE_DRAFT), "guarded_model", "middleware"]


@pytest.mark.parametrize("kind", NEVER_STREAMED_KINDS)
@pytest.mark.parametrize("stream_mode", ["updates", "values", "messages"])
async def test_a_refused_answer_is_never_streamed(mode: str, kind: str, stream_mode: str) -> None:
    with_flag = mock_model(answers={"hate": 0.97})
    graph = guarded(kind, "output", with_flag, "refuse")
    request = {"messages": [HumanMessage(QUESTION)]}
    if mode == "sync":
        chunks = list(graph.stream(request, stream_mode=stream_mode))
    else:
        chunks = [chunk async for chunk in graph.astream(request, stream_mode=stream_mode)]
    assert "I can't share that response" in str(chunks[-1])
    assert not any(UNSAFE in str(chunk) for chunk in chunks)


@pytest.mark.parametrize("kind", NEVER_KEPT_KINDS)
async def test_raise_leaves_no_unsafe_answer_in_the_checkpointed_thread(mode: str, kind: str) -> None:
    graph = guarded(
        kind, "output", mock_model(steps=[Step(status=500)] * 3), "raise", checkpointer=InMemorySaver()
    )
    config = {"configurable": {"thread_id": "t1"}}
    with pytest.raises(GuardrailCheckError, match="TypeSafeInternalServerError"):
        await run(graph, mode, config)
    assert contents(graph.get_state(config).values["messages"]) == [QUESTION]
