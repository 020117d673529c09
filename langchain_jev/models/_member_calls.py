"""A jury member's synchronous calls, each in a thread of its own, with a bound on those left running late.

A synchronous call cannot be cancelled: when a jury stops waiting for a member
(its ``timeout``), the member's thread runs on until the member returns, and a
member that hangs would keep one thread per call for as long as it hangs. Each
member of a `langchain_jev.models.JuryDecisionModel` has a `MemberCalls`:

- `MemberCalls.start` runs one call in a daemon thread (the caller's context
  copied into it, so the member's run nests in the jury's trace; a daemon, so a
  hung member never keeps the process from exiting), and returns its future;
- `MemberCalls.abandon` counts a call the jury stopped waiting for as *late*
  until it returns;
- while a member has `MAX_LATE_CALLS` late calls, `MemberCalls.start` does not
  call it: the call is that member's failure at once (`MemberBusyError`), so a
  hung member costs at most that many threads, whatever the number of calls.

Asynchronous calls are cancelled at the timeout instead, so they need no bound.

Example:
    >>> import threading
    >>> gate = threading.Event()
    >>> calls = MemberCalls(limit=1)
    >>> first = calls.start(gate.wait)
    >>> calls.abandon(first)  # the jury stopped waiting for it
    >>> print(calls.start(gate.wait))
    1 earlier call to this member is still running past the jury's timeout; not asked again until it returns
    >>> gate.set(); _ = first.result(timeout=5); calls.late
    0

"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

__all__ = ["MAX_LATE_CALLS", "MemberBusyError", "MemberCalls"]

MAX_LATE_CALLS = 4
"""How many calls one member may have running past the jury's timeout before it is not called."""


class MemberBusyError(TimeoutError):
    """A member was not called: too many of its earlier calls are still running past the jury's timeout."""


class MemberCalls:
    """One member's synchronous calls: started in daemon threads, those left late counted and bounded.

    Args:
        limit: the most calls that may run past the jury's timeout (`MAX_LATE_CALLS`).

    """

    def __init__(self, limit: int = MAX_LATE_CALLS) -> None:
        self.limit = limit
        self._late = 0
        self._lock = threading.Lock()

    @property
    def late(self) -> int:
        """Calls the jury stopped waiting for that are still running."""
        with self._lock:
            return self._late

    def start(self, function: Callable[..., Any], *args: Any) -> Future[Any] | MemberBusyError:
        """Run ``function(*args)`` in a daemon thread: its future, or the refusal while too many are late."""
        with self._lock:
            if self._late >= self.limit:
                s = "" if self._late == 1 else "s"
                verb = "is" if self._late == 1 else "are"
                return MemberBusyError(
                    f"{self._late} earlier call{s} to this member {verb} still running past the jury's "
                    "timeout; not asked again until it returns"
                )
        future: Future[Any] = Future()
        context = contextvars.copy_context()
        thread = threading.Thread(
            target=_run, args=(future, context, function, args), name="jury-member", daemon=True
        )
        thread.start()
        return future

    def abandon(self, future: Future[Any]) -> None:
        """Count ``future`` as late until it is done (at once, when it is done already)."""
        with self._lock:
            self._late += 1
        future.add_done_callback(self._returned)

    def _returned(self, _: Future[Any]) -> None:
        with self._lock:
            self._late -= 1


def _run(future: Future[Any], context: contextvars.Context, function: Callable[..., Any], args: Any) -> None:
    if not future.set_running_or_notify_cancel():
        return
    try:
        result = context.run(function, *args)
    except BaseException as error:  # handed to the jury, which tells a member's failure from the caller's
        future.set_exception(error)
    else:
        future.set_result(result)
