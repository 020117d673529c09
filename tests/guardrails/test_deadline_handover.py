"""A worker is idle again before its caller hears the answer, so checks in turn are all made by one worker."""

from __future__ import annotations

import threading

import pytest

from langchain_jev.guardrails._deadline import within


def test_checks_one_after_another_are_made_by_one_worker() -> None:
    within(5, lambda: None)  # a worker is idle
    served = {within(5, threading.current_thread) for _ in range(200)}
    assert len(served) == 1


@pytest.mark.parametrize("timeout", [0, -1.0, 1e300])
def test_any_timeout_is_waited_as_a_deadline(timeout: float) -> None:
    gate = threading.Event()
    if timeout <= 0:
        with pytest.raises(TimeoutError):
            within(timeout, gate.wait)
        gate.set()
    else:
        gate.set()
        assert within(timeout, lambda: "answered") == "answered"
