"""Dataset readers for the command line: JSONL, JSON and CSV rows, streamed one at a time.

Each reader is a generator over `RawRow`s, so memory stays flat however many rows
a file holds. A row that cannot be read becomes a `RawRow` with a ``problem``
(named with its line) instead of stopping the run; a file that cannot be read
at all raises `DatasetError`.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from langchain_jev.errors import DatasetError

__all__ = ["DatasetError", "Format", "RawRow", "count_rows", "detect_format", "read_rows"]

Format = Literal["jsonl", "json", "csv"]
"""The dataset formats the command line reads."""

_CHUNK = 1 << 16


@dataclass(frozen=True)
class RawRow:
    """One row of a dataset as read, before it is mapped to a judge input.

    ``number`` counts rows from 1 (blank JSONL lines are not rows); ``line`` is
    where the row starts in the file. ``data`` is the row's object, or None with
    a ``problem`` saying why the row could not be read.
    """

    number: int
    line: int
    data: dict[str, Any] | None
    problem: str | None = None
    from_csv: bool = False


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
        with open(path, encoding="utf-8-sig") as handle:
            head = handle.read(4096).lstrip()
    except (OSError, UnicodeDecodeError) as error:
        raise DatasetError(f"cannot read {os.fspath(path)}: {error}") from None
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
    with _open(path, newline="" if fmt == "csv" else None) as handle:
        try:
            if fmt == "jsonl":
                yield from _jsonl(handle)
            elif fmt == "csv":
                yield from _csv(handle, delimiter="\t" if str(path).endswith(".tsv") else ",")
            else:
                yield from _json_array(handle)
        except UnicodeDecodeError as error:
            raise DatasetError(f"{os.fspath(path)} is not UTF-8 text: {error}") from None


def _open(path: str | os.PathLike[str], newline: str | None) -> IO[str]:
    try:
        return open(path, encoding="utf-8-sig", newline=newline)
    except OSError as error:
        raise DatasetError(f"cannot read {os.fspath(path)}: {error.strerror or error}") from None


def count_rows(path: str | os.PathLike[str], fmt: Format) -> int:
    """Count the rows of a dataset without keeping them (for progress and ETA).

    Raises:
        DatasetError: as `read_rows`.

    """
    if fmt == "jsonl":
        try:
            with open(path, "rb") as handle:
                return sum(1 for line in handle if line.strip())
        except OSError as error:
            raise DatasetError(f"cannot read {os.fspath(path)}: {error.strerror or error}") from None
    return sum(1 for _ in read_rows(path, fmt))


def _jsonl(handle: IO[str]) -> Iterator[RawRow]:
    number = 0
    for line_number, line in enumerate(handle, start=1):
        if not line.strip():
            continue
        number += 1
        try:
            value = json.loads(line)
        except ValueError as error:
            yield RawRow(number, line_number, None, f"not valid JSON: {_reason(error)}")
            continue
        yield _object(number, line_number, value)


def _csv(handle: IO[str], delimiter: str) -> Iterator[RawRow]:
    reader = csv.reader(handle, delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as error:
        raise DatasetError(f"line 1: the CSV header cannot be read: {error}") from None
    names = [name.strip() for name in header]
    number, start = 0, reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            number += 1
            yield RawRow(number, start, None, f"the CSV record cannot be read: {error}")
            start = reader.line_num + 1
            continue
        line, start = start, reader.line_num + 1
        if not any(cell.strip() for cell in cells):
            continue
        number += 1
        if len(cells) > len(names):
            yield RawRow(
                number, line, None, f"has {len(cells)} cells but the header names {len(names)}"
            )
            continue
        row = {name: cell for name, cell in zip(names, cells, strict=False) if name and cell != ""}
        yield RawRow(number, line, row, from_csv=True)


def _json_array(handle: IO[str]) -> Iterator[RawRow]:
    """Stream the items of a top-level JSON array, one decoded object at a time."""
    decoder = json.JSONDecoder()
    buffer, position, line, eof = "", 0, 1, False

    def fill() -> bool:
        nonlocal buffer, position, eof
        chunk = handle.read(_CHUNK)
        if not chunk:
            eof = True
            return False
        buffer = buffer[position:] + chunk
        position = 0
        return True

    def skip_space() -> str:
        nonlocal position, line
        while True:
            while position < len(buffer) and buffer[position] in " \t\r\n":
                if buffer[position] == "\n":
                    line += 1
                position += 1
            if position < len(buffer):
                return buffer[position]
            if not fill():
                return ""

    if skip_space() != "[":
        raise DatasetError("a JSON dataset must be an array of objects (or use JSONL)")
    position += 1
    number = 0
    if skip_space() == "]":
        return
    while True:
        skip_space()
        while True:
            try:
                value, end = decoder.raw_decode(buffer, position)
            except ValueError as error:
                if not eof and fill():
                    continue
                raise DatasetError(
                    f"line {line}: the JSON array cannot be read further: {_reason(error)}"
                ) from None
            if end < len(buffer) or eof or not fill():
                break
        number += 1
        start_line = line
        line += buffer.count("\n", position, end)
        position = end
        yield _object(number, start_line, value)
        separator = skip_space()
        if separator == "]":
            return
        if separator != ",":
            found = repr(separator) if separator else "the end of the file"
            raise DatasetError(f"line {line}: expected ',' or ']' in the JSON array, found {found}")
        position += 1


def _object(number: int, line: int, value: Any) -> RawRow:
    if not isinstance(value, dict):
        return RawRow(number, line, None, f"a row must be a JSON object, got {_kind(value)}")
    return RawRow(number, line, value)


def _kind(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _reason(error: ValueError) -> str:
    return error.msg if isinstance(error, json.JSONDecodeError) else str(error)
