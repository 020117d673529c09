"""The ``langchain-jev`` command line: judge a dataset with a judge file, or print the judge schema.

Modules, one job each:

- `app`: the argument parser, the exit codes and ``main``;
- `session`: the pieces a run shares with its workers (options, jobs, the reading and writing session);
- `run`: judging the rows here, or handing them to the worker pool;
- `pool` and `worker`: the worker processes and what runs inside each;
- `readers`, `rows`: dataset files in, rows mapped to judge inputs;
- `results`, `report`, `progress`: result lines out, the closing table, the progress line;
- `fingerprint`, `lock`: the judge a results file records (``--resume`` continues it only), one writer;
- `model`, `transport`, `pacing`: the decision model the command builds, its connections, the rate limit;
- `judges`: the ``judges`` command, listing the prebuilt judges and printing their files.

Example:
    langchain-jev judge rows.jsonl --judge judge.yaml --out results.jsonl --fail-under 0.8

"""

from __future__ import annotations

from langchain_jev.cli.app import (
    EXIT_BAD_INPUT,
    EXIT_BELOW_THRESHOLD,
    EXIT_CODES,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_MODEL_ERRORS,
    EXIT_OK,
    exit_code,
    main,
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
