"""Two runs compared: per criterion both pass rates and whether the move is more than noise; the flipped rows.

`compare_results` joins two runs' records row by row (`langchain_jev.compare._join`)
and returns a `Comparison`: for each criterion both runs judged, and for the
overall verdict, the paired counts with both pass rates, their difference, its
95% interval and McNemar's p (`langchain_jev.compare._stats`); the rows whose
verdict or a criterion flipped, regressions first; and, when the results files'
headers describe different judges, what differs. `compare_files` reads two
results files; `Comparison.table` is the terminal's view of it.

A criterion *passes* a row when its outcome is PASSED (as the pass-rate table
counts it); it is compared on the rows where it applied under both runs. The
overall verdict is the row's ``passed``; a row that could not be judged counts
as not passed, as in the run's own pass rate.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_jev.compare._join import Joined, JoinOn, RowPair, join_rows, row_name
from langchain_jev.compare._stats import PairedCounts
from langchain_jev.datasets._tally import text_columns

__all__ = ["Comparison", "CriterionChange", "Flip", "compare_files", "compare_results"]


@dataclass(frozen=True)
class CriterionChange:
    """One criterion (or the overall verdict) under both runs, over the rows both judged it on.

    Example:
        >>> from langchain_jev.compare import PairedCounts
        >>> CriterionChange("polite", "noul", PairedCounts(both=80, a_only=3, b_only=1, neither=16)).verdict
        'within noise'

    """

    name: str
    kind: str
    counts: PairedCounts

    @property
    def verdict(self) -> str:
        """Whether the move is more than noise (`PairedCounts.verdict`)."""
        return self.counts.verdict

    def to_dict(self) -> dict[str, Any]:
        """The change as plain data."""
        return {"name": self.name, "kind": self.kind, **self.counts.to_dict()}


@dataclass(frozen=True)
class Flip:
    """A row whose verdict, or one of whose criteria, passed under one run and not the other.

    Example:
        >>> def rec(ok):
        ...     return {"row": 1, "key": "k", "passed": ok, "findings": []}
        >>> flip = compare_results([rec(True)], [rec(False)]).flips[0]
        >>> flip.regression, flip.verdict, flip.label
        (True, (True, False), 'regression')

    """

    pair: RowPair
    regression: bool
    """True when something that passed under A does not under B (B is the newer run)."""
    verdict: tuple[bool, bool] | None
    """``(passed under A, passed under B)`` when the verdict flipped, else None."""
    criteria: tuple[tuple[str, str, str], ...]
    """``(criterion, outcome under A, outcome under B)`` for each criterion that flipped."""

    @property
    def label(self) -> str:
        """``regression`` or ``improvement``, and whether the verdict itself flipped."""
        what = "regression" if self.regression else "improvement"
        return what if self.verdict is not None else f"{what} (a criterion; the verdict held)"

    def to_dict(self) -> dict[str, Any]:
        """The flip as plain data (the rows named, not copied)."""
        return {
            "row": self.pair.a.get("row"),
            "id": self.pair.a.get("id"),
            "key": self.pair.a.get("key"),
            "regression": self.regression,
            "verdict": list(self.verdict) if self.verdict is not None else None,
            "criteria": [list(c) for c in self.criteria],
        }


@dataclass(frozen=True)
class Comparison:
    """Two runs of the same rows compared (see the module docstring); made by `compare_results`.

    Example:
        >>> rows = [{"row": n, "key": f"k{n}", "passed": True, "findings": []} for n in (1, 2)]
        >>> comparison = compare_results(rows, rows)
        >>> len(comparison.joined.pairs), comparison.flips, comparison.overall.counts.rate_b
        (2, [], 1.0)

    """

    labels: tuple[str, str]
    joined: Joined
    criteria: list[CriterionChange]
    overall: CriterionChange
    flips: list[Flip]
    judge_differences: list[str] = field(default_factory=list)
    """What differs between the judges the two files' headers describe (empty: the same, or unknown)."""
    only_in: tuple[list[str], list[str]] = ([], [])
    """Criteria only A judged, and only B."""
    headers: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None] = (None, None)

    @property
    def regressions(self) -> list[Flip]:
        """The flips that are regressions."""
        return [f for f in self.flips if f.regression]

    def to_dict(self) -> dict[str, Any]:
        """Every figure, as plain data."""
        return {
            "labels": list(self.labels),
            "joined_on": self.joined.on,
            "rows": len(self.joined.pairs),
            "only_a": len(self.joined.only_a),
            "only_b": len(self.joined.only_b),
            "judge_differences": list(self.judge_differences),
            "criteria_only_in_a": list(self.only_in[0]),
            "criteria_only_in_b": list(self.only_in[1]),
            "criteria": [c.to_dict() for c in self.criteria],
            "overall": self.overall.to_dict(),
            "flips": [f.to_dict() for f in self.flips],
        }

    def table(self, *, flips: int = 20) -> str:
        """The comparison as the terminal shows it: a table per criterion, then the first ``flips`` flips.

        Example:
            >>> a = [{"row": 1, "key": "k", "passed": True, "findings": [
            ...     {"name": "polite", "kind": "noul", "outcome": "PASSED"}]}]
            >>> b = [{"row": 1, "key": "k", "passed": False, "findings": [
            ...     {"name": "polite", "kind": "noul", "outcome": "FAILED"}]}]
            >>> print(compare_results(a, b).table())  # doctest: +NORMALIZE_WHITESPACE
            criterion  kind  rows  A       B     B - A (points)  95% interval     McNemar p
            polite     noul     1  100.0%  0.0%  -100.0          [-100.0, +12.2]  1.000  within noise
            overall    rows     1  100.0%  0.0%  -100.0          [-100.0, +12.2]  1.000  within noise
            <BLANKLINE>
            1 row compared (joined by key); 1 flipped: 1 regression, 0 improvements
            flipped rows, regressions first:
              regression  row 1: passed -> failed; polite PASSED -> FAILED

        """
        first, second = self.labels
        headers = (
            "criterion",
            "kind",
            "rows",
            first,
            second,
            f"{second} - {first} (points)",
            "95% interval",
            "McNemar p",
            "",
        )
        body: list[tuple[str, ...]] = [headers]
        for change in [*self.criteria, self.overall]:
            c = change.counts
            interval = c.interval
            body.append(
                (
                    change.name,
                    change.kind,
                    str(c.n),
                    _rate(c.rate_a),
                    _rate(c.rate_b),
                    _points(c.difference),
                    f"[{_points(interval[0])}, {_points(interval[1])}]" if interval else "-",
                    f"{c.p_value:.3f}" if c.n else "-",
                    change.verdict,
                )
            )
        lines = [text_columns(body, left=(0, 1, 8)), ""]
        lines.extend(self.notes())
        if self.flips and flips:
            lines.append("flipped rows, regressions first:")
        for flip in self.flips[:flips]:
            lines.append("  " + _flip_line(flip))
        if len(self.flips) > flips:
            lines.append(f"  ... and {len(self.flips) - flips} more flipped rows (--html shows every one)")
        return "\n".join(lines)

    def notes(self) -> list[str]:
        """The sentences under the table: rows compared, flips, what only one side has, the judges."""
        first, second = self.labels
        rows = len(self.joined.pairs)
        regressions = len(self.regressions)
        lines = [
            f"{rows} row{_s(rows)} compared (joined by {self.joined.on}); {len(self.flips)} flipped: "
            f"{regressions} regression{_s(regressions)}, {len(self.flips) - regressions} "
            f"improvement{_s(len(self.flips) - regressions)}"
        ]
        if self.joined.only_a or self.joined.only_b:
            lines.append(
                f"not compared: {len(self.joined.only_a)} rows only in {first}, "
                f"{len(self.joined.only_b)} only in {second}"
            )
        for side, names in zip(self.labels, self.only_in, strict=True):
            if names:
                lines.append(f"criteria only {side} judged (not compared): {', '.join(names)}")
        if self.judge_differences:
            lines.append(f"the judges differ ({first} -> {second}):")
            lines.extend(f"  {line}" for line in self.judge_differences)
        return lines


