"""A simulation per example in real offline LangSmith experiments (`evaluate` and `aevaluate`).

The client is a real ``langsmith.Client`` pointed at the fake LangSmith API
(`tests.support.fake_langsmith`), which must receive nothing under
``upload_results=False``; the app is a real LangGraph graph, the judge Jev over
the real typesafe-sdk client and ``httpx2.MockTransport``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import pytest
from langchain_core.decisions import Noul
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langsmith import Client, aevaluate, evaluate
from langsmith.schemas import Example

from langchain_jev import JevConfigurationError, JevCriterion, JevJudge
from langchain_jev.simulation import simulated_user, simulation_evaluator, simulation_target
from tests.fakes import JevWire, ReplyingChatModel, noul
from tests.support.fake_langsmith import fake_langsmith_api

pytestmark = pytest.mark.filterwarnings("ignore:'upload_runs' parameter is in beta")

HELPFUL = JevCriterion.noul("helpful", Noul(instructions="Is `assistant_answer` helpful?"), 0.7)
GOAL = JevCriterion.noul("goal_reached", Noul(instructions="Has the user's goal been reached?"), 0.8)
KEYS = ["helpful", "jev_pass", "turns"]


def _graph() -> Any:
    def answer(state: MessagesState) -> dict[str, Any]:
        said = str(state["messages"][-1].content)
        if "broken" in said:
            raise RuntimeError("the app fell over")
        return {"messages": [AIMessage(f"Done: {said}")]}

    builder = StateGraph(MessagesState).add_node("agent", answer)
    return builder.add_edge(START, "agent").add_edge("agent", END).compile(checkpointer=InMemorySaver())


def _examples() -> list[Example]:
    rows = {
        "quick": {"persona": "A regular", "goal": "Book a table", "script": ["Table for two."]},
        "slow": {"persona": "A tourist", "goal": "Book a table", "script": ["Hello.", "Tonight?"]},
        "broken": {"goal": "Crash it", "script": ["This is broken."]},
    }
    return [
        Example(
            id=uuid.UUID(int=i + 1),
            dataset_id=uuid.UUID(int=9),
            inputs=inputs,
            outputs={},
            metadata={"name": name},
        )
        for i, (name, inputs) in enumerate(rows.items())
    ]


def _goal(body: Mapping[str, Any]) -> dict[str, Any]:
    return noul(0.95 if body["state"]["user_question"] in ("Table for two.", "Tonight?") else 0.1)


ANSWERS = {"helpful": noul(0.9), "goal_reached": _goal}


def _by_example(rows: list[Any]) -> dict[str, dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {}
    for row in rows:
        table[row["example"].metadata["name"]] = {r.key: r for r in row["evaluation_results"]["results"]}
    return table


def _assert_table(table: dict[str, dict[str, Any]]) -> None:
    assert sorted(table) == ["broken", "quick", "slow"]
    for name, results in table.items():
        assert list(results) == KEYS, name
    assert (table["quick"]["jev_pass"].score, table["quick"]["turns"].score) == (1.0, 1.0)
    assert table["quick"]["turns"].value == "stopped"
    assert (table["slow"]["jev_pass"].score, table["slow"]["turns"].score) == (1.0, 2.0)
    # the app that raised: an error, reported as such under every key, never a pass
    broken = table["broken"]
    assert broken["jev_pass"].score == 0.0 and "the app fell over" in broken["jev_pass"].comment
    assert broken["helpful"].value == "ERROR" and broken["helpful"].score is None
    assert broken["turns"].value == "error"


def _client(url: str) -> Client:
    return Client(api_key="fake-key", api_url=url, auto_batch_tracing=False)


def test_evaluate_runs_a_conversation_per_example_and_reports_its_verdict() -> None:
    wire = JevWire(ANSWERS)
    target = simulation_target(_graph(), max_turns=4, judge=JevJudge([HELPFUL], wire.model()), stop_when=GOAL)
    with fake_langsmith_api() as (url, posted):
        results = evaluate(
            target,
            data=_examples(),
            evaluators=[simulation_evaluator(target)],
            client=_client(url),
            upload_results=False,
            max_concurrency=2,
        )
        rows = list(results)
    _assert_table(_by_example(rows))
    assert wire.calls == 3  # quick: 1 turn, slow: 2 turns, broken: none judged; the evaluator asks nothing
    outputs = {row["example"].metadata["name"]: row["run"].outputs for row in rows}
    assert [m["data"]["content"] for m in outputs["slow"]["messages"]] == [
        "Hello.",
        "Done: Hello.",
        "Tonight?",
        "Done: Tonight?",
    ]
    assert posted == []  # offline: nothing reached LangSmith


async def test_aevaluate_runs_the_conversations_with_asimulate() -> None:
    wire = JevWire(ANSWERS)
    target = simulation_target(
        _graph(), max_turns=4, judge=JevJudge([HELPFUL], wire.model("async")), stop_when=GOAL
    )
    with fake_langsmith_api() as (url, posted):
        results = await aevaluate(
            target.acall,
            data=_examples(),
            evaluators=[simulation_evaluator(target)],
            client=_client(url),
            upload_results=False,
            max_concurrency=2,
        )
        rows = [row async for row in results]
    _assert_table(_by_example(rows))
    assert wire.calls == 3 and posted == []


def test_a_user_from_example_and_a_user_model_play_the_persona() -> None:
    user_model = ReplyingChatModel(replies=["And tonight?"])
    wire = JevWire(ANSWERS)
    target = simulation_target(
        _graph(),
        max_turns=2,
        judge=JevJudge([HELPFUL], wire.model()),
        user_model=user_model,
    )
    result = target({"persona": "A tourist", "goal": "Book a table", "script": "Hello."})
    assert [turn["user"] for turn in result["turns"]] == ["Hello.", "And tonight?"]
    assert "A tourist" in str(user_model.received[0][0].content)
    own = simulation_target(_graph(), lambda inputs: simulated_user(script=[inputs["line"]]), max_turns=2)
    assert own({"line": "Hi."})["ending"] == "user_done"


def test_the_evaluator_refuses_a_run_its_target_did_not_simulate() -> None:
    target = simulation_target(_graph(), max_turns=1)
    with fake_langsmith_api() as (url, _posted):
        results = evaluate(
            lambda inputs: {"answer": "not a simulation"},
            data=_examples()[:1],
            evaluators=[simulation_evaluator(target)],
            client=_client(url),
            upload_results=False,
        )
        (row,) = list(results)
    results = row["evaluation_results"]["results"]
    assert [r.key for r in results] == ["jev_pass", "turns"]  # an error under every key, never a pass
    assert all(r.score is None and "has no conversation of this target" in str(r.comment) for r in results)


@pytest.mark.parametrize(
    ("options", "named"),
    [({"max_turns": 0}, "max_turns"), ({"max_turns": 2, "stop_when": "done?"}, "stop_when")],
)
def test_a_target_asked_wrongly_says_so_when_built(options: dict[str, Any], named: str) -> None:
    with pytest.raises(JevConfigurationError, match=named):
        simulation_target(_graph(), **options)
    with pytest.raises(JevConfigurationError, match="SimulationTarget"):
        simulation_evaluator("target")  # type: ignore[arg-type]
