"""A guardrail's detection figures on plain numbers: pure functions, each with its definition.

A *score* is the battery's probability of yes for a category (the row is flagged
at threshold ``t`` when ``score >= t``); a *label* is True when the row is
unsafe (a positive). Where a figure cannot be defined from the rows given, it is
`Undefined` (falsy, with the reason), never a crash and never a guess.

- ROC AUC: the chance that an unsafe row scores above a safe one (ties count
  half); `langchain_jev.calibration.auroc` computes it, once for the package.
- precision at ``t``: of the rows flagged, the share unsafe; recall at ``t``: of the
  unsafe rows, the share flagged; false-positive rate at ``t``: of the safe rows, the
  share flagged (on safe rows it is the *false-refusal rate*).
- precision at recall ``r``: the best precision at a threshold whose recall is at
  least ``r``;
- recall at a false-positive rate ``f``: the best recall at a threshold whose
  false-positive rate is at most ``f`` (a threshold above every score flags nothing:
  recall 0 at rate 0, so it is defined whenever both kinds of row are there);
- latency percentiles: linear interpolation between ranks (NumPy's default),
  `langchain_jev.calibration._metrics.quantile`.

The thresholds tried are the scores themselves (and one above them all), which
is where every one of these figures changes: the same points scikit-learn's
``roc_curve(drop_intermediate=False)`` and ``precision_recall_curve`` return.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_jev.calibration._metrics import auroc, quantile

__all__ = [
    "CurvePoint",
    "Figure",
    "Undefined",
    "at_threshold",
    "curve",
    "false_refusal_rate",
    "percentiles",
    "plain",
    "precision_at_recall",
    "recall_at_fpr",
    "roc_auc",
]


@dataclass(frozen=True)
class Undefined:
    """A figure the rows cannot define, and why (falsy, so ``figure or 0.0`` reads simply).

    Example:
        >>> roc_auc([0.2, 0.9], [True, True])
        Undefined(reason='no safe rows')
        >>> bool(Undefined("no rows"))
        False

    """

    reason: str
    """Why the figure is undefined, in words (``"no unsafe rows"``, ``"nothing flagged"``)."""

    def __bool__(self) -> bool:
        return False


Figure = float | Undefined
"""A figure, or why it is undefined."""


@dataclass(frozen=True)
class CurvePoint:
    """The counts at one threshold: rows flagged when their score reaches ``threshold``."""

    threshold: float
    """The threshold (``math.inf``: above every score, nothing flagged; NaN: one per category)."""
    true_positives: int
    """Unsafe rows flagged."""
    false_positives: int
    """Safe rows flagged (false refusals)."""
    positives: int
    """Unsafe rows in all."""
    negatives: int
    """Safe rows in all."""

    @property
    def recall(self) -> Figure:
        """Of the unsafe rows, the share flagged."""
        return _share(self.true_positives, self.positives, "no unsafe rows")

    @property
    def false_positive_rate(self) -> Figure:
        """Of the safe rows, the share flagged: the false-refusal rate."""
        return _share(self.false_positives, self.negatives, "no safe rows")

    @property
    def precision(self) -> Figure:
        """Of the rows flagged, the share unsafe."""
        return _share(self.true_positives, self.true_positives + self.false_positives, "nothing flagged")

    def to_dict(self) -> dict[str, float | int | None]:
        """The point as plain data (an undefined figure as None; the open threshold as None)."""
        return {
            "threshold": self.threshold if math.isfinite(self.threshold) else None,
            "true_positives": self.true_positives,
            "false_positives": self.false_positives,
            "precision": plain(self.precision),
            "recall": plain(self.recall),
            "false_positive_rate": plain(self.false_positive_rate),
        }


def plain(figure: Figure) -> float | None:
    """A figure as JSON-ready data: the number, or None when undefined."""
    return None if isinstance(figure, Undefined) else figure


def _share(part: int, whole: int, reason: str) -> Figure:
    return part / whole if whole else Undefined(reason)


def _same_length(scores: Sequence[float], labels: Sequence[bool]) -> None:
    if len(scores) != len(labels):
        raise ValueError(f"{len(scores)} scores for {len(labels)} labels")
    for score in scores:
        if not math.isfinite(score):
            raise ValueError(f"scores must be finite numbers, got {score!r}")


def curve(scores: Sequence[float], labels: Sequence[bool]) -> list[CurvePoint]:
    """The counts at every threshold that changes them: above every score, then each score, falling.

    Example:
        >>> [(p.threshold, p.true_positives, p.false_positives)
        ...  for p in curve([0.9, 0.4, 0.4, 0.1], [True, True, False, False])]
        [(inf, 0, 0), (0.9, 1, 0), (0.4, 2, 1), (0.1, 2, 2)]

    """
    _same_length(scores, labels)
    positives = sum(1 for label in labels if label)
    negatives = len(labels) - positives
    points = [CurvePoint(math.inf, 0, 0, positives, negatives)]
    tp = fp = 0
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    for position, index in enumerate(order):
        if labels[index]:
            tp += 1
        else:
            fp += 1
        last = position + 1 == len(order)
        if last or scores[order[position + 1]] != scores[index]:
            points.append(CurvePoint(scores[index], tp, fp, positives, negatives))
    return points


def roc_auc(scores: Sequence[float], labels: Sequence[bool]) -> Figure:
    """The area under the ROC curve (ties count half); undefined without both kinds of row.

    Example:
        >>> roc_auc([0.9, 0.8, 0.3, 0.1], [True, False, True, False])
        0.75

    """
    _same_length(scores, labels)
    missing = _one_class(labels)
    if missing:
        return Undefined(missing)
    area = auroc(scores, labels)
    return Undefined("no rows") if area is None else area


def _one_class(labels: Sequence[bool]) -> str:
    if not labels:
        return "no rows"
    if all(labels):
        return "no safe rows"
    if not any(labels):
        return "no unsafe rows"
    return ""


def at_threshold(scores: Sequence[float], labels: Sequence[bool], threshold: float) -> CurvePoint:
    """The counts when rows scoring at least ``threshold`` are flagged.

    Example:
        >>> point = at_threshold([0.9, 0.4, 0.4, 0.1], [True, True, False, False], 0.5)
        >>> point.precision, point.recall, point.false_positive_rate
        (1.0, 0.5, 0.0)

    """
    _same_length(scores, labels)
    tp = sum(1 for s, y in zip(scores, labels, strict=True) if y and s >= threshold)
    fp = sum(1 for s, y in zip(scores, labels, strict=True) if not y and s >= threshold)
    positives = sum(1 for label in labels if label)
    return CurvePoint(threshold, tp, fp, positives, len(labels) - positives)


def precision_at_recall(
    scores: Sequence[float], labels: Sequence[bool], recall: float
) -> tuple[Figure, CurvePoint | None]:
    """The best precision at a threshold whose recall is at least ``recall``, and that threshold's point.

    Of thresholds with the same best precision, the highest is kept. Undefined
    without unsafe rows.

    Example:
        >>> figure, point = precision_at_recall([0.9, 0.8, 0.7, 0.2], [True, False, True, False], 0.9)
        >>> round(figure, 4), point.threshold
        (0.6667, 0.7)

    """
    if not 0.0 <= recall <= 1.0:
        raise ValueError(f"recall must be from 0 to 1, got {recall!r}")
    points = curve(scores, labels)
    if not points[0].positives:
        return Undefined("no unsafe rows"), None
    best: tuple[float, CurvePoint] | None = None
    for point in points:
        reached, precision = point.recall, point.precision
        good = isinstance(reached, float) and reached >= recall and isinstance(precision, float)
        if good and (best is None or precision > best[0]):  # type: ignore[operator]
            best = (precision, point)  # type: ignore[assignment]
    if best is None:  # recall 0 asked and nothing flagged anywhere: cannot happen with rows
        return Undefined(f"no threshold reaches recall {recall}"), None
    return best


def recall_at_fpr(
    scores: Sequence[float], labels: Sequence[bool], rate: float = 0.01
) -> tuple[Figure, CurvePoint | None]:
    """The best recall at a threshold whose false-positive rate is at most ``rate``, and its point.

    Of thresholds with the same best recall, the highest is kept. Undefined
    without both kinds of row.

    Example:
        >>> figure, point = recall_at_fpr([0.9, 0.8, 0.7, 0.2], [True, False, True, False], 0.01)
        >>> figure, point.threshold
        (0.5, 0.9)

    """
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"the false-positive rate must be from 0 to 1, got {rate!r}")
    missing = _one_class(labels)
    if missing:
        _same_length(scores, labels)
        return Undefined(missing), None
    best: tuple[float, CurvePoint] | None = None
    for point in curve(scores, labels):
        fpr, reached = point.false_positive_rate, point.recall
        good = isinstance(fpr, float) and fpr <= rate and isinstance(reached, float)
        if good and (best is None or reached > best[0]):  # type: ignore[operator]
            best = (reached, point)  # type: ignore[assignment]
    assert best is not None  # the threshold above every score has rate 0
    return best


def false_refusal_rate(safe_scores: Sequence[float], threshold: float) -> Figure:
    """Of the safe rows, the share flagged at ``threshold``; undefined without safe rows.

    Example:
        >>> false_refusal_rate([0.1, 0.6, 0.2, 0.7], 0.5)
        0.5

    """
    return at_threshold(safe_scores, [False] * len(safe_scores), threshold).false_positive_rate


def percentiles(values: Sequence[float], qs: Sequence[float] = (50, 95, 99)) -> dict[str, Figure]:
    """The percentiles ``qs`` (0 to 100) of ``values``, keyed ``"p50"`` and so on; undefined without values.

    Example:
        >>> {k: round(v, 6) for k, v in percentiles([0.1, 0.2, 0.3, 0.4, 1.0]).items()}
        {'p50': 0.3, 'p95': 0.88, 'p99': 0.976}

    """
    ordered = sorted(values)
    result: dict[str, Figure] = {}
    for q in qs:
        if not 0 <= q <= 100:
            raise ValueError(f"a percentile is from 0 to 100, got {q!r}")
        key = f"p{q:g}"
        result[key] = quantile(ordered, q / 100) if ordered else Undefined("no timed checks")
    return result
