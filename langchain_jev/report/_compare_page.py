"""The comparison's page: both runs' provenance, each criterion's move with its interval, the flipped rows.

Built like the run's report (`langchain_jev.report._page`): the data of the rows
(`langchain_jev.report._data.row_data` for each side), the layout
(`langchain_jev.report._layout`) and the one script its policy allows. Each
flipped row opens to both runs' judged state and findings side by side, the
findings that flipped marked; regressions come first and are marked in red.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from langchain_jev._judge import JevJudge
from langchain_jev.compare._comparison import Comparison, CriterionChange
from langchain_jev.datasets._writing import write_atomic
from langchain_jev.report._data import BORDERLINE, MAX_ROWS, criterion_threshold, row_data
from langchain_jev.report._layout import document, escape, provenance_pair, rows_section
from langchain_jev.report._provenance import Provenance

__all__ = ["render_comparison", "write_comparison"]

_OUTCOMES = (("any", "every flipped row"), ("regression", "regressions"), ("improvement", "improvements"))


def write_comparison(
    path: str | os.PathLike[str],
    comparison: Comparison,
    judge: JevJudge | None,
    **options: Any,
) -> None:
    """Write the comparison's page to ``path`` (see `render_comparison` for ``options``).

    Raises:
        OSError: the file cannot be written.

    """
    page = render_comparison(comparison, judge, **options)
    write_atomic(path, page)  # whole or not at all; a lone surrogate as its escape


def render_comparison(
    comparison: Comparison,
    judge: JevJudge | None,
    *,
    title: str | None = None,
    states: tuple[Mapping[Any, Mapping[str, Any]] | None, Mapping[Any, Mapping[str, Any]] | None] = (
        None,
        None,
    ),
    provenance: tuple[Provenance | None, Provenance | None] = (None, None),
    limit: int = MAX_ROWS,
) -> str:
    """The comparison as one self-contained HTML page.

    ``judge`` names the criteria and their thresholds (B's judge: the newer run's; None:
    unknown, findings shown as recorded);
    ``states`` gives each side's judged state by row number.

    Example:
        >>> from langchain_jev.compare import compare_results
        >>> from langchain_jev.calibration import NoRequestModel
        >>> from langchain_jev.spec import load_judge
        >>> judge = load_judge({"criteria": [{"kind": "noul", "name": "polite", "instructions": "Polite?",
        ...     "minimum": 0.5}]}, model=NoRequestModel())
        >>> def rec(ok):
        ...     return {"row": 1, "key": "k", "passed": ok, "findings": [
        ...         {"name": "polite", "kind": "noul", "outcome": "PASSED" if ok else "FAILED"}]}
        >>> page = render_comparison(compare_results([rec(True)], [rec(False)]), judge)
        >>> page.startswith("<!DOCTYPE html>"), '"regression":true' in page
        (True, True)

    """
    first, second = comparison.labels
    criteria = list(judge.criteria) if judge is not None else []
    names = [c.name for c in criteria]
    for change in comparison.criteria:
        if change.name not in names:
            names.append(change.name)
    index = {name: i for i, name in enumerate(names)}
    by_name = {c.name: c for c in criteria}
    rows = []
    for flip in comparison.flips[:limit]:
        pair = flip.pair
        sides = []
        for record, given in ((pair.a, states[0]), (pair.b, states[1])):
            number = record.get("row")
            place = number if isinstance(number, int) else record.get("key")
            state = given.get(place) if given is not None and place is not None else None
            note = None if state is not None else "The judged state is not in this report."
            sides.append(row_data(judge, record, state, index, note))
        rows.append(
            {
                "a": sides[0],
                "b": sides[1],
                "n": pair.a.get("row"),
                "flip": flip.label,
                "regression": flip.regression,
                "flipped": [index[name] for name, _, _ in flip.criteria if name in index],
            }
        )
    data = {
        "compare": True,
        "labels": [first, second],
        "criteria": [
            {
                "name": name,
                "kind": by_name[name].kind if name in by_name else _kind(comparison, name),
                "threshold": _threshold(judge, name),
            }
            for name in names
        ],
        "borderline": BORDERLINE,
        "rows": rows,
        "total": len(comparison.flips),
        "left_out": max(0, len(comparison.flips) - limit),
    }
    heading = title or f"compare: {first} -> {second}"
    left_out = max(0, len(comparison.flips) - limit)
    note = (
        f"{len(rows)} flipped rows, regressions first (a row whose verdict passed under {first} and fails "
        f"under {second}, then rows where only a criterion regressed), then improvements. "
        "Open a row for both runs side by side; findings that flipped are marked."
        + (f" {left_out} more flipped rows are left out (the terminal table lists them)." if left_out else "")
    )
    body = [
        f"<h1>{escape(heading)}</h1>",
        provenance_pair(comparison.labels, provenance),
        "<h2>Pass rates</h2>",
        f'<p class="note">Over the {len(comparison.joined.pairs)} rows both runs judged (joined by '
        f"{escape(comparison.joined.on)}), paired: the difference {escape(second)} - {escape(first)} in "
        "percentage points, Newcombe's 95% interval for paired rates, and McNemar's exact test. "
        "A move is more than noise when p is under 0.05 and the interval leaves out 0, within noise "
        "when neither; when the two disagree there are too few rows to tell.</p>",
        _table(comparison, index),
        *(f'<p class="note">{escape(line)}</p>' for line in comparison.notes()),
        rows_section(
            "Flipped rows",
            ("row", "id", "change", "verdict", "flipped criteria"),
            note,
            outcomes=_OUTCOMES,
        ),
    ]
    return document(heading, body, data)


def _kind(comparison: Comparison, name: str) -> str:
    return next((c.kind for c in comparison.criteria if c.name == name), "")


def _threshold(judge: JevJudge | None, name: str) -> str:
    if judge is None:
        return ""
    for criterion in judge.criteria:
        if criterion.name == name:
            return criterion_threshold(criterion, judge.min_confidence)
    return ""


def _table(comparison: Comparison, index: Mapping[str, int]) -> str:
    first, second = comparison.labels
    head = (
        '<table id="compare-table"><tr><th class="text">criterion</th><th class="text">kind</th>'
        f"<th>rows</th><th>{escape(first)}</th><th>{escape(second)}</th><th>difference (points)</th>"
        '<th>95% interval</th><th>McNemar p</th><th class="text"></th></tr>'
    )
    parts = [head]
    for change in [*comparison.criteria, comparison.overall]:
        parts.append(_table_row(change, index))
    parts.append("</table>")
    return "".join(parts)


def _table_row(change: CriterionChange, index: Mapping[str, int]) -> str:
    c = change.counts
    interval = c.interval
    moved = change.verdict == "more than noise"
    mark = "" if not moved else (' class="fail"' if (c.difference or 0) < 0 else ' class="pass"')
    name = escape(change.name)
    if change.name in index and change.kind != "rows":
        name = f'<a href="#rows" data-criterion="{index[change.name]}" title="its flipped rows">{name}</a>'
    return (
        f'<tr{mark}><td class="text">{name}</td><td class="text">{escape(change.kind)}</td><td>{c.n}</td>'
        f"<td>{_rate(c.rate_a)}</td><td>{_rate(c.rate_b)}</td><td>{_points(c.difference)}</td>"
        f"<td>{'-' if interval is None else f'{_points(interval[0])} to {_points(interval[1])}'}</td>"
        f'<td>{f"{c.p_value:.3f}" if c.n else "-"}</td><td class="text">{escape(change.verdict)}</td></tr>'
    )


def _rate(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}%"


def _points(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f}"
