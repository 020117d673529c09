"""Every leaf of a value revealed: each string and key, and what a list's items spell, read beside them.

Pure functions, no I/O, over `langchain_jev.guardrails._text`'s `reveal`:

- `reveal_value`: a value with every string and key revealed, a list of
  character codes or of strings read beside it, and any other leaf read by what
  it holds (an allow-list: a leaf of no known kind is refused);
- `put`: a revealed key set without losing a value another key reads the same as.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import fractions
import pathlib
import uuid
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from langchain_jev._errors import JevInputError
from langchain_jev.guardrails._text import character_codes, reveal

__all__ = ["put", "reveal_value"]


def reveal_value(value: Any) -> Any:
    """``value`` with every string and key revealed (`reveal`), and what a list's items spell read beside it.

    Numbers, booleans and None are kept as they are; a list of four or more
    character codes (integers, whole floats or strings of digits) that spells
    text gets that text appended, labelled, a list of eight or more bits
    (booleans, 0 or 1) is read as a bit string, and a list of strings gets its
    items joined (a word split across items, as ``"".join`` reads it).

    Example:
        >>> reveal_value({"id": [110, 101, 114, 118, 101], "n": 3})
        {'id': [110, 101, 114, 118, 101, '[character codes] nerve'], 'n': 3}
        >>> reveal_value(["ner", "ve"])
        ['ner', 've', '[items joined] nerve']

    """
    if isinstance(value, str):
        return reveal(value)
    if isinstance(value, Mapping):
        revealed: dict[Any, Any] = {}
        for key, item in value.items():
            put(revealed, key, reveal_value(item))
        return revealed
    if isinstance(value, (list, tuple)):
        items = [reveal_value(item) for item in value]
        codes = [code for code in map(_code, value) if code is not None]
        read = character_codes(codes) if len(codes) == len(value) else None
        if read is not None:
            items.append(reveal(f"[character codes] {read}"))
        if len(value) >= 2 and all(isinstance(item, str) for item in value):
            items.append(reveal(f"[items joined] {''.join(value)}"))
        if len(value) >= 8 and all(_bit(item) is not None for item in value):  # bits, read as a bit string
            items.append(reveal(f"[bits] {''.join(str(_bit(item)) for item in value)}"))
        return items
    return _leaf(value)


_EXACT_TEXT: tuple[type, ...] = (int, float, complex, type(None), datetime.date, datetime.time)
_EXACT_TEXT += (datetime.timedelta, uuid.UUID, decimal.Decimal, fractions.Fraction, pathlib.PurePath)
"""Leaves kept as they are: numbers, None, and values whose text (``str``) is all they hold."""


def _leaf(value: Any) -> Any:
    """A leaf that is no string, mapping or list: read by everything it holds, or refused (allow-list).

    An enum by its name and value, a Pydantic model or a dataclass by its fields, a set or bytes by
    their items; a value whose type is none of these (its text may be anything its class says) raises.
    """
    if isinstance(value, _EXACT_TEXT):
        return value
    if isinstance(value, enum.Enum):
        return [reveal(str(value)), reveal_value(value.value)]
    if isinstance(value, BaseModel):
        return reveal_value(value.model_dump(mode="python"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return reveal_value(dataclasses.asdict(value))
    if isinstance(value, (set, frozenset)):
        return reveal_value(sorted(value, key=repr))
    if isinstance(value, (bytes, bytearray, memoryview)):
        return reveal(repr(bytes(value)))
    raise JevInputError(f"a {type(value).__name__} value cannot be read for the check (not a JSON type)")


def _bit(item: Any) -> int | None:
    """``item`` as a bit: a boolean, or the number 0 or 1."""
    if isinstance(item, bool):
        return int(item)
    return int(item) if isinstance(item, (int, float)) and item in (0, 1) else None


def _code(item: Any) -> int | None:
    """``item`` as a character code: an integer, a whole float or a string of decimal digits."""
    if isinstance(item, bool):
        return None
    if isinstance(item, int):
        return item
    if isinstance(item, float) and item.is_integer() and abs(item) < 0x110000:
        return int(item)
    digits = isinstance(item, str) and 0 < len(item) <= 7 and item.isascii() and item.isdigit()
    return int(item) if digits else None


def put(mapping: dict[Any, Any], key: Any, value: Any) -> None:
    r"""Set ``value`` under ``key`` revealed, numbered when another key reads the same (no value is lost).

    Example:
        >>> out = {}
        >>> put(out, "bmVydmUgYWdlbnQ=", 1); put(out, "bmVydmUgYWdlbnQ=\n[base64] nerve agent", 2)
        >>> list(out.values())
        [1, 2]

    """
    shown = reveal(key) if isinstance(key, str) else key
    if shown in mapping:
        shown = f"{shown} [key {len(mapping) + 1}]"
        while shown in mapping:
            shown += "'"
    mapping[shown] = value
