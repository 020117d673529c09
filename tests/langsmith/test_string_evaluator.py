"""The judge behind LangChain's StringEvaluator, and the classic extra kept optional."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings
from typing import Any

import pytest
from langchain_core.decisions import Noul
from langchain_core.runnables import RunnableConfig, RunnableLambda

from langchain_jev import JevCriterion, JevInputError, JevJudge
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import RunRecorder
from tests.langsmith.helpers import CLASSIC_FEEDBACK

StringEvaluator = pytest.importorskip("langchain_classic.evaluation").StringEvaluator
from langchain_jev.evaluation import JevStringEvaluator  # noqa: E402

CORRECT = Noul(instructions="Does `assistant_answer` agree with `expected_output`?")
ON_TOPIC = Noul(instructions="Does `assistant_answer` address `user_question`?")


def judge(correct: float = 0.95, on_topic: float = 0.9) -> JevJudge:
    return JevJudge(
        [
            JevCriterion.noul("correct", CORRECT, 0.7),
            JevCriterion.noul("on_topic", ON_TOPIC, 0.7),
            JevCriterion.check(
                "short", lambda d: len(d.answer or "") <= 20, "the answer is longer than 20 characters"
            ),
        ],
        model=ScriptedDecisionModel({"correct": correct, "on_topic": on_topic}),
    )


def test_it_is_a_string_evaluator_that_passes() -> None:
    evaluator = JevStringEvaluator(judge())
    assert isinstance(evaluator, StringEvaluator)
    result = evaluator.evaluate_strings(prediction="Paris", input="Capital of France?", reference="Paris")

    assert (result["score"], result["value"]) == (1, "PASSED")
    assert result["reasoning"] == "passed=true [correct=PASSED, on_topic=PASSED, short=PASSED]"
    assert [(f["name"], f["outcome"]) for f in result["metadata"]["findings"]] == [
        ("correct", "PASSED"),
        ("on_topic", "PASSED"),
        ("short", "PASSED"),
    ]
    (request,) = evaluator.judge.model.requests  # type: ignore[attr-defined]
    assert request["state"] == {
        "user_question": "Capital of France?",
        "assistant_answer": "Paris",
        "expected_output": "Paris",
    }


def test_a_failure_gives_zero_and_the_feedback_as_reasoning() -> None:
    evaluator = JevStringEvaluator(judge(correct=0.1))
    result = evaluator.evaluate_strings(prediction="Lyon, in the south-east", reference="Paris")

    assert (result["score"], result["value"]) == (0, "FAILED")
    assert result["reasoning"].splitlines() == [
        'correct: not met: "Does `assistant_answer` agree with `expected_output`?" (yes at 0.10, needs 0.70)',
        "short: the answer is longer than 20 characters",
    ]
    assert {f["name"]: f["outcome"] for f in result["metadata"]["findings"]} == {
        "correct": "FAILED",
        "on_topic": "PASSED",
        "short": "FAILED",
    }


async def test_aevaluate_strings_awaits_the_judge() -> None:
    model = ScriptedDecisionModel({"correct": 0.2, "on_topic": 0.9}, delay=0.01)
    evaluator = JevStringEvaluator(JevJudge(judge().criteria, model=model))
    result = await evaluator.aevaluate_strings(prediction="Lyon", input="Capital?", reference="Paris")
    assert (result["score"], result["value"]) == (0, "FAILED")
    assert model.calls == 1


def test_required_arguments_are_enforced_and_given_ones_are_used_without_warnings() -> None:
    evaluator = JevStringEvaluator(judge(), requires_input=True, requires_reference=True)
    assert evaluator.requires_input and evaluator.requires_reference
    with pytest.raises(ValueError, match="requires_input=True: pass input="):
        evaluator.evaluate_strings(prediction="Paris", reference="Paris")
    with pytest.raises(ValueError, match="requires_reference=True: pass reference="):
        evaluator.evaluate_strings(prediction="Paris", input="Capital?")

    relaxed = JevStringEvaluator(judge())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        relaxed.evaluate_strings(prediction="Paris", input="Capital?", reference="Paris")


def test_bad_arguments_are_named() -> None:
    evaluator = JevStringEvaluator(judge())
    with pytest.raises(JevInputError, match="prediction must be a string, got int"):
        evaluator.evaluate_strings(prediction=42)  # type: ignore[arg-type]
    with pytest.raises(JevInputError, match="input must be a string, got dict"):
        evaluator.evaluate_strings(prediction="x", input={"q": 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"unexpected argument\(s\) \['temperature'\]"):
        evaluator.evaluate_strings(prediction="x", temperature=0)
    with pytest.raises(Exception, match="needs a JevJudge"):
        JevStringEvaluator("judge")  # type: ignore[arg-type]


def test_a_model_that_fails_raises_instead_of_scoring() -> None:
    failing = JevJudge(
        judge().criteria, model=ScriptedDecisionModel({"correct": ConnectionError("down"), "on_topic": 1.0})
    )
    with pytest.raises(ConnectionError, match="down"):
        JevStringEvaluator(failing).evaluate_strings(prediction="Paris")


def test_callbacks_passed_in_nest_the_judge_run_under_the_caller() -> None:
    collector = RunRecorder()
    evaluator = JevStringEvaluator(judge())

    def caller(prediction: str, config: RunnableConfig) -> dict[str, Any]:
        # A runnable hands its children its callback manager, as LangChain's own evaluators do.
        return evaluator.evaluate_strings(
            prediction=prediction, callbacks=config["callbacks"], include_run_info=True
        )

    result = RunnableLambda(caller).invoke("Paris", {"callbacks": [collector], "run_name": "grade"})

    (root,) = collector.roots
    assert root.name == "grade"
    (judge_run,) = root.child_runs
    assert judge_run.name == "JevJudge"
    assert [child.run_type for child in judge_run.child_runs] == ["llm"]
    assert result["source_run_id"] == judge_run.id


async def test_async_callbacks_nest_too_with_tags_and_metadata() -> None:
    collector = RunRecorder()
    evaluator = JevStringEvaluator(judge())

    async def caller(prediction: str, config: RunnableConfig) -> dict[str, Any]:
        return await evaluator.aevaluate_strings(
            prediction=prediction, callbacks=config["callbacks"], tags=["eval"], metadata={"suite": "smoke"}
        )

    await RunnableLambda(caller).ainvoke("Paris", {"callbacks": [collector], "run_name": "grade"})
    (root,) = collector.roots
    (judge_run,) = root.child_runs
    assert judge_run.name == "JevJudge"
    assert "eval" in judge_run.tags
    assert judge_run.extra["metadata"]["suite"] == "smoke"


def test_its_feedback_key_is_the_overall_one() -> None:
    assert JevStringEvaluator(judge()).evaluation_name == "jev_pass"


BLOCK_CLASSIC = textwrap.dedent(
    """
    import importlib.abc, sys

    class BlockClassic(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "langchain_classic" or name.startswith("langchain_classic."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, BlockClassic())
    """
)


def run_without_classic(body: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCK_CLASSIC + textwrap.dedent(body)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_without_langchain_classic_the_package_works_and_the_evaluator_names_the_extra() -> None:
    result = run_without_classic(
        """
        import uuid
        from langchain_core.decisions import Noul
        import langchain_jev
        from langchain_jev import JevCriterion, JevJudge
        from langchain_jev.langsmith import JevRunEvaluator, jev_summary_evaluator
        from langchain_jev import judge_input_from_run
        from langchain_jev.testing import ScriptedDecisionModel
        from langsmith.run_trees import RunTree

        judge = JevJudge([JevCriterion.noul("ok", Noul(instructions="ok?"), 0.5)],
                         model=ScriptedDecisionModel({"ok": 0.9}))
        run = RunTree(name="t", run_type="chain", inputs={"question": "q"})
        run.end(outputs={"answer": "a"})
        print(JevRunEvaluator(judge).evaluate_run(run)["results"][-1].score)
        for name in langchain_jev.__all__:
            if name != "JevStringEvaluator":  # the one name that needs the extra
                getattr(langchain_jev, name)
        import importlib, pkgutil
        for module in pkgutil.walk_packages(langchain_jev.__path__, "langchain_jev."):
            if module.name != "langchain_jev.evaluation":
                try:
                    importlib.import_module(module.name)
                except ModuleNotFoundError as error:
                    assert not (error.name or "").startswith("langchain_classic"), module.name
                except Exception:
                    pass  # other optional extras are not this test's concern
        assert not any(m.startswith("langchain_classic") for m in sys.modules), "classic was imported"
        try:
            import langchain_jev.evaluation
        except ImportError as error:
            print("ImportError:", error)
        """
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "1.0"
    assert lines[1].startswith("ImportError: langchain_jev.evaluation needs langchain-classic")
    assert 'pip install -e ".[classic]"' in lines[1]


def test_the_block_really_hides_langchain_classic() -> None:
    result = run_without_classic("import langchain_classic.evaluation")
    assert result.returncode != 0
    assert "No module named 'langchain_classic" in result.stderr


# ---------------------------------------------------------------------- LangChain's classic runner


def classic_examples() -> list[Any]:
    import uuid

    from langsmith.schemas import Example

    return [
        Example(
            id=uuid.UUID(int=200 + i),
            dataset_id=uuid.UUID(int=7),
            inputs={"question": question},
            outputs={"answer": reference},
        )
        for i, (question, reference) in enumerate([("Capital of France?", "Paris"), ("Capital of Peru?", "Lima")])
    ]


def classic_chain() -> Any:
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate

    from tests.fakes import ReplyingChatModel

    answers = {"Capital of France?": "Paris", "Capital of Peru?": "Lyon, in the south-east"}

    def reply(messages: list[Any]) -> str:
        return answers[messages[-1].content]

    return (
        ChatPromptTemplate.from_messages([("human", "{question}")])
        | ReplyingChatModel(replies=[reply] * 4)
        | StrOutputParser()
    )


def check_classic_results(evaluator: JevStringEvaluator, results: Any, feedback: list[dict[str, Any]]) -> None:
    by_question = {row["input"]["question"]: row["feedback"] for row in results["results"].values()}
    (france,) = by_question["Capital of France?"]
    (peru,) = by_question["Capital of Peru?"]
    assert (france.key, france.score, france.value) == ("jev_pass", 1, "PASSED")
    assert france.comment == "passed=true [correct=PASSED, on_topic=PASSED, short=PASSED]"
    assert (peru.key, peru.score, peru.value) == ("jev_pass", 0, "FAILED")
    assert peru.comment.splitlines() == [
        'correct: not met: "Does `assistant_answer` agree with `expected_output`?" (yes at 0.10, needs 0.70)',
        "short: the answer is longer than 20 characters",
    ]
    assert sorted((f["key"], f["score"]) for f in feedback) == [("jev_pass", 0), ("jev_pass", 1)]
    # The judge got the question and the reference, though requires_input is False.
    states = {r["state"]["user_question"]: r["state"] for r in evaluator.judge.model.requests}  # type: ignore[attr-defined]
    assert states["Capital of France?"]["expected_output"] == "Paris"
    assert states["Capital of Peru?"] == {
        "user_question": "Capital of Peru?",
        "assistant_answer": "Lyon, in the south-east",
        "expected_output": "Lima",
    }


def scripted_correctness(state: dict[str, Any], question: Any) -> float:
    return 0.95 if state["assistant_answer"] == state.get("expected_output") else 0.1


def runner_evaluator() -> JevStringEvaluator:
    model = ScriptedDecisionModel({"correct": scripted_correctness, "on_topic": 0.9})
    return JevStringEvaluator(JevJudge(judge().criteria, model=model))


@CLASSIC_FEEDBACK
def test_run_on_dataset_scores_with_the_question_the_reference_and_the_reasoning(capsys: Any) -> None:
    from langchain_classic.smith import RunEvalConfig, run_on_dataset

    from tests.langsmith.helpers import LocalDatasetClient

    client = LocalDatasetClient(classic_examples())
    evaluator = runner_evaluator()

    results = run_on_dataset(
        client, "capitals", classic_chain(), evaluation=RunEvalConfig(custom_evaluators=[evaluator])
    )

    check_classic_results(evaluator, results, client.feedback)


@CLASSIC_FEEDBACK
async def test_arun_on_dataset_scores_too(capsys: Any) -> None:
    from langchain_classic.smith import RunEvalConfig, arun_on_dataset

    from tests.langsmith.helpers import LocalDatasetClient

    client = LocalDatasetClient(classic_examples())
    evaluator = runner_evaluator()

    results = await arun_on_dataset(
        client, "capitals", classic_chain(), evaluation=RunEvalConfig(custom_evaluators=[evaluator])
    )

    check_classic_results(evaluator, results, client.feedback)


def test_every_key_of_a_result_but_reasoning_is_a_langsmith_result_field() -> None:
    # LangChain's StringRunEvaluatorChain builds EvaluationResult(key=..., comment=reasoning, **result);
    # with langsmith 0.15 that refuses any key it does not know, `reasoning` included (upstream).
    from langsmith.evaluation.evaluator import EvaluationResult

    evaluator = JevStringEvaluator(judge(correct=0.1))
    result = evaluator.evaluate_strings(prediction="Paris", reference="Paris", include_run_info=True)

    fields = {k: v for k, v in result.items() if k != "reasoning"}
    made = EvaluationResult(key="jev_pass", comment=result["reasoning"], **fields)
    assert (made.score, made.value, made.source_run_id) == (0, "FAILED", result["source_run_id"])
    assert made.metadata is not None and made.metadata["findings"][0]["name"] == "correct"


def test_as_a_run_evaluator_a_required_reference_must_be_in_the_example() -> None:
    from langsmith.run_trees import RunTree

    run = RunTree(name="bot", run_type="chain", inputs={"question": "Capital?"})
    run.end(outputs={"answer": "Paris"})
    with pytest.raises(JevInputError, match=r"requires_reference=True, and run 'bot' \(with its example\) has no reference"):
        JevStringEvaluator(judge(), requires_reference=True).evaluate_run(run)
    result = JevStringEvaluator(judge()).evaluate_run(run)
    assert (result.key, result.score) == ("jev_pass", 1)


@pytest.mark.filterwarnings("ignore:'upload_runs' parameter is in beta")
def test_langsmith_evaluate_takes_it_as_a_run_evaluator() -> None:
    from langsmith import evaluate

    from tests.langsmith.helpers import offline_client

    evaluator = runner_evaluator()
    rows = list(
        evaluate(
            lambda inputs: {"answer": "Paris"},
            data=classic_examples()[:1],
            evaluators=[evaluator],
            client=offline_client(),
            upload_results=False,
        )
    )

    (result,) = rows[0]["evaluation_results"]["results"]
    assert (result.key, result.score, result.value) == ("jev_pass", 1, "PASSED")
    assert result.comment == "passed=true [correct=PASSED, on_topic=PASSED, short=PASSED]"
