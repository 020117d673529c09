"""The ``langchain-jev`` command line: judge a dataset with a judge file, or print the judge schema.

Modules, one job each. The commands and their arguments:

- `app`: ``main`` and the parser; it only dispatches, and nothing but the entry points imports it;
- `arguments`: the argument types the commands share (``--fail-under``, ``--base-url``, ...);
- `judge`: the ``judge`` command (here, or on Ray with ``--engine ray``) and its ``--html`` report;
- `rejudge`, `calibrate`: decide stored answers again; measure a judge against human labels;
- `judges`: the ``judges`` command, listing the prebuilt judges and printing their files;
- `validate`: the ``schema`` and ``validate`` commands;
- `deploy`: the ``deploy`` command, a judge file as a LangSmith online evaluator.

The local engine the ``judge`` command runs is `langchain_jev.datasets.local`; what
both engines and several commands share (rows, readers, results files, the lock, the
fingerprint, the tally, the decision model, pacing, the option readers and the exit
codes) is `langchain_jev.datasets`.

Example:
    langchain-jev judge rows.jsonl --judge judge.yaml --out results.jsonl --fail-under 0.8

"""

from __future__ import annotations

from langchain_jev.cli.app import main
from langchain_jev.datasets.exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_BELOW_THRESHOLD,
    EXIT_CODES,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_MODEL_ERRORS,
    EXIT_OK,
    exit_code,
)

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_BELOW_THRESHOLD",
    "EXIT_CODES",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_MODEL_ERRORS",
    "EXIT_OK",
    "exit_code",
    "main",
]
