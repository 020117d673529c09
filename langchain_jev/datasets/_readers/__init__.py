r"""Dataset readers for the command line: JSONL, JSON and CSV rows, streamed one at a time.

Modules, one job each: `rows` (a row as read, `RawRow`, and the limits every format holds
it to), `jsonl`, `json_array` and `csv_records` (a reader per format); this face picks
the format (`detect_format`) and the reader (`read_rows`, `read_stream`, `count_rows`).

Each reader is a generator over `RawRow`s, so memory stays flat however many rows
a file holds. A row that cannot be read becomes a `RawRow` with a ``problem``
(named with its line) instead of stopping the run: a row that is not valid
UTF-8 (an undecodable byte, or a lone surrogate such as ``"\\ud800"``), nests
deeper than `MAX_ROW_DEPTH` or is larger than `MAX_ROW_CHARS` (one limit for every
format). A file that cannot be read at all raises `DatasetError`. Every reader
works in time linear in the size of the file, and never holds more than a few
times `MAX_ROW_CHARS` of one row: a longer JSONL line, JSON item or CSV record
is skipped as it is read (a CSV record's cells are counted before they are
made, so one with more cells than its header names is never built).

`read_rows` reads a file by its path, through the package's one reader of files
(`langchain_jev.datasets._reading`: a regular file only, so ``/dev/zero``, a FIFO or
a folder is refused at once); `read_stream` reads an open binary stream
the same way (the Ray engine's read task uses it, so both engines read every
file with this code).
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Literal

from langchain_jev._errors import DatasetError
from langchain_jev.datasets._readers.csv_records import csv_rows
from langchain_jev.datasets._readers.json_array import json_array_rows
from langchain_jev.datasets._readers.jsonl import count_lines, jsonl_rows
from langchain_jev.datasets._readers.rows import MAX_ROW_CHARS, MAX_ROW_DEPTH, RawRow, row_problem, too_deep
from langchain_jev.datasets._reading import open_regular

__all__ = [
    "MAX_ROW_CHARS",
    "MAX_ROW_DEPTH",
    "DatasetError",
    "Format",
    "RawRow",
    "count_rows",
    "detect_format",
    "read_rows",
    "read_stream",
    "row_problem",
    "too_deep",
]

Format = Literal["jsonl", "json", "csv"]
"""The dataset formats the command line reads."""


def detect_format(path: str | os.PathLike[str], explicit: str | None = None) -> Format:
    """The format of a dataset: ``explicit`` if given, else by extension, else by content.

    ``.jsonl``/``.ndjson`` are JSONL, ``.csv``/``.tsv`` CSV; a ``.json`` file (or an
    unknown extension) is a JSON array when it starts with ``[``, else JSONL.

    Raises:
        DatasetError: the format is unknown or the file cannot be opened.

    Example:
        >>> detect_format("rows.ndjson")
        'jsonl'

    """
    if explicit is not None:
        if explicit not in ("jsonl", "json", "csv"):
            raise DatasetError(f"unknown format {explicit!r}: use jsonl, json or csv")
        return explicit  # type: ignore[return-value]
    suffix = Path(path).suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix in (".csv", ".tsv"):
        return "csv"
    try:
        with open_regular(path) as binary:
            head = binary.read(4096).decode("utf-8-sig", "surrogateescape").lstrip()
    except OSError as error:
        raise DatasetError(f"cannot read {os.fspath(path)}: {error.strerror or error}") from None
    return "json" if head.startswith("[") else "jsonl"


def read_rows(path: str | os.PathLike[str], fmt: Format) -> Iterator[RawRow]:
    r"""Stream the rows of a dataset file.

    Raises:
        DatasetError: the file cannot be opened, or is not the format as a whole.

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        ...     _ = f.write('{"answer": "a"}\n\nnot json\n')
        >>> [(r.number, r.line, r.problem is None) for r in read_rows(f.name, "jsonl")]
        [(1, 1, True), (2, 3, False)]

    """
    try:
        binary = open_regular(path)  # a FIFO, a device or a folder is refused at once
    except OSError as error:
        raise DatasetError(f"cannot read {os.fspath(path)}: {error.strerror or error}") from None
    with binary:
        yield from read_stream(binary, fmt, tsv=str(path).lower().endswith(".tsv"))


def read_stream(binary: IO[bytes], fmt: Format, *, tsv: bool = False) -> Iterator[RawRow]:
    r"""Stream the rows of an open binary stream of a dataset in ``fmt`` (``tsv``: tab-separated CSV).

    Raises:
        DatasetError: the stream is not the format as a whole.

    Example:
        >>> import io
        >>> [row.data for row in read_stream(io.BytesIO(b"id,answer\n1,yes\n"), "csv")]
        [{'id': '1', 'answer': 'yes'}]

    """
    if fmt == "jsonl":
        yield from jsonl_rows(binary)
        return
    # bytes that are not UTF-8 become lone surrogates, found per row
    handle = io.TextIOWrapper(
        binary, encoding="utf-8-sig", errors="surrogateescape", newline="" if fmt == "csv" else None
    )
    try:
        if fmt == "csv":
            yield from csv_rows(handle, delimiter="\t" if tsv else ",")
        else:
            yield from json_array_rows(handle)
    finally:
        handle.detach()  # the caller closes the stream


def count_rows(path: str | os.PathLike[str], fmt: Format) -> int:
    """Count the rows of a dataset without keeping them (for progress and ETA).

    Raises:
        DatasetError: as `read_rows`.

    """
    if fmt == "jsonl":
        try:
            with open_regular(path) as handle:
                return count_lines(handle)
        except OSError as error:
            raise DatasetError(f"cannot read {os.fspath(path)}: {error.strerror or error}") from None
    return sum(1 for _ in read_rows(path, fmt))
