"""A row as read (`RawRow`) and the limits every format holds a row to, the same for all three.

`MAX_ROW_CHARS` caps a row's text and `MAX_ROW_DEPTH` its nesting; `row_problem` says why a
decoded row cannot be used (not valid UTF-8, nested too deeply), and `as_row` makes the
`RawRow` of a decoded value. The readers of each format (`jsonl`, `json_array`,
`csv_records`) read `MAX_ROW_CHARS` from this module when they run, so the one limit is
one value wherever it is read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_ROW_CHARS",
    "MAX_ROW_DEPTH",
    "SURROGATE",
    "RawRow",
    "as_row",
    "reason",
    "row_problem",
    "too_deep",
    "too_large",
]

MAX_ROW_CHARS = 16 << 20
"""The largest row read, in characters of its text, the same for JSONL, JSON and CSV (16 Mi)."""

MAX_ROW_DEPTH = 200
"""The deepest nesting of objects and arrays a row may have (as deep as the Jev wire takes)."""

_NOT_UTF8 = "holds text that is not valid UTF-8 (a lone surrogate or an undecodable byte)"
SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate: what a byte that is not UTF-8 becomes once read with ``surrogateescape``."""
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
            if check_text and SURROGATE.search(item):
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
            elif check_text and SURROGATE.search(key):
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


def too_large(size: int) -> str:
    """The problem of a row of ``size`` characters, over `MAX_ROW_CHARS`."""
    limit = f"{MAX_ROW_CHARS >> 20} Mi" if MAX_ROW_CHARS % (1 << 20) == 0 else str(MAX_ROW_CHARS)
    return f"is larger than {limit} characters, the most a row may hold"


def as_row(number: int, line: int, value: Any, text: str | None = None) -> RawRow:
    """The row of a decoded JSON value (``text``: its source), or why it cannot be one."""
    if not isinstance(value, dict):
        return RawRow(number, line, None, f"a row must be a JSON object, got {_kind(value)}")
    problem = row_problem(value, text)
    if problem is not None:
        return RawRow(number, line, None, problem)
    return RawRow(number, line, value)


def _kind(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def reason(error: ValueError) -> str:
    """What a JSON decoding error says, without its position (the row's line is named instead)."""
    return error.msg if isinstance(error, json.JSONDecodeError) else str(error)
