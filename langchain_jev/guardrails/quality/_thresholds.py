"""Thresholds chosen from labels: per category, the one that meets a target, with its confidence.

A target is a false-refusal rate to stay at or under (``Target("false_refusal_rate", 0.01)``),
or a recall to reach (``Target("recall", 0.9)``). For each category:

- false-refusal rate ``f``: the lowest threshold whose false-refusal rate on the safe
  rows is at most ``f`` (the lowest flags most, so it catches the most at that rate);
- recall ``r``: the highest threshold whose recall on the category's unsafe rows is at
  least ``r`` (the highest refuses the fewest safe rows at that recall).

The rate reached on the labelled rows is given with its 95% **Wilson score
interval** for the number of rows it is a share of (safe rows for a false-refusal
rate, the category's unsafe rows for a recall): the range the rate on new traffic
of the same kind is likely to fall in. Few rows give a wide interval; it says so.

`Suggestion.thresholds` is what `HazardBattery` takes (``thresholds=``) beside
its preset, so measure, choose and enforce is one loop. Pure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from langchain_jev.guardrails.quality._metrics import CurvePoint
from langchain_jev.guardrails.quality._summary import GuardrailQuality

__all__ = ["CategoryThreshold", "Suggestion", "Target", "suggest_thresholds", "wilson_interval"]

Z_95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


@dataclass(frozen=True)
class Target:
    """What the thresholds are chosen for: a false-refusal rate at most ``value``, or a recall at least.

    Example:
        >>> Target.parse("recall=0.9"), Target.parse("frr=1%").value
        (Target(kind='recall', value=0.9), 0.01)

    """

    kind: Literal["false_refusal_rate", "recall"]
    value: float

    def __post_init__(self) -> None:
        if self.kind not in ("false_refusal_rate", "recall"):
            raise ValueError(f"a target is false_refusal_rate or recall, got {self.kind!r}")
        if isinstance(self.value, bool) or not 0.0 <= self.value <= 1.0:
            raise ValueError(f"the target {self.kind} must be from 0 to 1, got {self.value!r}")

    @classmethod
    def parse(cls, text: str) -> Target:
        """``frr=0.01`` (or ``false_refusal_rate=1%``) or ``recall=0.9``.

        Raises:
            ValueError: not one of those forms; the message shows them.

        """
        name, _, value = text.partition("=")
        kind = {"frr": "false_refusal_rate", "false_refusal_rate": "false_refusal_rate", "recall": "recall"}
        if name.strip() not in kind or not value.strip():
            raise ValueError(f"a target is frr=RATE or recall=RATE (e.g. frr=0.01, recall=90%), got {text!r}")
        raw = value.strip()
        try:
            number = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
        except ValueError:
            raise ValueError(f"the target {text!r} is not a number from 0 to 1 (or a percentage)") from None
        return cls(kind[name.strip()], number)  # type: ignore[arg-type]


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float] | None:
    """The Wilson score interval of a share ``successes / n`` (95% by default); None without rows.

    Example:
        >>> low, high = wilson_interval(1, 100)
        >>> round(low, 4), round(high, 4)
        (0.0018, 0.0545)

    """
    if n <= 0:
        return None
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class CategoryThreshold:
    """The threshold chosen for one category, and what it gives on the labelled rows."""

    category: str
    threshold: float | None
    """None when no threshold meets the target (``reason`` says why)."""
    reached: float | None
    """The target's rate at ``threshold`` on the labelled rows."""
    interval: tuple[float, float] | None
    """The 95% Wilson interval of ``reached``."""
    rows: int
    """The rows ``reached`` is a share of."""
    false_refusal_rate: float | None = None
    recall: float | None = None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """As plain data."""
        return {
            "category": self.category,
            "threshold": self.threshold,
            "reached": self.reached,
            "interval": list(self.interval) if self.interval else None,
            "rows": self.rows,
            "false_refusal_rate": self.false_refusal_rate,
            "recall": self.recall,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Suggestion:
    """Per-category thresholds for a target, and the setting a battery takes."""

    target: Target
    categories: Mapping[str, CategoryThreshold]
    interval: str = "Wilson score, 95%"

    @property
    def thresholds(self) -> dict[str, float]:
        """The thresholds found, for ``HazardBattery(..., thresholds=...)``; the rest keep their preset."""
        return {name: c.threshold for name, c in self.categories.items() if c.threshold is not None}

    def to_dict(self) -> dict[str, Any]:
        """As plain data: the target, the interval's kind, and each category's choice."""
        return {
            "target": {"kind": self.target.kind, "value": self.target.value},
            "interval": self.interval,
            "thresholds": self.thresholds,
            "categories": {name: c.to_dict() for name, c in self.categories.items()},
        }


def suggest_thresholds(quality: GuardrailQuality, target: Target) -> Suggestion:
    """The threshold of each category of ``quality`` that meets ``target`` on its labelled rows.

    Example:
        >>> from langchain_jev.guardrails.quality import RowLabel
        >>> from langchain_jev.guardrails.quality import ScoredRow, measure
        >>> safe, hate = RowLabel(False), RowLabel(True, frozenset({"hate"}))
        >>> rows = [ScoredRow(i, safe, {"hate": i / 10}) for i in range(10)]
        >>> rows += [ScoredRow(10 + i, hate, {"hate": 0.5 + i / 20}) for i in range(10)]
        >>> suggestion = suggest_thresholds(measure(rows, {"hate": 0.5}), Target("false_refusal_rate", 0.1))
        >>> suggestion.thresholds, suggestion.categories["hate"].reached
        ({'hate': 0.85}, 0.1)

    """
    chosen = {name: _choose(name, category.curve, target) for name, category in quality.categories.items()}
    return Suggestion(target, chosen)


def _choose(name: str, points: Any, target: Target) -> CategoryThreshold:
    curve: list[CurvePoint] = list(points)
    first = curve[0]
    if target.kind == "false_refusal_rate":
        if not first.negatives:
            return CategoryThreshold(name, None, None, None, 0, reason="no safe rows")
        feasible = [p for p in curve if p.false_positives / p.negatives <= target.value + 1e-12]
        point = min(feasible, key=lambda p: p.threshold)  # the open threshold is always feasible
        successes, n = point.false_positives, point.negatives
    else:
        if not first.positives:
            return CategoryThreshold(name, None, None, None, 0, reason="no unsafe rows")
        feasible = [p for p in curve if p.true_positives / p.positives >= target.value - 1e-12]
        if not feasible:
            return CategoryThreshold(name, None, None, None, first.positives, reason="unreachable")
        point = max(feasible, key=lambda p: p.threshold)
        successes, n = point.true_positives, point.positives
    threshold = point.threshold
    if math.isinf(threshold):  # flag nothing seen: the highest threshold a battery takes
        top = max((p.threshold for p in curve if not math.isinf(p.threshold)), default=0.0)
        if top >= 1.0:
            reason = "every threshold flags too many safe rows (some score 1.0)"
            return CategoryThreshold(name, None, None, None, n, reason=reason)
        threshold = 1.0
    fpr = point.false_positives / point.negatives if point.negatives else None
    recall = point.true_positives / point.positives if point.positives else None
    return CategoryThreshold(name, threshold, successes / n, wilson_interval(successes, n), n, fpr, recall)
