"""A guardrail's quality on labelled rows: per category and overall, from the battery's probabilities.

Conventions (said in every report):

- a category's figures are over the rows labelled with that category (its
  positives) and the safe rows (its negatives); rows unsafe for other reasons
  only are in neither. Its score is the battery's probability of yes for it;
- the overall figures are over every unsafe row (categorised or not) and the
  safe rows; the overall score of a row is its highest probability over the
  categories asked, and "flagged" at the battery's thresholds means any category
  reached its own threshold (what the guardrail does);
- the false-refusal rate is over safe rows: the share flagged;
- precision at recall r is the best precision at a threshold whose recall is at
  least r; recall at a false-positive rate of 1% is the best recall at a
  threshold whose false-positive rate is at most 1%;
- latency is per check (one request judges every category of a row), so it is
  given overall, not per category.

A row the model could not judge (an error record) is in no figure and is counted;
a category the model left unanswered on a row leaves that row out of that category.
Pure: rows in, figures out (`langchain_jev.guardrails.quality._metrics`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_jev.guardrails._catalog import STRICTNESS_PRESETS, Direction
from langchain_jev.guardrails._categories import select_hazards, thresholds_for
from langchain_jev.guardrails.quality._labels import RowLabel
from langchain_jev.guardrails.quality._metrics import (
    CurvePoint,
    Figure,
    Undefined,
    at_threshold,
    curve,
    percentiles,
    plain,
    precision_at_recall,
    recall_at_fpr,
    roc_auc,
)

__all__ = [
    "AT_RECALLS",
    "MAX_FPR",
    "CategoryQuality",
    "GuardrailQuality",
    "ScoredRow",
    "category_quality",
    "measure",
]

AT_RECALLS = (0.80, 0.90, 0.95)
"""The recalls precision is reported at."""

MAX_FPR = 0.01
"""The false-positive rate recall is reported at."""

OVERALL = "overall"
"""The name of the overall figures (no category has it)."""


@dataclass(frozen=True)
class ScoredRow:
    """One labelled row as the battery judged it."""

    row: int
    """The row's number in the dataset (from 1)."""
    label: RowLabel
    """What people said of it."""
    scores: Mapping[str, float]
    """The probability of yes of each category answered."""
    seconds: float | None = None
    """How long its check took."""
    text: str = ""
    """What was judged, to list it (a misses' and false refusals' table)."""
    row_id: Any = None
    """The row's ``id``, if it has one."""

    def flagged(self, thresholds: Mapping[str, float]) -> bool:
        """Whether any category reached its threshold (as `HazardAssessment.flagged` decides)."""
        return any(p >= thresholds[name] - 1e-9 for name, p in self.scores.items() if name in thresholds)

    @property
    def top(self) -> float:
        """The highest probability over the categories answered (0 when none was)."""
        return max(self.scores.values(), default=0.0)


@dataclass(frozen=True)
class CategoryQuality:
    """The figures of one category (or ``"overall"``) on the rows that count for it."""

    name: str
    positives: int
    """Unsafe rows counted."""
    negatives: int
    """Safe rows counted."""
    roc_auc: Figure
    at_thresholds: Mapping[str, CurvePoint]
    """The counts at the battery's threshold (``"battery"``) and at each preset's."""
    precision_at_recall: Mapping[float, tuple[Figure, CurvePoint | None]]
    """Per recall of `AT_RECALLS`: the best precision, and the point it is reached at."""
    recall_at_fpr: tuple[Figure, CurvePoint | None]
    """The best recall at a false-positive rate of at most `MAX_FPR`, and its point."""
    curve: Sequence[CurvePoint] = field(repr=False)
    """The counts at every threshold (for the ROC and precision-recall curves)."""

    @property
    def false_refusal_rate(self) -> Figure:
        """Of the safe rows, the share flagged at the battery's threshold(s)."""
        return self.at_thresholds["battery"].false_positive_rate

    def to_dict(self) -> dict[str, Any]:
        """The figures as plain data (an undefined figure as None, its reason under ``undefined``)."""
        undefined: dict[str, str] = {}

        def keep(name: str, figure: Figure) -> float | None:
            if isinstance(figure, Undefined):
                undefined[name] = figure.reason
            return plain(figure)

        data: dict[str, Any] = {
            "name": self.name,
            "positives": self.positives,
            "negatives": self.negatives,
            "roc_auc": keep("roc_auc", self.roc_auc),
            "false_refusal_rate": keep("false_refusal_rate", self.false_refusal_rate),
            "at_thresholds": {name: point.to_dict() for name, point in self.at_thresholds.items()},
            "precision_at_recall": {
                f"{r:g}": {
                    "precision": keep(f"precision_at_recall_{r:g}", figure),
                    "threshold": _threshold(point),
                }
                for r, (figure, point) in self.precision_at_recall.items()
            },
            "recall_at_fpr": {
                "max_fpr": MAX_FPR,
                "recall": keep("recall_at_fpr", self.recall_at_fpr[0]),
                "threshold": _threshold(self.recall_at_fpr[1]),
            },
        }
        data["undefined"] = undefined
        return data


def _threshold(point: CurvePoint | None) -> float | None:
    return None if point is None or not math.isfinite(point.threshold) else point.threshold


