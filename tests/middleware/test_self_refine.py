"""JevSelfRefineMiddleware inside real create_agent agents with a scripted chat model."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, hook_config
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from langchain_jev import JevConfigurationError, JevCriterion, JevJudge
from langchain_jev._refine import DEFAULT_FEEDBACK_TEMPLATE
from langchain_jev.middleware import JevSelfRefineMiddleware, SelfRefineAgentState
from tests.fakes import JevWire, ReplyingChatModel, RunRecorder, noul
from tests.support.self_refine import (
    QUESTION,
    UNITS,
    ask,
    calls_tool,
    contents,
    run,
    three_judge,
    unit_judge,
)

UNIT_FEEDBACK = 'cites_unit: "A number is given without its unit" (yes at 0.20, needs 0.70)'
FEEDBACK = DEFAULT_FEEDBACK_TEMPLATE.format(feedback=UNIT_FEEDBACK)


@tool
def thermometer(place: str) -> str:
    """Read the boiling point of water at a place."""
    return f"Water boils at 100 degrees Celsius at {place}."


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def agent_with(model: ReplyingChatModel, middleware: JevSelfRefineMiddleware, **options: Any) -> Any:
    return create_agent(model, tools=[thermometer], middleware=[middleware], **options)


async def test_a_failing_answer_is_revised_and_only_the_revision_joins_the_conversation(mode: str) -> None:
    judge, decisions = unit_judge(0.2, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    result = await run(agent_with(model, JevSelfRefineMiddleware(judge)), ask(), mode)

    assert contents(result["messages"]) == [("human", QUESTION), ("ai", "About 100 degrees Celsius.")]
    assert result["jev_verdict"].passed and result["jev_attempts"] == 2
    assert decisions.calls == 2 and model.calls == 2 and model.paths == [mode, mode]
    rejected = result["jev_drafts"][0]
    assert rejected.answer.content == "About 100." and rejected.feedback.content == FEEDBACK


async def test_the_retry_request_carries_the_rejected_answer_and_the_feedback(mode: str) -> None:
    judge, decisions = unit_judge(0.2, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    await run(agent_with(model, JevSelfRefineMiddleware(judge)), ask(), mode)

    assert contents(model.received[1]) == [("human", QUESTION), ("ai", "About 100."), ("human", FEEDBACK)]
    assert [r["state"]["user_question"] for r in decisions.requests] == [QUESTION, QUESTION]


async def test_tool_calling_turns_pass_through_and_the_judge_gets_the_tool_calls(mode: str) -> None:
    judge, decisions = unit_judge(0.9)
    call = calls_tool("thermometer", {"place": "sea level"}, "call-1")
    model = ReplyingChatModel(replies=[call, "Water boils at 100 degrees Celsius at sea level."])
    result = await run(agent_with(model, JevSelfRefineMiddleware(judge)), ask(), mode)

    messages = result["messages"]
    assert [m.type for m in messages] == ["human", "ai", "tool", "ai"]
    assert messages[1].tool_calls == call.tool_calls and messages[1].content == ""
    assert isinstance(messages[2], ToolMessage) and "100 degrees Celsius" in messages[2].content
    assert decisions.calls == 1 and result["jev_attempts"] == 1
    state = decisions.requests[0]["state"]
    assert state["tool_calls"] == [
        {
            "name": "thermometer",
            "arguments": {"place": "sea level"},
            "result": "Water boils at 100 degrees Celsius at sea level.",
            "message": 0,  # the first AI message of the turn made the call
        }
    ]


async def test_a_turn_that_only_calls_tools_is_never_judged(mode: str) -> None:
    judge, decisions = unit_judge()
    middleware = JevSelfRefineMiddleware(judge)
    model = ReplyingChatModel(replies=[calls_tool("thermometer", {"place": "Quito"}, "call-1")])
    agent = create_agent(model, tools=[thermometer], middleware=[middleware], interrupt_after=["tools"])
    config = {"configurable": {"thread_id": "tools-only"}}
    agent = agent.copy(update={"checkpointer": InMemorySaver()})
    result = await run(agent, ask(), mode, config)

    assert [m.type for m in result["messages"]] == ["human", "ai", "tool"]
    assert decisions.calls == 0 and "jev_verdict" not in result


async def test_rejected_answers_stay_out_of_history_after_a_tool_turn(mode: str) -> None:
    judge, _ = unit_judge(0.2, 0.9)
    call = calls_tool("thermometer", {"place": "sea level"}, "call-1")
    model = ReplyingChatModel(replies=[call, "100.", "100 degrees Celsius."])
    result = await run(agent_with(model, JevSelfRefineMiddleware(judge)), ask(), mode)

    assert [m.type for m in result["messages"]] == ["human", "ai", "tool", "ai"]
    assert result["messages"][-1].content == "100 degrees Celsius."


async def test_keep_drafts_puts_the_rejected_answers_before_the_kept_one(mode: str) -> None:
    judge, _ = unit_judge(0.2, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    result = await run(agent_with(model, JevSelfRefineMiddleware(judge, keep_drafts=True)), ask(), mode)

    assert contents(result["messages"]) == [
        ("human", QUESTION),
        ("ai", "About 100."),
        ("human", FEEDBACK),
        ("ai", "About 100 degrees Celsius."),
    ]


async def test_a_retry_that_calls_tools_keeps_its_context_until_the_answer_is_kept(mode: str) -> None:
    judge, decisions = unit_judge(0.2, 0.9)
    call = calls_tool("thermometer", {"place": "sea level"}, "call-1")
    model = ReplyingChatModel(replies=["About 100.", call, "100 degrees Celsius, measured at sea level."])
    result = await run(agent_with(model, JevSelfRefineMiddleware(judge)), ask(), mode)

    # The model saw its rejected answer and the feedback before and after the tool.
    assert contents(model.received[1]) == [("human", QUESTION), ("ai", "About 100."), ("human", FEEDBACK)]
    assert [m.type for m in model.received[2]] == ["human", "ai", "human", "ai", "tool"]
    # The judge still saw the user's question, now with the tool call of the turn.
    second = decisions.requests[1]["state"]
    assert second["user_question"] == QUESTION
    assert second["assistant_answer"] == "100 degrees Celsius, measured at sea level."
    assert [c["name"] for c in second["tool_calls"]] == ["thermometer"]
    # The rejected answer and its feedback are gone; the tool call and its result stay.
    assert [m.type for m in result["messages"]] == ["human", "ai", "tool", "ai"]
    assert result["messages"][1].tool_calls[0]["id"] == "call-1"
    assert result["jev_attempts"] == 2 and decisions.calls == 2 and result["jev_verdict"].passed


async def test_exhaustion_keeps_the_last_answer_and_its_failed_verdict(mode: str) -> None:
    judge, decisions = unit_judge(0.1, 0.3)
    model = ReplyingChatModel(replies=["100.", "About 100."])
    middleware = JevSelfRefineMiddleware(judge, max_attempts=2)
    result = await run(agent_with(model, middleware), ask(), mode)

    assert contents(result["messages"]) == [("human", QUESTION), ("ai", "About 100.")]
    assert not result["jev_verdict"].passed and result["jev_verdict"].finding("cites_unit").value == 0.3
    assert result["jev_attempts"] == 2 and decisions.calls == 2 and model.calls == 2


async def test_keep_best_returns_the_best_ranked_answer(mode: str) -> None:
    judge, decisions = three_judge(
        {"cites_unit": 0.9, "sourced": 0.9, "brief": 0.1},
        {"cites_unit": 0.1, "sourced": 0.1, "brief": 0.9},
        {"cites_unit": 0.1, "sourced": 0.9, "brief": 0.1},
    )
    model = ReplyingChatModel(replies=["Draft one.", "Draft two.", "Draft three."])
    result = await run(agent_with(model, JevSelfRefineMiddleware(judge, keep="best")), ask(), mode)

    assert contents(result["messages"]) == [("human", QUESTION), ("ai", "Draft one.")]
    assert result["jev_verdict"] is result["jev_drafts"][0].verdict and decisions.calls == 3


async def test_keep_best_across_a_tool_turn_moves_the_earlier_answer_to_the_end(mode: str) -> None:
    judge, _ = three_judge(
        {"cites_unit": 0.9, "sourced": 0.9, "brief": 0.1},
        {"cites_unit": 0.1, "sourced": 0.1, "brief": 0.1},
    )
    call = calls_tool("thermometer", {"place": "sea level"}, "call-1")
    model = ReplyingChatModel(replies=["Draft one.", call, "Draft two."])
    middleware = JevSelfRefineMiddleware(judge, keep="best", max_attempts=2)
    result = await run(agent_with(model, middleware), ask(), mode)

    messages = result["messages"]
    assert [m.type for m in messages] == ["human", "ai", "tool", "ai"]
    assert messages[-1].content == "Draft one." and messages[-1].id != result["jev_drafts"][0].answer.id


async def test_each_run_of_a_checkpointed_agent_starts_afresh(mode: str) -> None:
    judge, decisions = unit_judge(0.2, 0.9, 0.95)
    model = ReplyingChatModel(
        replies=["About 100.", "About 100 degrees Celsius.", "About 93 degrees Celsius."]
    )
    agent = agent_with(model, JevSelfRefineMiddleware(judge), checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "two-turns"}}

    first = await run(agent, ask(), mode, config)
    second = await run(agent, ask("And at 2,000 metres?"), mode, config)

    assert (first["jev_attempts"], second["jev_attempts"], decisions.calls) == (2, 1, 3)
    assert [m.type for m in second["messages"]] == ["human", "ai", "human", "ai"]
    assert decisions.requests[2]["state"]["user_question"] == "And at 2,000 metres?"
    stored = agent.get_state(config).values
    assert [m.content for m in stored["messages"] if isinstance(m, AIMessage)] == [
        "About 100 degrees Celsius.",
        "About 93 degrees Celsius.",
    ]


async def test_over_the_jev_wire_one_request_per_answer(mode: str) -> None:
    wire = JevWire([{"cites_unit": noul(0.2)}, {"cites_unit": noul(0.9)}], input_tokens=80)
    judge = JevJudge([JevCriterion.noul("cites_unit", UNITS, 0.7)], model=wire.model(mode))
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    result = await run(agent_with(model, JevSelfRefineMiddleware(judge)), ask(), mode)

    assert len(wire.bodies) == 2 and result["jev_verdict"].passed
    assert [b["state"]["assistant_answer"] for b in wire.bodies] == [
        "About 100.",
        "About 100 degrees Celsius.",
    ]


async def test_a_judge_that_cannot_reach_its_model_stops_the_agent(mode: str) -> None:
    judge, _ = unit_judge()
    judge.model.script = [{"cites_unit": ConnectionError("decision model unreachable")}]  # type: ignore[attr-defined]
    model = ReplyingChatModel(replies=["About 100."])
    with pytest.raises(ConnectionError, match="unreachable"):
        await run(agent_with(model, JevSelfRefineMiddleware(judge)), ask(), mode)


def test_the_state_schema_adds_the_verdict_fields() -> None:
    agent = create_agent(ReplyingChatModel(), middleware=[JevSelfRefineMiddleware(unit_judge()[0])])
    output = agent.get_output_jsonschema()["properties"]
    assert {"jev_verdict", "jev_attempts", "jev_drafts"} <= set(output)
    assert JevSelfRefineMiddleware.state_schema is SelfRefineAgentState


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_attempts": 0}, "max_attempts must be an integer of at least 1, got 0"),
        ({"keep": "worst"}, 'keep must be "last" or "best", got \'worst\''),
        ({"feedback_message": "No placeholder"}, "must contain {feedback}"),
        ({"to_input": 3}, "to_input must be a callable"),
    ],
)
def test_arguments_are_checked(options: dict[str, Any], message: str) -> None:
    with pytest.raises(JevConfigurationError, match=message):
        JevSelfRefineMiddleware(unit_judge()[0], **options)
    with pytest.raises(JevConfigurationError, match="judge must be a JevJudge, got NoneType"):
        JevSelfRefineMiddleware(None)  # type: ignore[arg-type]


def test_importing_the_package_needs_no_langchain_but_using_the_middleware_names_the_extra() -> None:
    script = textwrap.dedent(
        """
        import sys
        sys.modules["langchain"] = None
        import langchain_jev.middleware as middleware
        assert "JevSelfRefineMiddleware" in middleware.__all__
        try:
            middleware.JevSelfRefineMiddleware
        except ImportError as error:
            print(error)
        else:
            raise SystemExit("no ImportError")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert 'install the middleware extra: pip install -e ".[middleware]" in a checkout of langchain-jev, or pip install "langchain_jev-VERSION-py3-none-any.whl[middleware]" from a wheel' in done.stdout


