"""The comparison's statistics against independent computations: exact fractions, a bisection, a simulation."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from langchain_jev.compare._stats import (
    PairedCounts,
    mcnemar_exact,
    paired_difference_interval,
    wilson_interval,
)

Z = 1.959963984540054


def exact_mcnemar(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p by exact rational arithmetic: twice the lower binomial tail at 1/2."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    tail = sum((Fraction(math.comb(n, k), 2**n) for k in range(min(a_only, b_only) + 1)), Fraction(0))
    return float(min(Fraction(1), 2 * tail))


def wilson_by_bisection(successes: int, n: int) -> tuple[float, float]:
    """The Wilson limits as the roots of |p - pi| = z sqrt(pi (1 - pi) / n), found by bisection."""
    p = successes / n

    def gap(pi: float) -> float:
        return abs(p - pi) - Z * math.sqrt(pi * (1 - pi) / n)

    def root(lo: float, hi: float) -> float:
        for _ in range(200):
            mid = (lo + hi) / 2
            if (gap(lo) > 0) == (gap(mid) > 0):
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    lower = 0.0 if successes == 0 else root(0.0, p)
    upper = 1.0 if successes == n else root(p, 1.0)
    return lower, upper


def newcombe_by_hand(both: int, a_only: int, b_only: int, neither: int) -> tuple[float, float]:
    """Newcombe (1998) method 10, written from the paper's formulas with the bisection's Wilson limits."""
    n = both + a_only + b_only + neither
    p1, p2 = (both + a_only) / n, (both + b_only) / n
    l1, u1 = wilson_by_bisection(both + a_only, n)
    l2, u2 = wilson_by_bisection(both + b_only, n)
    margins = (both + a_only) * (b_only + neither) * (both + b_only) * (a_only + neither)
    phi = 0.0 if margins == 0 else (both * neither - a_only * b_only) / math.sqrt(margins)
    dl = math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    du = math.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    # for p1 - p2 the interval is [theta - dl, theta + du]; the comparison reports p2 - p1
    theta = p1 - p2
    return max(-1.0, -(theta + du)), min(1.0, -(theta - dl))


def test_mcnemar_matches_a_published_value_and_scipy_when_installed() -> None:
    assert mcnemar_exact(10, 2) == pytest.approx(158 / 4096, abs=1e-15)  # 2 * (1 + 12 + 66) / 2**12
    try:  # scipy is not a dependency; where it is installed, it is one more independent check
        from scipy.stats import binomtest  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return
    for a_only, b_only in ((10, 2), (30, 41), (0, 7), (5, 5)):
        expected = binomtest(min(a_only, b_only), a_only + b_only, 0.5).pvalue
        assert mcnemar_exact(a_only, b_only) == pytest.approx(expected, rel=1e-9)


@given(st.integers(0, 400), st.integers(0, 400))
def test_mcnemar_equals_the_exact_rational_computation(a_only: int, b_only: int) -> None:
    assert mcnemar_exact(a_only, b_only) == pytest.approx(exact_mcnemar(a_only, b_only), rel=1e-9, abs=1e-300)


def test_mcnemar_holds_for_many_rows() -> None:
    assert 0.0 <= mcnemar_exact(5000, 4800) <= 1.0
    assert mcnemar_exact(4000, 3000) < 1e-20


@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_equals_the_roots_of_its_score_equation(case: tuple[int, int]) -> None:
    successes, n = case
    low, high = wilson_interval(successes, n)
    want_low, want_high = wilson_by_bisection(successes, n)
    assert low == pytest.approx(want_low, abs=1e-7) and high == pytest.approx(want_high, abs=1e-7)


@given(st.tuples(*(st.integers(0, 60) for _ in range(4))).filter(lambda t: sum(t) > 0))
@example((9, 0, 0, 9))
def test_newcombe_interval_equals_a_hand_computation(cells: tuple[int, int, int, int]) -> None:
    counts = PairedCounts(*cells)
    interval = paired_difference_interval(counts)
    assert interval is not None
    low, high = interval
    want_low, want_high = newcombe_by_hand(*cells)
    # each bound is a square root: rounding noise of 1e-17 under it is 3e-9 out of it (9, 0, 0, 9)
    assert low == pytest.approx(want_low, abs=1e-7) and high == pytest.approx(want_high, abs=1e-7)
    assert -1.0 <= low <= (counts.difference or 0.0) <= high <= 1.0


def test_the_interval_covers_the_true_difference_about_95_times_in_100() -> None:
    """A simulation (seeded): paired rows whose true pass rates are 0.7 and 0.6, 80 rows a run."""
    rng = random.Random(7)
    cells = {"both": 0.55, "a_only": 0.15, "b_only": 0.05, "neither": 0.25}  # rate A 0.70, rate B 0.60
    truth = cells["both"] + cells["b_only"] - (cells["both"] + cells["a_only"])
    covered = 0
    trials = 2000
    for _ in range(trials):
        drawn = rng.choices(list(cells), weights=list(cells.values()), k=80)
        counts = PairedCounts(*(drawn.count(name) for name in cells))
        low, high = paired_difference_interval(counts) or (0.0, 0.0)
        covered += low <= truth <= high
    assert 0.93 <= covered / trials <= 0.975


def test_a_move_inside_the_noise_says_so_and_one_beyond_it_too() -> None:
    small = PairedCounts(both=80, a_only=3, b_only=1, neither=16)
    assert not small.beyond_noise and small.interval is not None and small.interval[0] < 0 < small.interval[1]
    assert small.verdict == "within noise"
    large = PairedCounts(both=70, a_only=12, b_only=0, neither=18)
    assert large.beyond_noise and large.interval is not None and large.interval[1] < 0
    assert large.verdict == "more than noise"
    few = PairedCounts(both=2, a_only=5, b_only=0, neither=0)  # p = 0.0625; the interval leaves out 0
    assert not few.beyond_noise and few.interval is not None and few.interval[1] < 0
    assert few.verdict == "too few rows to tell"
    assert PairedCounts().verdict == "no rows"
