"""JSONL rows: one JSON object a line, read a line (or, for a long line, a piece) at a time.

`jsonl_rows` yields the `RawRow` of each line that is not blank; a line longer than
`_LINE_PIECE` bytes is decoded piece by piece and held to `MAX_ROW_CHARS` however long
it is. `count_lines` counts the rows without decoding them.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from typing import IO

from langchain_jev.datasets._readers import rows  # rows.MAX_ROW_CHARS, read as each row is
from langchain_jev.datasets._readers.rows import RawRow, as_row, reason, too_deep, too_large

__all__ = ["count_lines", "jsonl_rows"]

_CHUNK = 1 << 16
"""Bytes of a line read at a time while the rows are counted."""


def count_lines(handle: IO[bytes]) -> int:
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


def jsonl_rows(handle: IO[bytes]) -> Iterator[RawRow]:
    """The rows of a JSONL stream, each line that is not blank one row (a UTF-8 BOM is skipped)."""
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
            if len(line) > rows.MAX_ROW_CHARS:
                yield RawRow(number, line_number, None, too_large(len(line)))
                continue
        try:
            value = json.loads(line)
        except ValueError as error:
            yield RawRow(number, line_number, None, f"not valid JSON: {reason(error)}")
            continue
        except RecursionError:
            yield RawRow(number, line_number, None, too_deep())
            continue
        yield as_row(number, line_number, value, line)


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
        if chars > rows.MAX_ROW_CHARS:
            problem = too_large(chars)
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
