"""`compare_results` and `join_rows`: the same rows joined, different datasets refused, flips ordered."""

from __future__ import annotations

from typing import Any

import pytest

from langchain_jev._errors import ComparisonError
from langchain_jev.compare import compare_results, join_rows


def rec(row: int, outcomes: dict[str, str], *, key: str | None = None, ident: Any = None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "row": row,
        "key": key or f"k{row}",
        "passed": all(o != "FAILED" for o in outcomes.values()),
        "findings": [{"name": n, "kind": "noul", "outcome": o} for n, o in outcomes.items()],
    }
    if ident is not None:
        record["id"] = ident
    return record


def test_rows_are_joined_by_key_whatever_order_the_runs_wrote_them_in() -> None:
    a = [rec(n, {"polite": "PASSED"}) for n in (1, 2, 3)]
    b = [rec(n, {"polite": "PASSED"}) for n in (3, 1, 2)]
    joined = join_rows(a, b)
    assert [(p.a["row"], p.b["row"]) for p in joined.pairs] == [(1, 1), (2, 2), (3, 3)]


def test_identical_rows_pair_by_occurrence() -> None:
    a = [rec(1, {"p": "PASSED"}, key="same"), rec(2, {"p": "FAILED"}, key="same")]
    b = [rec(1, {"p": "PASSED"}, key="same"), rec(2, {"p": "PASSED"}, key="same")]
    joined = join_rows(a, b)
    assert [(p.a["row"], p.b["row"]) for p in joined.pairs] == [(1, 1), (2, 2)]


def test_files_of_different_datasets_are_refused_with_the_reason() -> None:
    a = [rec(n, {"p": "PASSED"}) for n in (1, 2)]
    b = [rec(n, {"p": "PASSED"}, key=f"other{n}") for n in (1, 2, 3)]
    with pytest.raises(ComparisonError, match=r"share no row \(joined by key\): A has 2 rows, B has 3"):
        compare_results(a, b)


def test_edited_rows_are_refused_unless_the_shared_rows_are_asked_for() -> None:
    a = [rec(n, {"p": "PASSED"}) for n in (1, 2, 3)]
    b = [rec(1, {"p": "PASSED"}), rec(2, {"p": "PASSED"}, key="edited"), rec(3, {"p": "FAILED"})]
    with pytest.raises(
        ComparisonError, match=r"2 rows in common, 1 only in A \(row 2\), 1 only in B \(row 2\)"
    ):
        compare_results(a, b)
    comparison = compare_results(a, b, only_shared=True)
    assert (
        len(comparison.joined.pairs) == 2
        and "not compared: 1 rows only in A, 1 only in B" in comparison.table()
    )


def test_a_run_stopped_early_is_a_part_of_the_full_one() -> None:
    a = [rec(n, {"p": "PASSED"}) for n in range(1, 11)]
    comparison = compare_results(a, a[:6])
    assert len(comparison.joined.pairs) == 6 and len(comparison.joined.only_a) == 4


def test_joining_by_id_pairs_rows_answered_again_and_refuses_unnamed_or_repeated_ids() -> None:
    a = [rec(n, {"p": "PASSED"}, ident=f"q{n}") for n in (1, 2)]
    b = [rec(n, {"p": "FAILED"}, key=f"new{n}", ident=f"q{n}") for n in (2, 1)]
    with pytest.raises(ComparisonError, match="join them by id"):
        compare_results(a, b)
    comparison = compare_results(a, b, on="id")
    assert [(p.a["id"], p.b["key"]) for p in comparison.joined.pairs] == [("q1", "new1"), ("q2", "new2")]
    with pytest.raises(ComparisonError, match="row 1 has no id"):
        compare_results([rec(1, {"p": "PASSED"})], b, on="id")
    with pytest.raises(ComparisonError, match="the id 'q1' names more than one row"):
        compare_results([*a, rec(3, {"p": "PASSED"}, ident="q1")], b, on="id")


def test_flips_list_regressions_first_then_criterion_regressions_then_improvements() -> None:
    a = [
        rec(1, {"polite": "PASSED", "short": "PASSED"}),
        rec(2, {"polite": "FAILED", "short": "PASSED"}),
        rec(3, {"polite": "PASSED", "short": "FAILED"}),
        rec(4, {"polite": "PASSED", "short": "PASSED"}),
        rec(5, {"polite": "PASSED", "short": "PASSED"}),
    ]
    b = [
        rec(1, {"polite": "PASSED", "short": "PASSED"}),  # unchanged
        rec(2, {"polite": "PASSED", "short": "PASSED"}),  # improved
        rec(3, {"polite": "FAILED", "short": "PASSED"}),  # still failing, polite regressed
        rec(4, {"polite": "FAILED", "short": "PASSED"}),  # regressed
        rec(5, {"polite": "PASSED", "short": "INCONCLUSIVE"}),  # a criterion regressed, the verdict held
    ]
    comparison = compare_results(a, b)
    order = [(f.pair.a["row"], f.regression, f.verdict) for f in comparison.flips]
    assert order == [(4, True, (True, False)), (3, True, None), (5, True, None), (2, False, (False, True))]
    assert comparison.flips[1].criteria == (("polite", "PASSED", "FAILED"), ("short", "FAILED", "PASSED"))
    polite = comparison.criteria[0].counts
    assert (polite.both, polite.a_only, polite.b_only, polite.neither) == (2, 2, 1, 0)


def test_a_criterion_not_applicable_under_either_run_is_left_out_of_its_pairs() -> None:
    a = [rec(1, {"grounded": "NOT_APPLICABLE"}), rec(2, {"grounded": "PASSED"})]
    b = [rec(1, {"grounded": "FAILED"}), rec(2, {"grounded": "PASSED"})]
    comparison = compare_results(a, b)
    assert comparison.criteria[0].counts.n == 1
    assert [f.pair.a["row"] for f in comparison.flips] == [1]  # the verdict flipped, not the criterion
    assert comparison.flips[0].criteria == ()


def test_criteria_only_one_run_judged_and_the_judges_differences_are_named() -> None:
    a = [rec(1, {"polite": "PASSED", "old": "PASSED"})]
    b = [rec(1, {"polite": "PASSED", "new": "PASSED"})]
    judge_a = {
        "model": "jev-a",
        "options": {},
        "criteria": [{"name": "polite", "kind": "noul", "minimum": 0.5}],
    }
    judge_b = {
        "model": "jev-b",
        "options": {},
        "criteria": [{"name": "polite", "kind": "noul", "minimum": 0.7}],
    }
    headers = ({"fingerprint": "sha256:a", "judge": judge_a}, {"fingerprint": "sha256:b", "judge": judge_b})
    comparison = compare_results(a, b, headers=headers)
    table = comparison.table()
    assert "criteria only A judged (not compared): old" in table
    assert "criteria only B judged (not compared): new" in table
    assert "model 'jev-a' -> 'jev-b'" in table and "criterion 'polite' changed: minimum 0.5 -> 0.7" in table
