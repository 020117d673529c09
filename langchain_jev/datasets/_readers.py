r"""Dataset readers for the command line: JSONL, JSON and CSV rows, streamed one at a time.

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

import codecs
import csv
import io
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from langchain_jev._errors import DatasetError
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

_CHUNK = 1 << 16

MAX_ROW_CHARS = 16 << 20
"""The largest row read, in characters of its text, the same for JSONL, JSON and CSV (16 Mi)."""

MAX_ROW_DEPTH = 200
"""The deepest nesting of objects and arrays a row may have (as deep as the Jev wire takes)."""

_NOT_UTF8 = "holds text that is not valid UTF-8 (a lone surrogate or an undecodable byte)"
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


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
        yield from _jsonl(binary)
        return
    # bytes that are not UTF-8 become lone surrogates, found per row
    handle = io.TextIOWrapper(
        binary, encoding="utf-8-sig", errors="surrogateescape", newline="" if fmt == "csv" else None
    )
    try:
        if fmt == "csv":
            yield from _csv(handle, delimiter="\t" if tsv else ",")
        else:
            yield from _json_array(handle)
    finally:
        handle.detach()  # the caller closes the stream


def row_problem(value: Any, text: str | None = None) -> str | None:
    """Why a decoded row cannot be used (not valid UTF-8, nested too deeply), or None.

    ``text`` is the row's source text, when known: it lets the common row skip the walk.

    Example:
        >>> row_problem({"answer": "fine"}) is None
        True
        >>> row_problem({"answer": chr(0xD800)})
        'holds text that is not valid UTF-8 (a lone surrogate or an undecodable byte) at answer'

    """
    check_text = text is None or _may_hold_surrogates(text)
    check_depth = text is None or text.count("[") + text.count("{") > MAX_ROW_DEPTH
    if not (check_text or check_depth):
        return None
    stack: list[tuple[Any, int, str]] = [(value, 1, "")]
    while stack:
        item, depth, where = stack.pop()
        if isinstance(item, str):
            if check_text and _SURROGATE.search(item):
                return _NOT_UTF8 + (f" at {where}" if where else "")
            continue
        if isinstance(item, Mapping):
            pairs: Any = item.items()
        elif isinstance(item, list):
            pairs = enumerate(item)
        else:
            continue
        if depth > MAX_ROW_DEPTH:
            return too_deep()
        for key, child in pairs:
            if isinstance(key, int):
                place = f"{where}[{key}]"
            elif check_text and _SURROGATE.search(key):
                return f"{_NOT_UTF8} in a key{f' at {where}' if where else ''}"
            else:
                place = f"{where}.{key}" if where else str(key)
            stack.append((child, depth + 1, place))
    return None


def _may_hold_surrogates(text: str) -> bool:
    """True when a row's source text may decode to a lone surrogate (C-speed checks first)."""
    if "\\u" in text and _SURROGATE_ESCAPE.search(text):
        return True
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def too_deep() -> str:
    """The problem of a row nested deeper than `MAX_ROW_DEPTH`."""
    return f"nests objects and arrays deeper than {MAX_ROW_DEPTH} levels"


def _too_large(size: int) -> str:
    limit = f"{MAX_ROW_CHARS >> 20} Mi" if MAX_ROW_CHARS % (1 << 20) == 0 else str(MAX_ROW_CHARS)
    return f"is larger than {limit} characters, the most a row may hold"


def count_rows(path: str | os.PathLike[str], fmt: Format) -> int:
    """Count the rows of a dataset without keeping them (for progress and ETA).

    Raises:
        DatasetError: as `read_rows`.

    """
    if fmt == "jsonl":
        try:
            with open_regular(path) as handle:
                return _count_lines(handle)
        except OSError as error:
            raise DatasetError(f"cannot read {os.fspath(path)}: {error.strerror or error}") from None
    return sum(1 for _ in read_rows(path, fmt))


