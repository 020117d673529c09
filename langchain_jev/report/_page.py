"""The HTML report: one self-contained page of a run (or a calibration) that opens from disk.

The page is put together from three parts that change apart: its data
(`langchain_jev.report._data`: the rows it carries, their findings and
closeness), its layout (`langchain_jev.report._layout`, and
`langchain_jev.report._calibration_view` for a calibration) and its one script
(`langchain_jev.report._script`), which the page's Content-Security-Policy
allows by its hash and nothing else. At the top: where the results came from
(`Provenance`); then the pass rates (each criterion's name opens its failing
rows), the charts, and the rows themselves, each openable to its judged state
and every finding, with filters, search and a sort by closeness to a threshold.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from typing_extensions import Unpack

from langchain_jev._judge import JevJudge
from langchain_jev.datasets._tally import Tally
from langchain_jev.datasets._writing import write_atomic
from langchain_jev.report._data import MAX_ROWS, TEXT_CAP, Measured, measure, select_rows, viewer_data
from langchain_jev.report._layout import (
    document,
    escape,
    pass_table,
    provenance_block,
    rows_section,
    summary_line,
)
from langchain_jev.report._provenance import Provenance

if TYPE_CHECKING:
    from langchain_jev.calibration._measure import Calibration
    from langchain_jev.calibration._suggest import Suggestion

__all__ = ["TARGET", "ReportOptions", "StateSource", "render_report", "write_report"]

TARGET = 0.8
"""The pass rate bars are coloured against when no ``target`` is given (the run's --fail-under wins)."""

StateSource = (
    Mapping[Any, Mapping[str, Any]] | Callable[[Sequence[Mapping[str, Any]]], Mapping[Any, Mapping[str, Any]]]
)
"""The judged state of rows by row number: a mapping, or a function given the records the page carries."""


class ReportOptions(TypedDict, total=False):
    """What `write_report` takes besides the path, the judge and the records: `render_report`'s options."""

    title: str
    calibration: Calibration | None
    suggestion: Suggestion | None
    states: StateSource | None
    provenance: Provenance | None
    target: float | None
    limit: int
    notes: Sequence[str] | None


def write_report(
    path: str | os.PathLike[str],
    judge: JevJudge,
    records: Sequence[Mapping[str, Any]],
    **options: Unpack[ReportOptions],
) -> None:
    """Write the report of ``records`` (judged by ``judge``) to ``path`` as one HTML file.

    ``options`` are `render_report`'s (the title, the calibration, the states, ...).

    Raises:
        ImportError: matplotlib is not installed (the ``report`` extra).
        OSError: the file cannot be written.

    Example::

        from langchain_jev.calibration import NoRequestModel, read_results
        from langchain_jev.spec import load_judge

        judge = load_judge("judge.yaml", model=NoRequestModel())
        write_report("report.html", judge, read_results("results.jsonl"), title="nightly run")

    """
    write_atomic(
        path, render_report(judge, records, **options)
    )  # whole or not at all; a lone surrogate as its escape


def render_report(
    judge: JevJudge,
    records: Sequence[Mapping[str, Any]],
    *,
    title: str = "langchain-jev report",
    calibration: Calibration | None = None,
    suggestion: Suggestion | None = None,
    states: StateSource | None = None,
    provenance: Provenance | None = None,
    target: float | None = None,
    limit: int = MAX_ROWS,
    notes: Sequence[str] | None = None,
) -> str:
    r"""The report as HTML text (see `write_report`).

    ``states`` gives each row's judged state (the fields the judge read), by row
    number; ``provenance`` what the page says of the run; ``target`` the pass rate
    bars are coloured against (`TARGET` when None); ``limit`` the rows it carries;
    ``notes`` sentences shown above the rows (read after ``states`` ran, which may add to them).

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
        >>> from langchain_jev.calibration import NoRequestModel
        >>> polite = JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.7)
        >>> judge = JevJudge([polite], NoRequestModel())
        >>> answer = {"type": "noul", "noul": 0.2}
        >>> finding = {"name": "polite", "kind": "noul", "outcome": "FAILED", "answer": answer}
        >>> record = {"row": 1, "key": "k", "passed": False, "feedback": "polite: <rude>",
        ...     "findings": [finding]}
        >>> page = render_report(judge, [record], title="run", states={1: {"assistant_answer": "No."}})
        >>> page.startswith("<!DOCTYPE html>"), "<svg" in page, "polite: \\u003crude\\u003e" in page
        (True, True, True)

    """
    from langchain_jev.report import _charts as charts

    goal = TARGET if target is None else target
    tally = Tally((c.name, c.kind) for c in judge.criteria)
    for record in records:
        tally.add(record)
    first: list[Mapping[str, Any]] = []
    disagreeing: list[Any] = []
    if calibration is not None:
        disagreeing = calibration.disagreements()
        seen: set[int] = set()
        for item in disagreeing:
            if id(item.record) not in seen:
                seen.add(id(item.record))
                first.append(item.record)
    measured = measure(judge, records)
    selection = select_rows(judge, records, limit, first=first, measured=measured)
    given = states(selection.records) if callable(states) else states
    note = None if given is not None else "The judged state is not in this report (no dataset was given)."
    data = viewer_data(judge, selection, given, state_note=note)
    index = {c.name: i for i, c in enumerate(judge.criteria)}
    body = [
        f"<h1>{escape(title)}</h1>",
        provenance_block(provenance or Provenance(rows=tally.rows)),
        summary_line(tally),
        "<h2>Pass rates</h2>",
        '<p class="note">Click a criterion to see the rows it fails. Bars are green at or above the target '
        f"pass rate of {goal * 100:g}%"
        + (" (the run's --fail-under)" if target is not None else "")
        + ", red below it.</p>",
        pass_table(tally, index, goal),
        '<div class="charts">',
        charts.pass_rate_chart(
            [c.name for c in tally.criteria] + ["overall"],
            [c.pass_rate for c in tally.criteria] + [tally.pass_rate],
            goal,
        ),
        "</div>",
        rows_section(
            "Rows",
            ("row", "id", "verdict", "failing", "closeness", "feedback"),
            " ".join(
                [
                    _rows_note(
                        selection.total,
                        len(selection.records),
                        selection.left_out,
                        selection.left_out_failing,
                    ),
                    *(notes or ()),
                ]
            ),
        ),
        "<h2>Probabilities</h2>",
        '<p class="note">The judge\'s probability that each question passes, over the rows where it was '
        "answered; the blue line is its threshold (for scores and choices the share at 0.5, with the "
        "min_confidence lines dashed).</p>",
        '<div class="charts">',
        *_probability_charts(judge, measured),
        "</div>",
    ]
    if calibration is not None:
        from langchain_jev.report._calibration_view import calibration_sections

        place = {id(record): i for i, record in enumerate(selection.records)}
        body.extend(calibration_sections(calibration, suggestion, place))
    return document(title, body, data)


def _rows_note(total: int, shown: int, left_out: int, left_failing: int) -> str:
    text = (
        f"{shown} of {total} rows, in row order; open a row for its judged state and every finding. "
        f"Texts longer than {TEXT_CAP} characters are cut (the page says how much)."
    )
    if left_out:
        kind = (
            f"{left_failing} failing and {left_out - left_failing} passing rows"
            if left_failing
            else "all passing and not borderline"
        )
        text += (
            f" {left_out} rows are left out ({kind}): the page carries at most {shown} rows, failing, "
            "not judged and borderline rows first; every row is in the results file."
        )
    return text


def _probability_charts(judge: JevJudge, measured: Measured) -> list[str]:
    from langchain_jev.report import _charts as charts

    out = []
    for criterion in judge.criteria:
        if not criterion.is_question:
            continue
        probabilities, passed = measured.probabilities.get(criterion.name, ([], []))
        if not probabilities:
            out.append(f'<p class="note">{escape(criterion.name)}: no stored answer to draw.</p>')
            continue
        if criterion.kind == "noul":
            out.append(
                charts.probability_chart(criterion.name, probabilities, passed, criterion.minimum or 0.0)
            )
        else:
            label = (
                f"share of probability on levels >= {criterion.minimum:g}"
                if criterion.kind == "score"
                else "share of probability on accepted labels"
            )
            out.append(
                charts.probability_chart(
                    criterion.name, probabilities, passed, 0.5, band=judge.min_confidence, label=label
                )
            )
    return out