def _s(count: int) -> str:
    return "" if count == 1 else "s"


def _rate(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}%"


def _points(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f}"


def _flip_line(flip: Flip) -> str:
    parts = []
    if flip.verdict is not None:
        parts.append(f"{_word(flip.verdict[0])} -> {_word(flip.verdict[1])}")
    parts.extend(f"{name} {old} -> {new}" for name, old, new in flip.criteria)
    what = "regression" if flip.regression else "improvement"
    return f"{what:<11} {row_name(flip.pair.a)}: " + "; ".join(parts)


def _word(passed: bool) -> str:
    return "passed" if passed else "failed"


def _findings(record: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    found = record.get("findings")
    if not isinstance(found, list):
        return {}
    return {str(f.get("name")): f for f in found if isinstance(f, Mapping)}


def _names(records: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    names: dict[str, str] = {}
    for record in records:
        for name, finding in _findings(record).items():
            names.setdefault(name, str(finding.get("kind", "")))
    return names


def _flip(pair: RowPair, names: Sequence[str]) -> Flip | None:
    passed_a, passed_b = pair.a.get("passed") is True, pair.b.get("passed") is True
    findings_a, findings_b = _findings(pair.a), _findings(pair.b)
    flipped = []
    for name in names:
        old, new = findings_a.get(name), findings_b.get(name)
        if old is None or new is None:
            continue
        before, after = str(old.get("outcome")), str(new.get("outcome"))
        if "NOT_APPLICABLE" in (before, after) or (before == "PASSED") == (after == "PASSED"):
            continue
        flipped.append((name, before, after))
    verdict = (passed_a, passed_b) if passed_a != passed_b else None
    if verdict is None and not flipped:
        return None
    regression = (
        passed_a and not passed_b if verdict is not None else any(b == "PASSED" for _, b, _ in flipped)
    )
    return Flip(pair, regression, verdict, tuple(flipped))


def compare_results(
    a: Sequence[Mapping[str, Any]],
    b: Sequence[Mapping[str, Any]],
    *,
    labels: tuple[str, str] = ("A", "B"),
    on: JoinOn = "key",
    only_shared: bool = False,
    headers: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None] = (None, None),
) -> Comparison:
    """Compare two runs' records of the same rows (B is the newer run: what A passed and B fails regressed).

    ``headers`` are the results files' headers (`langchain_jev.datasets._stored.read_header`):
    when both describe their judge, what differs between the judges is named.

    Raises:
        ComparisonError: the records are of different datasets (see `join_rows`).

    Example:
        >>> def rec(row, ok):
        ...     return {"row": row, "key": f"k{row}", "passed": ok, "findings": [
        ...         {"name": "polite", "kind": "noul", "outcome": "PASSED" if ok else "FAILED"}]}
        >>> before = [rec(n, True) for n in range(1, 21)]
        >>> after = [rec(n, n > 12) for n in range(1, 21)]  # 12 rows regressed
        >>> comparison = compare_results(before, after)
        >>> polite = comparison.criteria[0]
        >>> polite.counts.rate_a, polite.counts.rate_b, polite.verdict, len(comparison.regressions)
        (1.0, 0.4, 'more than noise', 12)

    """
    joined = join_rows(a, b, on=on, only_shared=only_shared, labels=labels)
    names_a, names_b = _names([p.a for p in joined.pairs]), _names([p.b for p in joined.pairs])
    shared = [name for name in names_a if name in names_b]
    counts = {name: PairedCounts() for name in shared}
    overall = PairedCounts()
    flips: list[Flip] = []
    for pair in joined.pairs:
        overall = overall.add(pair.a.get("passed") is True, pair.b.get("passed") is True)
        findings_a, findings_b = _findings(pair.a), _findings(pair.b)
        for name in shared:
            old, new = findings_a.get(name), findings_b.get(name)
            if old is None or new is None or "NOT_APPLICABLE" in (old.get("outcome"), new.get("outcome")):
                continue
            counts[name] = counts[name].add(old.get("outcome") == "PASSED", new.get("outcome") == "PASSED")
        flip = _flip(pair, shared)
        if flip is not None:
            flips.append(flip)
    flips.sort(key=lambda f: (not f.regression, f.verdict is None, _order(f.pair.a)))
    return Comparison(
        labels,
        joined,
        [CriterionChange(name, names_a[name], counts[name]) for name in shared],
        CriterionChange("overall", "rows", overall),
        flips,
        _judge_differences(*headers),
        ([n for n in names_a if n not in names_b], [n for n in names_b if n not in names_a]),
        headers,
    )


def _order(record: Mapping[str, Any]) -> float:
    number = record.get("row")
    return float(number) if isinstance(number, int) else float("inf")


def _judge_differences(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> list[str]:
    from langchain_jev.datasets._fingerprint import differences

    judge_a = a.get("judge") if a else None
    judge_b = b.get("judge") if b else None
    if not isinstance(judge_a, Mapping) or not isinstance(judge_b, Mapping):
        return []
    if a is not None and b is not None and a.get("fingerprint") == b.get("fingerprint"):
        return []
    return differences(judge_a, judge_b)


def compare_files(
    a: str | os.PathLike[str],
    b: str | os.PathLike[str],
    *,
    on: JoinOn = "key",
    only_shared: bool = False,
    labels: tuple[str, str] | None = None,
) -> Comparison:
    """Compare two results files of `langchain-jev judge` (B the newer run); see `compare_results`.

    Raises:
        ResultsError: a file cannot be read or is not a results file.
        ComparisonError: the files are of different datasets.

    Example::

        comparison = compare_files("before.jsonl", "after.jsonl")
        print(comparison.table())

    """
    from langchain_jev.datasets._stored import read_results_file

    first, second = read_results_file(a), read_results_file(b)
    return compare_results(
        first.records,
        second.records,
        labels=labels or ("A", "B"),
        on=on,
        only_shared=only_shared,
        headers=(first.header, second.header),
    )
