"""Subprocesses the tests interrupt start as a terminal starts them, whatever started the suite.

A shell without job control (a script, some CI) starts a background command with SIGINT
ignored, and an ignored signal stays ignored through fork and exec: a run the tests start would
then shrug off the Ctrl-C a test sends it. `interruptible` puts SIGINT back to its default in the
child just before it execs the command, so the command installs its own handler as it does in a
terminal. `sigint_at_start` runs a test both ways: as from a terminal, and with SIGINT ignored.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator, Sequence

import pytest

_DEFAULT_SIGINT_THEN_EXEC = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"


def interruptible(command: Sequence[str]) -> list[str]:
    """``command`` run with SIGINT at its default disposition (the process id stays the child's own)."""
    return [sys.executable, "-c", _DEFAULT_SIGINT_THEN_EXEC, *command]


@pytest.fixture(params=["terminal", "sigint-ignored"])
def sigint_at_start(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the test as started from a terminal, then with SIGINT ignored as a background job has it."""
    if request.param == "terminal":
        yield request.param
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield request.param
    finally:
        signal.signal(signal.SIGINT, previous)
