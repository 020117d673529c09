"""Suggested thresholds: the sweep point that best meets an objective, criterion by criterion.

`suggest` chooses each noul's minimum probability and each score's minimum level
on its own sweep, then ``min_confidence`` for the scores and choices together
(their counts pooled), and measures the overall verdict before and after;
`calibrated_judge` is the judge with the suggested thresholds.

A suggestion never makes agreement worse. Labels of one class (every labelled row
passes, or every one fails) cannot teach a threshold, so a criterion (or the pooled
``min_confidence``) whose labels are all alike is left as it is, saying so; a
threshold is suggested only where it agrees with people at least as well as the
current one (`langchain_jev.calibration._sweep.no_worse`); and while the suggestions
together would make the overall verdict agree less with the overall label, the one
whose withdrawal helps it most is withdrawn, saying why.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_jev._criteria import JevCriterion
from langchain_jev._judge import JevJudge
from langchain_jev.calibration._figures import Agreement, answers_and_labels, overall_confusion
from langchain_jev.calibration._metrics import Confusion
from langchain_jev.calibration._sweep import (
    MIN_CONFIDENCE_GRID,
    Objective,
    SweepPoint,
    choose,
    no_worse,
    predictions,
    ranking,
    with_threshold,
)
from langchain_jev.datasets._redecide import NoRequestModel

if TYPE_CHECKING:
    from langchain_jev.calibration._measure import Calibration

__all__ = ["Suggestion", "calibrated_judge", "one_class", "suggest"]


@dataclass(frozen=True)
class Suggestion:
    """Suggested thresholds for an objective, and the overall agreement before and after them.

    Example:
        >>> from langchain_jev.calibration import Objective
        >>> suggestion = Suggestion(Objective(), {"polite": 0.7}, {"polite": 0.45}, 0.6, 0.6, {}, {})
        >>> suggestion.changes()
        [('polite', 0.7, 0.45)]

    """

    objective: Objective
    current: Mapping[str, float]
    """Current minimum of each noul and score criterion."""
    minimums: Mapping[str, float]
    """Suggested minimum of each noul and score criterion that could be chosen."""
    current_min_confidence: float
    min_confidence: float | None
    """Suggested ``min_confidence`` (None: no score or choice, or none meets the objective)."""
    unmet: Mapping[str, str]
    """Criteria (or ``min_confidence``) left as they are, with why."""
    points: Mapping[str, SweepPoint]
    """The chosen sweep point of each suggestion (``min_confidence`` under that name)."""
    before: Agreement | None = None
    after: Agreement | None = None

    def changes(self) -> list[tuple[str, float, float]]:
        """``(criterion name or "min_confidence", current, suggested)`` for each threshold that moves."""
        moved = [
            (n, self.current[n], v) for n, v in self.minimums.items() if not math.isclose(v, self.current[n])
        ]
        if self.min_confidence is not None and not math.isclose(
            self.min_confidence, self.current_min_confidence
        ):
            moved.append(("min_confidence", self.current_min_confidence, self.min_confidence))
        return moved

    def to_dict(self) -> dict[str, Any]:
        """The suggestion as plain data."""
        return {
            "objective": self.objective.to_dict(),
            "minimums": dict(self.minimums),
            "current": dict(self.current),
            "min_confidence": self.min_confidence,
            "current_min_confidence": self.current_min_confidence,
            "unmet": dict(self.unmet),
            "points": {name: point.to_dict() for name, point in self.points.items()},
            "overall_before": self.before.to_dict() if self.before else None,
            "overall_after": self.after.to_dict() if self.after else None,
        }


def suggest(
    calibration: Calibration,
    target: str = "kappa",
    *,
    max_false_pass: float | None = None,
    max_false_fail: float | None = None,
) -> Suggestion:
    """Thresholds that best meet the objective, criterion by criterion.

    Each noul's minimum probability and each score's minimum level is chosen on its
    own sweep (at the current ``min_confidence``); then ``min_confidence`` is chosen
    for the scores and choices together, their counts pooled.
    """
    objective = Objective(target, max_false_pass, max_false_fail)
    judge = calibration.judge
    by_name = {c.name: c for c in judge.criteria}
    current = {c.name: float(c.minimum or 0.0) for c in judge.criteria if c.kind in ("noul", "score")}
    minimums: dict[str, float] = {}
    unmet: dict[str, str] = {}
    points: dict[str, SweepPoint] = {}
    for item in calibration.criteria:
        if item.threshold_name != "minimum":
            continue
        if not item.n:
            unmet[item.name] = "no labelled row with an answer"
            continue
        if len(set(item.labels)) == 1:
            unmet[item.name] = one_class(item.labels)
            continue
        point = choose(item.sweep, objective, item.threshold)
        if point is None:
            unmet[item.name] = f"no threshold meets: {objective.describe()}"
            continue
        if not no_worse(item.confusion, point.confusion, objective):  # the current one is off the grid
            continue
        minimums[item.name] = point.threshold
        points[item.name] = point
    min_confidence: float | None = None
    pooled = _confidence_sweep(calibration, by_name, minimums)
    labels = _pooled_labels(calibration)
    if pooled and len(set(labels)) == 1:
        unmet["min_confidence"] = one_class(labels)
    elif pooled:
        point = choose(pooled, objective, judge.min_confidence)
        if point is None:
            unmet["min_confidence"] = f"no value meets: {objective.describe()}"
        else:
            min_confidence = point.threshold
            points["min_confidence"] = point
    suggestion = Suggestion(objective, current, minimums, judge.min_confidence, min_confidence, unmet, points)
    if calibration.overall is None:
        return suggestion
    suggestion = _no_worse_overall(calibration, suggestion)
    after = calibration.agreement(calibrated_judge(calibration, suggestion))
    return dataclasses.replace(suggestion, before=calibration.overall, after=after)


def _no_worse_overall(calibration: Calibration, suggestion: Suggestion) -> Suggestion:
    """The suggestion less the changes that would make the overall verdict agree less with its label.

    While the suggested thresholds together make the overall verdict agree less than the
    current ones, the change whose withdrawal helps it most is withdrawn (named in ``unmet``,
    with the figures it would have caused); one change at a time, so every change that does
    no harm stays.
    """
    assert calibration.overall is not None
    before, objective = calibration.overall.confusion, suggestion.objective
    while True:
        after = overall_confusion(calibrated_judge(calibration, suggestion), calibration.rows)
        moved = [name for name, _, _ in suggestion.changes()]
        if after is None or not moved or no_worse(before, after, objective):
            return suggestion
        trials = {name: _without(suggestion, name) for name in moved}
        scored = {}
        for name, trial in trials.items():
            confusion = overall_confusion(calibrated_judge(calibration, trial), calibration.rows)
            assert confusion is not None
            scored[name] = (no_worse(before, confusion, objective), ranking(confusion, objective))
        withdrawn = max(moved, key=lambda name: scored[name])
        why = (
            "with it, the overall verdict would agree less with the overall label "
            f"({_counts(before)} -> {_counts(after)})"
        )
        suggestion = dataclasses.replace(trials[withdrawn], unmet={**trials[withdrawn].unmet, withdrawn: why})


def _without(suggestion: Suggestion, name: str) -> Suggestion:
    points = {k: v for k, v in suggestion.points.items() if k != name}
    if name == "min_confidence":
        return dataclasses.replace(suggestion, min_confidence=None, points=points)
    minimums = {k: v for k, v in suggestion.minimums.items() if k != name}
    return dataclasses.replace(suggestion, minimums=minimums, points=points)


def one_class(labels: Sequence[bool]) -> str:
    """Why labels all alike leave a threshold as it is.

    Example:
        >>> one_class([True, True, True])
        'a threshold cannot be learned from one class of labels (all 3 labelled rows pass)'

    """
    said = "pass" if labels[0] else "fail"
    return f"a threshold cannot be learned from one class of labels (all {len(labels)} labelled rows {said})"


def _pooled_labels(calibration: Calibration) -> list[bool]:
    return [label for c in calibration.criteria if c.kind in ("score", "choice") for label in c.labels]


def _counts(c: Confusion) -> str:
    kappa = "-" if c.kappa is None else f"{c.kappa:.2f}"
    return f"accuracy {c.accuracy or 0.0:.2f}, kappa {kappa}"


def _confidence_sweep(
    calibration: Calibration, by_name: Mapping[str, JevCriterion], minimums: Mapping[str, float]
) -> list[SweepPoint]:
    judge = calibration.judge
    items = [c for c in calibration.criteria if c.kind in ("score", "choice") and c.n]
    if not items:
        return []
    prepared = []
    for item in items:
        criterion = by_name[item.name]
        if item.name in minimums:
            criterion = with_threshold(criterion, minimums[item.name])
        answers, labels, panels = answers_and_labels(calibration.rows, criterion)
        prepared.append((criterion, answers, labels, panels))
    points = []
    for value in MIN_CONFIDENCE_GRID:
        total = Confusion()
        for criterion, answers, labels, panels in prepared:
            predicted = predictions(
                criterion, answers, value, judge.fail_on_inconclusive, judge.fail_on_error, panels=panels
            )
            total = total + Confusion.of(predicted, labels)
        points.append(SweepPoint(value, total))
    return points


def calibrated_judge(calibration: Calibration, suggestion: Suggestion) -> JevJudge:
    """The judge with the suggested thresholds (its model refuses requests: it decides stored answers)."""
    judge = calibration.judge
    criteria = [
        with_threshold(c, suggestion.minimums[c.name]) if c.name in suggestion.minimums else c
        for c in judge.criteria
    ]
    return JevJudge(
        criteria,
        NoRequestModel(),
        min_confidence=suggestion.min_confidence
        if suggestion.min_confidence is not None
        else judge.min_confidence,
        fail_on_inconclusive=judge.fail_on_inconclusive,
        fail_on_error=judge.fail_on_error,
        fail_fast=judge.fail_fast,
        feedback_renderer=judge.feedback_renderer,
    )
