"""Offline means offline: in LangSmith's local tracing mode the judge's runs are not uploaded."""

from __future__ import annotations

from langchain_core.tracers.context import collect_runs
from langsmith.run_helpers import tracing_context
from langsmith.run_trees import RunTree

from langchain_jev.langsmith import JevRunEvaluator
from tests.langsmith.helpers import (
    langsmith_attempts,
    offline_client,
    scripted_judge,
)


def a_run() -> RunTree:
    run = RunTree(name="target", run_type="chain", inputs={"question": "Say hello."})
    run.end(outputs={"answer": "Hello!"})
    return run


def test_langchain_s_tracer_would_upload_a_judge_run_in_local_mode() -> None:
    with langsmith_attempts() as attempts:
        # What the evaluator guards against: LangSmith's "local" mode, as evaluate(...,
        # upload_results=False) sets it for evaluators, still lets LangChain's tracer upload.
        with tracing_context(enabled="local", client=offline_client(), project_name="evaluators"):
            scripted_judge().judge("Say hello.", "Hello!")
        assert attempts


def test_the_evaluator_keeps_the_judge_run_local() -> None:
    with langsmith_attempts() as attempts:
        evaluator = JevRunEvaluator(scripted_judge())
        with tracing_context(enabled="local", client=offline_client(), project_name="evaluators"):
            results = evaluator.evaluate_run(a_run())
        assert attempts == []
        assert results["results"][-1].score == 1.0


async def test_the_async_evaluator_keeps_the_judge_run_local() -> None:
    with langsmith_attempts() as attempts:
        evaluator = JevRunEvaluator(scripted_judge())
        with tracing_context(enabled="local", client=offline_client(), project_name="evaluators"):
            await evaluator.aevaluate_run(a_run())
        assert attempts == []


def test_in_local_mode_the_judge_run_still_reaches_handlers_in_the_context() -> None:
    evaluator = JevRunEvaluator(scripted_judge())
    with (
        tracing_context(enabled="local", client=offline_client(), project_name="evaluators"),
        collect_runs() as runs,
    ):
        results = evaluator.evaluate_run(a_run())
    (judge_run,) = runs.traced_runs
    assert judge_run.name == "JevJudge"
    assert results["results"][0].source_run_id == judge_run.id
