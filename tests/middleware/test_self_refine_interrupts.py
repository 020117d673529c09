"""Self-refine across interrupts: a retry that calls a tool is paused for human review
(HumanInTheLoopMiddleware) or by ``interrupt_before``, then resumed. No rejected answer
or feedback may reach the thread or any checkpoint, the attempts go on counting, and the
judge always gets the user's question."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from langchain_jev.middleware import JevSelfRefineMiddleware
from tests.fakes import ReplyingChatModel
from tests.support.self_refine import QUESTION, ask, calls_tool, run, unit_judge

REJECTED = "About 100."
FEEDBACK_MARK = "A reviewer checked your previous answer"
FINAL = "100 degrees Celsius, measured at sea level."


@tool
def thermometer(place: str) -> str:
    """Read the boiling point of water at a place."""
    return f"Water boils at 100 degrees Celsius at {place}."


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def hitl_agent(model: ReplyingChatModel, refine: JevSelfRefineMiddleware) -> Any:
    review = HumanInTheLoopMiddleware(interrupt_on={"thermometer": True})
    return create_agent(
        model, tools=[thermometer], middleware=[review, refine], checkpointer=InMemorySaver()
    )


def interrupt_before_agent(model: ReplyingChatModel, refine: JevSelfRefineMiddleware) -> Any:
    return create_agent(
        model, tools=[thermometer], middleware=[refine], checkpointer=InMemorySaver(), interrupt_before=["tools"]
    )


APPROVE = Command(resume={"decisions": [{"type": "approve"}]})

# name -> (agent factory, what resumes it)
WIRINGS = {
    "HumanInTheLoopMiddleware": (hitl_agent, APPROVE),
    "interrupt_before": (interrupt_before_agent, None),
}


def texts_of(values: Any) -> str:
    """Everything a state holds, as text, to search for a draft."""
    return repr(values)


def every_checkpoint(agent: Any, config: dict[str, Any]) -> list[str]:
    saver = agent.checkpointer
    return [repr(t.checkpoint["channel_values"]) + repr(t.pending_writes) for t in saver.list(None)]


@pytest.mark.parametrize("wiring", list(WIRINGS))
async def test_an_interrupted_retry_leaves_no_draft_and_keeps_the_question(mode: str, wiring: str) -> None:
    make, resume = WIRINGS[wiring]
    judge, decisions = unit_judge(0.2, 0.9)
    call = calls_tool("thermometer", {"place": "sea level"}, "call-1")
    model = ReplyingChatModel(replies=[REJECTED, call, FINAL])
    agent = make(model, JevSelfRefineMiddleware(judge))
    config = {"configurable": {"thread_id": wiring}}

    paused = await run(agent, ask(), mode, config)
    assert "__interrupt__" in paused or agent.get_state(config).next == ("tools",)
    # Paused: the thread holds the question and the tool call, not the rejected answer.
    stored = agent.get_state(config).values
    assert [m.type for m in stored["messages"]] == ["human", "ai"]
    assert REJECTED not in texts_of(stored) and FEEDBACK_MARK not in texts_of(stored)

    result = await run(agent, resume, mode, config)

    assert [m.type for m in result["messages"]] == ["human", "ai", "tool", "ai"]
    assert result["messages"][-1].content == FINAL
    # The judge read the user's question both times, never the feedback.
    assert [r["state"]["user_question"] for r in decisions.requests] == [QUESTION, QUESTION]
    # The attempts of the turn go on counting across the interrupt.
    assert result["jev_attempts"] == 2 and result["jev_verdict"].passed
    final = agent.get_state(config).values
    assert REJECTED not in texts_of(final) and FEEDBACK_MARK not in texts_of(final)
    for checkpoint in every_checkpoint(agent, config):
        assert REJECTED not in checkpoint and FEEDBACK_MARK not in checkpoint


@pytest.mark.parametrize("wiring", list(WIRINGS))
async def test_max_attempts_holds_across_the_interrupt(mode: str, wiring: str) -> None:
    make, resume = WIRINGS[wiring]
    judge, decisions = unit_judge(0.2, 0.3)
    call = calls_tool("thermometer", {"place": "sea level"}, "call-1")
    model = ReplyingChatModel(replies=[REJECTED, call, "About 100 at sea level."])
    agent = make(model, JevSelfRefineMiddleware(judge, max_attempts=2))
    config = {"configurable": {"thread_id": f"max-{wiring}"}}

    await run(agent, ask(), mode, config)
    result = await run(agent, resume, mode, config)

    # Two answers judged in the turn: the second is kept, failed, with no third try.
    assert decisions.calls == 2 and model.calls == 3
    assert result["jev_attempts"] == 2 and not result["jev_verdict"].passed
    assert result["messages"][-1].content == "About 100 at sea level."


async def test_a_new_turn_after_an_abandoned_interrupt_counts_afresh(mode: str) -> None:
    judge, decisions = unit_judge(0.2, 0.9)
    call = calls_tool("thermometer", {"place": "sea level"}, "call-1")
    model = ReplyingChatModel(replies=[REJECTED, call, "At 2,000 metres: about 93 degrees Celsius."])
    agent = interrupt_before_agent(model, JevSelfRefineMiddleware(judge, max_attempts=2))
    config = {"configurable": {"thread_id": "abandoned"}}

    await run(agent, ask(), mode, config)
    # Instead of resuming, the user asks something else.
    result = await run(agent, ask("And at 2,000 metres?"), mode, config)

    assert [r["state"]["user_question"] for r in decisions.requests] == [QUESTION, "And at 2,000 metres?"]
    assert result["jev_attempts"] == 1 and result["jev_verdict"].passed


async def test_with_keep_drafts_the_judge_still_reads_the_question_after_a_resume(mode: str) -> None:
    judge, decisions = unit_judge(0.2, 0.9)
    call = calls_tool("thermometer", {"place": "sea level"}, "call-1")
    model = ReplyingChatModel(replies=[REJECTED, call, FINAL])
    agent = interrupt_before_agent(model, JevSelfRefineMiddleware(judge, keep_drafts=True))
    config = {"configurable": {"thread_id": "kept-drafts"}}

    await run(agent, ask(), mode, config)
    result = await run(agent, None, mode, config)

    # The drafts were kept on purpose, yet the feedback is never read as the question.
    assert [m.type for m in result["messages"]] == ["human", "ai", "human", "ai", "tool", "ai"]
    assert [r["state"]["user_question"] for r in decisions.requests] == [QUESTION, QUESTION]
    assert result["jev_attempts"] == 2
