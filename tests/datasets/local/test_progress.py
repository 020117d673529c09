"""The local engine's progress display: a bar on a terminal, plain lines in a log."""

from __future__ import annotations

import io

from langchain_jev.datasets._local.progress import Progress, render_bar


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_redraws_a_bar_on_a_terminal() -> None:
    clock = iter([0.0, 1.0, 2.0, 3.0, 4.0])
    screen = _Terminal()
    progress = Progress(screen, 4, clock=lambda: next(clock), interval=0)
    progress.advance(True)
    progress.advance(False)
    progress.note("rows.jsonl:3: row 3: missing 'answer'")
    assert "\r\x1b[2K[" in screen.getvalue()
    assert "rows.jsonl:3: row 3: missing 'answer'\n" in screen.getvalue()
    assert screen.getvalue().endswith("2/4 50% | pass 50.0% | 0.7 rows/s | ETA 0:03")


def test_progress_writes_plain_lines_to_a_log() -> None:
    clock = iter([0.0, 0.5, 1.0, 10.0, 11.0])
    log = io.StringIO()
    progress = Progress(log, 3, clock=lambda: next(clock), interval=5)
    for passed in (True, True, False):
        progress.advance(passed)
    progress.finish()
    assert log.getvalue().splitlines() == [
        "progress: 1/3 rows (33%), pass rate 100.0%, 2.0 rows/s, ETA 0:01",
        "progress: 3/3 rows (100%), pass rate 66.7%, 0.3 rows/s, ETA 0:00",
        "done: 3/3 rows (100%), pass rate 66.7%, 0.3 rows/s, ETA 0:00",
    ]


def test_the_bar_without_a_total_has_no_eta() -> None:
    assert render_bar(5, None, 5, 5, 1.0) == "5 rows | pass 100.0% | 5.0 rows/s | ETA ?"
