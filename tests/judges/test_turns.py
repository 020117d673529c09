"""The conversation judge over a whole thread: every turn's criteria in one request, on the real SDK."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph

from langchain_jev import JevConfigurationError, JevInputError, Outcome
from langchain_jev.judges._turns import PER_TURN, conversation_thread_judge
from tests.fakes import JevWire, ReplyingChatModel, noul

USER = ["I want a refund.", "Order 12.", "To my card, please.", "Thanks!"]
REPLIES = ["Which order?", "Order 12 is eligible. Card or credit?", "Refunded to your card.", "Glad to help."]


def _messages() -> list[BaseMessage]:
    return [
        m for user, reply in zip(USER, REPLIES, strict=True) for m in (HumanMessage(user), AIMessage(reply))
    ]


def test_a_thread_of_n_turns_is_judged_in_one_request_with_a_finding_per_turn_per_criterion() -> None:
    wire = JevWire({"turn_answered.turn_3": noul(0.1)}, default=noul(0.9))
    verdict = conversation_thread_judge(wire.model()).judge(_messages())
    assert wire.calls == 1
    names = [finding.criterion.name for finding in verdict.findings]
    for criterion in PER_TURN:
        assert [n for n in names if n.startswith(criterion + ".")] == [
            f"{criterion}.turn_{i}" for i in range(1, 5)
        ]
    assert "need_resolved" in names  # the conversation judge's own criteria, in the same request
    asked = set(wire.bodies[0]["questions"])  # all but what does not apply (no system prompt here)
    assert {n for n in names if ".turn_" in n} <= asked <= set(names) - {"follows_system_prompt"}
    assert [t["user"] for t in wire.bodies[0]["state"]["turns"]] == USER
    assert verdict.finding("turn_answered.turn_3").outcome is Outcome.FAILED
    assert verdict.finding("turn_answered.turn_2").outcome is Outcome.PASSED
    assert not verdict.passed


def _graph() -> tuple[Any, dict[str, Any]]:
    model = ReplyingChatModel(replies=list(REPLIES))
    graph = StateGraph(MessagesState)
    graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
    graph.add_edge(START, "agent")
    app = graph.compile(checkpointer=InMemorySaver())
    config: dict[str, Any] = {"configurable": {"thread_id": "t"}}
    for text in USER:
        app.invoke({"messages": [HumanMessage(text)]}, config)
    return app, config


def test_a_graph_thread_is_judged_sync_and_async_in_one_request_each() -> None:
    app, config = _graph()
    wire = JevWire(default=noul(0.9))
    judge = conversation_thread_judge(wire.model(), whole=False)
    verdict = judge.judge(app, config)
    assert wire.calls == 1 and verdict.passed
    assert len(verdict.findings) == len(USER) * len(PER_TURN)
    again = asyncio.run(judge.ajudge(app, config))
    assert wire.calls == 2
    assert [f.criterion.name for f in again.findings] == [f.criterion.name for f in verdict.findings]
    assert wire.bodies[0]["state"] == wire.bodies[1]["state"]


def test_a_judge_that_cannot_reach_its_model_raises() -> None:
    wire = JevWire(status=401)
    with pytest.raises(Exception, match="401"):
        conversation_thread_judge(wire.model()).judge(_messages())


def test_bad_input_is_named() -> None:
    with pytest.raises(JevConfigurationError, match="'answered'"):
        conversation_thread_judge(JevWire().model(), per_turn=["answered"])
    with pytest.raises(JevInputError, match="no user message"):
        conversation_thread_judge(JevWire().model()).judge([AIMessage("Hello")])
    app, _ = _graph()
    with pytest.raises(JevInputError, match="config"):
        conversation_thread_judge(JevWire().model()).judge(app)
