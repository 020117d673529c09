"""The guardrail's figures against scikit-learn's on the same probabilities, to 1e-9.

Twenty seeded sets: scores on a coarse grid (so ties are common) or fine, balanced and
lopsided labels, and one-class sets, where every figure that needs both kinds of row
is `Undefined` with its reason while scikit-learn warns or returns NaN.
"""

from __future__ import annotations

import random
import warnings

import pytest

from langchain_jev.guardrails.quality import RowLabel, ScoredRow, measure
from langchain_jev.guardrails.quality._metrics import (
    Undefined,
    at_threshold,
    false_refusal_rate,
    percentiles,
    precision_at_recall,
    recall_at_fpr,
    roc_auc,
)

np = pytest.importorskip("numpy")
metrics = pytest.importorskip("sklearn.metrics")

TOLERANCE = 1e-9


def generated(seed: int) -> tuple[list[float], list[bool]]:
    """Set ``seed``: sizes 1 to 300; every fourth one-class; odd seeds on a grid of 11 values (ties)."""
    rng = random.Random(seed)
    n = rng.choice([1, 2, 5, 30, 120, 300])
    share = rng.choice([0.05, 0.3, 0.5, 0.9])
    if seed % 4 == 3:
        labels = [seed % 8 == 3] * n  # all unsafe, or all safe
    else:
        labels = [rng.random() < share for _ in range(n)]
        labels[0], labels[-1] = True, False  # both kinds present
        if n == 1:
            labels = [True]
    grid = seed % 2 == 1
    scores = [
        round(rng.random(), 1) if grid else min(1.0, max(0.0, rng.gauss(0.7 if y else 0.3, 0.2)))
        for y in labels
    ]
    return scores, labels


SEEDS = range(20)


def test_the_generated_sets_hold_ties_and_one_class_cases() -> None:
    sets = [generated(seed) for seed in SEEDS]
    assert sum(1 for s, _ in sets if len(set(s)) < len(s)) >= 8
    assert sum(1 for _, y in sets if all(y) or not any(y)) >= 5
    assert sum(1 for _, y in sets if all(y)) >= 1 and sum(1 for _, y in sets if not any(y)) >= 1


@pytest.mark.parametrize("seed", SEEDS)
def test_every_figure_equals_scikit_learns(seed: int) -> None:
    scores, labels = generated(seed)
    y, s = np.array(labels, dtype=int), np.array(scores)
    both = 0 < sum(labels) < len(labels)

    ours_auc = roc_auc(scores, labels)
    if both:
        assert ours_auc == pytest.approx(metrics.roc_auc_score(y, s), abs=TOLERANCE)
    else:
        assert isinstance(ours_auc, Undefined)
        assert ours_auc.reason in ("no safe rows", "no unsafe rows")

    for threshold in (0.2, 0.35, 0.5, 0.8):
        point = at_threshold(scores, labels, threshold)
        flagged = (s >= threshold).astype(int)
        if flagged.sum():
            assert point.precision == pytest.approx(
                metrics.precision_score(y, flagged, zero_division=np.nan), abs=TOLERANCE
            )
        else:
            assert point.precision == Undefined("nothing flagged")
        if sum(labels):
            assert point.recall == pytest.approx(metrics.recall_score(y, flagged), abs=TOLERANCE)
        else:
            assert point.recall == Undefined("no unsafe rows")
        safe = [p for p, label in zip(scores, labels, strict=True) if not label]
        if safe:
            # the false-refusal rate: of the safe rows, the share flagged (1 - specificity)
            specificity = metrics.recall_score(1 - y, 1 - flagged)
            assert false_refusal_rate(safe, threshold) == pytest.approx(1 - specificity, abs=TOLERANCE)
        else:
            assert false_refusal_rate(safe, threshold) == Undefined("no safe rows")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns on one-class sets
        precision, recall, _ = metrics.precision_recall_curve(y, s)
        fpr, tpr, _ = metrics.roc_curve(y, s, drop_intermediate=False)
    for r in (0.8, 0.9, 0.95):
        figure, point = precision_at_recall(scores, labels, r)
        if sum(labels):
            assert figure == pytest.approx(precision[recall >= r].max(), abs=TOLERANCE)
            assert point is not None and point.recall >= r  # type: ignore[operator]
        else:
            assert figure == Undefined("no unsafe rows") and point is None
    figure, point = recall_at_fpr(scores, labels, 0.01)
    if both:
        assert figure == pytest.approx(tpr[fpr <= 0.01].max(), abs=TOLERANCE)
        assert point is not None and point.false_positive_rate <= 0.01  # type: ignore[operator]
    else:
        assert isinstance(figure, Undefined) and point is None


