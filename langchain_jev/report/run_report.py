"""A run's report drawn from its results file: the judge rebuilt, its provenance, its rows' states.

The I/O edge of the report: `draw_run_report` reads a results file (header and
records), rebuilds the judge that names the criteria (a judge that makes no
request), finds the dataset the rows came from (given, or as the header
recorded it) to show each row's judged state, and writes the page. `states_for`
is the states part alone, for callers that hold the records already.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_jev.datasets.rows import FieldMap
from langchain_jev.report.states import dataset_states

if TYPE_CHECKING:
    from langchain_jev.judge import JevJudge

__all__ = ["draw_run_report", "states_for"]

States = Callable[[Sequence[Mapping[str, Any]]], Mapping[Any, Mapping[str, Any]]]


def _run(header: Mapping[str, Any] | None) -> Mapping[str, Any]:
    run = header.get("run") if header else None
    return run if isinstance(run, Mapping) else {}


def states_for(
    header: Mapping[str, Any] | None,
    *,
    dataset: str | os.PathLike[str] | None = None,
    fmt: str | None = None,
    fields: FieldMap | None = None,
    notes: list[str] | None = None,
) -> States | None:
    """A state source for `render_report`: the rows read again from ``dataset`` (or the header's dataset).

    None when no dataset is known. ``notes`` collects why rows have no state (the
    dataset is gone, rows changed since they were judged).
    """
    run = _run(header)
    path = dataset if dataset is not None else run.get("dataset_path") or run.get("dataset")
    if not isinstance(path, (str, os.PathLike)):
        return None
    columns = fields
    if columns is None and isinstance(run.get("fields"), Mapping):
        try:
            columns = FieldMap.from_dict(run["fields"])
        except (KeyError, TypeError, ValueError):
            columns = None
    kind = fmt if fmt is not None else run.get("format") if isinstance(run.get("format"), str) else None

    def read(records: Sequence[Mapping[str, Any]]) -> Mapping[Any, Mapping[str, Any]]:
        found = dataset_states(path, records, fmt=kind, fields=columns)
        if notes is not None:
            if found.problem:
                notes.append(found.problem)
            if found.changed:
                shown = ", ".join(map(str, found.changed[:10])) + (", ..." if len(found.changed) > 10 else "")
                notes.append(f"rows changed in {os.fspath(path)} since they were judged (not shown): {shown}")
        return found.states

    return read


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
    from langchain_jev.calibration.replay import NoRequestModel
    from langchain_jev.datasets.stored import read_results_file
    from langchain_jev.judge import JevJudge
    from langchain_jev.report.page import write_report
    from langchain_jev.report.provenance import provenance_of
    from langchain_jev.spec import load_spec

    if isinstance(judge, JevJudge):
        built = judge
    else:
        built = load_spec(judge).build(NoRequestModel(), allow_code=allow_code)
    stored = read_results_file(results)  # its header checked: a tampered one is refused by field
    header = stored.header
    rows = list(records) if records is not None else stored.records
    run = _run(header)
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
