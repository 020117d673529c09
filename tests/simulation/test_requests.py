"""Decision requests per turn, as a user counts them on the wire: one per turn, checks and stop together.

The app is a real LangGraph graph with a checkpointer, the user a script, the
judge Jev through the real typesafe-sdk client over ``httpx2.MockTransport``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.decisions import Noul
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.simulation import Simulation, asimulate, simulate, simulated_user
from tests.fakes import JevWire, noul

CHECKS = [
    JevCriterion.noul("answered", Noul(instructions="Does `assistant_answer` answer `user_question`?"), 0.7),
    JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7),
    JevCriterion.noul("on_topic", Noul(instructions="Does `assistant_answer` stay on topic?"), 0.7),
]
GOAL = JevCriterion.noul("goal_reached", Noul(instructions="Has the user's goal been reached?"), 0.8)
SCRIPT = [f"Question {n}." for n in range(1, 8)]


def _graph() -> Any:
    def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage(f"Answer to {state['messages'][-1].content}")]}

    builder = StateGraph(MessagesState).add_node("agent", answer)
    return builder.add_edge(START, "agent").add_edge("agent", END).compile(checkpointer=InMemorySaver())


def _run(asynchronous: bool, wire: JevWire, max_turns: int) -> Simulation:
    kwargs: dict[str, Any] = {
        "max_turns": max_turns,
        "judge": JevJudge(CHECKS, wire.model()),
        "stop_when": GOAL,
    }
    user = simulated_user(script=SCRIPT)
    if asynchronous:
        return asyncio.run(asimulate(_graph(), user, **kwargs))
    return simulate(_graph(), user, **kwargs)


def _answers(stop_at: int | None) -> list[dict[str, Any]]:
    return [
        {
            "answered": noul(0.9),
            "polite": noul(0.9),
            "on_topic": noul(0.9),
            "goal_reached": noul(0.95 if n == stop_at else 0.1),
        }
        for n in range(1, 8)
    ]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_five_turn_conversation_makes_five_decision_requests(asynchronous: bool) -> None:
    wire = JevWire(_answers(stop_at=None))
    result = _run(asynchronous, wire, max_turns=5)
    assert wire.calls == 5  # one per turn: three checks and the stop question in each
    assert [sorted(body["questions"]) for body in wire.bodies] == [
        ["answered", "goal_reached", "on_topic", "polite"]
    ] * 5
    assert result.ending == "max_turns" and len(result.turns) == 5 and result.passed
    assert [turn.user for turn in result.turns] == SCRIPT[:5]  # the script had more: max_turns held


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_the_conversation_stops_on_the_turn_the_stop_question_passes(asynchronous: bool) -> None:
    wire = JevWire(_answers(stop_at=3))
    result = _run(asynchronous, wire, max_turns=5)
    assert result.ending == "stopped" and len(result.turns) == 3
    assert wire.calls == 3  # and no request after the last turn
    assert result.verdict is result.turns[-1].verdict
    assert [f.name for f in result.verdict.findings] == ["answered", "polite", "on_topic"]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_user_that_raises_ends_the_conversation_with_an_error_and_no_more_requests(
    asynchronous: bool,
) -> None:
    class Broken:
        def __init__(self) -> None:
            self.calls = 0

        def next_turn(self, messages: Any) -> str:
            self.calls += 1
            if self.calls == 2:
                raise RuntimeError("the user's model is down")
            return "Hello."

        async def anext_turn(self, messages: Any) -> str:
            return self.next_turn(messages)

    wire = JevWire(_answers(stop_at=None))
    user = Broken()
    kwargs: dict[str, Any] = {"max_turns": 5, "judge": JevJudge(CHECKS, wire.model()), "stop_when": GOAL}
    if asynchronous:
        result = asyncio.run(asimulate(_graph(), user, **kwargs))
    else:
        result = simulate(_graph(), user, **kwargs)
    assert result.ending == "error" and not result.passed
    assert result.error == "RuntimeError: the user's model is down"
    assert len(result.turns) == 1 and wire.calls == 1