def _count_lines(handle: IO[bytes]) -> int:
    """The lines that are not blank, read a piece at a time (a line may be far longer than a row)."""
    count, seen, blank = 0, False, True
    while piece := handle.readline(_CHUNK):
        seen = True
        if blank and piece.strip():
            blank = False
        if piece.endswith(b"\n"):
            count += not blank
            seen, blank = False, True
    return count + (seen and not blank)


def _jsonl(handle: IO[bytes]) -> Iterator[RawRow]:
    number = 0
    line_number = 0
    while True:
        raw = handle.readline(_LINE_PIECE)
        if not raw:
            return
        line_number += 1
        if line_number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        if len(raw) >= _LINE_PIECE and not raw.endswith(b"\n"):  # a long line: decoded as it is read
            number += 1
            line, problem = _long_line(handle, raw)
            if problem is not None:
                yield RawRow(number, line_number, None, problem)
                continue
        else:
            if not raw.strip():
                continue
            number += 1
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                where = f"{error.reason} at byte {error.start + 1}"
                yield RawRow(number, line_number, None, f"is not valid UTF-8 text: {where}")
                continue
            if len(line) > MAX_ROW_CHARS:
                yield RawRow(number, line_number, None, _too_large(len(line)))
                continue
        try:
            value = json.loads(line)
        except ValueError as error:
            yield RawRow(number, line_number, None, f"not valid JSON: {_reason(error)}")
            continue
        except RecursionError:
            yield RawRow(number, line_number, None, too_deep())
            continue
        yield _object(number, line_number, value, line)


_LINE_PIECE = 1 << 20
"""Bytes of a JSONL line read at a time: a longer line is decoded piece by piece, held to the row cap."""


def _long_line(handle: IO[bytes], first: bytes) -> tuple[str, str | None]:
    """The rest of a line longer than `_LINE_PIECE`, decoded as read; or why not (then skipped to its end).

    At most `MAX_ROW_CHARS` characters and one piece are held, however long the line.
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    parts: list[str] = []
    chars = consumed = 0
    piece = first
    problem: str | None = None
    while piece:
        try:
            text = decoder.decode(piece, final=piece.endswith(b"\n"))
        except UnicodeDecodeError as error:
            problem = f"is not valid UTF-8 text: {error.reason} at byte {consumed + error.start + 1}"
            break
        consumed += len(piece)
        chars += len(text)
        if chars > MAX_ROW_CHARS:
            problem = _too_large(chars)
            break
        parts.append(text)
        if piece.endswith(b"\n"):
            return "".join(parts), None
        piece = handle.readline(_LINE_PIECE)
    while piece and not piece.endswith(b"\n"):  # the rest of a line that cannot be a row
        piece = handle.readline(_LINE_PIECE)
    if problem is None:  # the file ended inside the line: what was read is the row
        try:
            parts.append(decoder.decode(b"", final=True))
        except UnicodeDecodeError as error:
            return "", f"is not valid UTF-8 text: {error.reason} at byte {consumed + error.start + 1}"
        return "".join(parts), None
    return "", problem


def _csv(handle: IO[str], delimiter: str) -> Iterator[RawRow]:
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
    if any(_SURROGATE.search(name) for name in names):
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
        while piece := self.handle.readline(MAX_ROW_CHARS + 1):
            if self._at_line_start:
                self.line += 1
            self._at_line_start = piece.endswith(("\n", "\r"))
            size += len(piece)
            quoted, field_start, found = _scan(piece, self.delimiter, quoted, field_start)
            delimiters += found
            quotes = quotes or '"' in piece
            content = content or bool(piece.strip(self.delimiter + " \t\r\n\f\v"))
            if lines is not None:
                if size > MAX_ROW_CHARS:
                    lines, problem = None, _too_large(size)
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
    previous = csv.field_size_limit(MAX_ROW_CHARS)
    try:
        for record in csv.reader(lines, delimiter=delimiter):
            cells.extend(record)
    finally:
        csv.field_size_limit(previous)
    return cells


_CSV_FIELD_LIMIT = 1 << 17
"""The csv module's own cell limit (128 Ki characters): a shorter record is read as it is."""


