"""A verdict as LangSmith results, and the run evaluator called directly."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langchain_core.decisions import Choice, Noul, Score
from langchain_core.tracers.context import collect_runs
from langsmith.run_trees import RunTree

from langchain_jev import JevConfigurationError, JevCriterion, JevInputError, JevJudge, JevJudgeInput
from langchain_jev.langsmith import OVERALL_KEY, PASS_FAIL_FEEDBACK, JevRunEvaluator, verdict_results
from langchain_jev.testing import ScriptedDecisionModel
from tests.langsmith.helpers import criteria, scripted_judge

MODE = Choice(instructions="How?", criteria={"answered": None, "asked": None, "refused": None})
LEVELS = Score(instructions="How good?", criteria=["bad", "fair", "good", "great"])


def run_with(outputs: dict[str, Any], inputs: dict[str, Any] | None = None) -> RunTree:
    run = RunTree(name="target", run_type="chain", inputs=inputs or {"question": "Where is the Louvre?"})
    run.end(outputs=outputs)
    return run


def every_outcome_judge(**script: Any) -> JevJudge:
    """A judge whose findings land on each outcome, per the script."""
    return JevJudge(
        [
            JevCriterion.noul("grounded", Noul(instructions="Grounded?"), 0.7),
            JevCriterion.choice("mode", MODE, ["answered"]),
            JevCriterion.score("quality", LEVELS, 2),
            JevCriterion.noul("details", Noul(instructions="Detailed?"), 0.5).when_chosen("mode", "answered"),
            JevCriterion.noul("lost", Noul(instructions="Lost?"), 0.5),
            JevCriterion.check("short", lambda d: len(d.answer or "") < 40, "the answer is too long"),
        ],
        model=ScriptedDecisionModel(
            {
                "grounded": 0.93,
                "mode": {"answered": 0.5, "asked": 0.3, "refused": 0.2},
                "quality": 1.2,
                "details": 0.9,
                "lost": {"type": "noul", "noul": 7},
                **script,
            },
            reasoning={"grounded": "The context names Paris."},
        ),
    )


def test_one_result_per_criterion_in_order_then_the_overall_one() -> None:
    verdict = every_outcome_judge().judge("Where is the Louvre?", "In Paris.")
    results = verdict_results(verdict, source_run_id="4f0c2f58-1b7e-4d7a-9a32-000000000001")["results"]

    table = {r.key: (r.score, r.value) for r in results}
    assert list(table) == ["grounded", "mode", "quality", "details", "lost", "short", OVERALL_KEY]
    assert table == {
        "grounded": (1.0, "PASSED (0.93)"),
        "mode": (None, "INCONCLUSIVE (answered)"),  # only 0.5 of the probability supports the pass
        "quality": (0.0, "FAILED (1.20)"),
        "details": (None, "NOT_APPLICABLE"),  # its choice was undecided
        "lost": (None, "ERROR"),  # an answer that could not be read
        "short": (1.0, "PASSED"),
        OVERALL_KEY: (0.0, "FAILED"),
    }
    for result in results:
        assert result.feedback_config == PASS_FAIL_FEEDBACK
        assert str(result.source_run_id) == "4f0c2f58-1b7e-4d7a-9a32-000000000001"
    by_key = {r.key: r for r in results}
    assert by_key["grounded"].comment == (
        verdict.finding("grounded").detail + "\nReasoning: The context names Paris."
    )
    assert by_key["quality"].comment == verdict.finding("quality").detail
    assert by_key[OVERALL_KEY].comment == verdict.feedback
    assert "quality" in verdict.feedback


def test_a_passing_verdict_comments_its_summary_since_there_is_no_feedback() -> None:
    verdict = every_outcome_judge(mode="answered", quality=3.0, lost=0.9).judge("Q?", "In Paris.")
    assert verdict.passed and verdict.feedback == ""
    overall = verdict_results(verdict)["results"][-1]
    assert (overall.key, overall.score, overall.value) == (OVERALL_KEY, 1.0, "PASSED")
    assert overall.comment == verdict.summary()


def test_fail_on_error_turns_an_unreadable_answer_into_a_zero() -> None:
    judge = every_outcome_judge(mode="answered", quality=3.0).model_copy(update={"fail_on_error": True})
    results = {r.key: r for r in verdict_results(judge.judge("Q?", "In Paris."))["results"]}
    assert (results["lost"].score, results["lost"].value) == (0.0, "FAILED")
    assert results[OVERALL_KEY].score == 0.0


@pytest.mark.parametrize(
    ("prefix", "key"),
    [
        (None, "grounded"),
        ("", "grounded"),
        ("rag", "rag_grounded"),
        ("rag/", "rag/grounded"),
        ("rag.", "rag.grounded"),
    ],
)
def test_key_prefix(prefix: str | None, key: str) -> None:
    evaluator = JevRunEvaluator(scripted_judge(), key_prefix=prefix)
    overall = key.replace("grounded", OVERALL_KEY)
    assert evaluator.feedback_keys == [
        key,
        key.replace("grounded", "helpfulness"),
        key.replace("grounded", "tone"),
        key.replace("grounded", "not_empty"),
        overall,
    ]
    results = evaluator.evaluate_run(run_with({"answer": "In Paris."}))["results"]
    assert [r.key for r in results] == evaluator.feedback_keys


def test_without_the_overall_result() -> None:
    evaluator = JevRunEvaluator(scripted_judge(), include_overall=False)
    assert OVERALL_KEY not in evaluator.feedback_keys
    assert [r.key for r in evaluator.evaluate_run(run_with({"answer": "In Paris."}))["results"]] == [
        "grounded",
        "helpfulness",
        "tone",
        "not_empty",
    ]


def test_a_criterion_named_like_the_overall_result_is_refused_unless_the_overall_is_off() -> None:
    judge = JevJudge(
        [JevCriterion.noul(OVERALL_KEY, Noul(instructions="?"), 0.5)], model=ScriptedDecisionModel({})
    )
    with pytest.raises(JevConfigurationError, match="criterion 'jev_pass'"):
        JevRunEvaluator(judge)
    assert JevRunEvaluator(judge, include_overall=False).feedback_keys == [OVERALL_KEY]


def test_bad_options_are_refused() -> None:
    with pytest.raises(JevConfigurationError, match="needs a JevJudge"):
        JevRunEvaluator("judge")  # type: ignore[arg-type]
    with pytest.raises(JevConfigurationError, match="prepare must be callable"):
        JevRunEvaluator(scripted_judge(), prepare="answer")  # type: ignore[arg-type]
    with pytest.raises(JevConfigurationError, match="key_prefix must be a string"):
        JevRunEvaluator(scripted_judge(), key_prefix=3)  # type: ignore[arg-type]


def test_the_evaluator_keeps_its_options() -> None:
    evaluator = JevRunEvaluator(scripted_judge(), key_prefix="rag", include_overall=False)
    assert isinstance(evaluator, JevRunEvaluator)
    assert (evaluator.key_prefix, evaluator.include_overall) == ("rag", False)
    assert "key_prefix='rag'" in repr(evaluator)


def test_the_deprecated_as_evaluator_still_builds_the_evaluator_and_names_its_replacement() -> None:
    judge = scripted_judge()
    replacement = r"JevJudge\.as_evaluator\(\) is deprecated: use JevRunEvaluator\(judge\)"
    with pytest.warns(DeprecationWarning, match=replacement) as caught:
        evaluator = judge.as_evaluator(key_prefix="rag", include_overall=False)
    assert caught[0].filename == __file__  # the warning points at the call, not at the package
    assert isinstance(evaluator, JevRunEvaluator)
    assert evaluator.feedback_keys == JevRunEvaluator(judge, key_prefix="rag", include_overall=False).feedback_keys


def test_the_judge_sees_the_mapped_run_and_example() -> None:
    judge = scripted_judge()
    run = run_with({"answer": "The Louvre is in Lyon.", "context": ["The Louvre is in Paris."]})
    from langsmith.schemas import Example

    example = Example(
        id=uuid.uuid4(), dataset_id=uuid.uuid4(), inputs={"question": "x"}, outputs={"answer": "Paris"}
    )
    results = {r.key: r for r in JevRunEvaluator(judge).evaluate_run(run, example)["results"]}

    (request,) = judge.model.requests  # type: ignore[attr-defined]
    assert request["state"] == {
        "user_question": "Where is the Louvre?",
        "assistant_answer": "The Louvre is in Lyon.",
        "expected_output": "Paris",
        "supporting_context": ["The Louvre is in Paris."],
    }
    assert results["grounded"].score == 0.0


def test_prepare_replaces_the_mapping() -> None:
    seen: list[Any] = []

    def prepare(run: Any, example: Any) -> JevJudgeInput:
        seen.append((run.outputs["result"], example))
        return JevJudgeInput("Custom question?", run.outputs["result"], context=["Paris has the Louvre."])

    judge = scripted_judge()
    evaluator = JevRunEvaluator(judge, prepare=prepare)
    evaluator.evaluate_run(run_with({"result": "Hello!"}))

    assert seen == [("Hello!", None)]
    assert judge.model.requests[0]["state"]["user_question"] == "Custom question?"  # type: ignore[attr-defined]


def test_prepare_may_return_a_state_but_nothing_else() -> None:
    judge = JevJudge(
        [JevCriterion.noul("polite", Noul(instructions="Is `message` polite?"), 0.5)],
        model=ScriptedDecisionModel({"polite": 0.8}),
    )
    state = JevRunEvaluator(judge, prepare=lambda run, example: {"message": run.outputs["answer"]})
    assert state.evaluate_run(run_with({"answer": "Thanks!"}))["results"][0].score == 1.0
    assert judge.model.requests[0]["state"] == {"message": "Thanks!"}  # type: ignore[attr-defined]

    wrong = JevRunEvaluator(judge, prepare=lambda run, example: "Thanks!")
    with pytest.raises(JevInputError, match="must return a JevJudgeInput or a state mapping, got str"):
        wrong.evaluate_run(run_with({"answer": "Thanks!"}))


def test_the_source_run_is_the_judge_s_own_trace() -> None:
    evaluator = JevRunEvaluator(scripted_judge())
    with collect_runs() as collector:
        results = evaluator.evaluate_run(run_with({"answer": "Hello!"}))["results"]
    (judge_run,) = [r for r in collector.traced_runs if r.name == "JevJudge"]
    assert {r.source_run_id for r in results} == {judge_run.id}
    assert [child.run_type for child in judge_run.child_runs] == ["llm"]

    given = uuid.uuid4()
    with collect_runs() as collector:
        results = evaluator.evaluate_run(run_with({"answer": "Hello!"}), evaluator_run_id=given)["results"]
    assert {r.source_run_id for r in results} == {given}
    assert [r.id for r in collector.traced_runs if r.name == "JevJudge"] == [given]


async def test_aevaluate_run_awaits_the_judge_and_links_its_trace() -> None:
    judge = JevJudge(criteria(), model=scripted_judge().model.model_copy(update={"delay": 0.01}))
    with collect_runs() as collector:
        results = (await JevRunEvaluator(judge).aevaluate_run(run_with({"answer": "Hello!"})))["results"]
    (judge_run,) = [r for r in collector.traced_runs if r.name == "JevJudge"]
    assert {r.source_run_id for r in results} == {judge_run.id}
    assert {r.key: r.score for r in results}["helpfulness"] == 1.0


def test_a_judge_that_cannot_reach_its_model_raises_rather_than_scoring() -> None:
    judge = JevJudge(
        criteria(),
        model=ScriptedDecisionModel(
            {"grounded": ConnectionError("model down"), "helpfulness": 3.0, "tone": "neutral"}
        ),
    )
    with pytest.raises(ConnectionError, match="model down"):
        JevRunEvaluator(judge).evaluate_run(run_with({"answer": "x", "context": ["c"]}))
