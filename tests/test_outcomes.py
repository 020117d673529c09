"""Deciding each finding: the pure functions, by example and by property."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from langchain_core.decisions import ChoiceAnswer, NoulAnswer, ScoreAnswer

from langchain_jev import JevCriterion, Outcome
from langchain_jev._outcomes import decide, decision_fields, support_share
from tests.support.rubrics import HELPFULNESS_LEVELS, helpfulness, mode, plausible

CHOICE = JevCriterion.choice("mode", mode().question, ["answered"])  # type: ignore[arg-type]


def score_answer(probabilities: dict[int, float], value: float | None = None) -> ScoreAnswer:
    total = sum(probabilities.values()) or 1.0
    expected = sum(k * p for k, p in probabilities.items()) / total
    return ScoreAnswer.model_construct(
        type="score",
        score=expected if value is None else value,
        legend=dict(enumerate(HELPFULNESS_LEVELS)),
        probabilities=probabilities,
        confidence=0.5,
    )


def choice_answer(label: str, probabilities: dict[str, float]) -> ChoiceAnswer:
    return ChoiceAnswer.model_construct(type="choice", choice=label, probabilities=probabilities, confidence=0.5)


def test_the_specification_distribution_passes_with_093_support() -> None:
    decision = decide(helpfulness(2), score_answer({0: 0.00, 1: 0.07, 2: 0.52, 3: 0.41}), 0.6)
    assert decision.outcome is Outcome.PASSED
    assert decision.confidence == pytest.approx(0.93)


def test_a_noul_passes_at_its_minimum_and_is_never_inconclusive() -> None:
    assert decide(plausible(0.7), NoulAnswer(type="noul", noul=0.7), 0.99).outcome is Outcome.PASSED
    assert decide(plausible(0.7), NoulAnswer(type="noul", noul=0.69), 0.99).outcome is Outcome.FAILED
    assert decide(plausible(0.5), NoulAnswer(type="noul", noul=0.5), 1.0).outcome is Outcome.PASSED


def test_a_choice_passes_on_accepted_probability_even_when_another_label_is_likeliest() -> None:
    accepted = JevCriterion.choice("c", mode().question, ["answered"])  # type: ignore[arg-type]
    answer = choice_answer("clarification_needed", {"answered": 0.0, "clarification_needed": 1.0})
    assert decide(accepted, answer, 0.6).outcome is Outcome.FAILED
    split = choice_answer("clarification_needed", {"answered": 0.7, "clarification_needed": 0.3})
    decision = decide(accepted, split, 0.6)
    assert decision.outcome is Outcome.PASSED and decision.confidence == pytest.approx(0.7)


def test_below_min_confidence_is_inconclusive_on_either_side() -> None:
    leaning_pass = score_answer({1: 0.45, 2: 0.55})
    leaning_fail = score_answer({1: 0.55, 2: 0.45})
    assert decide(helpfulness(2), leaning_pass, 0.6).outcome is Outcome.INCONCLUSIVE
    assert decide(helpfulness(2), leaning_fail, 0.6).outcome is Outcome.INCONCLUSIVE
    assert decide(helpfulness(2), leaning_pass, 0.5).outcome is Outcome.PASSED
    assert decide(helpfulness(2), leaning_fail, 0.5).outcome is Outcome.FAILED


def test_without_probabilities_the_value_or_the_label_decides() -> None:
    assert decide(helpfulness(2), score_answer({}, 2.0), 0.99).outcome is Outcome.PASSED
    assert decide(helpfulness(2), score_answer({}, 1.99), 0.99).outcome is Outcome.FAILED
    assert decide(CHOICE, choice_answer("answered", {}), 0.99).outcome is Outcome.PASSED
    assert decide(CHOICE, choice_answer("clarification_needed", {}), 0.99).outcome is Outcome.FAILED


@pytest.mark.parametrize(
    ("criterion", "answer", "reason"),
    [
        (plausible(), None, "the model returned no answer for this question"),
        (plausible(), choice_answer("answered", {}), "expected a noul answer, got 'choice'"),
        (plausible(), NoulAnswer.model_construct(type="noul", noul=math.nan), "noul must be a finite number, got nan"),
        (plausible(), NoulAnswer.model_construct(type="noul", noul=-0.2), "noul must not be negative, got -0.2"),
        (plausible(), NoulAnswer.model_construct(type="noul", noul=1.7), "noul must be between 0 and 1, got 1.7"),
        (CHOICE, choice_answer("elsewhere", {}), 'chose "elsewhere", which is not an option of the choice'),
        (CHOICE, choice_answer("answered", {"answered": math.nan}), "the probability of 'answered' must be a finite number, got nan"),
        (CHOICE, choice_answer("answered", {"answered": 0.0, "clarification_needed": 0.0}), "probabilities sum to zero"),
        (CHOICE, choice_answer("answered", {"maybe": 1.0}), "probabilities name 'maybe', which is not a label of the question"),
        (helpfulness(), score_answer({0: -0.5, 2: 1.5}), "the probability of 0 must not be negative, got -0.5"),
        (helpfulness(), score_answer({7: 1.0}, 2.0), "probabilities name 7, which is not a level of the question"),
        (helpfulness(), score_answer({}, math.inf), "score must be a finite number, got inf"),
        (helpfulness(), score_answer({}, 5.0), "score 5.0 is outside the rubric's levels 0 to 3"),
    ],
)
def test_an_unusable_answer_is_an_error_that_says_why(criterion: JevCriterion, answer: object, reason: str) -> None:
    decision = decide(criterion, answer, 0.6)
    assert decision.outcome is Outcome.ERROR
    assert decision.text == f"{criterion.name}: could not be judged: {reason}"


def test_a_reported_problem_is_an_error_with_its_reason() -> None:
    decision = decide(plausible(), None, 0.6, "answers.is_plausible.noul: Input should be <= 1")
    assert decision.text == "is_plausible: could not be judged: answers.is_plausible.noul: Input should be <= 1"


# ---------------------------------------------------------------- properties

levels = st.dictionaries(st.integers(0, 3), st.floats(0, 1), min_size=1)
minimums = st.floats(0, 3)
confidences = st.floats(0, 1)


@given(levels, minimums, confidences)
def test_score_outcome_follows_the_share_of_probability(probs: dict[int, float], minimum: float, min_conf: float) -> None:
    assume(sum(probs.values()) > 1e-6)
    decision = decide(helpfulness(minimum), score_answer(probs), min_conf)
    support = support_share(probs, {k for k in probs if k >= minimum - 1e-9})
    side = max(support, 1 - support)
    if side < min_conf - 1e-6:
        assert decision.outcome is Outcome.INCONCLUSIVE
    elif side > min_conf + 1e-6 and abs(support - 0.5) > 1e-6:
        assert decision.outcome is (Outcome.PASSED if support > 0.5 else Outcome.FAILED)
        assert decision.confidence == pytest.approx(side)


@given(levels, minimums, confidences, st.floats(0.01, 100))
def test_score_outcome_ignores_the_scale_of_the_probabilities(
    probs: dict[int, float], minimum: float, min_conf: float, scale: float
) -> None:
    assume(sum(probs.values()) > 1e-3)
    scaled = {k: v * scale for k, v in probs.items()}
    plain = decide(helpfulness(minimum), score_answer(probs), min_conf)
    other = decide(helpfulness(minimum), score_answer(scaled), min_conf)
    support = support_share(probs, {k for k in probs if k >= minimum - 1e-9})
    assume(abs(support - 0.5) > 1e-6 and abs(max(support, 1 - support) - min_conf) > 1e-6)
    assert plain.outcome is other.outcome


@given(st.floats(0, 1), st.floats(0, 1), confidences)
def test_a_noul_is_decided_by_its_minimum_alone(p: float, minimum: float, min_conf: float) -> None:
    decision = decide(plausible(minimum), NoulAnswer(type="noul", noul=p), min_conf)
    assert decision.outcome is (Outcome.PASSED if p >= minimum - 1e-9 else Outcome.FAILED)


@given(st.floats(0, 1), st.floats(0, 1), confidences)
def test_choice_outcome_is_never_passed_with_less_than_half_on_accepted(a: float, b: float, min_conf: float) -> None:
    assume(a + b > 1e-6)
    decision = decide(CHOICE, choice_answer("answered", {"answered": a, "clarification_needed": b}), min_conf)
    share = a / (a + b)
    if decision.outcome is Outcome.PASSED:
        assert share >= 0.5 - 1e-9 and share >= min_conf - 1e-9
    if decision.outcome is Outcome.FAILED:
        assert share < 0.5 and 1 - share >= min_conf - 1e-9


nouls = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-2, 2),
    st.booleans(),
    st.just(1.0 + 1e-10),
)


@given(nouls, st.floats(0, 1), confidences, st.sampled_from([None, "answers.x: unreadable"]))
def test_the_verdicts_quick_noul_decision_is_decides(
    p: float, minimum: float, min_conf: float, problem: str | None
) -> None:
    """`decision_fields`, which a verdict's loop calls, decides every noul answer as `decide` does."""
    answer = NoulAnswer.model_construct(type="noul", noul=p)
    quick = decision_fields(plausible(minimum), answer, min_conf, problem)
    full = decide(plausible(minimum), answer, min_conf, problem)
    assert (quick[0], quick[2]) == (full.outcome, full.confidence)
    assert (quick[1] if isinstance(quick[1], str) else quick[1]()) == full.text


@given(levels, minimums, confidences)
def test_the_verdicts_quick_decision_of_other_answers_is_decides(
    probs: dict[int, float], minimum: float, min_conf: float
) -> None:
    for criterion, answer in (
        (helpfulness(minimum), score_answer(probs)),
        (CHOICE, choice_answer("answered", {"answered": probs.get(0, 0.0), "clarification_needed": 0.5})),
        (plausible(), score_answer(probs)),
        (helpfulness(minimum), None),
    ):
        quick, full = decision_fields(criterion, answer, min_conf), decide(criterion, answer, min_conf)
        assert (quick[0], quick[2]) == (full.outcome, full.confidence)
        assert (quick[1] if isinstance(quick[1], str) else quick[1]()) == full.text
