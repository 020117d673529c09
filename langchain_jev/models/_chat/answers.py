"""Typed answers from probability distributions: pure functions shared by every strategy."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import TypeVar

from langchain_core.decisions import Choice, ChoiceAnswer, NoulAnswer, Score, ScoreAnswer

__all__ = ["choice_answer", "noul_answer", "renormalise", "score_answer"]

_K = TypeVar("_K", bound=Hashable)


def renormalise(probabilities: Mapping[_K, float]) -> dict[_K, float]:
    """Scale non-negative weights so they sum to 1, keeping their order.

    Raises:
        ValueError: a weight is negative or not finite, or they sum to zero.

    Example:
        >>> renormalise({"a": 0.375, "b": 0.125})
        {'a': 0.75, 'b': 0.25}

    """
    for key, value in probabilities.items():
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"the weight of {key!r} must be a finite number >= 0, got {value!r}")
    total = math.fsum(probabilities.values())
    if total <= 0:
        raise ValueError("the probabilities sum to zero")
    return {key: value / total for key, value in probabilities.items()}


def noul_answer(probability: float) -> NoulAnswer:
    """A noul answer: the probability of yes, clamped into [0, 1] against rounding.

    Example:
        >>> noul_answer(0.93).noul
        0.93

    """
    return NoulAnswer(type="noul", noul=min(1.0, max(0.0, probability)))


def choice_answer(question: Choice, probabilities: Mapping[str, float]) -> ChoiceAnswer:
    """A choice answer from a distribution over labels (renormalised; absent labels get 0).

    The chosen label is the most probable one (the first in option order on a tie),
    and the confidence is its probability.

    Example:
        >>> mode = Choice(instructions="How?", criteria={"answered": None, "asked": None})
        >>> answer = choice_answer(mode, {"answered": 0.125, "asked": 0.375})
        >>> answer.choice, answer.probabilities
        ('asked', {'answered': 0.25, 'asked': 0.75})

    """
    labels = list(question.criteria)
    full = renormalise({label: float(probabilities.get(label, 0.0)) for label in labels})
    chosen = max(labels, key=lambda label: full[label])
    return ChoiceAnswer(type="choice", choice=chosen, probabilities=full, confidence=min(1.0, full[chosen]))


def score_answer(question: Score, probabilities: Mapping[int, float]) -> ScoreAnswer:
    """A score answer from a distribution over levels (renormalised; absent levels get 0).

    The score is the expected level; the confidence is the probability of the
    most probable level.

    Example:
        >>> rubric = Score(instructions="How helpful?", criteria=["No", "Somewhat", "Very"])
        >>> answer = score_answer(rubric, {1: 0.5, 2: 0.5})
        >>> answer.score, answer.confidence
        (1.5, 0.5)

    """
    levels = range(len(question.criteria))
    full = renormalise({level: float(probabilities.get(level, 0.0)) for level in levels})
    expected = math.fsum(level * p for level, p in full.items())
    return ScoreAnswer(
        type="score",
        score=min(float(len(question.criteria) - 1), max(0.0, expected)),
        legend=dict(enumerate(question.criteria)),
        probabilities=full,
        confidence=min(1.0, max(full.values())),
    )
