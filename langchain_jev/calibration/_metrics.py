"""Agreement between a judge and human labels: pure functions on plain numbers.

A *label* is True when a person says the row passes. A *probability* is the
judge's probability that the row passes (a noul's probability of yes; the share
of a score's probability on levels at or above its minimum; the share of a
choice's probability on its accepted labels). A *prediction* is True when the
judge passes the row.

- AUROC: the chance that a row people pass gets a higher probability than a
  row they fail (ties count half); None without both kinds of row.
- Brier score: the mean of ``(probability - label) ** 2`` (0 is best).
- ECE: the expected calibration error over 10 equal-width bins of probability:
  the sum over bins of ``rows in bin / rows * |share passed by people - mean probability|``.
- Accuracy: the share of rows where judge and people agree.
- Cohen's kappa: ``(observed - chance) / (1 - chance)``, agreement beyond what the two
  pass rates give by chance; None when chance agreement is 1 (one side only ever says one thing).
- False-pass rate: of the rows people fail, the share the judge passes.
- False-fail rate: of the rows people pass, the share the judge fails.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_jev._verdict import plain, plain_value

__all__ = [
    "Confusion",
    "ReliabilityBin",
    "auroc",
    "binomial",
    "bootstrap_kappa",
    "brier_score",
    "expected_calibration_error",
    "quantile",
    "reliability_bins",
]


@dataclass(frozen=True)
class Confusion:
    """Counts of the four ways a judge and people can meet on a row.

    Example:
        >>> c = Confusion.of([True, True, False, False], [True, False, False, True])
        >>> c.true_pass, c.false_pass, c.false_fail, c.true_fail
        (1, 1, 1, 1)
        >>> c.accuracy, c.kappa, c.false_pass_rate
        (0.5, 0.0, 0.5)

    """

    true_pass: int = 0
    """Both pass the row."""
    false_pass: int = 0
    """The judge passes a row people fail."""
    false_fail: int = 0
    """The judge fails a row people pass."""
    true_fail: int = 0
    """Both fail the row."""

    @classmethod
    def of(cls, predictions: Sequence[bool], labels: Sequence[bool]) -> Confusion:
        """Count predictions against labels, row by row."""
        if len(predictions) != len(labels):
            raise ValueError(f"{len(predictions)} predictions for {len(labels)} labels")
        counts = Counter(zip(predictions, labels, strict=True))
        return cls(counts[True, True], counts[True, False], counts[False, True], counts[False, False])

    @property
    def n(self) -> int:
        """Rows counted."""
        return self.true_pass + self.false_pass + self.false_fail + self.true_fail

    @property
    def base_rate(self) -> float | None:
        """The share of rows people pass."""
        return _ratio(self.true_pass + self.false_fail, self.n)

    @property
    def pass_rate(self) -> float | None:
        """The share of rows the judge passes."""
        return _ratio(self.true_pass + self.false_pass, self.n)

    @property
    def accuracy(self) -> float | None:
        """The share of rows where judge and people agree."""
        return _ratio(self.true_pass + self.true_fail, self.n)

    @property
    def false_pass_rate(self) -> float | None:
        """Of the rows people fail, the share the judge passes (None: people fail none)."""
        return _ratio(self.false_pass, self.false_pass + self.true_fail)

    @property
    def false_fail_rate(self) -> float | None:
        """Of the rows people pass, the share the judge fails (None: people pass none)."""
        return _ratio(self.false_fail, self.false_fail + self.true_pass)

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa; None when chance agreement is 1 (kappa is undefined)."""
        n = self.n
        if not n:
            return None
        observed = (self.true_pass + self.true_fail) / n
        judge_pass = (self.true_pass + self.false_pass) / n
        people_pass = (self.true_pass + self.false_fail) / n
        chance = judge_pass * people_pass + (1 - judge_pass) * (1 - people_pass)
        if chance >= 1.0 - 1e-12:
            return None
        return (observed - chance) / (1 - chance)

    def __add__(self, other: Confusion) -> Confusion:
        return Confusion(
            self.true_pass + other.true_pass,
            self.false_pass + other.false_pass,
            self.false_fail + other.false_fail,
            self.true_fail + other.true_fail,
        )

    def to_dict(self) -> dict[str, int]:
        """The four counts."""
        return plain(self)


