"""The tally of a run: pass rates per criterion and overall, as a table and a summary.

Pure: result records (the JSON lines the command writes) go into a `Tally`;
`format_table` and `summary_lines` turn it into text; `text_columns` lines up
the cells of any terminal table of the package.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CriterionTally",
    "Tally",
    "format_rate",
    "format_table",
    "repeated_problem_line",
    "summary_lines",
    "tally_view",
    "text_columns",
]

OUTCOMES = ("PASSED", "FAILED", "INCONCLUSIVE", "ERROR", "NOT_APPLICABLE")
_HEADERS = ("criterion", "kind", "passed", "failed", "inconcl.", "error", "n/a", "pass rate")


@dataclass
class CriterionTally:
    """Outcome counts of one criterion over the judged rows."""

    name: str
    kind: str
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def applicable(self) -> int:
        """Rows where the criterion was decided (everything but NOT_APPLICABLE)."""
        return sum(self.counts[o] for o in OUTCOMES if o != "NOT_APPLICABLE")

    @property
    def pass_rate(self) -> float | None:
        """PASSED over the applicable rows; None when it never applied."""
        return self.counts["PASSED"] / self.applicable if self.applicable else None


class Tally:
    """Counts over result records: rows, passes, rows not judged, and per criterion.

    Example:
        >>> tally = Tally([("polite", "noul")])
        >>> tally.add({"passed": True, "findings": [{"name": "polite", "kind": "noul", "outcome": "PASSED"}]})
        >>> tally.add({"passed": False, "error": "TypeSafeAPIConnectionError: Connection error"})
        >>> tally.rows, tally.passed, tally.errors, tally.pass_rate
        (2, 1, 1, 0.5)

    """

    def __init__(self, criteria: Iterable[tuple[str, str]] = ()) -> None:
        self.criteria: list[CriterionTally] = [CriterionTally(n, k) for n, k in criteria]
        """Per-criterion counts, in declaration order."""
        self._by_name = {c.name: c for c in self.criteria}
        self.rows = 0
        """Rows counted, rows not judged included."""
        self.passed = 0
        """Rows whose verdict passed."""
        self.errors = 0
        """Rows that could not be judged (the decision model failed)."""
        self.partly_judged = 0
        """Rows with a verdict in which some criterion could not be judged (an ERROR finding)."""
        self.error_kinds: Counter[str] = Counter()
        """Rows not judged, by error type."""
        self.first_error: str | None = None
        """The error of the first row not judged, as recorded (keys redacted): what the summary quotes."""
        self.cache_hits = 0
        """Rows answered from the cache."""

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one result record."""
        self.rows += 1
        if "error" in record:
            self.errors += 1
            self.error_kinds[str(record["error"]).split(":", 1)[0].strip() or "error"] += 1
            if self.first_error is None:
                self.first_error = str(record["error"])
            return
        if record.get("passed") is True:
            self.passed += 1
        if record.get("cache_hit") is True:
            self.cache_hits += 1
        unjudged = False
        for finding in record.get("findings") or ():
            name = str(finding.get("name"))
            unjudged = unjudged or finding.get("outcome") == "ERROR"
            tally = self._by_name.get(name)
            if tally is None:
                tally = CriterionTally(name, str(finding.get("kind", "")))
                self.criteria.append(tally)
                self._by_name[name] = tally
            tally.counts[str(finding.get("outcome"))] += 1
        self.partly_judged += unjudged

    @property
    def unjudged(self) -> int:
        """Rows the model did not judge whole: not judged at all, or with an ERROR finding.

        What the exit code counts, whatever the model (one that raised, a jury short of
        its quorum, an answer that could not be read).
        """
        return self.errors + self.partly_judged

    @property
    def judged(self) -> int:
        """Rows with a verdict."""
        return self.rows - self.errors

    @property
    def pass_rate(self) -> float | None:
        """Passed rows over all rows, rows not judged included; None before any row."""
        return self.passed / self.rows if self.rows else None


