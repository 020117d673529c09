"""JSON rows: the items of one top-level JSON array, decoded one at a time from a growing buffer.

`json_array_rows` reads the text `_CHUNK` characters at a time; an item that needs more
text than the buffer holds is retried after reading as much again, so a large item
costs time linear in its size, and one larger than `MAX_ROW_CHARS` (or nested too
deeply to decode) is skipped by a scan of its structure without being decoded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import IO

from langchain_jev._errors import DatasetError
from langchain_jev.datasets._readers import rows  # rows.MAX_ROW_CHARS, read as each row is
from langchain_jev.datasets._readers.rows import RawRow, as_row, reason, too_deep, too_large

__all__ = ["json_array_rows"]

_CHUNK = 1 << 16
"""Characters of the array read at a time (at least): the buffer grows by as much as it holds."""


def json_array_rows(handle: IO[str]) -> Iterator[RawRow]:
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
                if len(buffer) - position > rows.MAX_ROW_CHARS:
                    problem = too_large(len(buffer) - position)
                    break
                if _incomplete(error, len(buffer)) and not eof and fill(len(buffer) - position):
                    continue
                raise DatasetError(
                    f"line {line}: the JSON array cannot be read further: {reason(error)}"
                ) from None
            if end < len(buffer) or eof or not fill(len(buffer) - position):
                break
        number += 1
        start_line = line
        if problem is not None:
            skip_item()
            yield RawRow(number, start_line, None, problem)
        else:
            if end - position > rows.MAX_ROW_CHARS:
                row = RawRow(number, start_line, None, too_large(end - position))
            else:
                row = as_row(number, start_line, value, buffer[position:end])
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
