"""Pages that read at a glance: no paragraph over 120 words, no code line over 88 columns.

Every page of ``docs/`` and the README is checked. A paragraph (a list item and a table
row count as one each) of several hundred words buries the one sentence a reader came
for; a code line past 88 columns scrolls sideways in the site's code blocks at 1280
pixels. Output blocks are code blocks too: what a snippet prints must fit as well.
"""

from __future__ import annotations

from tests.docs.markdown import ROOT, code_lines, doc_files, paragraphs

MAX_WORDS = 120
"""The longest paragraph, in words."""
MAX_COLUMNS = 88
"""The longest line of a fenced block, in characters."""


def test_no_paragraph_is_over_120_words() -> None:
    long = [
        f"{source}:{line}: {len(words.split())} words ({words[:60]}...)"
        for source in doc_files()
        for line, words in paragraphs((ROOT / source).read_text(encoding="utf-8"))
        if len(words.split()) > MAX_WORDS
    ]
    assert long == [], f"{len(long)} paragraphs over {MAX_WORDS} words; split them:\n" + "\n".join(long)


def test_no_code_line_is_over_88_columns() -> None:
    wide = [
        f"{source}:{line}: {len(text)} columns"
        for source in doc_files()
        for line, text in code_lines((ROOT / source).read_text(encoding="utf-8"))
        if len(text) > MAX_COLUMNS
    ]
    assert wide == [], f"{len(wide)} code lines over {MAX_COLUMNS} columns; wrap them:\n" + "\n".join(wide)


def test_the_readers_see_paragraphs_and_code_lines_where_they_are() -> None:
    text = "Para one\nwraps.\n\n- item a\n- item b\n  wraps\n\n| a | b |\n\n```python\ncode here\n```\n"
    assert paragraphs(text) == [(1, "Para one wraps."), (4, "item a"), (5, "item b wraps"), (8, "a | b")]
    assert code_lines(text) == [(11, "code here")]
