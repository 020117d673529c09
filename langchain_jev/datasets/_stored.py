r"""A results file read back: opened once by the one reader, its header checked, each line bounded.

`read_results_file` reads a results file of ``langchain-jev judge`` (or of
``rejudge --out``) whole, through `langchain_jev.datasets._reading`: a regular file
only (a device, a FIFO or a folder is refused at once), each line at most
`langchain_jev.datasets._reading.MAX_LINE_BYTES`. Its first line, when it is a
header, is checked field by field (`langchain_jev.datasets._header.header_problem`):
a header that was edited into something else is refused naming the file and the
field, before any command uses it. Then come the row records, in file order; a
last line cut short (a run killed while writing it) is left out, and any other
line that is not a record is refused with its number. `read_header` reads the
header alone, `read_results` the records alone. Every refusal is a `ResultsError`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from langchain_jev._errors import ResultsError
from langchain_jev.datasets._header import HEAD_TO_HEAD, HEADER_KEY, KINDS, RESULTS, header_problem, is_header
from langchain_jev.datasets._reading import bounded_lines, open_regular

__all__ = ["StoredResults", "read_header", "read_results", "read_results_file"]

_QUESTION = "is it a results file of langchain-jev?"


@dataclass(frozen=True)
class StoredResults:
    """What a results file holds: its header (None: it has none) and its row records, in file order."""

    header: dict[str, Any] | None
    records: list[dict[str, Any]]


def read_results_file(path: str | os.PathLike[str]) -> StoredResults:
    r"""The header and the row records of a results file (see the module docstring).

    Raises:
        ResultsError: the file cannot be read (or is not a regular file), its header is not
            a results header, or a line before the last is not a record.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "results.jsonl"
        >>> row = '{"row": 1, "key": "k", "passed": true, "findings": []}'
        >>> _ = path.write_text('{"langchain_jev": "results", "format": 1}\n' + row + '\n{"ro')
        >>> stored = read_results_file(path)
        >>> stored.header["format"], [record["row"] for record in stored.records]
        (1, [1])
        >>> _ = path.write_text('{"langchain_jev": "results", "format": 1, "judge": 5}\n' + row)
        >>> read_results_file(path)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev._errors.ResultsError: .../results.jsonl: line 1, its header: judge is 5, not ...

    """
    header: dict[str, Any] | None = None
    records: list[dict[str, Any]] = []
    for number, record, last in _lines(path):
        if number == 1:
            header = _header(path, record)
            if header is not None:
                continue
        if record is None:
            if last:
                break  # cut short by a kill while it was written
            raise ResultsError(f"{os.fspath(path)}:{number}: not a JSON line; {_QUESTION}")
        if not isinstance(record, dict):
            raise ResultsError(f"{os.fspath(path)}:{number}: not a record; {_QUESTION}")
        if "findings" not in record and "error" not in record:
            continue  # a header (what judged the rows), not a row
        if not isinstance(record.get("row", 0), int) or not isinstance(record.get("key"), str):
            raise ResultsError(
                f"{os.fspath(path)}:{number}: a record without 'key' (or with a 'row' that is not a number); "
                + _QUESTION
            )
        records.append(record)
    return StoredResults(header, records)


def read_header(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The checked header of the results file at ``path``; None when its first line is not one (or is empty).

    Raises:
        ResultsError: the file cannot be read (or is not a regular file), or its header is tampered with.

    """
    for number, record, _ in _lines(path):
        if number == 1:
            return _header(path, record)
    return None


def read_results(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    r"""The row records of a results file, in file order (its header is checked and skipped).

    A line with neither ``findings`` nor ``error`` is a header, not a row. A last
    line cut short (a run killed while writing it) is left out. Records of rows
    judged on Ray have no ``row`` or ``line``: their ``key`` names them.

    Raises:
        ResultsError: as `read_results_file`.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "results.jsonl"
        >>> row = '{"row": 1, "key": "k", "passed": true, "findings": []}'
        >>> _ = path.write_text('{"judge": "header"}\n' + row + '\n{"ro')
        >>> [record["row"] for record in read_results(path)]
        [1]

    """
    return read_results_file(path).records


def _lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, Any, bool]]:
    """``(number, parsed line or None when it does not parse, is the last line)`` for each line not blank."""
    name = os.fspath(path)
    try:
        with open_regular(name) as handle:
            pending: tuple[int, bytes] | None = None
            for number, raw in enumerate(bounded_lines(handle, name=name), 1):
                if not raw.strip():
                    continue
                if pending is not None:
                    yield pending[0], _parsed(pending[1]), False
                pending = (number, raw)
            if pending is not None:
                yield pending[0], _parsed(pending[1]), True
    except OSError as error:
        raise ResultsError(f"cannot read {name}: {error.strerror or error}") from None


def _parsed(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past what JSON reads
        return None


def _header(path: str | os.PathLike[str], record: Any) -> dict[str, Any] | None:
    """The first line as a checked header; None when it is a record (or a file with no header)."""
    if not isinstance(record, dict) or HEADER_KEY not in record or "row" in record:
        return None
    kind = record[HEADER_KEY]
    if kind == HEAD_TO_HEAD:
        raise ResultsError(f"{os.fspath(path)} holds {KINDS[HEAD_TO_HEAD]}, not {KINDS[RESULTS]}")
    if not is_header(record):
        shown = json.dumps(kind, default=str)[:40]
        raise ResultsError(
            f"{os.fspath(path)}: line 1, its header: {HEADER_KEY} is {shown}, not {RESULTS!r}; {_QUESTION}"
        )
    problem = header_problem(record)
    if problem is not None:
        raise ResultsError(f"{os.fspath(path)}: line 1, its header: {problem}; {_QUESTION}")
    return record
