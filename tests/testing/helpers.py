"""Shared pieces of the cache, assertion and plugin tests."""

from __future__ import annotations

from typing import Any

from langchain_core.decisions import Choice, Noul, Score
from langchain_core.tracers.base import BaseTracer
from langchain_core.tracers.schemas import Run

from langchain_jev import JevCriterion, JevJudge

POLITE = Noul(instructions="Is `assistant_answer` polite?")
HELPFUL = Score(
    instructions="How well does `assistant_answer` address `user_question`?",
    criteria=["Terrible", "Mostly unhelpful", "Mostly helpful", "Excellent"],
)
MODE = Choice(
    instructions="What does `assistant_answer` do?",
    criteria={"answered": "It answers the question.", "refused": "It declines to answer."},
)


def judge_on(model: Any) -> JevJudge:
    """A three-question judge (noul, score, choice) on the given decision model."""
    return JevJudge(
        [
            JevCriterion.noul("polite", POLITE, 0.7),
            JevCriterion.score("helpful", HELPFUL, 2),
            JevCriterion.choice("mode", MODE, accepted=["answered"]),
        ],
        model=model,
    )


GOOD = {"polite": 0.93, "helpful": {2: 0.3, 3: 0.7}, "mode": "answered"}
"""A script under which `judge_on` passes."""


class RunLog(BaseTracer):
    """A tracer that keeps every finished run, flattened."""

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[Run] = []

    def _persist_run(self, run: Run) -> None:
        pending = [run]
        while pending:
            current = pending.pop()
            self.runs.append(current)
            pending.extend(current.child_runs)

    def of_type(self, run_type: str) -> list[Run]:
        return [run for run in self.runs if run.run_type == run_type]
