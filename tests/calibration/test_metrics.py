"""The calibration figures against independent computations on fixed data."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from langchain_jev.calibration import (
    Confusion,
    auroc,
    bootstrap_kappa,
    brier_score,
    expected_calibration_error,
    reliability_bins,
)

PROBABILITIES = [0.95, 0.9, 0.8, 0.8, 0.7, 0.6, 0.55, 0.4, 0.3, 0.3, 0.2, 0.05]
LABELS = [True, True, False, True, True, False, True, False, True, False, False, False]


def pairwise_auroc(probabilities: list[float], labels: list[bool]) -> float:
    """The AUROC by its definition: over every (passed, failed) pair, 1 when ranked right, 1/2 on a tie."""
    positives = [p for p, y in zip(probabilities, labels, strict=True) if y]
    negatives = [p for p, y in zip(probabilities, labels, strict=True) if not y]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(positives, negatives))
    return wins / (len(positives) * len(negatives))


def test_auroc_equals_the_pairwise_rank_formula_on_fixed_data() -> None:
    # 6 passed, 6 failed: 29 of the 36 (passed, failed) pairs ranked right, the ties at 0.8 and 0.3 counting half
    assert pairwise_auroc(PROBABILITIES, LABELS) == pytest.approx(29 / 36)
    assert auroc(PROBABILITIES, LABELS) == pytest.approx(29 / 36)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([i / 10 for i in range(11)]), st.booleans()), min_size=2, max_size=40)
)
def test_auroc_equals_the_pairwise_rank_formula_on_any_data(rows: list[tuple[float, bool]]) -> None:
    probabilities = [p for p, _ in rows]
    labels = [y for _, y in rows]
    if all(labels) or not any(labels):
        assert auroc(probabilities, labels) is None
    else:
        assert auroc(probabilities, labels) == pytest.approx(pairwise_auroc(probabilities, labels))


def test_auroc_of_a_perfect_and_a_reversed_ranking() -> None:
    assert auroc([0.9, 0.8, 0.2, 0.1], [True, True, False, False]) == 1.0
    assert auroc([0.9, 0.8, 0.2, 0.1], [False, False, True, True]) == 0.0


def test_kappa_against_its_definition_on_a_published_table() -> None:
    # The worked example of Cohen's kappa: 20 both yes, 5 and 10 disagreeing, 15 both no -> 0.4
    confusion = Confusion(true_pass=20, false_pass=5, false_fail=10, true_fail=15)
    observed = (20 + 15) / 50
    chance = (25 / 50) * (30 / 50) + (25 / 50) * (20 / 50)
    assert (observed - chance) / (1 - chance) == pytest.approx(0.4)
    assert confusion.kappa == pytest.approx(0.4)
    assert confusion.accuracy == pytest.approx(0.7)


def test_kappa_is_none_where_chance_agreement_is_one_and_one_for_perfect_agreement() -> None:
    assert Confusion(true_pass=5).kappa is None  # both always pass: kappa is undefined
    assert Confusion(true_pass=3, true_fail=2).kappa == pytest.approx(1.0)
    assert Confusion(false_pass=3, false_fail=3).kappa == pytest.approx(-1.0)


def test_false_pass_and_false_fail_rates_are_shares_of_what_people_said() -> None:
    confusion = Confusion.of(
        [True, True, True, False, False, True, False],
        [True, False, False, True, False, True, False],
    )
    # people fail 4 rows, the judge passes 2 of them; people pass 3, the judge fails 1
    assert confusion.to_dict() == {"true_pass": 2, "false_pass": 2, "false_fail": 1, "true_fail": 2}
    assert confusion.false_pass_rate == pytest.approx(2 / 4)
    assert confusion.false_fail_rate == pytest.approx(1 / 3)
    assert confusion.base_rate == pytest.approx(3 / 7)
    assert confusion.pass_rate == pytest.approx(4 / 7)


def test_brier_score_by_hand() -> None:
    assert brier_score([0.9, 0.2, 0.6], [True, False, False]) == pytest.approx((0.01 + 0.04 + 0.36) / 3)
    assert brier_score([], []) is None


def test_ece_by_hand_on_a_small_case() -> None:
    probabilities = [0.05, 0.12, 0.18, 0.55, 0.95, 1.0]
    labels = [False, True, False, True, True, False]
    # bin 0 [0, .1): 0.05, people 0/1 -> |0 - 0.05| = 0.05, weight 1/6
    # bin 1 [.1, .2): 0.12, 0.18, people 1/2 -> |0.5 - 0.15| = 0.35, weight 2/6
    # bin 5 [.5, .6): 0.55, people 1/1 -> |1 - 0.55| = 0.45, weight 1/6
    # bin 9 [.9, 1]: 0.95, 1.0, people 1/2 -> |0.5 - 0.975| = 0.475, weight 2/6
    by_hand = (0.05 * 1 + 0.35 * 2 + 0.45 * 1 + 0.475 * 2) / 6
    assert expected_calibration_error(probabilities, labels) == pytest.approx(by_hand)
    counts = [b.count for b in reliability_bins(probabilities, labels)]
    assert counts == [1, 2, 0, 0, 0, 1, 0, 0, 0, 2]


def test_a_perfectly_calibrated_set_has_no_calibration_error() -> None:
    probabilities = [0.25] * 4 + [0.75] * 4
    labels = [True, False, False, False, True, True, True, False]
    assert expected_calibration_error(probabilities, labels) == pytest.approx(0.0)


def test_the_bootstrap_interval_is_seeded_and_holds_the_estimate() -> None:
    confusion = Confusion(true_pass=30, false_pass=8, false_fail=6, true_fail=26)
    first = bootstrap_kappa(confusion, seed=7)
    assert first == bootstrap_kappa(confusion, seed=7)
    assert first != bootstrap_kappa(confusion, seed=8)
    assert first is not None
    low, high = first
    assert low < confusion.kappa < high  # type: ignore[operator]
    assert 0.1 < high - low < 0.7  # about +-0.2 for 70 rows at kappa 0.6


def test_the_bootstrap_interval_narrows_with_more_rows() -> None:
    small = bootstrap_kappa(Confusion(15, 4, 3, 13), seed=1)
    large = bootstrap_kappa(Confusion(150, 40, 30, 130), seed=1)
    assert small is not None and large is not None
    assert large[1] - large[0] < (small[1] - small[0]) / 2


def test_confusions_add_up() -> None:
    total = Confusion(1, 2, 3, 4) + Confusion(4, 3, 2, 1)
    assert total == Confusion(5, 5, 5, 5)
    assert math.isclose(total.accuracy or 0, 0.5)


@pytest.mark.parametrize(
    ("n", "p"), [(5, 0.3), (40, 0.1), (2000, 0.02), (1000, 0.3), (1000, 0.8), (10, 0.0), (10, 1.0)]
)
def test_the_binomial_draws_have_the_binomial_mean_and_variance(n: int, p: float) -> None:
    import random
    import statistics

    from langchain_jev.calibration._metrics import binomial

    rng = random.Random(3)
    draws = [binomial(rng, n, p) for _ in range(4000)]
    assert all(0 <= d <= n for d in draws)
    mean, variance = n * p, n * p * (1 - p)
    assert statistics.fmean(draws) == pytest.approx(mean, abs=4 * math.sqrt(variance / 4000) + 1e-9)
    assert statistics.pvariance(draws) == pytest.approx(variance, rel=0.1, abs=1e-9)


def test_the_bootstrap_interval_matches_resampling_the_rows_one_by_one() -> None:
    import random

    confusion = Confusion(true_pass=30, false_pass=8, false_fail=6, true_fail=26)
    rows = [(True, True)] * 30 + [(True, False)] * 8 + [(False, True)] * 6 + [(False, False)] * 26
    rng = random.Random(11)
    kappas = sorted(
        Confusion.of(*zip(*rng.choices(rows, k=len(rows)), strict=True)).kappa  # type: ignore[arg-type]
        for _ in range(3000)
    )
    naive = (kappas[int(0.025 * 2999)], kappas[int(0.975 * 2999)])
    interval = bootstrap_kappa(confusion, rounds=3000, seed=5)
    assert interval is not None
    assert interval[0] == pytest.approx(naive[0], abs=0.04)
    assert interval[1] == pytest.approx(naive[1], abs=0.04)