def confusion_figures(confusion: Confusion, **after_kappa: Any) -> dict[str, Any]:
    """The agreement figures and the four counts as plain data, in the order reports show them.

    ``after_kappa`` are entries placed right after kappa (a kappa interval).

    Example:
        >>> list(confusion_figures(Confusion(4, 1, 1, 4), kappa_interval=None))[:4]
        ['accuracy', 'kappa', 'kappa_interval', 'false_pass_rate']

    """
    return {
        **plain(confusion, "accuracy", "kappa"),
        **{key: plain_value(value) for key, value in after_kappa.items()},
        **plain(confusion, "false_pass_rate", "false_fail_rate", "pass_rate"),
        **confusion.to_dict(),
    }


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def auroc(probabilities: Sequence[float], labels: Sequence[bool]) -> float | None:
    """The area under the ROC curve, from ranks (ties share their average rank).

    Example:
        >>> auroc([0.9, 0.8, 0.3, 0.1], [True, False, True, False])
        0.75
        >>> auroc([0.5, 0.6], [True, True]) is None
        True

    """
    _same_length(probabilities, labels)
    positives = sum(1 for label in labels if label)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return None
    order = sorted(range(len(probabilities)), key=lambda i: probabilities[i])
    ranks = [0.0] * len(order)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and probabilities[order[end + 1]] == probabilities[order[start]]:
            end += 1
        average = (start + end) / 2 + 1
        for position in range(start, end + 1):
            ranks[order[position]] = average
        start = end + 1
    rank_sum = math.fsum(rank for rank, label in zip(ranks, labels, strict=True) if label)
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def brier_score(probabilities: Sequence[float], labels: Sequence[bool]) -> float | None:
    """The mean squared distance between probability and label (None without rows).

    Example:
        >>> brier_score([1.0, 0.5], [True, False])
        0.125

    """
    _same_length(probabilities, labels)
    if not labels:
        return None
    return math.fsum((p - float(y)) ** 2 for p, y in zip(probabilities, labels, strict=True)) / len(labels)


@dataclass(frozen=True)
class ReliabilityBin:
    """One bin of a reliability diagram: its range, rows, mean probability and share passed by people."""

    low: float
    high: float
    count: int
    mean_probability: float | None
    observed: float | None

    def to_dict(self) -> dict[str, float | int | None]:
        """The bin as plain data."""
        return {
            "low": self.low,
            "high": self.high,
            "count": self.count,
            "mean_probability": self.mean_probability,
            "observed": self.observed,
        }


def reliability_bins(
    probabilities: Sequence[float], labels: Sequence[bool], bins: int = 10
) -> list[ReliabilityBin]:
    """Rows in ``bins`` equal-width bins of probability (the last bin holds 1.0).

    Example:
        >>> [b.count for b in reliability_bins([0.05, 0.15, 0.95, 1.0], [False, False, True, True])]
        [1, 1, 0, 0, 0, 0, 0, 0, 0, 2]

    """
    _same_length(probabilities, labels)
    members: list[list[int]] = [[] for _ in range(bins)]
    for index, p in enumerate(probabilities):
        members[min(int(p * bins), bins - 1) if p > 0 else 0].append(index)
    result = []
    for number, rows in enumerate(members):
        mean = math.fsum(probabilities[i] for i in rows) / len(rows) if rows else None
        observed = sum(1 for i in rows if labels[i]) / len(rows) if rows else None
        result.append(ReliabilityBin(number / bins, (number + 1) / bins, len(rows), mean, observed))
    return result


def expected_calibration_error(
    probabilities: Sequence[float], labels: Sequence[bool], bins: int = 10
) -> float | None:
    """The expected calibration error over ``bins`` equal-width bins (None without rows).

    Example:
        >>> round(expected_calibration_error([0.05, 0.15, 0.95, 1.0], [False, False, True, True]), 4)
        0.0625

    """
    if not labels:
        return None
    total = len(labels)
    return math.fsum(
        b.count / total * abs((b.observed or 0.0) - (b.mean_probability or 0.0))
        for b in reliability_bins(probabilities, labels, bins)
        if b.count
    )


