"""The progress display of the command line: a bar with pass rate and ETA on a terminal, lines otherwise.

`render_bar` and `render_line` are pure; `Progress` decides when to draw, and
where (a terminal is redrawn in place; a log gets a plain line now and then).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from langchain_jev.datasets._tally import format_rate

__all__ = ["Progress", "format_duration", "render_bar", "render_line"]


def format_duration(seconds: float | None) -> str:
    """Seconds as ``m:ss`` or ``h:mm:ss``; ``?`` when unknown.

    Example:
        >>> format_duration(75), format_duration(3725), format_duration(None)
        ('1:15', '1:02:05', '?')

    """
    if seconds is None or seconds != seconds or seconds < 0 or seconds == float("inf"):
        return "?"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _eta(done: int, total: int | None, fresh: int, elapsed: float) -> float | None:
    if total is None or fresh <= 0 or elapsed <= 0:
        return None
    return max(0, total - done) * elapsed / fresh


def _pass_rate(passed: int, done: int, judged: int | None) -> str:
    base = done if judged is None else judged
    return format_rate(passed / base if base else None)


def render_line(
    done: int,
    total: int | None,
    passed: int,
    fresh: int,
    elapsed: float,
    *,
    judged: int | None = None,
) -> str:
    """One plain progress line, for logs.

    ``done`` counts rows finished (resumed ones included), ``passed`` those that
    passed out of ``judged`` (default: ``done``), ``fresh`` the rows finished in
    this run over ``elapsed`` seconds.

    Example:
        >>> render_line(50, 200, 40, 50, 10.0)
        '50/200 rows (25%), pass rate 80.0%, 5.0 rows/s, ETA 0:30'

    """
    share = f" ({done * 100 // total}%)" if total else ""
    rate = fresh / elapsed if elapsed > 0 else 0.0
    of_total = f"/{total}" if total is not None else ""
    return (
        f"{done}{of_total} rows{share}, pass rate {_pass_rate(passed, done, judged)}, "
        f"{rate:.1f} rows/s, ETA {format_duration(_eta(done, total, fresh, elapsed))}"
    )


def render_bar(
    done: int,
    total: int | None,
    passed: int,
    fresh: int,
    elapsed: float,
    width: int = 24,
    *,
    judged: int | None = None,
) -> str:
    """A progress bar for a terminal line.

    Example:
        >>> render_bar(50, 200, 40, 50, 10.0, width=8)
        '[##------] 50/200 25% | pass 80.0% | 5.0 rows/s | ETA 0:30'

    """
    if total:
        filled = min(width, done * width // total)
        bar = "[" + "#" * filled + "-" * (width - filled) + "]"
        head = f"{bar} {done}/{total} {done * 100 // total}%"
    else:
        head = f"{done} rows"
    rate = fresh / elapsed if elapsed > 0 else 0.0
    pass_rate = _pass_rate(passed, done, judged)
    eta = format_duration(_eta(done, total, fresh, elapsed))
    return f"{head} | pass {pass_rate} | {rate:.1f} rows/s | ETA {eta}"


class Progress:
    """Shows progress on ``stream``: redrawn in place on a terminal, a line every few seconds else.

    Args:
        stream: where to draw (stderr).
        total: rows in the dataset, or None when unknown.
        already: rows done by an earlier run (resumed), and ``already_passed`` of them passed.
        enabled: False to draw nothing.

    """

    def __init__(
        self,
        stream: TextIO,
        total: int | None,
        *,
        already: int = 0,
        already_passed: int = 0,
        enabled: bool = True,
        clock: Callable[[], float] = time.monotonic,
        interval: float | None = None,
    ) -> None:
        self.stream = stream
        self.total = total
        self.enabled = enabled
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.done = already
        self.passed = already_passed
        self.fresh = 0
        self.skipped = 0
        self._clock = clock
        self._start = clock()
        self._interval = interval if interval is not None else (0.1 if self.tty else 5.0)
        self._last = float("-inf")
        self._drawn = False

    def advance(self, passed: bool) -> None:
        """Count one finished row; redraw when it is time."""
        self.advance_many(1, 1 if passed else 0)

    def advance_many(self, rows: int, passed: int) -> None:
        """Count ``rows`` finished rows, ``passed`` of which passed; redraw when it is time."""
        self.done += rows
        self.fresh += rows
        self.passed += passed
        if not self.enabled:
            return
        now = self._clock()
        if now - self._last >= self._interval:
            self._draw(now)

    def restart_clock(self) -> None:
        """Measure the rate (and so the ETA) from now on: the time before was spent starting up."""
        self._start = self._clock()

    def skip(self) -> None:
        """Count one row that was not judged (bad input): done, but not in the pass rate."""
        self.done += 1
        self.skipped += 1

    def note(self, message: str) -> None:
        """Print a message (a bad row, say) without garbling the bar."""
        if self.tty and self._drawn:
            self.stream.write("\r\x1b[2K")
            self._drawn = False
        self.stream.write(message + "\n")
        self.stream.flush()
        if self.tty and self.enabled:
            self._draw(self._clock())

    @property
    def judged(self) -> int:
        """Rows with a result (bad rows left out)."""
        return self.done - self.skipped

    def finish(self) -> None:
        """Draw the last state and end the line."""
        if not self.enabled:
            return
        self._draw(self._clock(), final=True)
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, now: float, *, final: bool = False) -> None:
        if not self.enabled:
            return
        self._last = now
        elapsed = now - self._start
        if self.tty:
            text = render_bar(self.done, self.total, self.passed, self.fresh, elapsed, judged=self.judged)
            self.stream.write("\r\x1b[2K" + text)
            self._drawn = True
        else:
            text = render_line(self.done, self.total, self.passed, self.fresh, elapsed, judged=self.judged)
            self.stream.write(("done: " if final else "progress: ") + text + "\n")
        self.stream.flush()