def _json_array(handle: IO[str]) -> Iterator[RawRow]:
    """Stream the items of a top-level JSON array, one decoded object at a time.

    An item that needs more text than the buffer holds is retried after reading as
    much again, so a large item costs time linear in its size.
    """
    decoder = json.JSONDecoder()
    buffer, position, line, eof = "", 0, 1, False

    def fill(more: int = _CHUNK) -> bool:
        nonlocal buffer, position, eof
        chunk = handle.read(max(more, _CHUNK))
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

    def skip_item() -> None:
        """Move past one item without decoding it (too large or too deep to decode)."""
        nonlocal position, line
        depth, in_string = 0, False
        while True:
            if position >= len(buffer) and not fill():
                raise DatasetError(f"line {line}: the JSON array ends inside a row")
            pattern = _IN_STRING if in_string else _STRUCTURE
            found = pattern.search(buffer, position)
            if found is None:
                line += buffer.count("\n", position)
                position = len(buffer)
                continue
            token = found.group()
            if token == "\\":
                if found.end() >= len(buffer):  # the escaped character is in the next chunk
                    line += buffer.count("\n", position, found.start())
                    position = found.start()
                    if not fill():
                        raise DatasetError(f"line {line}: the JSON array ends inside a row")
                    continue
                line += buffer.count("\n", position, found.end() + 1)
                position = found.end() + 1
                continue
            line += buffer.count("\n", position, found.start())
            if token == '"':
                position = found.end()
                in_string = not in_string
                if in_string or depth:
                    continue
                return
            if token in "[{":
                depth += 1
            elif depth == 0:  # a bare scalar item ends before the separator or the array's end
                position = found.start()
                return
            elif token in "]}":
                depth -= 1
            position = found.end()
            if depth == 0:
                return

    if skip_space() != "[":
        raise DatasetError("a JSON dataset must be an array of objects (or use JSONL)")
    position += 1
    number = 0
    if skip_space() == "]":
        return
    while True:
        skip_space()
        problem: str | None = None
        while True:
            try:
                value, end = decoder.raw_decode(buffer, position)
            except RecursionError:
                problem = too_deep()
                break
            except ValueError as error:
                if len(buffer) - position > MAX_ROW_CHARS:
                    problem = _too_large(len(buffer) - position)
                    break
                if _incomplete(error, len(buffer)) and not eof and fill(len(buffer) - position):
                    continue
                raise DatasetError(
                    f"line {line}: the JSON array cannot be read further: {_reason(error)}"
                ) from None
            if end < len(buffer) or eof or not fill(len(buffer) - position):
                break
        number += 1
        start_line = line
        if problem is not None:
            skip_item()
            yield RawRow(number, start_line, None, problem)
        else:
            if end - position > MAX_ROW_CHARS:
                row = RawRow(number, start_line, None, _too_large(end - position))
            else:
                row = _object(number, start_line, value, buffer[position:end])
            line += buffer.count("\n", position, end)
            position = end
            yield row
        separator = skip_space()
        if separator == "]":
            return
        if separator != ",":
            found = repr(separator) if separator else "the end of the file"
            raise DatasetError(f"line {line}: expected ',' or ']' in the JSON array, found {found}")
        position += 1


def _incomplete(error: ValueError, size: int) -> bool:
    """True when a decoding error may only mean that the item goes on past the buffer."""
    if not isinstance(error, json.JSONDecodeError):
        return True
    return error.msg.startswith("Unterminated string") or error.pos >= size - 1024


_STRUCTURE = re.compile(r'["\[\]{},]')
_IN_STRING = re.compile(r'["\\]')


def _object(number: int, line: int, value: Any, text: str | None = None) -> RawRow:
    if not isinstance(value, dict):
        return RawRow(number, line, None, f"a row must be a JSON object, got {_kind(value)}")
    problem = row_problem(value, text)
    if problem is not None:
        return RawRow(number, line, None, problem)
    return RawRow(number, line, value)


def _kind(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _reason(error: ValueError) -> str:
    return error.msg if isinstance(error, json.JSONDecodeError) else str(error)
