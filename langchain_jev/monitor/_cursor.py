"""What a monitor has finished, as plain data, and the arithmetic of moving it on (pure).

A `Cursor` holds the stretches of start time whose every run is finished
(judged and written, skipped as unmappable, or left out of the sample), as
half-open intervals ``[lo, hi)``, and the runs finished outside them, by id. A
pass reads its window in start-time order (`RunRef.order`); `advance` turns what
it finished into the next cursor: the stretch from the window's start up to the
first run not finished becomes covered, and the runs finished after that run
are kept by id. A run not finished (its model unreachable, its write refused,
still running) is read again by the next pass; nothing finished is.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_jev._errors import JevConfigurationError

__all__ = ["CURSOR_VERSION", "Cursor", "RunRef", "Window", "advance"]

CURSOR_VERSION = 1
"""The version of the cursor's JSON form."""


@dataclass(frozen=True, slots=True)
class RunRef:
    """A run as a pass first reads it: enough to order it, sample it and find its thread."""

    id: str
    """The run id (a UUID's canonical text)."""
    start_time: datetime.datetime
    """When the run started (aware, UTC)."""
    trace_id: str | None = None
    """The trace (the root run) the run belongs to."""
    ended: bool = True
    """False while the run is still going: it is judged once it has ended."""
    thread_id: str | None = None
    """The conversation the run belongs to, if any (``--threads``)."""

    @property
    def order(self) -> tuple[datetime.datetime, str]:
        """The order runs are judged in: start time, then id."""
        return (self.start_time, self.id)


@dataclass(frozen=True, slots=True)
class Window:
    """The start times a pass reads: from ``lo`` (inclusive) to ``hi`` (exclusive)."""

    lo: datetime.datetime
    hi: datetime.datetime

    def __post_init__(self) -> None:
        if self.lo.tzinfo is None or self.hi.tzinfo is None:
            raise JevConfigurationError("a monitor's window needs times with a time zone")
        if not self.lo < self.hi:
            raise JevConfigurationError(
                f"the window is empty: since {self.lo.isoformat()} is not before until {self.hi.isoformat()}"
            )

    def holds(self, moment: datetime.datetime) -> bool:
        """Whether ``moment`` is in the window."""
        return self.lo <= moment < self.hi


@dataclass(frozen=True)
class Cursor:
    """What a monitor has finished for one project and judge (see the module documentation).

    Example:
        >>> from datetime import datetime, timezone
        >>> t = [datetime(2026, 1, 1, h, tzinfo=timezone.utc) for h in range(6)]
        >>> refs = [RunRef(f"r{i}", t[i]) for i in (1, 2, 3)]
        >>> after = advance(Cursor(), Window(t[0], t[5]), refs, finished={"r1", "r3"})
        >>> [(lo.hour, hi.hour) for lo, hi in after.covered], sorted(after.written)
        ([(0, 2)], ['r3'])
        >>> after.finished(refs[0]), after.finished(refs[1]), after.finished(refs[2])
        (True, False, True)
        >>> after.resume_at.hour  # the next pass starts at the run not finished
        2

    """

    covered: tuple[tuple[datetime.datetime, datetime.datetime], ...] = ()
    """Half-open stretches of start time whose every run is finished, sorted, not overlapping."""
    written: Mapping[str, datetime.datetime] = field(default_factory=dict)
    """Runs finished outside ``covered``: id -> start time."""

    def finished(self, ref: RunRef) -> bool:
        """Whether ``ref`` was finished by an earlier pass."""
        return ref.id in self.written or any(lo <= ref.start_time < hi for lo, hi in self.covered)

    @property
    def resume_at(self) -> datetime.datetime | None:
        """Where a pass without ``since`` starts: the end of the latest covered stretch (None: no cursor)."""
        return max((hi for _, hi in self.covered), default=None)

    def to_json(self) -> dict[str, Any]:
        """The cursor as JSON-ready data."""
        return {
            "version": CURSOR_VERSION,
            "covered": [[lo.isoformat(), hi.isoformat()] for lo, hi in self.covered],
            "written": {key: moment.isoformat() for key, moment in sorted(self.written.items())},
        }

    @classmethod
    def from_json(cls, data: Any) -> Cursor:
        """A cursor from `to_json`'s data.

        Raises:
            ValueError: the data is not a cursor of this version (the message says what is wrong).

        """
        if not isinstance(data, Mapping) or data.get("version") != CURSOR_VERSION:
            raise ValueError(f"not a monitor cursor of version {CURSOR_VERSION}")
        covered = data.get("covered")
        written = data.get("written")
        if not isinstance(covered, list) or not isinstance(written, Mapping):
            raise ValueError("a cursor needs 'covered' (a list) and 'written' (a mapping)")
        pairs = []
        for pair in covered:
            if not isinstance(pair, list) or len(pair) != 2:
                raise ValueError(f"a covered stretch is [from, to], got {pair!r}")
            pairs.append((_moment(pair[0]), _moment(pair[1])))
        return cls(_merged(pairs), {str(key): _moment(value) for key, value in written.items()})


def advance(cursor: Cursor, window: Window, refs: Sequence[RunRef], finished: Iterable[str]) -> Cursor:
    """The cursor after a pass over ``window`` read ``refs`` and finished those in ``finished``.

    ``refs`` are every run the pass read in the window, in `RunRef.order`; a run
    the cursor already had counts as finished. The window's start up to the first
    run not finished becomes covered (the whole window when every run is), the
    runs finished after it are kept by id, and ids a covered stretch now holds
    are dropped.
    """
    done = set(finished)
    first_open = next((r for r in refs if r.id not in done and not cursor.finished(r)), None)
    stretches = list(cursor.covered)
    end = window.hi if first_open is None else first_open.start_time
    if window.lo < end:
        stretches.append((window.lo, end))
    covered = _merged(stretches)
    written = dict(cursor.written)
    for ref in refs:
        if ref.id in done:
            written[ref.id] = ref.start_time
    kept = {
        key: moment for key, moment in written.items() if not any(lo <= moment < hi for lo, hi in covered)
    }
    return Cursor(covered, kept)


def _merged(
    stretches: Iterable[tuple[datetime.datetime, datetime.datetime]],
) -> tuple[tuple[datetime.datetime, datetime.datetime], ...]:
    merged: list[tuple[datetime.datetime, datetime.datetime]] = []
    for lo, hi in sorted(stretches):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return tuple(merged)


def _moment(text: Any) -> datetime.datetime:
    if not isinstance(text, str):
        raise ValueError(f"a time in a cursor is ISO 8601 text, got {text!r}")
    moment = datetime.datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"a time in a cursor needs a time zone, got {text!r}")
    return moment
