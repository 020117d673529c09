"""A character of text is defined once (`_characters.is_text`), and every use agrees with it over all of Unicode.

The uses: `printable`'s count, `character_codes`' reading of a code, the pattern that separates the
text runs of binary data (`_bytes._separators`) and the one that counts what is no text
(`_bytes._no_text`). The tables over all of Unicode are generated ahead of time
(``scripts/build_unicode_ranges.py``); the tables in effect are always the running Python's.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from langchain_jev.guardrails import _bytes, _characters, _unicode_ranges
from langchain_jev.guardrails._characters import (
    build_ranges,
    invisible,
    is_text,
    is_text_code,
    shown_as_nothing,
)
from langchain_jev.guardrails._text import character_codes

ROOT = Path(__file__).resolve().parents[2]
EVERY_CODE_POINT = "".join(map(chr, range(sys.maxunicode + 1)))


def _runs(pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """The ranges of code points ``pattern`` matches one by one, from one scan of every code point."""
    single = re.compile(f"(?:{pattern.pattern.removesuffix('+')})+")
    return [(match.start(), match.end() - 1) for match in single.finditer(EVERY_CODE_POINT)]


def _ranges_where(keep: object) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for code in range(sys.maxunicode + 1):
        if keep(chr(code)):  # type: ignore[operator]
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return ranges


def test_the_tables_in_effect_are_the_running_pythons() -> None:
    assert (shown_as_nothing(), _characters._ranges()[1]) == build_ranges()


def test_the_generated_module_is_what_the_script_writes_from_this_pythons_unicode() -> None:
    if unicodedata.unidata_version != _unicode_ranges.UNICODE_VERSION:
        pytest.skip(
            f"the tables were built from Unicode {_unicode_ranges.UNICODE_VERSION}, this Python has "
            f"{unicodedata.unidata_version} (its own tables are built on first use): "
            "run scripts/build_unicode_ranges.py"
        )
    spec = importlib.util.spec_from_file_location(
        "build_unicode_ranges", ROOT / "scripts" / "build_unicode_ranges.py"
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.TARGET.read_text(encoding="utf-8") == script.render()


def test_what_is_no_text_is_what_the_definition_refuses_at_every_code_point() -> None:
    refused = _ranges_where(lambda char: not is_text(char))
    assert _runs(_bytes._no_text()) == refused
    separators = _ranges_where(lambda char: not is_text(char) or char == "\ufffd")
    assert _runs(_bytes._separators()) == separators
    assert all(is_text_code(code) == is_text(chr(code)) for code in range(sys.maxunicode + 1))
    assert not any(map(is_text_code, [-1, sys.maxunicode + 1, 2**40]))


def test_what_a_screen_shows_as_nothing_is_every_format_character_and_default_ignorable() -> None:
    shown = _runs(invisible())
    assert shown == list(shown_as_nothing())
    formats = _ranges_where(lambda char: unicodedata.category(char) == "Cf")
    points = {code for start, end in shown for code in range(start, end + 1)}
    assert all(code in points for start, end in formats for code in range(start, end + 1))
    assert all(
        code in points for start, end in _characters.DEFAULT_IGNORABLE for code in range(start, end + 1)
    )


_any_code_point = st.integers(0, sys.maxunicode).map(chr)


def _printable(text: str) -> bool:
    """`printable` as its docstring says, by the one definition, character by character."""
    if not text.strip():
        return False
    return sum(map(is_text, text)) >= 0.9 * len(text) and any(c.isalnum() for c in text)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(_any_code_point, st.sampled_from("nerve agent")), max_size=40).map("".join))
def test_printable_counts_characters_of_text_by_the_definition(text: str) -> None:
    assert _bytes.printable(text) == _printable(text)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.integers(-5, sys.maxunicode + 5), st.integers(97, 122)), max_size=12))
def test_a_code_reads_as_its_character_exactly_when_the_definition_says_it_is_text(codes: list[int]) -> None:
    read = "".join(chr(code) if is_text_code(code) else " " for code in codes)
    expected = read if sum(map(is_text_code, codes)) >= 4 and _printable(read) else None
    assert character_codes(codes) == expected


def test_a_private_use_code_among_letters_no_longer_hides_them() -> None:
    assert character_codes([110, 101, 114, 118, 0xE000]) == "nerv "


def test_ascii_word_matches_as_its_first_spelling_at_every_code_point_beside_it() -> None:
    first = re.compile(r"(?<![A-Za-z\x80-\uffff])[A-Za-z]{3,}(?![A-Za-z\x80-\uffff])")
    for code in range(sys.maxunicode + 1):
        for text in (f"{chr(code)}abc", f"abc{chr(code)}"):
            assert bool(first.search(text)) == bool(_bytes.ASCII_WORD.search(text)), hex(code)


def test_importing_the_readers_builds_no_table() -> None:
    probe = (
        "import langchain_jev.guardrails._text, langchain_jev.guardrails._media\n"
        "from langchain_jev.guardrails import _characters as c\n"
        "print(c._ranges.cache_info().currsize, c.invisible.cache_info().currsize,"
        " c.not_text_class.cache_info().currsize)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["0", "0", "0"]


def test_under_another_unicode_the_tables_are_built_from_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_unicode_ranges, "UNICODE_VERSION", "0.0.0")
    monkeypatch.setattr(_unicode_ranges, "NOT_TEXT", "0")  # a stale table is never read
    _characters._ranges.cache_clear()
    try:
        assert _characters._ranges() == build_ranges()
    finally:
        _characters._ranges.cache_clear()
