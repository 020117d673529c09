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

WIDE_OUTPUT: dict[str, tuple[str, ...]] = {
    # `langchain-jev calibrate` prints its figures as one table of twelve columns, 99 wide
    # for the weather judge's criteria, and the diff of the judge file it writes; the page
    # shows the output as the command prints it (the docs test runs it), so these lines
    # stay until the command's table is narrower.
    "docs/calibration.md": (
        "criterion    kind     n  base  AUROC  Brier   ECE  thresh.  acc.     kappa [95% CI]  f-pass  f-fail",
        "is_grounded  noul     4  0.50   0.75   0.21  0.19      0.7  0.75  0.50 [0.00, 1.00]    0.50    0.00",
        "helpfulness  score    8  0.50   0.75   0.27  0.31        2  0.75  0.50 [0.00, 1.00]    0.50    0.00",
        "mode         choice   8  0.50   0.50   0.50  0.50      0.6  0.50  0.00 [0.00, 0.00]    1.00    0.00",
        "has_details  noul     7  0.86   1.00   0.09  0.19      0.7  0.86  0.59 [0.00, 1.00]    0.00    0.17",
        "overall      verdict  8  0.50                               1.00  1.00 [1.00, 1.00]    0.00    0.00",
        "  has_details: 0.7 -> 0.25  (kappa 1.00, accuracy 1.00, false-pass 0.00, false-fail 0.00)",
        "overall verdict before: accuracy 1.00, kappa 1.00, false-pass 0.00, false-fail 0.00 (n=8)",
        "     instructions: Does `assistant_answer` say when the weather happens and how much of it?",
    ),
}
"""Lines of a command's output shown as it prints them, wider than `MAX_COLUMNS`, and why."""


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
        if len(text) > MAX_COLUMNS and text not in WIDE_OUTPUT.get(source, ())
    ]
    assert wide == [], f"{len(wide)} code lines over {MAX_COLUMNS} columns; wrap them:\n" + "\n".join(wide)


def test_each_wide_output_line_allowed_is_still_on_its_page_and_wide() -> None:
    for source, lines in WIDE_OUTPUT.items():
        shown = {text for _, text in code_lines((ROOT / source).read_text(encoding="utf-8"))}
        assert [line for line in lines if line not in shown or len(line) <= MAX_COLUMNS] == []


def test_the_readers_see_paragraphs_and_code_lines_where_they_are() -> None:
    text = "Para one\nwraps.\n\n- item a\n- item b\n  wraps\n\n| a | b |\n\n```python\ncode here\n```\n"
    assert paragraphs(text) == [(1, "Para one wraps."), (4, "item a"), (5, "item b wraps"), (8, "a | b")]
    assert code_lines(text) == [(11, "code here")]
