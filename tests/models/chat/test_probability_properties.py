"""Properties of the probability maths: softmax over label tokens, renormalisation, answers."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.decisions import Choice, Score

from langchain_jev.models._chat.answers import choice_answer, renormalise, score_answer
from langchain_jev.models._chat.logprobs import label_distribution

LABELS = ["A", "B", "C", "D"]
logprob = st.floats(min_value=-30.0, max_value=0.0, allow_nan=False)
label_token = st.sampled_from(["A", "B", "C", "D", " A", " B", "C ", "\nD"])
other_token = st.sampled_from(["The", "a", "b", " answer", "E", "", " ", "AB"])
alternatives = st.lists(st.tuples(st.one_of(label_token, other_token), logprob), max_size=20)
weights = st.dictionaries(
    st.sampled_from(LABELS), st.floats(min_value=0.0, max_value=1.0, allow_nan=False), min_size=1
).filter(lambda d: math.fsum(d.values()) > 1e-6)


def has_label(pairs: list[tuple[str, float]]) -> bool:
    return any(token.strip() in LABELS for token, _ in pairs)


@given(alternatives)
def test_a_distribution_covers_every_label_and_sums_to_one(pairs: list[tuple[str, float]]) -> None:
    result = label_distribution(pairs, LABELS)

    if not has_label(pairs):
        assert result is None
        return
    assert result is not None
    assert list(result) == LABELS
    assert math.fsum(result.values()) == pytest.approx(1.0)
    assert all(0.0 <= p <= 1.0 for p in result.values())


@given(alternatives, st.floats(min_value=-20.0, max_value=20.0, allow_nan=False))
def test_shifting_every_logprob_by_a_constant_changes_nothing(
    pairs: list[tuple[str, float]], shift: float
) -> None:
    shifted = [(token, lp + shift) for token, lp in pairs]

    before, after = label_distribution(pairs, LABELS), label_distribution(shifted, LABELS)

    if before is None:
        assert after is None
    else:
        assert after == pytest.approx(before, abs=1e-9)


@given(alternatives, st.randoms(use_true_random=False))
def test_the_order_of_the_alternatives_does_not_matter(pairs: list[tuple[str, float]], rng: object) -> None:
    shuffled = list(pairs)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]

    before, after = label_distribution(pairs, LABELS), label_distribution(shuffled, LABELS)

    assert (before is None) == (after is None)
    if before is not None:
        assert after == pytest.approx(before, abs=1e-12)


@given(alternatives, st.lists(st.tuples(other_token, logprob), max_size=10))
def test_tokens_that_are_no_label_do_not_change_the_distribution(
    pairs: list[tuple[str, float]], noise: list[tuple[str, float]]
) -> None:
    assert label_distribution(pairs + noise, LABELS) == label_distribution(pairs, LABELS)


@given(
    st.floats(min_value=0.01, max_value=0.99),
    st.floats(min_value=0.01, max_value=0.99),
    st.floats(min_value=0.01, max_value=1.0),
)
def test_splitting_a_label_into_variants_keeps_its_mass(share: float, mass: float, other: float) -> None:
    whole = label_distribution([("B", math.log(mass)), ("A", math.log(other))], LABELS)
    split = label_distribution(
        [(" B", math.log(mass * share)), ("B", math.log(mass * (1 - share))), ("A", math.log(other))], LABELS
    )

    assert split == pytest.approx(whole)


@given(alternatives)
def test_a_more_likely_label_gets_more_probability(pairs: list[tuple[str, float]]) -> None:
    result = label_distribution(pairs, LABELS)
    if result is None:
        return
    best: dict[str, float] = {}
    for token, lp in pairs:
        label = token.strip()
        if label in LABELS:
            best[label] = math.log(math.exp(best[label]) + math.exp(lp)) if label in best else lp
    ranked = sorted(best, key=lambda label: best[label])
    assert [result[label] for label in ranked] == sorted(result[label] for label in ranked)


@given(weights)
def test_renormalising_sums_to_one_and_keeps_ratios(raw: dict[str, float]) -> None:
    result = renormalise(raw)

    assert math.fsum(result.values()) == pytest.approx(1.0)
    total = math.fsum(raw.values())
    for key, value in raw.items():
        assert result[key] == pytest.approx(value / total)


def test_renormalising_refuses_weights_that_sum_to_zero_or_are_negative() -> None:
    with pytest.raises(ValueError, match="sum to zero"):
        renormalise({"a": 0.0})
    with pytest.raises(ValueError, match="'a' must be a finite number >= 0"):
        renormalise({"a": -0.1, "b": 0.5})


@given(weights)
def test_a_choice_picks_its_most_probable_label_with_that_confidence(raw: dict[str, float]) -> None:
    question = Choice(instructions="Which?", criteria=dict.fromkeys(LABELS))

    answer = choice_answer(question, raw)

    assert answer.probabilities[answer.choice] == max(answer.probabilities.values())
    assert answer.confidence == pytest.approx(answer.probabilities[answer.choice])
    assert math.fsum(answer.probabilities.values()) == pytest.approx(1.0)


@given(weights)
def test_a_score_is_the_expected_level_within_the_rubric(raw: dict[str, float]) -> None:
    question = Score(instructions="How?", criteria=LABELS)
    levels = {LABELS.index(label): p for label, p in raw.items()}

    answer = score_answer(question, levels)

    total = math.fsum(levels.values())
    assert answer.score == pytest.approx(math.fsum(level * p / total for level, p in levels.items()))
    assert 0.0 <= answer.score <= len(LABELS) - 1
    assert answer.confidence == pytest.approx(max(answer.probabilities.values()))
