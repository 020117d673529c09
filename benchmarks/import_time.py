"""Import time: what ``import langchain_jev`` costs next to ``import langchain_core``.

Each statement is timed in a fresh interpreter (``time.perf_counter`` around the
statement alone, so interpreter start-up is left out), the statements in turn,
``ROUNDS`` times; the medians are compared. Three ratios:

- ``import langchain_jev`` over ``import langchain_core``: the package itself
  (its ``__init__`` imports its names lazily);
- ``from langchain_jev import JevJudge`` over ``import langchain_core``: what a
  first judge costs;
- the same over ``from langchain_core.runnables import RunnableSerializable``:
  what the judge adds to the floor every LangChain runnable pays (the runnables
  module imports ``langsmith.run_helpers``, and with it the LangSmith client).

    python benchmarks/import_time.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, print_table, row

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 5
STATEMENTS = {
    "core": "import langchain_core",
    "runnable": "from langchain_core.runnables import RunnableSerializable",
    "package": "import langchain_jev",
    "judge": "from langchain_jev import JevJudge",
}
GOALS = {"package": 1.0, "judge_over_runnable": 1.5}

_TIMER = "import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"


def seconds(statement: str) -> float:
    """Seconds ``statement`` takes in a fresh interpreter."""
    command = [sys.executable, "-c", _TIMER.format(statement=statement)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def measure(rounds: int = ROUNDS) -> dict[str, float]:
    """Median seconds of each statement, timed in alternation after one warm-up each."""
    for statement in STATEMENTS.values():
        seconds(statement)  # compiled caches in place, files in the page cache
    samples: dict[str, list[float]] = {key: [] for key in STATEMENTS}
    for _ in range(rounds):
        for key, statement in STATEMENTS.items():
            samples[key].append(seconds(statement))
    return {key: statistics.median(values) for key, values in samples.items()}


def run() -> list[Row]:
    """The rows of the import-time benchmark."""
    t = measure()
    package, judge = t["package"] / t["core"], t["judge"] / t["core"]
    over_runnable = t["judge"] / t["runnable"]
    return [
        row("import: `import langchain_core`", t["core"] * 1000, "(info)", True, "ms"),
        row("import: `from langchain_jev import JevJudge`", t["judge"] * 1000, "(info)", True, "ms"),
        row(
            "import: `import langchain_jev` / `import langchain_core`",
            package,
            f"<= {GOALS['package']:g}",
            package <= GOALS["package"],
        ),
        row(
            "import: `from langchain_jev import JevJudge` / `import langchain_core`",
            judge,
            "(info)",
            True,
        ),
        row(
            "import: the same / `from langchain_core.runnables import RunnableSerializable`",
            over_runnable,
            f"<= {GOALS['judge_over_runnable']:g}",
            over_runnable <= GOALS["judge_over_runnable"],
        ),
    ]


if __name__ == "__main__":
    print_table(f"Import time (medians of {ROUNDS} fresh interpreters each)", run())
