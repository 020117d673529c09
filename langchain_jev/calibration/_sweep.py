"""Threshold sweeps: how a criterion agrees with people at every threshold it could have.

Each point decides the stored answers with the judge's own deciding code
(`langchain_jev._outcomes.decide`) at one threshold: a noul's minimum
probability (0.00 to 1.00 by 0.01), a score's minimum level (each level of its
rubric), or, for choices and scores together, the judge's ``min_confidence``
(0.50 to 1.00 by 0.05). A row passes when its finding does not block the
verdict, exactly as the verdict counts it (FAILED blocks; INCONCLUSIVE and
ERROR block only under ``fail_on_inconclusive`` / ``fail_on_error``).

`choose` picks a point for an objective: the highest kappa (the default) or
accuracy, or the lowest false-fail rate with a false-pass rate at most a bound
(or the other way round). Ties go to the threshold nearest the current one.
`ranking` is that order of agreement, so a suggestion can be checked against what
it would replace.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.decisions import ChoiceAnswer, NoulAnswer, ScoreAnswer

from langchain_jev._criteria import JevCriterion
from langchain_jev._outcomes import _EPSILON, decide, review_panel, support_share
from langchain_jev._verdict import Outcome
from langchain_jev.calibration._metrics import Confusion, confusion_figures

if TYPE_CHECKING:
    from langchain_jev.models._response import JuryPanel

__all__ = [
    "MIN_CONFIDENCE_GRID",
    "NOUL_GRID",
    "Objective",
    "SweepPoint",
    "blocks",
    "choose",
    "pass_probability",
    "no_worse",
    "predictions",
    "ranking",
    "sweep",
    "thresholds_of",
    "with_threshold",
]

NOUL_GRID: tuple[float, ...] = tuple(i / 100 for i in range(101))
"""The minimum probabilities a noul is swept over."""
MIN_CONFIDENCE_GRID: tuple[float, ...] = tuple(0.5 + i / 20 for i in range(11))
"""The ``min_confidence`` values scores and choices are swept over."""


@dataclass(frozen=True)
class Objective:
    """What a suggested threshold should do best.

    ``target`` ("kappa" or "accuracy") is maximised, unless a bound is given:
    ``max_false_pass`` keeps the false-pass rate at most that and then fails the
    fewest rows people pass; ``max_false_fail`` the other way round.

    Example:
        >>> Objective().describe(), Objective(max_false_pass=0.05).describe()
        ('highest kappa', 'false-pass rate at most 0.05, then fewest false fails')

    """

    target: str = "kappa"
    max_false_pass: float | None = None
    max_false_fail: float | None = None

    def __post_init__(self) -> None:
        if self.target not in ("kappa", "accuracy"):
            raise ValueError(f"target must be 'kappa' or 'accuracy', got {self.target!r}")
        if self.max_false_pass is not None and self.max_false_fail is not None:
            raise ValueError("give max_false_pass or max_false_fail, not both")
        for bound in (self.max_false_pass, self.max_false_fail):
            if bound is not None and not 0.0 <= bound <= 1.0:
                raise ValueError(f"a false-pass or false-fail bound must be between 0 and 1, got {bound!r}")

    def describe(self) -> str:
        """The objective in words."""
        if self.max_false_pass is not None:
            return f"false-pass rate at most {self.max_false_pass:g}, then fewest false fails"
        if self.max_false_fail is not None:
            return f"false-fail rate at most {self.max_false_fail:g}, then fewest false passes"
        return f"highest {self.target}"

    def to_dict(self) -> dict[str, Any]:
        """The objective as plain data."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class SweepPoint:
    """Agreement with people at one threshold.

    Example:
        >>> SweepPoint(0.5, Confusion(4, 1, 1, 4)).to_dict()["accuracy"]
        0.8

    """

    threshold: float
    confusion: Confusion

    def to_dict(self) -> dict[str, Any]:
        """The point with its figures, as plain data."""
        return {"threshold": self.threshold, **confusion_figures(self.confusion)}


