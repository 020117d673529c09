"""A check's call with a deadline: made in a worker thread, waited on no longer than the rail allows.

- `within`: ``call()`` with this context (its config, its trace parent), or
  `TimeoutError` past the deadline; a call past it is left to finish in its
  thread and its result is dropped (a thread cannot be stopped from outside).

The workers are daemon threads kept for the next check once their call returns
(at most `IDLE_WORKERS` wait), so a check costs a hand-over, not a thread start:
starting a thread took 120-730 us a check on a two-core machine, a hand-over 15 us (with a lock
for the answer, not a `threading.Event`, and the worker idle before the caller hears, about 10).
A worker whose call is late is busy, not idle, so the next check takes another;
none outlives a fork (the child starts its own).
"""

from __future__ import annotations

import contextvars
import os
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["IDLE_WORKERS", "late", "within"]

T = TypeVar("T")

IDLE_WORKERS = 8
"""How many workers wait for the next check; one past it ends when its call returns."""

_Job = tuple[contextvars.Context, Callable[[], Any], list[tuple[bool, Any]], threading.Lock]
"""A check's call: its context, the call, where its outcome goes, and a lock held until it is there."""


class _Worker:
    """One daemon thread making one check's call at a time, from its own inbox."""

    def __init__(self) -> None:
        self.inbox: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="jev-guardrail-check", daemon=True).start()

    def _serve(self) -> None:
        while True:
            context, call, outcome, done = self.inbox.get()
            try:
                outcome.append((True, context.run(call)))
            except BaseException as error:
                outcome.append((False, error))
            # idle again before the caller hears, so its next check finds this worker, not a new one
            resting = _rest(self)
            done.release()
            del context, call, outcome, done  # nothing of a check stays with the idle worker
            if not resting:
                return


_idle: list[_Worker] = []
_lock = threading.Lock()


def _take() -> _Worker:
    with _lock:
        if _idle:
            return _idle.pop()
    return _Worker()


def _rest(worker: _Worker) -> bool:
    """Put ``worker`` back among the idle, or tell it to end when enough wait already."""
    with _lock:
        if len(_idle) < IDLE_WORKERS:
            _idle.append(worker)
            return True
    return False


def _forget_after_fork() -> None:
    global _lock
    _idle.clear()  # their threads were not copied into the child
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)


def late(timeout: float) -> str:
    """What a check past its deadline says (sync and async alike)."""
    return f"the safety check did not finish within {timeout:g} s"


def within(timeout: float | None, call: Callable[[], T]) -> T:
    """``call()``, or `TimeoutError` when it has not returned within ``timeout`` seconds.

    The call runs in a worker thread with this context (its config, its trace
    parent); past the deadline it is left to finish on its own and its result is dropped.
    """
    if timeout is None:
        return call()
    outcome: list[tuple[bool, Any]] = []
    done = threading.Lock()  # released by the worker once the outcome is in: a lock is half an Event's cost
    done.acquire()
    _take().inbox.put((contextvars.copy_context(), call, outcome, done))
    if not done.acquire(timeout=min(max(timeout, 0.0), threading.TIMEOUT_MAX)):
        raise TimeoutError(late(timeout))
    ok, value = outcome[0]
    if not ok:
        raise value
    result: T = value
    return result