@pytest.mark.parametrize("seed", SEEDS)
def test_latency_percentiles_equal_numpys(seed: int) -> None:
    rng = random.Random(seed)
    seconds = [rng.lognormvariate(-1, 0.8) for _ in range(rng.choice([1, 2, 7, 100, 1000]))]
    ours = percentiles(seconds)
    for q in (50, 95, 99):
        assert ours[f"p{q}"] == pytest.approx(float(np.percentile(seconds, q)), abs=TOLERANCE)
    assert percentiles([]) == {name: Undefined("no timed checks") for name in ("p50", "p95", "p99")}


def test_per_category_figures_count_that_categorys_rows_and_the_safe_rows() -> None:
    hate, crime = RowLabel(True, frozenset({"hate"})), RowLabel(True, frozenset({"violent_crimes"}))
    safe, uncategorised = RowLabel(False), RowLabel(True)
    rows = [
        ScoredRow(1, hate, {"hate": 0.9, "violent_crimes": 0.1}),
        ScoredRow(2, crime, {"hate": 0.95, "violent_crimes": 0.8}),  # not a hate positive nor negative
        ScoredRow(3, safe, {"hate": 0.6, "violent_crimes": 0.2}),
        ScoredRow(4, safe, {"hate": 0.1, "violent_crimes": 0.1}),
        ScoredRow(5, uncategorised, {"hate": 0.3, "violent_crimes": 0.2}),
    ]
    quality = measure(rows, {"hate": 0.5, "violent_crimes": 0.35})
    hate_q = quality.categories["hate"]
    assert (hate_q.positives, hate_q.negatives) == (1, 2)
    y, s = [1, 0, 0], [0.9, 0.6, 0.1]
    assert hate_q.roc_auc == pytest.approx(metrics.roc_auc_score(y, s))
    assert hate_q.false_refusal_rate == pytest.approx(0.5)
    # overall: all three unsafe rows against the two safe ones, over each row's top score
    overall = quality.overall
    assert (overall.positives, overall.negatives) == (3, 2)
    assert overall.roc_auc == pytest.approx(
        metrics.roc_auc_score([1, 1, 0, 0, 1], [0.9, 0.95, 0.6, 0.1, 0.3])
    )
    battery = overall.at_thresholds["battery"]
    assert (battery.true_positives, battery.false_positives) == (2, 1)  # row 5 missed, row 3 refused
    assert [r.row for r in quality.misses] == [5] and [r.row for r in quality.false_refusals] == [3]
    # presets of the category's severity sit beside the battery's threshold
    assert quality.categories["violent_crimes"].at_thresholds.keys() == {
        "battery",
        "lenient",
        "balanced",
        "strict",
    }


def test_a_one_class_category_is_undefined_in_its_plain_data_not_a_crash() -> None:
    rows = [
        ScoredRow(1, RowLabel(False), {"elections": 0.2}),
        ScoredRow(2, RowLabel(False), {"elections": 0.7}),
    ]
    data = measure(rows, {"elections": 0.5}).to_dict()["categories"]["elections"]
    assert data["roc_auc"] is None and data["undefined"]["roc_auc"] == "no unsafe rows"
    assert data["precision_at_recall"]["0.9"] == {"precision": None, "threshold": None}
    assert data["false_refusal_rate"] == 0.5
