"""Real offline LangSmith experiments (`evaluate` and `aevaluate`) with a Jev judge
as the evaluator: one feedback row per example and key, the summary pass rates,
and failures that show as LangSmith's error results, never as passes."""

from __future__ import annotations

from typing import Any

import pytest
from langsmith import aevaluate, evaluate

from langchain_jev import JevJudge
from langchain_jev.langsmith import OVERALL_KEY, JevRunEvaluator, jev_summary_evaluator
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import API_KEY, JevWire
from tests.langsmith.helpers import (
    EXPECTED,
    QUESTIONS,
    arag_target,
    criteria,
    examples,
    langsmith_attempts,
    offline_client,
    rag_target,
    rows_by_question,
    scripted_judge,
    wire_answers,
)

pytestmark = pytest.mark.filterwarnings("ignore:'upload_runs' parameter is in beta")

KEYS = ["grounded", "helpfulness", "tone", "not_empty", OVERALL_KEY]


def scores_and_values(table: dict[str, dict[str, Any]]) -> dict[str, dict[str, tuple[Any, Any]]]:
    return {q: {k: (r.score, r.value) for k, r in row.items()} for q, row in table.items()}


def run_experiment(judge: JevJudge, max_concurrency: int | None, **kwargs: Any) -> Any:
    return evaluate(
        rag_target,
        data=examples(),
        evaluators=[JevRunEvaluator(judge)],
        client=offline_client(),
        upload_results=False,
        max_concurrency=max_concurrency,
        **kwargs,
    )


@pytest.mark.parametrize("max_concurrency", [0, 4])
def test_evaluate_reports_each_criterion_per_example(max_concurrency: int) -> None:
    with langsmith_attempts() as attempts:
        judge = scripted_judge()
        table = rows_by_question(run_experiment(judge, max_concurrency))

        assert sorted(table) == sorted(QUESTIONS)
        for question in QUESTIONS:
            assert list(table[question]) == KEYS
        assert scores_and_values(table) == EXPECTED
        # Context reached the judge from the target's traced retriever run.
        states = {r["state"]["user_question"]: r["state"] for r in judge.model.requests}  # type: ignore[attr-defined]
        assert states["How tall is the Eiffel Tower?"]["supporting_context"] == [
            "The Eiffel Tower is 330 metres tall and stands in Paris."
        ]
        assert "supporting_context" not in states["Say hello."]
        assert states["Where is the Louvre?"]["expected_output"] == "Paris"
        # Every result links the judge's own run, one run per example.
        runs = {q: {r.source_run_id for r in row.values()} for q, row in table.items()}
        assert all(len(ids) == 1 and None not in ids for ids in runs.values())
        assert len(set().union(*runs.values())) == len(QUESTIONS)
        assert attempts == []


def test_evaluate_over_the_jev_api_through_the_real_sdk() -> None:
    with langsmith_attempts() as attempts:
        wire = JevWire(wire_answers())
        judge = JevJudge(criteria(), model=wire.model())
        table = rows_by_question(run_experiment(judge, 3))

        assert scores_and_values(table) == EXPECTED
        assert wire.calls == len(QUESTIONS)  # one request per example, whatever the number of criteria
        asked = {body["state"]["user_question"]: sorted(body["questions"]) for body in wire.bodies}
        assert asked == {
            "How tall is the Eiffel Tower?": ["grounded", "helpfulness", "tone"],
            "Where is the Louvre?": ["grounded", "helpfulness", "tone"],
            "Say hello.": ["helpfulness", "tone"],  # no context: groundedness is not asked
            "What is 2 + 2?": ["helpfulness", "tone"],
        }
        assert attempts == []


async def test_aevaluate_awaits_the_judge_over_the_async_jev_client() -> None:
    with langsmith_attempts() as attempts:
        wire = JevWire(wire_answers())
        # Only an async client: a sync call could not reach the API.
        judge = JevJudge(criteria(), model=wire.model("async"))
        results = await aevaluate(
            arag_target,
            data=examples(),
            evaluators=[JevRunEvaluator(judge)],
            client=offline_client(),
            upload_results=False,
            max_concurrency=4,
        )
        rows = [row async for row in results]

        assert scores_and_values(rows_by_question(rows)) == EXPECTED
        assert wire.calls == len(QUESTIONS)
        assert attempts == []


async def test_aevaluate_with_a_scripted_judge_and_a_key_prefix() -> None:
    judge = JevJudge(criteria(), model=scripted_judge().model.model_copy(update={"delay": 0.01}))
    results = await aevaluate(
        arag_target,
        data=examples(),
        evaluators=[JevRunEvaluator(judge, key_prefix="rag")],
        client=offline_client(),
        upload_results=False,
        max_concurrency=2,
    )
    table = rows_by_question([row async for row in results])
    assert {q: {k: r.score for k, r in row.items()} for q, row in table.items()} == {
        q: {f"rag_{k}": score for k, (score, _) in row.items()} for q, row in EXPECTED.items()
    }


