"""A run's report drawn from its results file: the judge rebuilt, its provenance, its rows' states.

The I/O edge of the report: `draw_run_report` reads a results file (header and
records), rebuilds the judge that names the criteria (a judge that makes no
request), finds the dataset the rows came from (given, or as the header
recorded it) to show each row's judged state (`langchain_jev.datasets._states`),
and writes the page.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_jev.datasets._rows import FieldMap
from langchain_jev.datasets._states import run_of, states_for

if TYPE_CHECKING:
    from langchain_jev._judge import JevJudge

__all__ = ["draw_run_report"]


def draw_run_report(
    html: str | os.PathLike[str],
    results: str | os.PathLike[str],
    judge: str | os.PathLike[str] | JevJudge,
    *,
    allow_code: bool | list[str] = False,
    dataset: str | os.PathLike[str] | None = None,
    fmt: str | None = None,
    fields: FieldMap | None = None,
    target: float | None = None,
    bad_rows: int | None = None,
    title: str | None = None,
    records: Sequence[Mapping[str, Any]] | None = None,
) -> None:
    """Write the report of the results file ``results`` to ``html``.

    ``judge`` is the judge file (built with a model that makes no request) or a judge;
    ``records`` replaces the file's records (decided again under another judge, say)
    while its header still says where they came from.

    Raises:
        JudgeSpecError: the judge file is invalid.
        ResultsError: the results file cannot be read.
        OSError: the page cannot be written.
        ImportError: matplotlib is not installed (the ``report`` extra).

    """
    from langchain_jev._judge import JevJudge
    from langchain_jev.datasets._redecide import NoRequestModel
    from langchain_jev.datasets._stored import read_results_file
    from langchain_jev.report._page import write_report
    from langchain_jev.report._provenance import provenance_of
    from langchain_jev.spec import load_spec

    if isinstance(judge, JevJudge):
        built = judge
    else:
        built = load_spec(judge).build(NoRequestModel(), allow_code=allow_code)
    stored = read_results_file(results)  # its header checked: a tampered one is refused by field
    header = stored.header
    rows = list(records) if records is not None else stored.records
    run = run_of(header)
    notes: list[str] = []
    states = states_for(header, dataset=dataset, fmt=fmt, fields=fields, notes=notes)
    given_target = target if target is not None else run.get("fail_under")
    provenance = provenance_of(
        header,
        rows,
        results=os.fspath(results),
        dataset=os.fspath(dataset) if dataset is not None else None,
        judge_file=None if isinstance(judge, JevJudge) else os.fspath(judge),
        bad_rows=bad_rows,
    )
    write_report(
        html,
        built,
        rows,
        title=title or f"report: {os.fspath(results)}",
        states=states,
        provenance=provenance,
        target=given_target if isinstance(given_target, (int, float)) else None,
        notes=notes,
    )