@dataclass(frozen=True)
class GuardrailQuality:
    """What a labelled run measured: per category, overall, latency, and the rows to look at."""

    direction: Direction
    thresholds: Mapping[str, float]
    """The battery's threshold per category."""
    categories: Mapping[str, CategoryQuality]
    overall: CategoryQuality
    latency: Mapping[str, Figure]
    """``p50``, ``p95`` and ``p99`` seconds per check."""
    rows: Sequence[ScoredRow] = field(repr=False)
    unjudged: int = 0
    """Rows the model could not judge (in no figure)."""

    @property
    def false_refusals(self) -> list[ScoredRow]:
        """Safe rows the battery flagged, highest score first."""
        found = [r for r in self.rows if not r.label.unsafe and r.flagged(self.thresholds)]
        return sorted(found, key=lambda r: -r.top)

    @property
    def misses(self) -> list[ScoredRow]:
        """Unsafe rows the battery let through, lowest score first."""
        found = [r for r in self.rows if r.label.unsafe and not r.flagged(self.thresholds)]
        return sorted(found, key=lambda r: r.top)

    def to_dict(self) -> dict[str, Any]:
        """Everything measured as plain data (curves left out)."""
        return {
            "direction": self.direction,
            "thresholds": dict(self.thresholds),
            "rows": len(self.rows),
            "unjudged": self.unjudged,
            "overall": self.overall.to_dict(),
            "categories": {name: q.to_dict() for name, q in self.categories.items()},
            "latency_seconds": {name: plain(figure) for name, figure in self.latency.items()},
            "false_refusals": len(self.false_refusals),
            "misses": len(self.misses),
        }


def category_quality(
    name: str, scores: Sequence[float], labels: Sequence[bool], thresholds: Mapping[str, float]
) -> CategoryQuality:
    """The figures of one category from its rows' scores and labels (True: unsafe).

    ``thresholds`` names each threshold to report counts at (``"battery"`` first).

    Example:
        >>> q = category_quality("hate", [0.9, 0.6, 0.2, 0.1], [True, False, True, False], {"battery": 0.5})
        >>> q.roc_auc, q.false_refusal_rate, q.at_thresholds["battery"].recall
        (0.75, 0.5, 0.5)

    """
    return CategoryQuality(
        name,
        sum(1 for label in labels if label),
        sum(1 for label in labels if not label),
        roc_auc(scores, labels),
        {label: at_threshold(scores, labels, t) for label, t in thresholds.items()},
        {r: precision_at_recall(scores, labels, r) for r in AT_RECALLS},
        recall_at_fpr(scores, labels, MAX_FPR),
        curve(scores, labels),
    )


def measure(
    rows: Iterable[ScoredRow],
    thresholds: Mapping[str, float],
    direction: Direction = "input",
    *,
    unjudged: int = 0,
) -> GuardrailQuality:
    """Every figure of a labelled run, per category of ``thresholds`` and overall.

    Example:
        >>> from langchain_jev.guardrails.quality import RowLabel
        >>> hate = RowLabel(True, frozenset({"hate"}))
        >>> safe = RowLabel(False)
        >>> rows = [ScoredRow(1, hate, {"hate": 0.9}, 0.25), ScoredRow(2, safe, {"hate": 0.7}, 0.75)]
        >>> quality = measure(rows, {"hate": 0.5})
        >>> quality.categories["hate"].roc_auc, quality.overall.false_refusal_rate
        (1.0, 1.0)
        >>> [r.row for r in quality.false_refusals]
        [2]
        >>> quality.latency["p50"]
        0.5

    """
    kept = list(rows)
    per_category: dict[str, CategoryQuality] = {}
    for name, threshold in thresholds.items():
        counted = [r for r in kept if name in r.scores and (not r.label.unsafe or name in r.label.categories)]
        per_category[name] = category_quality(
            name,
            [r.scores[name] for r in counted],
            [r.label.unsafe for r in counted],
            {"battery": threshold, **_presets(name, direction)},
        )
    overall = _overall(kept, thresholds)
    latency = percentiles([r.seconds for r in kept if r.seconds is not None])
    return GuardrailQuality(direction, dict(thresholds), per_category, overall, latency, kept, unjudged)


def _presets(name: str, direction: Direction) -> dict[str, float]:
    try:
        hazards = select_hazards(direction, [name])
    except Exception:  # a category not of this side: no presets to show
        return {}
    return {preset: thresholds_for(hazards, preset)[name] for preset in STRICTNESS_PRESETS}


def _overall(rows: Sequence[ScoredRow], thresholds: Mapping[str, float]) -> CategoryQuality:
    """The overall figures: the curve over each row's top score, the counts at the battery's thresholds."""
    base = category_quality(OVERALL, [r.top for r in rows], [r.label.unsafe for r in rows], {})
    flagged = [r.flagged(thresholds) for r in rows]
    tp = sum(1 for r, f in zip(rows, flagged, strict=True) if f and r.label.unsafe)
    fp = sum(1 for r, f in zip(rows, flagged, strict=True) if f and not r.label.unsafe)
    battery = CurvePoint(math.nan, tp, fp, base.positives, base.negatives)
    return CategoryQuality(
        OVERALL,
        base.positives,
        base.negatives,
        base.roc_auc,
        {"battery": battery},
        base.precision_at_recall,
        base.recall_at_fpr,
        base.curve,
    )
