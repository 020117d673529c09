"""Bounds on a monitor's requests to LangSmith: a pause every worker honours after a 429.

`retry_after` reads how long LangSmith asked to wait from the error a client
raised (``Retry-After`` on the 429 response; 30 seconds when it names none, as
``langsmith.Client`` assumes), or None when the error is not a rate limit.
`RateGate` is the pause itself, shared by every worker of a pass: one 429 holds
them all, not only the request that met it. Its arithmetic takes the time as
an argument, so it is tested without a clock.
"""

from __future__ import annotations

import asyncio
import email.utils
import threading
import time
from typing import Any

__all__ = ["DEFAULT_RETRY_AFTER", "RateGate", "retry_after"]

DEFAULT_RETRY_AFTER = 30.0
"""Seconds waited after a 429 that names no ``Retry-After`` (``langsmith.Client``'s own default)."""
MAX_RETRY_AFTER = 600.0
"""The longest pause a 429 can ask for; a larger ``Retry-After`` is read as this."""


def retry_after(error: BaseException) -> float | None:
    """Seconds to wait before the next request when ``error`` is a rate limit (HTTP 429), else None.

    Looks at the error and the errors it was raised from or during, for a response
    (a ``requests`` or ``httpx`` one) with status 429 or an error named a rate limit.

    Example:
        >>> import httpx
        >>> response = httpx.Response(429, headers={"Retry-After": "2"},
        ...                           request=httpx.Request("POST", "http://x/feedback"))
        >>> retry_after(httpx.HTTPStatusError("too many", request=response.request, response=response))
        2.0
        >>> retry_after(ValueError("no")) is None
        True

    """
    seen: set[int] = set()
    current: BaseException | None = error
    limited = False
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        response = getattr(current, "response", None)
        status = getattr(response, "status_code", None)
        if status == 429:
            return _seconds(getattr(response, "headers", None))
        if "RateLimit" in type(current).__name__:
            limited = True
        current = current.__cause__ or current.__context__
    return DEFAULT_RETRY_AFTER if limited else None


def _seconds(headers: Any) -> float:
    value = None
    if headers is not None:
        try:
            value = headers.get("retry-after")
        except Exception:  # a headers object of another shape: the default
            value = None
    if not value:
        return DEFAULT_RETRY_AFTER
    text = str(value).strip()
    try:
        seconds = float(text)
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(text) if text else None
        if parsed is None:
            return DEFAULT_RETRY_AFTER
        seconds = parsed.timestamp() - time.time()
    if seconds != seconds:  # NaN
        return DEFAULT_RETRY_AFTER
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


class RateGate:
    """A pause shared by a pass's workers: after a 429, no request leaves until it is over.

    Example:
        >>> gate = RateGate()
        >>> gate.close(at=10.0, seconds=2.0)
        >>> gate.wait_at(10.5), gate.wait_at(12.0)
        (1.5, 0.0)

    """

    def __init__(self) -> None:
        self._until = 0.0
        self._lock = threading.Lock()
        self.pauses = 0
        """How many 429s closed the gate."""

    def close(self, *, at: float, seconds: float) -> None:
        """Hold every request for ``seconds`` from ``at`` (a longer pause already set stays)."""
        with self._lock:
            self._until = max(self._until, at + seconds)
            self.pauses += 1

    def wait_at(self, now: float) -> float:
        """How long a request must wait at time ``now``."""
        with self._lock:
            return max(0.0, self._until - now)

    def pause(self, seconds: float) -> None:
        """`close` from now."""
        self.close(at=time.monotonic(), seconds=seconds)

    def wait(self) -> None:
        """Sleep until the gate is open."""
        while (delay := self.wait_at(time.monotonic())) > 0:
            time.sleep(delay)

    async def await_open(self) -> None:
        """Await until the gate is open."""
        while (delay := self.wait_at(time.monotonic())) > 0:
            await asyncio.sleep(delay)
