"""A check's deadline: its call is made in a kept worker, past the deadline it refuses, and nothing waits on it."""

from __future__ import annotations

import contextvars
import multiprocessing
import threading

import pytest

from langchain_jev.guardrails._deadline import IDLE_WORKERS, within

_SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="unset")


def _checkers() -> int:
    return sum(thread.name == "jev-guardrail-check" for thread in threading.enumerate())


def test_a_check_runs_in_a_worker_with_the_callers_context() -> None:
    _SEEN.set("the rail's config")
    caller = threading.get_ident()
    assert within(5, lambda: (_SEEN.get(), threading.get_ident() != caller)) == ("the rail's config", True)


def test_a_checks_error_reaches_the_caller() -> None:
    def fails() -> None:
        raise ValueError("the decision model said no")

    with pytest.raises(ValueError, match="the decision model said no"):
        within(5, fails)


def test_checks_one_after_another_reuse_their_workers() -> None:
    """A thread was started per check (120-730 us each); the workers are kept, so checks in turn share them."""
    served = {within(5, threading.current_thread) for _ in range(200)}
    assert len(served) <= 3  # one, or two when a check is handed over before its worker is idle again
    assert _checkers() <= IDLE_WORKERS + 1


def test_a_late_check_refuses_and_the_next_check_is_not_held_by_it() -> None:
    gate = threading.Event()
    with pytest.raises(TimeoutError, match=r"did not finish within 0\.05 s"):
        within(0.05, gate.wait)
    assert within(5, lambda: "answered") == "answered"  # another worker: the late one is still busy
    gate.set()


def test_many_callers_at_once_each_get_their_own_answer() -> None:
    answers: dict[int, int] = {}

    def caller(n: int) -> None:
        answers[n] = within(5, lambda: n * n)

    threads = [threading.Thread(target=caller, args=(n,)) for n in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert answers == {n: n * n for n in range(32)}


def _in_child(out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    out.put(within(5, lambda: "child"))


def test_a_forked_child_starts_its_own_workers() -> None:
    """The idle workers' threads are not copied by a fork: a child handing a check to one would wait forever."""
    within(5, lambda: None)  # a worker is idle in the parent
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    child = context.Process(target=_in_child, args=(out,))
    child.start()
    child.join(30)
    assert child.exitcode == 0
    assert out.get(timeout=5) == "child"