def tally_view(record: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a result record a `Tally` counts: ``Tally.add`` counts both alike.

    Example:
        >>> tally_view({"row": 1, "passed": True, "feedback": "",
        ...     "findings": [{"name": "polite", "kind": "noul", "outcome": "PASSED", "detail": "ok"}]})
        {'passed': True, 'findings': [{'name': 'polite', 'kind': 'noul', 'outcome': 'PASSED'}]}

    """
    view: dict[str, Any] = {"passed": record.get("passed")}
    if "error" in record:
        view["error"] = record["error"]
    if record.get("cache_hit") is True:
        view["cache_hit"] = True
    view["findings"] = [
        {"name": f.get("name"), "kind": f.get("kind"), "outcome": f.get("outcome")}
        for f in record.get("findings") or ()
    ]
    return view


def format_rate(rate: float | None) -> str:
    """A pass rate as a percentage with one decimal, or ``-`` when there is none.

    Example:
        >>> format_rate(0.8125), format_rate(None)
        ('81.2%', '-')

    """
    return "-" if rate is None else f"{rate * 100:.1f}%"


def format_table(tally: Tally) -> str:
    """The table of pass rates per criterion, then the overall line.

    Example:
        >>> tally = Tally([("polite", "noul")])
        >>> tally.add({"passed": True, "findings": [{"name": "polite", "kind": "noul", "outcome": "PASSED"}]})
        >>> print(format_table(tally))
        criterion  kind  passed  failed  inconcl.  error  n/a  pass rate
        polite     noul       1       0         0      0    0     100.0%
        overall    rows       1       0                           100.0%

    """
    body: list[Sequence[str]] = []
    for criterion in tally.criteria:
        counts = criterion.counts
        body.append(
            (
                criterion.name,
                criterion.kind,
                *(str(counts[o]) for o in OUTCOMES),
                format_rate(criterion.pass_rate),
            )
        )
    overall = (
        "overall",
        "rows",
        str(tally.passed),
        str(tally.rows - tally.passed - tally.errors),
        "",
        str(tally.errors) if tally.errors else "",
        "",
        format_rate(tally.pass_rate),
    )
    return text_columns([_HEADERS, *body, overall])


def text_columns(rows: Sequence[Sequence[str]], left: Collection[int] = (0, 1)) -> str:
    """Rows of cells as a terminal table: columns two spaces apart, those in ``left`` left-aligned.

    The other columns (counts, rates) are right-aligned; each line's trailing space is dropped.

    Example:
        >>> print(text_columns([("criterion", "n", "note"), ("polite", "12", "ok")], left=(0, 2)))
        criterion   n  note
        polite     12  ok

    """
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))] if rows else []
    return "\n".join(
        "  ".join(
            cell.ljust(widths[i]) if i in left else cell.rjust(widths[i]) for i, cell in enumerate(row)
        ).rstrip()
        for row in rows
    )


def repeated_problem_line(label: str, rows: int, line: int, problem: str) -> str:
    """The one line for a problem several rows had: each engine says it once with its first row, then this.

    Example:
        >>> repeated_problem_line("rows.csv", 200, 2, "missing 'answer'")
        "rows.csv: 200 rows skipped in all for this (the first at line 2): missing 'answer'"

    """
    return f"{label}: {rows} rows skipped in all for this (the first at line {line}): {problem}"


def summary_lines(
    tally: Tally,
    *,
    bad_rows: int = 0,
    fail_under: float | None = None,
    stopped: str | None = None,
) -> list[str]:
    """Plain sentences under the table: totals, rows not judged, bad rows, the threshold.

    Example:
        >>> tally = Tally()
        >>> for passed in (True, True, False):
        ...     tally.add({"passed": passed, "findings": []})
        >>> summary_lines(tally, fail_under=0.9)[-1]
        'FAIL: pass rate 66.7% is under --fail-under 90.0%'

    """
    lines = [
        f"{tally.rows} row{_s(tally.rows)}: {tally.passed} passed, "
        f"{tally.judged - tally.passed} failed, pass rate {format_rate(tally.pass_rate)}"
        + (f" ({tally.cache_hits} answered from the cache)" if tally.cache_hits else "")
    ]
    if tally.errors:
        kinds = ", ".join(f"{kind} x{count}" for kind, count in tally.error_kinds.most_common())
        lines.append(
            f"{tally.errors} row{_s(tally.errors)} could not be judged ({kinds}): "
            "recorded as errors and counted as not passed"
        )
        if tally.first_error:
            lines.append(f"the first: {tally.first_error}")
    if tally.partly_judged:
        lines.append(
            f"{tally.partly_judged} row{_s(tally.partly_judged)} had a criterion the model could not "
            "judge (ERROR in the table)"
        )
    if bad_rows:
        lines.append(f"{bad_rows} bad input row{_s(bad_rows)} skipped (named above); not in the pass rate")
    if stopped:
        lines.append(stopped)
    if fail_under is not None and tally.pass_rate is not None and tally.pass_rate < fail_under:
        lines.append(
            f"FAIL: pass rate {format_rate(tally.pass_rate)} is under --fail-under {format_rate(fail_under)}"
        )
    return lines


def _s(count: int) -> str:
    return "" if count == 1 else "s"