def assert_error_rows(table: dict[str, dict[str, Any]], needle: str) -> None:
    assert sorted(table) == sorted(QUESTIONS)
    for row in table.values():
        assert list(row) == KEYS  # every key is there, known before the judge ran
        for result in row.values():
            assert result.score is None  # never a pass
            assert result.extra == {"error": True}
            assert needle in result.comment


@pytest.mark.parametrize("max_concurrency", [0, 2])
def test_a_model_that_fails_gives_error_results_not_passes(max_concurrency: int) -> None:
    with langsmith_attempts() as attempts:
        wire = JevWire(status=401)
        judge = JevJudge(criteria(), model=wire.model())
        table = rows_by_question(run_experiment(judge, max_concurrency))

        assert_error_rows(table, "401")
        assert API_KEY not in repr(table)
        assert attempts == []


async def test_a_failing_model_under_aevaluate_gives_error_results() -> None:
    failing = ScriptedDecisionModel(
        {"grounded": 0.9, "helpfulness": TimeoutError("model timed out"), "tone": "neutral"}
    )
    results = await aevaluate(
        arag_target,
        data=examples(),
        evaluators=[JevRunEvaluator(JevJudge(criteria(), model=failing))],
        client=offline_client(),
        upload_results=False,
        max_concurrency=3,
    )
    assert_error_rows(rows_by_question([row async for row in results]), "model timed out")


def test_a_run_without_an_answer_gives_error_results_naming_the_keys() -> None:
    def target(inputs: dict[str, Any]) -> dict[str, Any]:
        return {"answer": None, "trace_id": "t-1"}  # the answer's key, empty: no other value stands in

    results = evaluate(
        target,
        data=examples(),
        evaluators=[JevRunEvaluator(scripted_judge())],
        client=offline_client(),
        upload_results=False,
    )
    assert_error_rows(rows_by_question(results), "'answer', 'output', 'response', 'result', 'text'")
    assert_error_rows(rows_by_question(results), "with nothing under ['answer']")


def test_the_summary_reuses_the_evaluator_s_verdicts() -> None:
    with langsmith_attempts() as attempts:
        judge = scripted_judge()
        evaluator = JevRunEvaluator(judge)
        results = evaluate(
            rag_target,
            data=examples(),
            evaluators=[evaluator],
            summary_evaluators=[jev_summary_evaluator(evaluator)],
            client=offline_client(),
            upload_results=False,
            max_concurrency=2,
        )
        list(results)
        # ExperimentResults keeps summary results on a private attribute only.
        summary = {r.key: (r.score, r.comment) for r in results._summary_results["results"]}

        assert summary == {
            "grounded_pass_rate": (0.5, "1 of 2 passed; 1 failed; 2 not applicable"),
            "helpfulness_pass_rate": (0.5, "2 of 4 passed; 2 failed"),
            "tone_pass_rate": (1.0, "4 of 4 passed"),
            "not_empty_pass_rate": (0.75, "3 of 4 passed; 1 failed"),
            "jev_pass_rate": (0.5, "2 of 4 runs passed; 2 failed"),
        }
        assert judge.model.calls == len(QUESTIONS)  # type: ignore[attr-defined]
        assert attempts == []


def test_a_summary_from_the_judge_alone_judges_every_run() -> None:
    with langsmith_attempts() as attempts:
        judge = scripted_judge()
        results = evaluate(
            rag_target,
            data=examples(),
            summary_evaluators=[jev_summary_evaluator(judge, key_prefix="rag", max_concurrency=2)],
            client=offline_client(),
            upload_results=False,
        )
        list(results)
        summary = {r.key: r.score for r in results._summary_results["results"]}
        assert summary == {
            "rag_grounded_pass_rate": 0.5,
            "rag_helpfulness_pass_rate": 0.5,
            "rag_tone_pass_rate": 1.0,
            "rag_not_empty_pass_rate": 0.75,
            "rag_jev_pass_rate": 0.5,
        }
        assert judge.model.calls == len(QUESTIONS)  # type: ignore[attr-defined]
        assert attempts == []


def test_runs_the_judge_could_not_judge_lower_the_rates() -> None:
    failing = ScriptedDecisionModel(
        {
            "grounded": 0.9,
            "helpfulness": lambda state, q: (
                ConnectionError("down") if "Louvre" in state["user_question"] else 3.0
            ),
            "tone": "neutral",
        }
    )
    evaluator = JevRunEvaluator(JevJudge(criteria(), model=failing))
    results = evaluate(
        rag_target,
        data=examples(),
        evaluators=[evaluator],
        summary_evaluators=[jev_summary_evaluator(evaluator)],
        client=offline_client(),
        upload_results=False,
    )
    list(results)
    summary = {r.key: (r.score, r.comment) for r in results._summary_results["results"]}
    assert summary["tone_pass_rate"] == (0.75, "3 of 4 passed; 1 could not be judged")
    assert summary["grounded_pass_rate"] == (0.5, "1 of 2 passed; 2 not applicable; 1 could not be judged")
    score, comment = summary["jev_pass_rate"]
    # The Eiffel and hello runs pass, "2 + 2" fails its check, the Louvre run is not judged.
    assert score == 0.5
    assert comment == "2 of 4 runs passed; 1 failed; 1 could not be judged (ConnectionError: down)"
