"""The judged state of the rows a report carries, read again from the dataset they were judged from.

A results file names each row (its number and a hash of its content) but does
not copy it. `dataset_states` streams the dataset once, keeps only the rows the
page carries, maps each with the run's column map, exactly as the run did, and
checks that the row is still the row judged (its content hash): a row edited
since is not shown as if it had been judged, and the page says so. `states_for`
finds the dataset a results file's header names and reads its states so.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_jev._errors import DatasetError
from langchain_jev.datasets._readers import Format, detect_format, read_rows
from langchain_jev.datasets._rows import FieldMap, map_row, row_key

__all__ = ["DatasetStates", "States", "dataset_states", "run_of", "states_for"]


@dataclass
class DatasetStates:
    """The states found, by row number, and why the rest have none."""

    states: dict[int | str, Mapping[str, Any]] = field(default_factory=dict)
    """By row number; a record without one (judged on Ray) by its content key."""
    problem: str | None = None
    """Why no state could be read at all (the dataset is gone, say)."""
    changed: list[int] = field(default_factory=list)
    """Rows whose content is no longer what was judged."""


def dataset_states(
    path: str | os.PathLike[str],
    records: Sequence[Mapping[str, Any]],
    *,
    fmt: Format | str | None = None,
    fields: FieldMap | None = None,
) -> DatasetStates:
    r"""Each of ``records``' judged state from the dataset at ``path`` (rows matched by number and content).

    Never raises for a dataset it cannot read: `DatasetStates.problem` says why.

    Example:
        >>> import json, tempfile
        >>> from langchain_jev.datasets._rows import row_key
        >>> row = {"question": "Hi?", "answer": "Hello"}
        >>> with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        ...     _ = f.write(json.dumps(row) + "\n")
        >>> found = dataset_states(f.name, [{"row": 1, "key": row_key(row)}])
        >>> found.states[1]
        {'user_question': 'Hi?', 'assistant_answer': 'Hello'}

    """
    wanted = {
        int(r["row"]): str(r.get("key"))
        for r in records
        if isinstance(r.get("row"), int) and not isinstance(r.get("row"), bool)
    }
    unnumbered = {str(r.get("key")) for r in records if not isinstance(r.get("row"), int)}
    found = DatasetStates()
    if not wanted and not unnumbered:
        return found
    columns = fields or FieldMap()
    try:
        kind = detect_format(path, fmt)
        last = max(wanted) if wanted and not unnumbered else None
        for raw in read_rows(path, kind):
            if last is not None and raw.number > last:
                break
            if raw.data is None or (raw.number not in wanted and not unnumbered):
                continue
            key = row_key(raw.data)
            if raw.number in wanted:
                if key != wanted[raw.number]:
                    found.changed.append(raw.number)
                    continue
                place: int | str = raw.number
            elif key in unnumbered and key not in found.states:
                place = key
            else:
                continue
            mapped = map_row(raw.data, columns, (), from_csv=raw.from_csv)
            if mapped.input is not None:
                found.states[place] = mapped.input.to_state()
    except (DatasetError, OSError) as error:
        found.problem = f"the judged rows could not be read from {os.fspath(path)}: {error}"
    return found


States = Callable[[Sequence[Mapping[str, Any]]], Mapping[Any, Mapping[str, Any]]]


def run_of(header: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """The ``run`` part of a results file's header (empty when there is none)."""
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
    """A state source for a report: the rows read again from ``dataset`` (or the header's dataset).

    None when no dataset is known. ``notes`` collects why rows have no state (the
    dataset is gone, rows changed since they were judged).
    """
    run = run_of(header)
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
