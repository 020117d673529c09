"""The command line's exit codes, the one error line it ends with, and the quiet end of a closed stdout.

Exit codes (`EXIT_CODES`): 0 when all went well; 1 when the overall pass rate
is under ``--fail-under``; 2 on bad input (an unreadable or invalid file or
option, a row missing a field the judge needs, changed data or another judge on
``--resume``, a results file another run is writing); 3 when some rows were not
judged whole or not recorded: the decision model failed for them (they are recorded
as errors and count as not passed), left a criterion unjudged (an ERROR finding:
an answer it could not give readably, a jury short of its quorum), could not be
reached at all, a worker process died, or the results could not be written (a
full disk, a closed pipe). The code reflects the verdicts the same way whatever
the model is: a jury whose members are all down exits as one model that is down;
130 when interrupted (Ctrl-C); 70 on an internal error (a bug: please report
it). A bad input outranks the pass rate, which outranks errors.

Every command and both engines (local and Ray) end through these.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TextIO

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_BELOW_THRESHOLD",
    "EXIT_CODES",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_MODEL_ERRORS",
    "EXIT_OK",
    "PROG",
    "bad_input",
    "exit_code",
    "silence_stdout",
]

EXIT_OK = 0
"""Every row was judged and the pass rate is not under ``--fail-under``."""
EXIT_BELOW_THRESHOLD = 1
"""The overall pass rate is under ``--fail-under``."""
EXIT_BAD_INPUT = 2
"""Bad input: an unreadable or invalid file, a row missing fields the judge needs."""
EXIT_MODEL_ERRORS = 3
"""Some rows were not judged whole or not recorded: the decision model failed for them, left a
criterion ERROR, or could not be reached, a worker process died, or the results could not be written."""
EXIT_INTERRUPTED = 130
"""Interrupted (Ctrl-C): what was judged is on disk; ``--resume`` finishes the run."""
EXIT_INTERNAL = 70
"""An internal error (``EX_SOFTWARE``): a bug of the command, reported in one line."""

EXIT_CODES: dict[int, str] = {
    EXIT_OK: "every row was judged (and the pass rate is not under --fail-under)",
    EXIT_BELOW_THRESHOLD: "the overall pass rate is under --fail-under",
    EXIT_BAD_INPUT: "bad input: an unreadable or invalid file or option, a row missing a field the "
    "judge needs, changed data or another judge on --resume, an --out another run is writing",
    EXIT_MODEL_ERRORS: "rows not judged whole or not recorded: the decision model failed, left a "
    "criterion ERROR or could not be reached, a worker process died, or the results could not be "
    "written (--resume finishes)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C); --resume finishes",
    EXIT_INTERNAL: "internal error (a bug: please report it)",
}
"""Every exit code of the command, with what it means (the help and the command-line docs list them)."""

_PROG = "langchain-jev"

PROG = "langchain-jev"
"""The command's name, as its messages begin."""


def silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's last flush meets no closed pipe."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def exit_code(bad_rows: int, pass_rate: float | None, fail_under: float | None, errors: int) -> int:
    """The exit code of a finished run: bad input, then the threshold, then model errors.

    ``errors`` counts the rows the model did not judge whole (``Tally.unjudged``).

    Example:
        >>> exit_code(0, 0.75, 0.8, 0), exit_code(1, 1.0, None, 0), exit_code(0, 0.9, 0.8, 2)
        (1, 2, 3)

    """
    if bad_rows:
        return EXIT_BAD_INPUT
    if fail_under is not None and (pass_rate is None or pass_rate < fail_under):
        return EXIT_BELOW_THRESHOLD
    if errors:
        return EXIT_MODEL_ERRORS
    return EXIT_OK


def bad_input(stream: TextIO, message: str) -> int:
    """Say ``message`` on ``stream`` as the command's one error line; return the bad-input exit code."""
    stream.write(f"{PROG}: error: {message}\n")
    stream.flush()
    return EXIT_BAD_INPUT