def pass_probability(criterion: JevCriterion, answer: Any) -> float:
    """The judge's probability that ``criterion`` passes, from its answer.

    A noul's probability of yes; the share of a score's probability on levels at or
    above its minimum; the share of a choice's probability on accepted labels. Without
    a distribution, 1.0 or 0.0 as the score's value or the chosen label decides.

    Example:
        >>> from langchain_core.decisions import Score, ScoreAnswer
        >>> c = JevCriterion.score("helpful", Score(instructions="?", criteria=["0", "1", "2"]), 1)
        >>> a = ScoreAnswer(type="score", score=1.2, legend={}, probabilities={0: 0.2, 1: 0.4, 2: 0.4},
        ...     confidence=0.4)
        >>> round(pass_probability(c, a), 2)
        0.8

    """
    minimum = criterion.minimum or 0.0
    if isinstance(answer, NoulAnswer):
        return float(answer.noul)
    if isinstance(answer, ScoreAnswer):
        if answer.probabilities:
            return support_share(
                answer.probabilities, {lvl for lvl in answer.probabilities if lvl >= minimum - 1e-9}
            )
        return 1.0 if answer.score >= minimum - 1e-9 else 0.0
    if isinstance(answer, ChoiceAnswer):
        if answer.probabilities:
            return support_share(answer.probabilities, set(criterion.accepted))
        return 1.0 if answer.choice in criterion.accepted else 0.0
    raise ValueError(f"criterion {criterion.name!r}: no answer to take a probability from")


def blocks(outcome: Outcome, fail_on_inconclusive: bool, fail_on_error: bool) -> bool:
    """True when a finding of this outcome blocks the verdict under the failure policy."""
    return (
        outcome is Outcome.FAILED
        or (outcome is Outcome.INCONCLUSIVE and fail_on_inconclusive)
        or (outcome is Outcome.ERROR and fail_on_error)
    )


def with_threshold(criterion: JevCriterion, minimum: float) -> JevCriterion:
    """The criterion with another minimum (a noul's probability or a score's level)."""
    return dataclasses.replace(criterion, minimum=float(minimum))


def predictions(
    criterion: JevCriterion,
    answers: Sequence[Any],
    min_confidence: float,
    fail_on_inconclusive: bool = False,
    fail_on_error: bool = False,
    *,
    panels: Sequence[JuryPanel | None] | None = None,
) -> list[bool]:
    """Whether ``criterion`` passes each answer (does not block the verdict), as the judge decides it.

    ``panels`` (aligned with ``answers``) are the juries that gave them: each answer is
    then decided by every member too, as the judge decided it (a vote counts the
    members' own passes; a split beyond the jury's bound is INCONCLUSIVE).
    """
    if panels is None:
        return [
            not blocks(decide(criterion, answer, min_confidence).outcome, fail_on_inconclusive, fail_on_error)
            for answer in answers
        ]
    result = []
    for answer, panel in zip(answers, panels, strict=True):
        decision = decide(criterion, answer, min_confidence)
        if panel is not None:
            decision = review_panel(
                criterion,
                decision,
                panel.answers_to(criterion.name),
                vote=panel.combine == "vote",
                disagreement=panel.disagreement,
            )
        result.append(not blocks(decision.outcome, fail_on_inconclusive, fail_on_error))
    return result


def thresholds_of(criterion: JevCriterion) -> tuple[str, tuple[float, ...]]:
    """What a criterion's sweep varies (``minimum`` or ``min_confidence``) and over which values."""
    if criterion.kind == "noul":
        return "minimum", NOUL_GRID
    if criterion.kind == "score":
        levels = tuple(float(level) for level in range(len(criterion.levels)))
        current = criterion.minimum or 0.0
        return "minimum", tuple(sorted({*levels, current}))
    return "min_confidence", MIN_CONFIDENCE_GRID


def sweep(
    criterion: JevCriterion,
    answers: Sequence[Any],
    labels: Sequence[bool],
    min_confidence: float,
    fail_on_inconclusive: bool = False,
    fail_on_error: bool = False,
    *,
    panels: Sequence[JuryPanel | None] | None = None,
) -> list[SweepPoint]:
    """Agreement with ``labels`` at every threshold `thresholds_of` gives the criterion.

    ``panels`` are the juries that gave the answers, as for `predictions`.
    """
    what, grid = thresholds_of(criterion)
    points = []
    if panels is not None and not any(p is not None for p in panels):
        panels = None
    if criterion.kind == "noul" and len(answers) > len(grid) and panels is None:
        # a noul passes at noul >= minimum and is never undecided: decide each answer once, at 0,
        # for its readability, then compare probabilities with each minimum
        floor = with_threshold(criterion, 0.0)
        outcomes = [decide(floor, answer, min_confidence).outcome for answer in answers]
        unreadable = not blocks(Outcome.ERROR, fail_on_inconclusive, fail_on_error)
        values = [
            float(answer.noul) if outcome is Outcome.PASSED else None
            for answer, outcome in zip(answers, outcomes, strict=True)
        ]
        for value in grid:
            predicted = [unreadable if p is None else p >= value - _EPSILON for p in values]
            points.append(SweepPoint(value, Confusion.of(predicted, labels)))
        return points
    for value in grid:
        if what == "minimum":
            varied, confidence = with_threshold(criterion, value), min_confidence
        else:
            varied, confidence = criterion, value
        predicted = predictions(
            varied, answers, confidence, fail_on_inconclusive, fail_on_error, panels=panels
        )
        points.append(SweepPoint(value, Confusion.of(predicted, labels)))
    return points


