"""The window a pass reads, and the options that set it: pure functions of the time given.

``since`` and ``until`` take an aware ``datetime`` (a naive one is read as UTC),
a ``timedelta`` before now, or text: ISO 8601 (``2026-01-05``,
``2026-01-05T08:00:00Z``) or a span before now (``90s``, ``30m``, ``6h``,
``7d``, ``2w``). Without ``since`` a pass starts where the cursor stopped, and
without a cursor a day before ``until`` (what ``query_v2`` reads when not told,
here said explicitly); without ``until`` it ends `SETTLE` before now, so a run
LangSmith is still ingesting is read by the next pass rather than passed over.
"""

from __future__ import annotations

import datetime
import re

from langchain_jev._errors import JevConfigurationError
from langchain_jev.monitor._cursor import Cursor, Window

__all__ = ["DEFAULT_SPAN", "SETTLE", "Moment", "moment", "span", "window_of"]

Moment = datetime.datetime | datetime.timedelta | str
"""What ``since`` and ``until`` take (see the module documentation)."""
DEFAULT_SPAN = datetime.timedelta(days=1)
"""How far back a first pass without ``since`` reads."""
SETTLE = datetime.timedelta(minutes=1)
"""How long before now a pass without ``until`` stops: runs younger than this wait for the next pass."""
_SPAN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def moment(value: Moment, now: datetime.datetime, *, name: str = "since") -> datetime.datetime:
    """``value`` as an aware UTC time (``now`` for spans before now); a clear error naming ``name``.

    Example:
        >>> now = datetime.datetime(2026, 1, 10, 12, tzinfo=datetime.timezone.utc)
        >>> moment("6h", now).hour, moment("2026-01-05", now).day, moment(datetime.timedelta(days=1), now).day
        (6, 5, 9)

    """
    if isinstance(value, datetime.timedelta):
        return now - value
    if isinstance(value, datetime.datetime):
        return (value if value.tzinfo else value.replace(tzinfo=datetime.UTC)).astimezone(datetime.UTC)
    if isinstance(value, str):
        if _SPAN.match(value):
            return now - span(value, name=name)
        try:
            parsed = datetime.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise JevConfigurationError(
                f"{name} {value!r} is not a time: give ISO 8601 (2026-01-05, 2026-01-05T08:00:00Z) "
                "or a span before now (30m, 6h, 7d)"
            ) from None
        return moment(parsed, now, name=name)
    raise JevConfigurationError(f"{name} must be a datetime, a timedelta or text, got {type(value).__name__}")


def span(text: str, *, name: str = "--idle") -> datetime.timedelta:
    """A span of time written ``90s``, ``30m``, ``6h``, ``7d`` or ``2w``; a clear error naming ``name``.

    Example:
        >>> span("15m")
        datetime.timedelta(seconds=900)

    """
    found = _SPAN.match(text)
    if not found:
        raise JevConfigurationError(f"{name} {text!r} is not a span of time: write 90s, 30m, 6h, 7d or 2w")
    return datetime.timedelta(**{_UNITS[found.group(2).lower()]: float(found.group(1))})


def window_of(
    since: Moment | None, until: Moment | None, cursor: Cursor | None, now: datetime.datetime
) -> Window | None:
    """The window of a pass (see the module documentation); None when there is nothing new to read.

    Example:
        >>> now = datetime.datetime(2026, 1, 10, 12, tzinfo=datetime.timezone.utc)
        >>> window = window_of(None, None, None, now)
        >>> window.hi == now - SETTLE, window.hi - window.lo == DEFAULT_SPAN
        (True, True)
        >>> window_of(None, None, Cursor(covered=((window.lo, window.hi),)), now) is None  # caught up
        True

    """
    hi = moment(until, now, name="until") if until is not None else now - SETTLE
    if since is not None:
        lo = moment(since, now, name="since")
        if not lo < hi:
            raise JevConfigurationError(f"since ({lo.isoformat()}) must be before until ({hi.isoformat()})")
        return Window(lo, hi)
    resume = cursor.resume_at if cursor is not None else None
    lo = resume if resume is not None else hi - DEFAULT_SPAN
    return Window(lo, hi) if lo < hi else None
