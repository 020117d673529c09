"""Paired statistics for two runs over the same rows: did a pass rate move by more than noise.

Each row is judged by both runs, so the two pass rates are paired: a row's
outcome under B is not independent of its outcome under A. The counts that
matter are the discordant rows, ``a_only`` (passed under A, not under B) and
``b_only`` (the other way round).

- McNemar's exact test: under "no change", each discordant row is equally
  likely to go either way, so ``min(a_only, b_only)`` follows a binomial
  distribution of ``a_only + b_only`` trials at 1/2; the two-sided p-value is
  twice its lower tail (at most 1). With no discordant row, p is 1.
- The difference ``pass rate B - pass rate A`` with Newcombe's hybrid score
  interval for paired proportions (Newcombe 1998, method 10): Wilson score
  intervals for each rate, combined through the correlation of the paired
  outcomes. It stays inside [-1, 1] and behaves at 0 and at 1.

A move is *more than noise* when McNemar's p is under 0.05 and the interval
leaves out 0, *within noise* when neither; when the two disagree (it happens
with few discordant rows: the exact test is the more cautious) the verdict says
there are too few rows to tell. The interval says how large the move may be.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from langchain_jev._verdict import plain

__all__ = ["ALPHA", "PairedCounts", "mcnemar_exact", "paired_difference_interval", "wilson_interval"]

ALPHA = 0.05
"""The level under which a move is more than noise (and 1 - ALPHA the interval's coverage)."""
_Z = 1.959963984540054
"""The 97.5% point of the standard normal distribution (a 95% two-sided interval)."""


@dataclass(frozen=True)
class PairedCounts:
    """How the rows judged by both runs landed: passed under both, A only, B only, neither.

    Example:
        >>> counts = PairedCounts(both=6, a_only=3, b_only=1, neither=2)
        >>> counts.n, counts.rate_a, counts.rate_b, counts.difference
        (12, 0.75, 0.5833333333333334, -0.16666666666666666)

    """

    both: int = 0
    a_only: int = 0
    """Passed under A, not under B (a regression when B is the newer run)."""
    b_only: int = 0
    """Passed under B, not under A."""
    neither: int = 0

    @property
    def n(self) -> int:
        """Rows judged by both."""
        return self.both + self.a_only + self.b_only + self.neither

    @property
    def rate_a(self) -> float | None:
        """A's pass rate over these rows."""
        return (self.both + self.a_only) / self.n if self.n else None

    @property
    def rate_b(self) -> float | None:
        """B's pass rate over these rows."""
        return (self.both + self.b_only) / self.n if self.n else None

    @property
    def difference(self) -> float | None:
        """``rate_b - rate_a``."""
        return (self.b_only - self.a_only) / self.n if self.n else None

    @property
    def p_value(self) -> float:
        """McNemar's exact two-sided p-value (1.0 with no discordant row)."""
        return mcnemar_exact(self.a_only, self.b_only)

    @property
    def interval(self) -> tuple[float, float] | None:
        """The 95% interval of `difference` (Newcombe's method 10)."""
        return paired_difference_interval(self)

    @property
    def beyond_noise(self) -> bool:
        """True when McNemar's p is under `ALPHA`: the pass rate moved more than chance explains."""
        return self.p_value < ALPHA

    @property
    def verdict(self) -> str:
        """``more than noise``, ``within noise``, ``too few rows to tell`` (the two disagree), or ``no rows``.

        Example:
            >>> PairedCounts(both=2, a_only=5, neither=0).verdict  # p 0.0625, interval below 0
            'too few rows to tell'

        """
        interval = self.interval
        if interval is None:
            return "no rows"
        excludes_zero = interval[0] > 0 or interval[1] < 0
        if self.beyond_noise and excludes_zero:
            return "more than noise"
        if not self.beyond_noise and not excludes_zero:
            return "within noise"
        return "too few rows to tell"

    def add(self, passed_a: bool, passed_b: bool) -> PairedCounts:
        """These counts with one more row."""
        return PairedCounts(
            self.both + (passed_a and passed_b),
            self.a_only + (passed_a and not passed_b),
            self.b_only + (passed_b and not passed_a),
            self.neither + (not passed_a and not passed_b),
        )

    def to_dict(self) -> dict[str, Any]:
        """The counts and their figures as plain data."""
        figures = ("rate_a", "rate_b", "difference", "interval", "p_value", "beyond_noise", "verdict")
        return plain(self, "n", "both", "a_only", "b_only", "neither", *figures)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """McNemar's exact two-sided p-value for ``a_only`` and ``b_only`` discordant rows.

    Example:
        >>> round(mcnemar_exact(10, 2), 4), mcnemar_exact(3, 3), mcnemar_exact(0, 0)
        (0.0386, 1.0, 1.0)

    """
    if a_only < 0 or b_only < 0:
        raise ValueError(f"counts must not be negative, got {a_only} and {b_only}")
    trials = a_only + b_only
    if trials == 0:
        return 1.0
    low = min(a_only, b_only)
    # the lower tail of Binomial(trials, 1/2), summed in logs so thousands of rows do not overflow
    logs = [
        math.lgamma(trials + 1) - math.lgamma(k + 1) - math.lgamma(trials - k + 1) - trials * math.log(2)
        for k in range(low + 1)
    ]
    top = max(logs)
    tail = math.exp(top) * math.fsum(math.exp(v - top) for v in logs)
    return min(1.0, 2.0 * tail)


def wilson_interval(successes: int, n: int, z: float = _Z) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``successes / n`` (``(0, 1)`` when ``n`` is 0).

    Example:
        >>> tuple(round(x, 4) for x in wilson_interval(8, 10))
        (0.4902, 0.9433)

    """
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def paired_difference_interval(counts: PairedCounts, z: float = _Z) -> tuple[float, float] | None:
    """Newcombe's hybrid score interval (method 10) for ``rate_b - rate_a``; None without rows.

    Example:
        >>> low, high = paired_difference_interval(PairedCounts(both=6, a_only=3, b_only=1, neither=2))
        >>> round(low, 4), round(high, 4)
        (-0.4325, 0.1378)

    """
    n = counts.n
    if n == 0:
        return None
    a, b, c, d = counts.both, counts.a_only, counts.b_only, counts.neither
    rate_a, rate_b = (a + b) / n, (a + c) / n
    low_a, high_a = wilson_interval(a + b, n, z)
    low_b, high_b = wilson_interval(a + c, n, z)
    product = (a + b) * (c + d) * (a + c) * (b + d)
    phi = (a * d - b * c) / math.sqrt(product) if product else 0.0
    # the interval of theta = rate_a - rate_b, as Newcombe writes it
    theta = rate_a - rate_b
    delta = math.sqrt(
        max(
            0.0,
            (rate_a - low_a) ** 2 - 2 * phi * (rate_a - low_a) * (high_b - rate_b) + (high_b - rate_b) ** 2,
        )
    )
    epsilon = math.sqrt(
        max(
            0.0,
            (high_a - rate_a) ** 2 - 2 * phi * (high_a - rate_a) * (rate_b - low_b) + (rate_b - low_b) ** 2,
        )
    )
    low, high = theta - delta, theta + epsilon
    return max(-1.0, -high), min(1.0, -low)