async def test_each_judge_run_sits_under_the_model_call_in_the_trace(mode: str) -> None:
    judge, _ = unit_judge(0.2, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    tracer = RunRecorder()
    await run(agent_with(model, JevSelfRefineMiddleware(judge)), ask(), mode, {"callbacks": [tracer]})

    assert tracer.parents("JevJudge") == ["model", "model"]
    assert tracer.parents("ScriptedDecisionModel") == ["JevJudge", "JevJudge"]


class AskAgain(AgentMiddleware):
    """After the first final answer, asks a follow-up and sends the agent back to the model."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = False

    def _again(self, state: Any) -> dict[str, Any] | None:
        last = state["messages"][-1]
        if self.asked or not isinstance(last, AIMessage) or last.tool_calls:
            return None
        self.asked = True
        return {"messages": [HumanMessage("And in Fahrenheit?")], "jump_to": "model"}

    @hook_config(can_jump_to=["model"])
    def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self._again(state)

    @hook_config(can_jump_to=["model"])
    async def aafter_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self._again(state)


async def test_a_second_final_answer_in_the_same_run_gets_its_own_attempts(mode: str) -> None:
    judge, decisions = unit_judge(0.2, 0.9, 0.1, 0.95)
    model = ReplyingChatModel(replies=["100.", "100 degrees Celsius.", "212.", "212 degrees Fahrenheit."])
    refine = JevSelfRefineMiddleware(judge, max_attempts=2, keep="best")
    agent = create_agent(model, middleware=[AskAgain(), refine])
    result = await run(agent, ask(), mode)

    assert contents(result["messages"]) == [
        ("human", QUESTION),
        ("ai", "100 degrees Celsius."),
        ("human", "And in Fahrenheit?"),
        ("ai", "212 degrees Fahrenheit."),
    ]
    assert decisions.calls == 4 and result["jev_attempts"] == 4
    assert [r["state"]["user_question"] for r in decisions.requests] == [QUESTION] * 2 + [
        "And in Fahrenheit?"
    ] * 2
    assert result["jev_verdict"].finding("cites_unit").value == 0.95
