"""The page of two ``guardrail-eval`` runs compared, in real Chromium: both tables, the flipped rows by text."""

from __future__ import annotations

from pathlib import Path

import pytest

from langchain_jev.compare._guardrail import GuardrailComparison, compare_guardrail_quality
from langchain_jev.guardrails.quality import RowLabel, ScoredRow, measure
from langchain_jev.report._guardrail_compare_page import (
    render_guardrail_comparison,
    write_guardrail_comparison,
)
from tests.report.browser import find_chromium, open_page

CHROMIUM = find_chromium()
PAYLOAD = "<img src=x onerror=\"document.title='pwned'\">"


def compared() -> GuardrailComparison:
    hate, safe = RowLabel(True, frozenset({"hate"})), RowLabel(False)
    rows = [
        ScoredRow(1, hate, {"hate": 0.9}, 0.1, "a hateful rant", "r1"),
        ScoredRow(2, hate, {"hate": 0.4}, 0.1, "a subtle slur " + PAYLOAD, "r2"),
        ScoredRow(3, safe, {"hate": 0.35}, 0.1, "How do I kill a Python process?", "r3"),
        ScoredRow(4, safe, {"hate": 0.1}, 0.1, "banana bread", "r4"),
    ]
    pairs = [(n, n) for n in range(1, 5)]
    return compare_guardrail_quality(measure(rows, {"hate": 0.5}), measure(rows, {"hate": 0.3}), pairs)


def test_the_page_lists_the_flipped_rows_escaped_regressions_first() -> None:
    page = render_guardrail_comparison(compared(), "compare: a -> b")
    assert PAYLOAD not in page and "a subtle slur" in page
    assert page.index("How do I kill a Python process?") < page.index("a subtle slur")  # the regression first
    assert "Flipped rows (2, 1 regressions)" in page


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (.ci/run installs it)")
def test_the_page_renders_in_chromium_with_no_error_and_no_request(tmp_path: Path) -> None:
    path = tmp_path / "compare.html"
    write_guardrail_comparison(path, compared(), "compare: a -> b")
    probe = "JSON.stringify([...document.querySelectorAll('section.flips td.text')].map(t => t.textContent))"
    visit = open_page(CHROMIUM, path, probes=[probe])  # type: ignore[arg-type]
    assert visit.console_errors == [] and visit.exceptions == []
    assert visit.requests == [path.resolve().as_uri()]
    assert visit.title == "compare: a -> b"  # the payload did not run
    assert visit.probes[0] == ["How do I kill a Python process?", "a subtle slur " + PAYLOAD]
