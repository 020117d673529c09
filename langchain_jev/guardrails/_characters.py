r"""What a character of text is, and what a screen shows as nothing: each defined once, for every reader.

Pure functions, no I/O, for `langchain_jev.guardrails._bytes`, `_text` and `_spellings`:

- `is_text`: the one definition of a character of text: any code point but a control (tab and
  line breaks are text), a surrogate, a private-use or an unassigned one (`NOT_TEXT_CATEGORIES`);
  `is_text_code` for a number that may be no code point at all;
- `not_text_class`: the code points that are no text, as the body of a regex character class,
  generated from `is_text` (every use that needs a pattern builds it from this);
- `shown_as_nothing`, `invisible`: what a screen shows as nothing (default-ignorable code points
  and format characters, Cf), as ranges and as a pattern.

The ranges over all of Unicode are generated ahead of time into
`langchain_jev.guardrails._unicode_ranges` (``python scripts/build_unicode_ranges.py``) with the
Unicode version they were built from; when the running Python's ``unicodedata`` is of another
version they are built from it instead, once, on first use (`build_ranges`), so no table ever
disagrees with the definition the running Python gives. Building them costs about 0.5 s; reading
the generated module (strings, which compile in no time) costs about half a millisecond.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable

from langchain_jev.guardrails import _unicode_ranges

__all__ = [
    "DEFAULT_IGNORABLE",
    "NOT_TEXT_CATEGORIES",
    "build_ranges",
    "invisible",
    "is_text",
    "is_text_code",
    "not_text_class",
    "shown_as_nothing",
]

Ranges = tuple[tuple[int, int], ...]

NOT_TEXT_CATEGORIES = frozenset({"Cc", "Cs", "Co", "Cn"})
"""The general categories of what is no character of text: controls, surrogates, private use, unassigned."""

_TEXT_CONTROLS = "\t\n\r"
"""The controls that are text: tab and the line breaks."""

DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Default_Ignorable_Code_Point, as the Unicode Character Database's DerivedCoreProperties.txt lists it
(Unicode 15.1; the ranges hold code points not yet assigned, which a screen shows as nothing too).
Python's ``unicodedata`` does not hold this property, so it is written here."""


def is_text(char: str) -> bool:
    r"""True for a character of text: no control (but tab, line breaks), surrogate, private use, unassigned.

    Spaces of every width and invisible format characters (zero-width, bidi controls, tags) are
    text: they are how text hides inside text.

    Example:
        >>> is_text("a"), is_text("\u200b"), is_text("\t"), is_text("\x00"), is_text("\ue000")
        (True, True, True, False, False)

    """
    return char in _TEXT_CONTROLS or unicodedata.category(char) not in NOT_TEXT_CATEGORIES


def is_text_code(code: int) -> bool:
    """True for a number that is the code of a character of text (`is_text`); False past Unicode."""
    return 0 <= code <= sys.maxunicode and is_text(chr(code))


def _merged(codes: Iterable[int]) -> Ranges:
    ranges: list[tuple[int, int]] = []
    for code in sorted(set(codes)):
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return tuple(ranges)


def build_ranges(category: Callable[[str], str] = unicodedata.category) -> tuple[Ranges, Ranges]:
    """What a screen shows as nothing and what is no text, merged ranges over all of Unicode, by ``category``.

    Shown as nothing: every `DEFAULT_IGNORABLE` code point and every format character (Cf).
    No text: every code point `is_text` refuses (its categories, `NOT_TEXT_CATEGORIES`, by ``category``).
    """
    shown = {code for start, end in DEFAULT_IGNORABLE for code in range(start, end + 1)}
    not_text: list[int] = []
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        kind = category(char)
        if kind == "Cf":
            shown.add(code)
        if kind in NOT_TEXT_CATEGORIES and char not in _TEXT_CONTROLS:
            not_text.append(code)
    return _merged(shown), _merged(not_text)


def _parsed(table: str) -> Ranges:
    """A table of `_unicode_ranges` (hex ``start-end`` or one code point, apart by spaces) as ranges."""
    ranges: list[tuple[int, int]] = []
    for word in table.split():
        start, _, end = word.partition("-")
        ranges.append((int(start, 16), int(end or start, 16)))
    return tuple(ranges)


@functools.cache
def _ranges() -> tuple[Ranges, Ranges]:
    if unicodedata.unidata_version == _unicode_ranges.UNICODE_VERSION:
        return _parsed(_unicode_ranges.SHOWN_AS_NOTHING), _parsed(_unicode_ranges.NOT_TEXT)
    return build_ranges()  # another Unicode: its own tables, never the recorded ones


def _class(ranges: Ranges) -> str:
    def one(start: int, end: int) -> str:
        return re.escape(chr(start)) if start == end else f"{re.escape(chr(start))}-{re.escape(chr(end))}"

    return "".join(one(start, end) for start, end in ranges)


def shown_as_nothing() -> Ranges:
    """The code points a screen shows as nothing, as ranges: default-ignorables and format characters."""
    return _ranges()[0]


@functools.cache
def invisible() -> re.Pattern[str]:
    """A character a screen shows as nothing (`shown_as_nothing`).

    Zero-width, joiners, bidi controls, fillers, tags, variation selectors, format controls of every
    script, default-ignorables not yet assigned.
    """
    return re.compile(f"[{_class(shown_as_nothing())}]")


@functools.cache
def not_text_class() -> str:
    """Every code point that is no character of text (`is_text`), as the body of a regex character class."""
    return _class(_ranges()[1])