def bootstrap_kappa(
    confusion: Confusion, *, rounds: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float] | None:
    """A percentile bootstrap interval of Cohen's kappa (rows resampled with replacement, seeded).

    Resampling rows is drawing the four counts again from their shares, so it
    takes the counts. None when kappa is undefined in most resamples.

    Example:
        >>> low, high = bootstrap_kappa(Confusion(40, 10, 5, 45), seed=1)
        >>> low < Confusion(40, 10, 5, 45).kappa < high
        True

    """
    n = confusion.n
    if not n:
        return None
    rng = random.Random(seed)
    cells = [confusion.true_pass, confusion.false_pass, confusion.false_fail, confusion.true_fail]
    kappas: list[float] = []
    for _ in range(rounds):
        kappa = Confusion(*_multinomial(rng, n, cells)).kappa
        if kappa is not None:
            kappas.append(kappa)
    if len(kappas) < rounds / 2:
        return None
    kappas.sort()
    tail = (1 - level) / 2
    return quantile(kappas, tail), quantile(kappas, 1 - tail)


def _multinomial(rng: random.Random, n: int, counts: Sequence[int]) -> list[int]:
    """``n`` rows drawn with replacement from cells holding ``counts`` rows: how many from each cell.

    Drawn as successive binomials (each cell given what the cells before it took),
    so a draw costs a few random numbers however many rows there are.
    """
    drawn: list[int] = []
    left, remaining = n, sum(counts)
    for count in counts[:-1]:
        share = count / remaining if remaining else 0.0
        taken = binomial(rng, left, min(1.0, share))
        drawn.append(taken)
        left -= taken
        remaining -= count
    drawn.append(left)
    return drawn


def binomial(rng: random.Random, n: int, p: float) -> int:
    """A draw from Binomial(n, p) using ``rng`` alone (BTRS, Hormann 1993, as in Python 3.12's random).

    Example:
        >>> rng = random.Random(0)
        >>> draws = [binomial(rng, 1000, 0.3) for _ in range(2000)]
        >>> 295 < sum(draws) / len(draws) < 305
        True

    """
    if p <= 0.0 or n == 0:
        return 0
    if p >= 1.0:
        return n
    if p > 0.5:
        return n - binomial(rng, n, 1.0 - p)
    if n * p < 10.0:  # count the geometric gaps between successes
        x = y = 0
        c = math.log(1.0 - p)
        while True:
            y += math.floor(math.log(1.0 - rng.random()) / c) + 1
            if y > n:
                return x
            x += 1
    spq = math.sqrt(n * p * (1.0 - p))
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    vr = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    lpq = math.log(p / (1.0 - p))
    m = math.floor((n + 1) * p)
    h = math.lgamma(m + 1) + math.lgamma(n - m + 1)
    while True:
        u = rng.random() - 0.5
        us = 0.5 - abs(u)
        if us <= 0.0:
            continue
        k = math.floor((2.0 * a / us + b) * u + c)
        if k < 0 or k > n:
            continue
        v = rng.random()
        if us >= 0.07 and v <= vr:
            return k
        v *= alpha / (a / (us * us) + b)
        if math.log(v) <= h - math.lgamma(k + 1) - math.lgamma(n - k + 1) + (k - m) * lpq:
            return k


def quantile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted values, interpolated linearly between the two nearest ranks.

    The same as NumPy's default (``numpy.quantile(values, q)``, method "linear").

    Example:
        >>> quantile([1.0, 2.0, 3.0, 4.0], 0.5), quantile([10.0], 0.99)
        (2.5, 10.0)

    """
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _same_length(probabilities: Sequence[float], labels: Sequence[bool]) -> None:
    if len(probabilities) != len(labels):
        raise ValueError(f"{len(probabilities)} probabilities for {len(labels)} labels")
