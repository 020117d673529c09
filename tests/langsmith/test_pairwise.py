"""Two experiments compared head to head with LangSmith's `evaluate_comparative`: one key per
criterion, a score per run, both orders of every criterion asked in ONE request per pair, a
preference that flips with the order reported as undecided, and misuse refused clearly."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langchain_core.decisions import Choice, Noul
from langsmith import evaluate
from langsmith.evaluation import evaluate_comparative
from langsmith.evaluation.evaluator import comparison_evaluator
from langsmith.schemas import Example

from langchain_jev import JevConfigurationError, JevCriterion, JevJudge
from langchain_jev.langsmith import JevRunEvaluator
from langchain_jev.pairwise import PairwiseJudge, comparative_evaluators, pairwise_judge
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import JevWire
from tests.langsmith.helpers import ComparisonClient, langsmith_attempts, offline_client

pytestmark = [
    pytest.mark.filterwarnings("ignore:'upload_runs' parameter is in beta"),
]

# question -> (the answer of experiment A, the answer of experiment B)
ANSWERS = {
    "Capital of France?": ("Paris.", "Lyon, I think."),
    "Capital of Peru?": ("Lima.", "It is Lima."),
    "Capital of Japan?": ("Osaka.", "Tokyo."),
}
REFERENCES = {"Capital of France?": "Paris", "Capital of Peru?": "Lima", "Capital of Japan?": "Tokyo"}
CRITERIA = {
    "correct": "Which answer agrees with `expected_output`?",
    "tone": "Which answer is friendlier?",
    "length": "Which answer is shorter?",
}


def examples() -> list[Example]:
    return [
        Example(id=uuid.UUID(int=300 + i), dataset_id=uuid.UUID(int=7), inputs={"question": q}, outputs={"answer": r})
        for i, (q, r) in enumerate(REFERENCES.items())
    ]


def experiments(client: ComparisonClient) -> tuple[Any, Any]:
    """Two real offline experiments over the same examples, kept by the in-memory client."""
    projects = []
    for side in (0, 1):
        rows = list(
            evaluate(
                lambda inputs, side=side: {"answer": ANSWERS[inputs["question"]][side]},
                data=examples(),
                client=offline_client(),
                upload_results=False,
                max_concurrency=0,
            )
        )
        projects.append(client.record(f"experiment-{'ab'[side]}", rows))
    return projects[0], projects[1]


def order_sensitive(state: dict[str, Any], question: Any) -> str:
    """The scripted model: a consistent view of correctness, a bias for whatever is shown first on tone."""
    reading = "comparison_1" if "`comparison_1`" in question.instructions else "comparison_2"
    pair = state[reading]
    criterion = question.instructions.rsplit("Criterion: ", 1)[1]
    if criterion == CRITERIA["tone"]:
        return "answer_1"  # position bias: the answer shown first, whichever it is
    if criterion == CRITERIA["length"]:
        return "equally_good"
    expected = state["expected_output"]
    first, second = (expected in pair["answer_1"]), (expected in pair["answer_2"])
    return "equally_good" if first == second else ("answer_1" if first else "answer_2")


def scripted() -> ScriptedDecisionModel:
    return ScriptedDecisionModel(
        {f"{name}__{k}": order_sensitive for name in CRITERIA for k in (1, 2)}, model="order-sensitive"
    )


def compare(judge: PairwiseJudge, max_concurrency: int = 0, **options: Any) -> tuple[Any, Any, Any, Any]:
    client = ComparisonClient(examples())
    a, b = experiments(client)
    results = evaluate_comparative(
        (a, b),
        evaluators=comparative_evaluators(judge, **options),
        client=client,
        max_concurrency=max_concurrency,
    )
    return results, client, client.experiments[a.id], client.experiments[b.id]


def by_question(results: Any) -> dict[str, dict[str, Any]]:
    return {row["example"].inputs["question"]: row["evaluation_results"] for row in results}


@pytest.mark.parametrize("max_concurrency", [0, 5])
def test_evaluate_comparative_scores_each_criterion_per_run_with_one_request_per_pair(max_concurrency: int) -> None:
    with langsmith_attempts() as attempts:
        model = scripted()
        results, client, runs_a, runs_b = compare(pairwise_judge(CRITERIA, model=model), max_concurrency)
        table = by_question(results)

    a_of = {r.outputs["answer"]: r.id for r in runs_a}
    b_of = {r.outputs["answer"]: r.id for r in runs_b}
    assert sorted(table) == sorted(ANSWERS)
    for question, (answer_a, answer_b) in ANSWERS.items():
        row = table[question]
        assert sorted(k for k in row if k.startswith("feedback.")) == [f"feedback.{k}" for k in sorted(CRITERIA)]
        scores = {key: row[f"feedback.{key}"].scores for key in CRITERIA}
        a, b = a_of[answer_a], b_of[answer_b]
        winner = {"Capital of France?": a, "Capital of Peru?": None, "Capital of Japan?": b}[question]
        if winner is None:  # both answers agree with the reference: equally good, in both orders
            assert scores["correct"] == {a: 0.5, b: 0.5}
        else:  # the consistent preference wins
            assert scores["correct"] == {winner: 1.0, (b if winner == a else a): 0.0}
        # the preference that flips with the order is no winner
        assert scores["tone"] == {a: None, b: None}
        assert "position bias" in row["feedback.tone"].comment[a]
        assert scores["length"] == {a: 0.5, b: 0.5}
    # one request per pair, whatever the number of criteria: both orders of all three in it
    assert model.calls == len(ANSWERS)
    assert all(len(request["questions"]) == 2 * len(CRITERIA) for request in model.requests)
    # LangSmith recorded a score per run and key
    assert len(client.feedback) == len(ANSWERS) * len(CRITERIA) * 2
    assert attempts == []


@pytest.mark.parametrize("criteria", [1, 2, 5])
def test_the_number_of_requests_is_the_number_of_pairs_whatever_the_number_of_criteria(criteria: int) -> None:
    wire = JevWire(default={"type": "choice", "choice": "answer_1", "probabilities": {}, "confidence": 1.0})
    judge = pairwise_judge({f"c{i}": f"Criterion {i}?" for i in range(criteria)}, model=wire.model())

    compare(judge, max_concurrency=5)

    assert wire.calls == len(ANSWERS)  # HTTP requests through the real SDK: one per pair
    assert {len(body["questions"]) for body in wire.bodies} == {2 * criteria}


def test_the_comparison_sees_both_answers_in_both_orders_and_the_shared_input() -> None:
    model = scripted()
    compare(pairwise_judge(CRITERIA, model=model))
    state = next(r["state"] for r in model.requests if r["state"]["user_question"] == "Capital of France?")
    assert state["expected_output"] == "Paris"
    assert "assistant_answer" not in state
    pair = {state["comparison_1"]["answer_1"], state["comparison_1"]["answer_2"]}
    assert pair == {"Paris.", "Lyon, I think."}
    assert state["comparison_2"] == {
        "answer_1": state["comparison_1"]["answer_2"],
        "answer_2": state["comparison_1"]["answer_1"],
    }


def test_a_judge_s_questions_compare_through_judge_pairwise_with_a_key_prefix() -> None:
    judge = JevJudge(
        [
            JevCriterion.check("short", lambda d: len(d.answer or "") < 40, "too long"),
            JevCriterion.noul("correct", Noul(instructions="Does `assistant_answer` agree with `expected_output`?"), 0.7),
        ],
        model=ScriptedDecisionModel({"correct__1": "answer_2", "correct__2": "answer_1"}),
    )
    results, _, _, runs_b = compare(pairwise_judge(judge), key_prefix="vs")
    for row in by_question(results).values():
        assert [k for k in row if k.startswith("feedback.")] == ["feedback.vs_correct"]
        result = row["feedback.vs_correct"]
        b = next(run.id for run in runs_b if run.id in result.scores)
        assert result.scores[b] == 1.0  # B preferred in both orders


def test_a_model_that_cannot_be_reached_raises_out_of_the_comparison() -> None:
    wire = JevWire(status=401)
    with pytest.raises(Exception, match="401"):
        compare(pairwise_judge(CRITERIA, model=wire.model()))
    assert wire.calls == 1  # the first pair's one request; the comparison stops there, nothing passes


def test_a_single_run_judge_as_a_comparative_evaluator_is_refused_with_what_to_use() -> None:
    judge = JevJudge(
        [JevCriterion.choice("tone", Choice(instructions="Tone?", criteria={"warm": None, "cold": None}), ["warm"])],
        model=ScriptedDecisionModel({"tone": "warm"}),
    )
    comparator = comparison_evaluator(JevRunEvaluator(judge))  # what the issue reported as a TypeError
    with pytest.raises(JevConfigurationError, match=r"evaluators=comparative_evaluators\(pairwise_judge\(judge\)\)"):
        comparator.compare_runs([], None)
    with pytest.raises(JevConfigurationError, match="judges one run at a time"):
        compare_with(JevRunEvaluator(judge))
    with pytest.raises(JevConfigurationError, match=r"evaluators=comparative_evaluators\(judge\)"):
        compare_with(pairwise_judge(judge))
    assert judge.model.calls == 0  # type: ignore[attr-defined]


def compare_with(evaluator: Any) -> Any:
    client = ComparisonClient(examples())
    return evaluate_comparative(experiments(client), evaluators=[evaluator], client=client, max_concurrency=0)


def test_on_a_smithdb_deployment_the_runs_are_read_by_query_v2_and_each_score_names_its_experiment() -> None:
    # langsmith 0.15: runs.query_v2 replaces list_runs (ids only unless asked, a day's window unless given),
    # and feedback on a run takes its session, without which this deployment refuses it.
    results, client, _, _ = compare(pairwise_judge(CRITERIA, model=scripted()))
    assert len(by_question(results)) == len(ANSWERS)
    projects = {str(project) for project in client.experiments}
    assert sorted(p for query in client.queries for p in query["project_ids"]) == sorted(projects)
    assert all(query["is_root"] and "min_start_time" in query for query in client.queries)
    assert all({"ID", "OUTPUTS", "PROJECT_ID"} <= set(query["selects"]) for query in client.queries)
    experiment_of = {str(run.id): str(project) for project, runs in client.experiments.items() for run in runs}
    assert len(client.feedback) == len(ANSWERS) * len(CRITERIA) * 2
    assert all(feedback["session_id"] == experiment_of[feedback["run_id"]] for feedback in client.feedback)


def test_feedback_on_a_run_without_its_session_is_refused_by_the_fake_deployment() -> None:
    # The fake is a SmithDB-only deployment, as LangSmith's client reads it: what lacks a session fails.
    with pytest.raises(ValueError, match="session_id must be provided"):
        ComparisonClient(examples()).create_feedback(run_id=uuid.uuid4(), key="correct", score=1.0)
