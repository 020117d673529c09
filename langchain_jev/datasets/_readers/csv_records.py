"""CSV rows: records split by the csv module's own quoting rules, each bounded before it is parsed.

`csv_rows` reads the header, then yields one `RawRow` per record that is not blank.
`_Records` splits the text into records without parsing a cell, so a record larger
than `MAX_ROW_CHARS`, or with more cells than the header names, is counted and
skipped, never built; `_parse` then reads the cells of one record with `csv`.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from langchain_jev._errors import DatasetError
from langchain_jev.datasets._readers import rows  # rows.MAX_ROW_CHARS, read as each row is
from langchain_jev.datasets._readers.rows import SURROGATE, RawRow, row_problem, too_large

__all__ = ["csv_rows"]


def csv_rows(handle: IO[str], delimiter: str) -> Iterator[RawRow]:
    """The rows of CSV text: the first record names the columns, each later one is a row."""
    records = _Records(handle, delimiter)
    header = next(records, None)
    if header is None:
        return
    if header.lines is None:
        raise DatasetError(f"line 1: the CSV header {header.problem}")
    try:
        names = [name.strip() for name in _parse(header.lines, delimiter)]
    except csv.Error as error:
        raise DatasetError(f"line 1: the CSV header cannot be read: {error}") from None
    if any(SURROGATE.search(name) for name in names):
        raise DatasetError("line 1: the CSV header is not valid UTF-8 text")
    records.width = len(names)  # from here on, a record with more cells is counted, not built
    number = 0
    for record in records:
        if record.lines is None:
            number += 1
            yield RawRow(number, record.line, None, record.problem)
            continue
        try:
            cells = _parse(record.lines, delimiter)
        except csv.Error as error:
            number += 1
            yield RawRow(number, record.line, None, f"the CSV record cannot be read: {error}")
            continue
        if not any(cell.strip() for cell in cells):
            continue
        number += 1
        if len(cells) > len(names):  # a quoted record, counted once parsed
            wide = f"has {len(cells)} cells but the header names {len(names)}"
            yield RawRow(number, record.line, None, wide)
            continue
        row = {name: cell for name, cell in zip(names, cells, strict=False) if name and cell != ""}
        problem = row_problem(row, "".join(record.lines))  # cells are text: only UTF-8 to check
        if problem is not None:
            yield RawRow(number, record.line, None, problem)
            continue
        yield RawRow(number, record.line, row, from_csv=True)


@dataclass
class _Record:
    """One CSV record as its physical lines, or (too large or too wide to build) why not."""

    line: int
    lines: list[str] | None
    problem: str | None = None


class _Records:
    """CSV text split into records by the csv module's own quoting rules, without parsing the cells.

    A record ends at a line end outside a quoted field; a quote opens a field only
    at the field's start, and ``""`` inside one is a quote. Lines are read at most
    `MAX_ROW_CHARS` at a time; a record that grows past `MAX_ROW_CHARS`, or past
    ``width`` cells once the header set it, is followed to its end without keeping
    its text (past ``width`` cells only when it holds no quote: then each delimiter
    makes a cell, and the count is exact; a quoted record is parsed, within the
    size limit). Quotes and delimiters are found with ``str.find`` and ``str.count``,
    so plain text costs no Python step per character.
    """

    def __init__(self, handle: IO[str], delimiter: str) -> None:
        self.handle = handle
        self.delimiter = delimiter
        self.width: int | None = None
        self.line = 0
        self._at_line_start = True

    def __iter__(self) -> Iterator[_Record]:
        return self

    def __next__(self) -> _Record:
        lines: list[str] | None = []
        size = delimiters = 0
        quoted, field_start, quotes, content = False, True, False, False
        start = self.line + 1
        problem: str | None = None
        while piece := self.handle.readline(rows.MAX_ROW_CHARS + 1):
            if self._at_line_start:
                self.line += 1
            self._at_line_start = piece.endswith(("\n", "\r"))
            size += len(piece)
            quoted, field_start, found = _scan(piece, self.delimiter, quoted, field_start)
            delimiters += found
            quotes = quotes or '"' in piece
            content = content or bool(piece.strip(self.delimiter + " \t\r\n\f\v"))
            if lines is not None:
                if size > rows.MAX_ROW_CHARS:
                    lines, problem = None, too_large(size)
                elif self.width is not None and delimiters >= self.width and not quotes:
                    lines = None  # its cells are counted exactly: each delimiter makes one
                else:
                    lines.append(piece)
            if self._at_line_start and not quoted:
                break
        if size == 0:
            raise StopIteration
        if lines is None and problem is None:
            if not content:  # only delimiters and blanks: a blank record, skipped as csv's would be
                return _Record(start, [])
            problem = f"has {delimiters + 1} cells but the header names {self.width}"
        return _Record(start, lines, problem)


def _scan(text: str, delimiter: str, quoted: bool, field_start: bool) -> tuple[bool, bool, int]:
    """Follow csv's quoting through ``text``: (in a quoted field, at a field's start, delimiters seen)."""
    position, end, delimiters = 0, len(text), 0
    while position < end:
        found = text.find('"', position)
        if quoted:
            if found < 0:
                return True, False, delimiters
            if text.startswith('"', found + 1):  # "" is a quote inside the field
                position = found + 2
            else:
                quoted, field_start, position = False, False, found + 1
            continue
        stop = end if found < 0 else found
        delimiters += text.count(delimiter, position, stop)
        if found < 0:
            return False, text.endswith(delimiter) if position < end else field_start, delimiters
        quoted = text[found - 1] == delimiter if found > position else field_start
        field_start, position = False, found + 1
    return quoted, field_start, delimiters


def _parse(lines: list[str], delimiter: str) -> list[str]:
    """The cells of one record's lines (the one row limit as the cell limit while a long one is read)."""
    cells: list[str] = []
    if sum(map(len, lines)) <= _CSV_FIELD_LIMIT:
        for record in csv.reader(lines, delimiter=delimiter):
            cells.extend(record)  # one record; the splitter never keeps two lines of two together
        return cells
    previous = csv.field_size_limit(rows.MAX_ROW_CHARS)
    try:
        for record in csv.reader(lines, delimiter=delimiter):
            cells.extend(record)
    finally:
        csv.field_size_limit(previous)
    return cells


_CSV_FIELD_LIMIT = 1 << 17
"""The csv module's own cell limit (128 Ki characters): a shorter record is read as it is."""
