"""Trajectories read from real LangGraph threads, matched in every mode the trajectory judge has.

The thread: a planning node that only makes a tool call (a tool-only step), a
``ToolNode``, then a research subgraph whose agent makes two calls in one message
(parallel calls) before it answers, over two turns of one ``InMemorySaver``
thread. The model is a real LangChain chat model replying from a script.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from langchain_jev import JevConfigurationError, JevInputError, Outcome
from langchain_jev.judges import trajectory_judge
from langchain_jev.judges._threads import (
    STEPS_FIELD,
    aread_checkpoints,
    aread_thread,
    read_checkpoints,
    read_thread,
    steps_match,
)
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import ReplyingChatModel


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def _calls(*cities: str, turn: int = 0) -> AIMessage:
    return AIMessage(
        "",
        tool_calls=[{"name": "weather", "args": {"city": c}, "id": f"t{turn}-{c}"} for c in cities],
    )


def _thread() -> tuple[Any, InMemorySaver, dict[str, Any]]:
    model = ReplyingChatModel(
        replies=[_calls("SF", "London"), "Sunny in both.", _calls("Paris", turn=1), "Sunny."]
    )

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    research = StateGraph(MessagesState)
    research.add_node("agent", agent)
    research.add_node("tools", ToolNode([weather]))
    research.add_edge(START, "agent")
    research.add_conditional_edges("agent", tools_condition)
    research.add_edge("tools", "agent")

    def plan(state: MessagesState) -> dict[str, Any]:  # a step of tool calls only
        turn = sum(isinstance(m, HumanMessage) for m in state["messages"])
        return {"messages": [_calls("Cork", turn=10 + turn)]}

    graph = StateGraph(MessagesState)
    graph.add_node("plan", plan)
    graph.add_node("tools", ToolNode([weather]))
    graph.add_node("research", research.compile())
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "tools")
    graph.add_edge("tools", "research")
    graph.add_edge("research", END)
    saver = InMemorySaver()
    app = graph.compile(checkpointer=saver)
    config: dict[str, Any] = {"configurable": {"thread_id": "thread-1"}}
    app.invoke({"messages": [HumanMessage("Weather in SF and London?")]}, config)
    app.invoke({"messages": [HumanMessage("And Paris?")]}, config)
    return app, saver, config


TURN = ["__start__", "plan", "tools", "research", "research:__start__", "research:agent", "research:tools"]
NODES = [[*TURN, "research:agent"], [*TURN, "research:agent"]]


def test_a_thread_reads_as_its_steps_messages_and_calls_subgraphs_included() -> None:
    app, _, config = _thread()
    thread = read_thread(app, config)
    assert thread.nodes() == NODES
    plan = thread.steps[1]
    assert (plan.node, [c.name for c in plan.tool_calls]) == ("plan", ["weather"])
    assert [m.text for m in plan.messages] == [""]  # the tool-only step keeps its message
    calls = [(c.arguments["city"], c.message, c.result) for c in thread.tool_calls]
    assert calls == [
        ("Cork", 0, "sunny in Cork"),
        ("SF", 1, "sunny in SF"),
        ("London", 1, "sunny in London"),  # made by the same message as SF
        ("Cork", 3, "sunny in Cork"),
        ("Paris", 4, "sunny in Paris"),
    ]
    # every message of the thread once, in order, whichever namespace wrote it
    assert [m.id for m in thread.messages] == [m.id for m in app.get_state(config).values["messages"]]
    data = thread.to_input()
    assert (data.question, data.answer, data.field(STEPS_FIELD)) == ("And Paris?", "Sunny.", NODES)


def test_a_checkpointer_alone_and_the_async_readers_read_the_same_thread() -> None:
    app, saver, config = _thread()
    thread = read_thread(app, config)
    for other in (
        read_checkpoints(saver, "thread-1"),
        asyncio.run(aread_thread(app, config)),
        asyncio.run(aread_checkpoints(saver, "thread-1")),
    ):
        assert other.nodes() == thread.nodes()
        assert [m.id for m in other.messages] == [m.id for m in thread.messages]
        assert other.tool_calls == thread.tool_calls


def _call(city: str, message: int) -> dict[str, Any]:
    return {"name": "weather", "arguments": {"city": city}, "message": message}


ALL = [_call("Cork", 0), _call("SF", 1), _call("London", 1), _call("Cork", 3), _call("Paris", 4)]
CASES = {
    # mode: (a reference it matches, one it does not)
    "strict": (
        [ALL[0], ALL[2], ALL[1], *ALL[3:]],  # the parallel calls of one message in the other order
        [ALL[0], ALL[1], _call("London", 2), _call("Cork", 3), _call("Paris", 4)],  # split over two
    ),
    "unordered": ([ALL[4], ALL[2], ALL[0], ALL[3], ALL[1]], ALL[:4]),
    "subset": ([*ALL, _call("Rome", 5)], ALL[1:]),
    "superset": (ALL[1:3], [*ALL, _call("Rome", 5)]),
}


@pytest.mark.parametrize("mode", list(CASES))
def test_the_trajectory_judge_matches_a_thread_in_every_mode(mode: str) -> None:
    app, _, config = _thread()
    data = read_thread(app, config).to_input()
    judge = trajectory_judge(
        ScriptedDecisionModel({"right_tools": 0.9, "task_completed": 0.9}), mode=mode, tools=[weather]
    )  # type: ignore[arg-type]
    matching, mismatching = CASES[mode]
    for reference, expected in ((matching, Outcome.PASSED), (mismatching, Outcome.FAILED)):
        thread = read_thread(app, config).to_input(fields={"reference_tool_calls": reference})
        assert thread.tool_calls == data.tool_calls
        verdict = judge.judge(thread)
        assert verdict.finding("trajectory_match").outcome is expected, (mode, reference)


def test_an_argument_rule_applies_to_calls_read_from_a_thread() -> None:
    app, _, config = _thread()
    reference = [{**call, "arguments": {"city": "?"}} for call in ALL]
    model = ScriptedDecisionModel({"right_tools": 0.9, "task_completed": 0.9})
    for per_tool, expected in (({}, Outcome.FAILED), ({"weather": "ignore"}, Outcome.PASSED)):
        judge = trajectory_judge(model, mode="strict", per_tool=per_tool, tools=[weather])
        data = read_thread(app, config).to_input(fields={"reference_tool_calls": reference})
        assert judge.judge(data).finding("trajectory_match").outcome is expected


STEP_CASES = {
    "strict": (NODES, [NODES[0], ["__start__", "research", "plan", *TURN[3:], "research:agent"]]),
    "unordered": ([sorted(turn) for turn in NODES], [NODES[0], TURN]),
    "subset": ([[*turn, "review"] for turn in NODES], [NODES[0], ["plan"]]),
    "superset": ([["plan", "research:tools"], ["research:agent"]], [NODES[0], [*TURN, "review"]]),
}


@pytest.mark.parametrize("mode", list(STEP_CASES))
def test_the_steps_of_a_thread_match_in_every_mode(mode: str) -> None:
    app, _, config = _thread()
    thread = read_thread(app, config)
    matching, mismatching = STEP_CASES[mode]
    assert steps_match(thread, matching, mode)  # type: ignore[arg-type]
    assert not steps_match(thread, mismatching, mode)  # type: ignore[arg-type]


def test_steps_for_the_whole_thread_or_per_turn_and_a_bad_reference_is_named() -> None:
    app, _, config = _thread()
    thread = read_thread(app, config)
    assert steps_match(thread, ["plan", "plan", "research:tools"], "superset")
    assert not steps_match(thread, [NODES[0]], "superset")  # one turn given, two in the thread
    with pytest.raises(JevInputError, match=r"reference steps\[1\] must be a list"):
        steps_match(thread, [["plan"], "plan"], "strict")


def test_a_function_rule_is_refused_by_the_judge_by_name() -> None:
    with pytest.raises(JevConfigurationError, match=r"per_tool\['weather'\].*trajectory_matches"):
        trajectory_judge(ScriptedDecisionModel({}), per_tool={"weather": lambda mine, theirs: True})
