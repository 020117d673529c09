"""A judge that nobody listens to skips its run bookkeeping; nothing else may change.

The quick path (no callback handler: the model is called without its Runnable
run) must give the very verdict, response and token counts that the traced path
gives, and the traced path must keep its runs, names and usage.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.decisions import BaseDecisionModel, Choice, Noul, Score
from langchain_core.globals import set_debug
from langchain_core.runnables.config import ensure_config, get_callback_manager_for_config
from langchain_core.tracers.context import collect_runs, tracing_v2_enabled
from langsmith import Client
from langsmith import utils as ls_utils
from langsmith.run_helpers import tracing_context

from langchain_jev import JevCriterion, JevJudge, JevJudgeInput
from langchain_jev._judge import _direct, _silent
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import JevWire, RunRecorder, choice, noul, score

LEVELS = ["Useless", "Weak", "Good", "Excellent"]


def _criteria() -> list[JevCriterion]:
    mode = JevCriterion.choice(
        "mode",
        Choice(instructions="What does `assistant_answer` do?", criteria={"answered": None, "refused": None}),
        ["answered"],
    )
    return [
        JevCriterion.check("short", lambda data: len(data.answer or "") < 200, "too long"),
        JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7),
        JevCriterion.noul("grounded", Noul(instructions="Is it grounded?"), 0.7),
        JevCriterion.score("helpful", Score(instructions="How helpful?", criteria=LEVELS), 2),
        mode,
        JevCriterion.noul("detailed", Noul(instructions="Is it detailed?"), 0.5).when_chosen("mode", "answered"),
    ]


def _wire() -> JevWire:
    return JevWire(
        {
            "polite": noul(0.91),
            "grounded": noul(0.2),
            "helpful": score({1: 0.3, 2: 0.7}, LEVELS),
            "mode": choice("answered", {"answered": 0.8, "refused": 0.2}),
            "detailed": {"type": "noul", "noul": "0.9"},  # a string: unreadable
        }
    )


DATA = JevJudgeInput("How do I reset my password?", "Open Settings, then Security.")


def _shape(verdict: Any) -> Any:
    response = verdict.response
    return (
        verdict.passed,
        verdict.feedback,
        [(f.name, f.outcome, f.detail, f.confidence, f.answer, f.reasoning, f.decided) for f in verdict.findings],
        response.model,
        response.answers,
        response.unreadable,
        response.usage,
        response.request_id,
    )


def test_the_verdict_is_the_same_with_and_without_a_tracer() -> None:
    quiet_wire, traced_wire = _wire(), _wire()
    quiet = JevJudge(_criteria(), model=quiet_wire.model("sync")).invoke(DATA)
    recorder = RunRecorder()
    traced = JevJudge(_criteria(), model=traced_wire.model("sync")).invoke(DATA, {"callbacks": [recorder]})
    assert _shape(quiet) == _shape(traced)
    assert quiet.response.usage["total_tokens"] == traced.response.usage["total_tokens"] > 0
    assert quiet_wire.bodies == traced_wire.bodies
    assert quiet.finding("detailed").outcome.value == "ERROR"


async def test_the_async_verdict_is_the_same_with_and_without_a_tracer() -> None:
    quiet_wire, traced_wire = _wire(), _wire()
    quiet = await JevJudge(_criteria(), model=quiet_wire.model("async")).ainvoke(DATA)
    recorder = RunRecorder()
    judge = JevJudge(_criteria(), model=traced_wire.model("async"))
    traced = await judge.ainvoke(DATA, {"callbacks": [recorder]})
    assert _shape(quiet) == _shape(traced)
    assert quiet_wire.bodies == traced_wire.bodies


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_traced_judge_keeps_its_runs_and_token_counts(mode: str) -> None:
    wire = _wire()
    judge = JevJudge(_criteria(), model=wire.model(mode))
    recorder = RunRecorder()
    config: Any = {"callbacks": [recorder], "run_name": "support-judge"}
    verdict = judge.invoke(DATA, config) if mode == "sync" else await judge.ainvoke(DATA, config)
    (root,) = recorder.roots
    assert root.name == "support-judge" and root.run_type == "chain"
    (llm,) = root.child_runs
    assert llm.run_type == "llm" and llm.name == "JevDecisionModel"
    assert llm.extra["metadata"]["ls_provider"] == "typesafe"
    assert llm.outputs is not None
    traced = llm.outputs["output"]
    assert traced.usage == verdict.response.usage and traced.usage["input_tokens"] == 120
    assert traced.answers == verdict.response.answers and traced.unreadable == verdict.response.unreadable


def test_a_model_that_overrides_invoke_is_still_invoked_without_a_tracer() -> None:
    class Counting(ScriptedDecisionModel):
        invoked: int = 0

        def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            self.invoked += 1
            return super().invoke(input, config, **kwargs)

    model = Counting({"polite": 0.9})
    judge = JevJudge([JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.5)], model=model)
    assert judge.judge("Hi", "Hello!").passed
    assert model.invoked == 1
    assert _direct(model) is None


def test_jev_is_called_directly_only_when_the_shared_cache_does_not_answer_for_it() -> None:
    wire = JevWire({"polite": noul(0.9)})
    assert _direct(wire.model("sync")) is not None
    assert _direct(ScriptedDecisionModel({"polite": 0.9})) is not None

    class Subclass(type(wire.model("sync"))):  # type: ignore[misc]
        def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            return super().invoke(input, config, **kwargs)

    assert _direct(Subclass(client=wire.model("sync").client)) is None
    assert isinstance(wire.model("sync"), BaseDecisionModel)


def _has_handlers(config: Any) -> bool:
    return bool(get_callback_manager_for_config(config).handlers)


def test_silent_agrees_with_the_callback_manager(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING", "LANGSMITH_TRACING_V2"):
        monkeypatch.delenv(name, raising=False)
    plain = ensure_config(None)
    assert _silent(plain) and not _has_handlers(plain)

    with_handler = ensure_config({"callbacks": [RunRecorder()]})
    assert not _silent(with_handler) and _has_handlers(with_handler)

    with collect_runs():
        config = ensure_config(None)
        assert not _silent(config) and _has_handlers(config)

    offline = Client(api_key="fake", api_url="http://127.0.0.1:9", auto_batch_tracing=False)
    with tracing_v2_enabled(client=offline, project_name="offline"):
        config = ensure_config(None)
        assert not _silent(config) and _has_handlers(config)

    with tracing_context(enabled=True):
        config = ensure_config(None)
        assert not _silent(config)

    set_debug(True)
    try:
        config = ensure_config(None)
        assert not _silent(config) and _has_handlers(config)
    finally:
        set_debug(False)

    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_API_KEY", "lsv2-fake")
    ls_utils.get_env_var.cache_clear()  # LangSmith reads its environment once
    try:
        assert not _silent(ensure_config(None))  # the manager would make a LangSmith tracer
    finally:
        monkeypatch.undo()
        ls_utils.get_env_var.cache_clear()
    assert _silent(ensure_config(None))


def test_a_judge_whose_criteria_are_replaced_asks_the_new_questions() -> None:
    wire = JevWire({"polite": noul(0.9), "brief": noul(0.2)})
    judge = JevJudge([JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.5)], model=wire.model("sync"))
    assert judge.invoke(DATA).passed
    judge.criteria = (JevCriterion.noul("brief", Noul(instructions="Brief?"), 0.5),)
    assert not judge.invoke(DATA).passed
    assert list(wire.bodies[-1]["questions"]) == ["brief"]
