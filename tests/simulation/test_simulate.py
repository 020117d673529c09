"""A simulated user and a real agent talk; each turn's checks and the stop decision go in one request.

The agent is a real ``create_agent`` agent (a LangChain fake chat model, a real
tool, a checkpointer), the simulated user a fake chat model steered by a
persona and a goal after a scripted first turn, and the judge Jev through the
real typesafe-sdk client over ``httpx2.MockTransport``, whose every request is
recorded.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.decisions import Noul
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph

from langchain_jev import JevConfigurationError, JevCriterion, JevJudge
from langchain_jev.simulation import Simulation, asimulate, simulate, simulated_user
from tests.fakes import JevWire, ReplyingChatModel, noul

ANSWERED = JevCriterion.noul(
    "answered",
    Noul(instructions="Does `assistant_answer` answer `user_question`, given `conversation` where given?"),
    0.7,
)
GOAL = JevCriterion.noul(
    "goal_reached",
    Noul(instructions="Has the user's goal (a refund for order 42) been reached in `conversation`?"),
    0.8,
)


@tool
def refund(order: int) -> str:
    """Refund an order."""
    return f"order {order} refunded"


def _agent(replies: list[Any]) -> tuple[Any, ReplyingChatModel]:
    chat = ReplyingChatModel(replies=replies)
    return create_agent(chat, tools=[refund], checkpointer=InMemorySaver()), chat


def _run(asynchronous: bool, *args: Any, **kwargs: Any) -> Simulation:
    if asynchronous:
        return asyncio.run(asimulate(*args, **kwargs))
    return simulate(*args, **kwargs)


AGENT_REPLIES = [
    "Which order is it?",
    AIMessage("", tool_calls=[{"name": "refund", "args": {"order": 42}, "id": "c1"}]),
    "Order 42 is refunded.",
]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_each_turn_asks_its_checks_and_the_stop_decision_in_one_request(asynchronous: bool) -> None:
    agent, chat = _agent(AGENT_REPLIES)
    user_model = ReplyingChatModel(replies=["It is order 42."])
    user = simulated_user(
        user_model, persona="A customer in a hurry", goal="A refund", script=["I want a refund."]
    )
    wire = JevWire(
        [
            {"answered": noul(0.9), "goal_reached": noul(0.1)},
            {"answered": noul(0.95), "goal_reached": noul(0.97)},
        ]
    )
    judge = JevJudge([ANSWERED], wire.model())
    result = _run(asynchronous, agent, user, max_turns=5, judge=judge, stop_when=GOAL)

    assert wire.calls == 2, "one request per turn, none at the end"
    assert [list(body["questions"]) for body in wire.bodies] == [["answered", "goal_reached"]] * 2
    assert result.ending == "stopped" and result.passed
    assert [turn.user for turn in result.turns] == ["I want a refund.", "It is order 42."]
    assert [turn.stop.outcome.value for turn in result.turns if turn.stop] == ["FAILED", "PASSED"]
    assert result.verdict is result.turns[-1].verdict
    assert [f.criterion.name for f in result.verdict.findings] == ["answered"]
    # the tool-call-only step is a step of the turn, and the judge was shown the call
    kinds = [type(m).__name__ for m in result.turns[1].replies]
    assert kinds == ["AIMessage", "ToolMessage", "AIMessage"]
    assert wire.bodies[1]["state"]["tool_calls"][0]["name"] == "refund"
    assert wire.bodies[1]["state"]["conversation"][-1]["content"] == "It is order 42."
    # the agent kept the thread; the user's model saw the agent's side as the messages it answers
    state = agent.get_state({"configurable": {"thread_id": result.thread_id}}).values
    assert len(state["messages"]) == len(result.messages) == 6
    seen = user_model.received[0]
    assert isinstance(seen[0], SystemMessage) and "A customer in a hurry" in str(seen[0].content)
    assert [type(m).__name__ for m in seen[1:]] == ["AIMessage", "HumanMessage"]
    assert seen[-1].content == "Which order is it?"
    assert chat.paths == (["async"] * 3 if asynchronous else ["sync"] * 3)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_max_turns_always_holds(asynchronous: bool) -> None:
    agent, _chat = _agent(["Hm?"] * 3)
    user = simulated_user(ReplyingChatModel(replies=["Again.", "Again."]), script=["Hello."])
    wire = JevWire({"answered": noul(0.9), "goal_reached": noul(0.2)})
    result = _run(
        asynchronous, agent, user, max_turns=3, judge=JevJudge([ANSWERED], wire.model()), stop_when=GOAL
    )
    assert result.ending == "max_turns" and len(result.turns) == 3 and wire.calls == 3
    assert result.passed


def _failing_user() -> Any:
    return simulated_user(ReplyingChatModel(replies=[]), script=["Hello."])


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("broken", ["user", "app", "judge"])
def test_whatever_raises_ends_the_conversation_as_an_error_never_a_pass(
    asynchronous: bool, broken: str
) -> None:
    agent, _chat = _agent(["Hi!"] * 3 if broken != "app" else [])
    user = _failing_user() if broken == "user" else simulated_user(script=["Hello.", "More."])
    wire = JevWire({"answered": noul(0.9)}, status=500 if broken == "judge" else 200)
    result = _run(asynchronous, agent, user, max_turns=4, judge=JevJudge([ANSWERED], wire.model()))
    assert result.ending == "error" and not result.passed
    assert result.error
    assert result.to_dict()["passed"] is False


def test_a_plain_runnable_and_a_graph_without_a_checkpointer_are_sent_the_whole_conversation() -> None:
    sent: list[list[BaseMessage]] = []

    def answer(messages: list[BaseMessage]) -> AIMessage:
        sent.append(list(messages))
        return AIMessage(f"Reply {len(sent)}.")

    result = simulate(RunnableLambda(answer), simulated_user(script=["One.", "Two."]), max_turns=5)
    assert [len(m) for m in sent] == [1, 3] and result.ending == "user_done"

    def node(state: MessagesState) -> dict[str, Any]:
        return {"messages": [answer(state["messages"])]}

    graph = StateGraph(MessagesState).add_node("agent", node).add_edge(START, "agent").add_edge("agent", END)
    sent.clear()
    result = simulate(graph.compile(), simulated_user(script=["One.", "Two."]), max_turns=5)
    assert [len(m) for m in sent] == [1, 3] and len(result.messages) == 4 and result.thread_id is None


def test_a_stop_criterion_alone_is_asked_of_the_model_given() -> None:
    agent, _chat = _agent(["Done."] * 2)
    wire = JevWire({"stop": noul(0.9)})
    goal = (Noul(instructions="Has the user said goodbye in `user_question`?"), 0.5)
    result = simulate(
        agent, simulated_user(script=["Bye.", "Bye!"]), max_turns=2, stop_when=goal, model=wire.model()
    )
    assert result.ending == "stopped" and len(result.turns) == 1 and wire.calls == 1
    assert result.verdict is None and result.turns[0].stop is not None


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"max_turns": 0}, "max_turns"),
        ({"max_turns": True}, "max_turns"),
        ({"max_turns": 2, "stop_when": "done?"}, "stop_when"),
        ({"max_turns": 2, "stop_when": (Noul(instructions="Done?"), 0.5)}, "model="),
        ({"max_turns": 2, "stop_when": ANSWERED, "judge": "judge"}, "'answered'"),
    ],
)
def test_a_simulation_asked_wrongly_says_what_is_wrong(options: dict[str, Any], named: str) -> None:
    if options.get("judge") == "judge":
        options["judge"] = JevJudge([ANSWERED], JevWire({}).model())
    with pytest.raises(JevConfigurationError, match=named):
        simulate(RunnableLambda(lambda m: "x"), simulated_user(script=["Hi."]), **options)


def test_a_simulated_user_without_model_or_script_is_refused() -> None:
    with pytest.raises(JevConfigurationError, match="model, a script"):
        simulated_user()
    with pytest.raises(JevConfigurationError, match=r"script\[1\]"):
        simulated_user(script=["Hi.", ""])


def test_tool_traffic_is_not_shown_to_the_simulated_user() -> None:
    user = simulated_user(ReplyingChatModel(replies=["ok"]), goal="A refund")
    seen = user.prompt(
        [
            HumanMessage("Refund 42."),
            AIMessage("", tool_calls=[{"name": "refund", "args": {"order": 42}, "id": "c1"}]),
            ToolMessage("order 42 refunded", tool_call_id="c1"),
            AIMessage("Done."),
        ]
    )
    assert [(type(m).__name__, m.content) for m in seen[1:]] == [
        ("AIMessage", "Refund 42."),
        ("HumanMessage", "Done."),
    ]
    assert "Goal: A refund" in str(seen[0].content)
