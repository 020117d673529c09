"""Answers that come back wrong, through the real SDK over MockTransport and the loopback server.

A response that reaches the judge but carries a bad answer costs that one
criterion: its finding is ERROR with the reason, the others are decided as usual,
and ``fail_on_error=True`` turns the ERROR into a blocking failure. Probabilities
that do not sum to one are renormalised, and the decision follows the shares.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Any

import pytest

from langchain_jev import Outcome
from tests.support.faults import Rig, Step, body_with, decide, judge_over, rig_named

pytestmark = pytest.mark.slow  # a fault matrix: `-m 'not slow'` leaves it out

NAN = math.nan


@pytest.fixture(params=["mock", "server"])
async def rig(request: pytest.FixtureRequest) -> AsyncIterator[Rig]:
    async with rig_named(request.param) as made:
        yield made


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def noul(value: Any) -> dict[str, Any]:
    return {"type": "noul", "noul": value}


def choice(label: Any, probabilities: Any, confidence: Any = 0.9) -> dict[str, Any]:
    return {"type": "choice", "choice": label, "probabilities": probabilities, "confidence": confidence}


def score(value: Any, probabilities: Any, confidence: Any = 0.9) -> dict[str, Any]:
    return {
        "type": "score",
        "score": value,
        "legend": {},
        "probabilities": probabilities,
        "confidence": confidence,
    }


BAD_ANSWERS: dict[str, tuple[str, Any, str]] = {
    # noul
    "noul missing": ("is_safe", None, "the model returned no answer for this question"),
    "noul answered as a choice": (
        "is_safe",
        choice("calm", {"calm": 1.0}),
        "expected a noul answer, got 'choice'",
    ),
    "noul of an unknown answer type": (
        "is_safe",
        {"type": "verdict", "value": 1},
        "no answer for this question",
    ),
    "noul not an object": ("is_safe", [0.9], "answers.is_safe"),
    "noul as a string": (
        "is_safe",
        noul("high"),
        'answers.is_safe.noul: must be a JSON number, got "high"',
    ),
    "noul as a numeric string": (
        "is_safe",
        noul("0.9"),
        'answers.is_safe.noul: must be a JSON number, got "0.9"',
    ),
    "noul as true": ("is_safe", noul(True), "answers.is_safe.noul: must be a JSON number, got true"),
    "noul as false": ("is_safe", noul(False), "answers.is_safe.noul: must be a JSON number, got false"),
    "noul NaN": (
        "is_safe",
        noul(NAN),
        "answers.is_safe.noul: Input should be less than or equal to 1, got nan",
    ),
    "noul negative": (
        "is_safe",
        noul(-0.2),
        "answers.is_safe.noul: Input should be greater than or equal to 0, got -0.2",
    ),
    "noul above one": (
        "is_safe",
        noul(1.3),
        "answers.is_safe.noul: Input should be less than or equal to 1, got 1.3",
    ),
    # choice
    "choice missing": ("tone", None, "the model returned no answer for this question"),
    "choice answered as a score": ("tone", score(2.0, {"2": 1.0}), "expected a choice answer, got 'score'"),
    "choice outside the options": (
        "tone",
        choice("sarcastic", {"sarcastic": 1.0}),
        'chose "sarcastic", which is not an option',
    ),
    "choice probability NaN": (
        "tone",
        choice("calm", {"calm": NAN, "angry": 0.1}),
        "the probability of 'calm' must be a finite number",
    ),
    "choice confidence NaN": (
        "tone",
        choice("calm", {"calm": 0.9, "angry": 0.1}, NAN),
        "answers.tone.confidence: Input should be less than or equal to 1, got nan",
    ),
    "choice probability negative": (
        "tone",
        choice("calm", {"calm": 1.2, "angry": -0.2}),
        "the probability of 'angry' must not be negative",
    ),
    "choice probabilities all zero": (
        "tone",
        choice("calm", {"calm": 0.0, "angry": 0.0}),
        "probabilities sum to zero",
    ),
    "choice probabilities of a stranger": (
        "tone",
        choice("calm", {"calm": 0.9, "sarcastic": 0.1}),
        "probabilities name 'sarcastic'",
    ),
    "choice probabilities not an object": ("tone", choice("calm", [0.9, 0.1]), "answers.tone.probabilities"),
    "choice probabilities that overflow": (
        "tone",
        choice("calm", {"calm": 1e308, "angry": 1e308}),
        "probabilities overflow",
    ),
    "choice probability as a string": (
        "tone",
        choice("calm", {"calm": "0.9", "angry": 0.1}),
        'answers.tone.probabilities.calm: must be a JSON number, got "0.9"',
    ),
    "choice label as a number": (
        "tone",
        choice(1, {"calm": 1.0}),
        "answers.tone.choice: must be a JSON string, got 1",
    ),
    "choice of a label its probabilities give nothing": (
        "tone",
        choice("calm", {"calm": 0.0, "angry": 1.0}),
        'chose "calm", which its own probabilities give no weight',
    ),
    # score
    "score missing": ("helpfulness", None, "the model returned no answer for this question"),
    "score NaN": ("helpfulness", score(NAN, {"2": 1.0}), "score must be a finite number, got nan"),
    "score negative": (
        "helpfulness",
        score(-1.0, {"0": 1.0}),
        "score -1.0 is outside the rubric's levels 0 to 3",
    ),
    "score past the rubric": (
        "helpfulness",
        score(7.0, {"3": 1.0}),
        "score 7.0 is outside the rubric's levels 0 to 3",
    ),
    "score level outside the rubric": (
        "helpfulness",
        score(2.0, {"2": 0.5, "7": 0.5}),
        "probabilities name 7",
    ),
    "score probability negative": (
        "helpfulness",
        score(2.0, {"2": 1.2, "3": -0.2}),
        "the probability of 3 must not be negative",
    ),
    "score level keys that name one level twice": (
        "helpfulness",
        score(3.0, {"03": 0.5, "3": 0.5}),
        "level key '03' is not a level number written canonically",
    ),
    "score level key with a fraction": (
        "helpfulness",
        score(3.0, {"3.0": 1.0}),
        "level key '3.0' is not a level number written canonically",
    ),
    "score as true": (
        "helpfulness",
        score(True, {"1": 1.0}),
        "answers.helpfulness.score: must be a JSON number, got true",
    ),
    "score as a string": (
        "helpfulness",
        score("3", {"3": 1.0}),
        'answers.helpfulness.score: must be a JSON number, got "3"',
    ),
    "score contradicting its probabilities": (
        "helpfulness",
        score(0.0, {"3": 1.0}),
        "score 0.00 contradicts its own probabilities, whose expected level is 3.00",
    ),
    "score probabilities that overflow": (
        "helpfulness",
        score(3.0, {"2": 1e308, "3": 1e308}),
        "probabilities overflow",
    ),
    "score confidence as a string": (
        "helpfulness",
        score(3.0, {"3": 1.0}, "0.9"),
        'answers.helpfulness.confidence: must be a JSON number, got "0.9"',
    ),
    "score confidence above one": (
        "helpfulness",
        score(2.0, {"2": 1.0}, 1.5),
        "answers.helpfulness.confidence: Input should be less than or equal to 1, got 1.5",
    ),
}


@pytest.mark.parametrize(("name", "answer", "reason"), BAD_ANSWERS.values(), ids=BAD_ANSWERS.keys())
async def test_a_bad_answer_is_that_findings_error_and_the_rest_are_decided(
    rig: Rig, mode: str, name: str, answer: Any, reason: str
) -> None:
    judge = judge_over(rig.model([Step(body=body_with({name: answer}))]))
    verdict = await decide(judge, mode)
    finding = verdict.finding(name)
    assert finding.outcome is Outcome.ERROR
    assert finding.detail.startswith(f"{name}: could not be judged: ") and reason in finding.detail
    others = [f for f in verdict.findings if f.name != name]
    assert [f.outcome for f in others] == [Outcome.PASSED, Outcome.PASSED]
    assert verdict.errors() == [finding] and verdict.passed
    assert rig.attempts == 1


@pytest.mark.parametrize("name", ["is_safe", "tone", "helpfulness"])
async def test_fail_on_error_makes_a_bad_answer_block_the_verdict(rig: Rig, mode: str, name: str) -> None:
    judge = judge_over(
        rig.model([Step(body=body_with({name: noul(NAN) if name != "is_safe" else None}))]),
        fail_on_error=True,
    )
    verdict = await decide(judge, mode)
    assert not verdict.passed
    assert [f.name for f in verdict.failures()] == [name]
    assert verdict.finding(name).decided is Outcome.ERROR
    assert name in verdict.feedback


UNNORMALISED: dict[str, tuple[str, Any, Outcome, float]] = {
    "choice summing to 4, mostly accepted": (
        "tone",
        choice("calm", {"calm": 3.0, "angry": 1.0}),
        Outcome.PASSED,
        0.75,
    ),
    "choice summing to 0.4, mostly rejected": (
        "tone",
        choice("angry", {"calm": 0.1, "angry": 0.3}),
        Outcome.FAILED,
        0.75,
    ),
    "choice split evenly at 0.4": (
        "tone",
        choice("calm", {"calm": 0.2, "angry": 0.2}),
        Outcome.INCONCLUSIVE,
        0.5,
    ),
    "choice with one label only": ("tone", choice("calm", {"calm": 0.3}), Outcome.PASSED, 1.0),
    "score summing to 2, passing": (
        "helpfulness",
        score(2.3, {"0": 0.2, "2": 1.0, "3": 0.8}),
        Outcome.PASSED,
        0.9,
    ),
    "score summing to 2, failing": (
        "helpfulness",
        score(0.7, {"0": 1.2, "1": 0.6, "3": 0.2}),
        Outcome.FAILED,
        0.9,
    ),
    "score summing to 0.5, undecided": (
        "helpfulness",
        score(1.5, {"0": 0.15, "1": 0.125, "2": 0.225}),
        Outcome.INCONCLUSIVE,
        0.55,
    ),
}


@pytest.mark.parametrize(
    ("name", "answer", "outcome", "confidence"), UNNORMALISED.values(), ids=UNNORMALISED.keys()
)
async def test_probabilities_not_summing_to_one_are_renormalised_and_decide(
    rig: Rig, mode: str, name: str, answer: Any, outcome: Outcome, confidence: float
) -> None:
    verdict = await decide(judge_over(rig.model([Step(body=body_with({name: answer}))])), mode)
    finding = verdict.finding(name)
    assert finding.outcome is outcome
    assert finding.confidence == pytest.approx(confidence)
    assert verdict.passed is (outcome is not Outcome.FAILED)


async def test_answers_for_other_question_names_leave_every_finding_in_error(rig: Rig, mode: str) -> None:
    strangers = {
        "answers": {"is_unsafe": noul(0.1), "Tone": choice("calm", {"calm": 1.0}), "helpfulness ": noul(0.9)}
    }
    body = {**body_with({}), **strangers}
    verdict = await decide(judge_over(rig.model([Step(body=body)] * 2)), mode)
    assert [f.outcome for f in verdict.findings] == [Outcome.ERROR] * 3
    assert all("no answer for this question" in f.detail for f in verdict.findings)
    strict = await decide(judge_over(rig.model([Step(body=body)]), fail_on_error=True), mode)
    assert not strict.passed and [f.name for f in strict.failures()] == ["is_safe", "tone", "helpfulness"]


async def test_stray_answers_beside_ours_are_ignored(rig: Rig, mode: str) -> None:
    body = body_with({"unasked": noul(0.0), "also_unasked": choice("x", {"x": 1.0})})
    verdict = await decide(judge_over(rig.model([Step(body=body)])), mode)
    assert verdict.summary() == "passed=true [is_safe=PASSED, tone=PASSED, helpfulness=PASSED]"
