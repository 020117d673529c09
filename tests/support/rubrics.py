"""The specification's example criteria, shared by the engine tests."""

from __future__ import annotations

from langchain_core.decisions import Choice, Noul, Score

from langchain_jev import JevCriterion

HELPFULNESS_LEVELS = [
    "Terrible: irrelevant or off-topic",
    "Mostly unhelpful: misses the main point",
    "Mostly helpful: minor gaps remain",
    "Excellent: fully and correctly addressed",
]
HELPFULNESS = Score(
    instructions="How well does `assistant_answer` address `user_question`?",
    criteria=HELPFULNESS_LEVELS,
)
PLAUSIBLE = Noul(
    instructions="Are the numeric values in `assistant_answer` physically plausible?",
    criteria={"false": "At least one value is impossible"},
)
MODE = Choice(
    instructions="How does `assistant_answer` respond to `user_question`?",
    criteria={"answered": "Gives the weather", "clarification_needed": "Asks which place is meant"},
)
DETAILS = Noul(instructions="Does `assistant_answer` say when the rain starts and stops?")
GROUNDED = Noul(instructions="Is every claim in `assistant_answer` supported by `supporting_context`?")
RELEVANT = Noul(instructions="Is `assistant_answer` relevant to `user_question`?")


def helpfulness(minimum: float = 2.0) -> JevCriterion:
    return JevCriterion.score("helpfulness", HELPFULNESS, minimum)


def plausible(minimum: float = 0.7) -> JevCriterion:
    return JevCriterion.noul("is_plausible", PLAUSIBLE, minimum)


def mode() -> JevCriterion:
    return JevCriterion.choice("mode", MODE, ["answered", "clarification_needed"])


def details() -> JevCriterion:
    return JevCriterion.noul("has_details", DETAILS, 0.7).when_chosen("mode", "answered")
