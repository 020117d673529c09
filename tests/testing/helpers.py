"""Shared pieces of the cache, assertion and plugin tests."""

from __future__ import annotations

from typing import Any

from langchain_core.decisions import Choice, Noul, Score

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