def choose(points: Sequence[SweepPoint], objective: Objective, current: float) -> SweepPoint | None:
    """The point that best meets ``objective`` (ties: nearest ``current``); None when none meets its bound.

    Points are ranked by `ranking`, the one order of agreement that choosing and checking a
    suggestion share.

    Example:
        >>> points = [SweepPoint(t, c) for t, c in [(0.3, Confusion(5, 5, 0, 0)),
        ...     (0.5, Confusion(5, 1, 0, 4)), (0.7, Confusion(3, 0, 2, 5))]]
        >>> choose(points, Objective(), 0.5).threshold
        0.5
        >>> choose(points, Objective(max_false_pass=0.0), 0.5).threshold
        0.7

    """
    feasible = [p for p in points if _feasible(p.confusion, objective)]
    if not feasible:
        return None
    return max(
        feasible, key=lambda p: (*ranking(p.confusion, objective), -abs(p.threshold - current), -p.threshold)
    )


def ranking(confusion: Confusion, objective: Objective) -> tuple[float, ...]:
    """How well ``confusion`` meets ``objective``, as a tuple that sorts better agreement higher.

    Under a bound, meeting it comes first, then the fewest errors of the other kind,
    then kappa; otherwise the target (kappa or accuracy), then the other. An undefined
    kappa ranks below every kappa (see `no_worse` for labels of one class).

    Example:
        >>> good, poor = Confusion(4, 1, 0, 5), Confusion(5, 3, 0, 2)
        >>> ranking(good, Objective()) > ranking(poor, Objective())
        True
        >>> ranking(poor, Objective(max_false_fail=0.0)) > ranking(good, Objective(max_false_fail=0.0))
        False

    """
    kappa = -math.inf if confusion.kappa is None else confusion.kappa
    accuracy = confusion.accuracy or 0.0
    if objective.max_false_pass is not None:
        key: tuple[float, ...] = (_feasible(confusion, objective), -(confusion.false_fail_rate or 0.0), kappa)
    elif objective.max_false_fail is not None:
        key = (_feasible(confusion, objective), -(confusion.false_pass_rate or 0.0), kappa)
    elif objective.target == "accuracy":
        key = (accuracy, kappa)
    else:
        key = (kappa, accuracy)
    return _rounded(key)


def no_worse(before: Confusion, after: Confusion, objective: Objective) -> bool:
    """True when ``after`` agrees with people at least as well as ``before`` under ``objective``.

    Kappa cannot rank agreement when the labels are of one class (it is 0 or undefined
    at every threshold): then, and whenever kappa is undefined on either side, accuracy
    decides for the kappa objective.

    Example:
        >>> perfect, half = Confusion(10, 0, 0, 0), Confusion(5, 0, 5, 0)  # every label a pass
        >>> perfect.kappa, half.kappa
        (None, 0.0)
        >>> no_worse(perfect, half, Objective()), no_worse(half, perfect, Objective())
        (False, True)

    """
    one_class = before.kappa is None or after.kappa is None
    unbounded = objective.max_false_pass is None and objective.max_false_fail is None
    if one_class and unbounded and objective.target == "kappa":
        return round(after.accuracy or 0.0, 12) >= round(before.accuracy or 0.0, 12)
    return ranking(after, objective) >= ranking(before, objective)


def _feasible(confusion: Confusion, objective: Objective) -> bool:
    if objective.max_false_pass is not None:
        return (confusion.false_pass_rate or 0.0) <= objective.max_false_pass + 1e-12
    if objective.max_false_fail is not None:
        return (confusion.false_fail_rate or 0.0) <= objective.max_false_fail + 1e-12
    return True


def _rounded(values: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(v if math.isinf(v) else round(v, 12) for v in values)
