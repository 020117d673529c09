"""Run every benchmark of the package and print one table.

Every module in this folder with a ``run() -> list[dict]`` function is a
benchmark; each returns rows ``{name, value, goal, ok, unit}``, every value a
ratio or count measured in that one run, with its goal beside it. This script
runs them in a fixed order (newcomers after, by name), each in a fresh
interpreter that imports the module and calls ``run()``, so no benchmark inherits
another's imports, threads or memory (a child process's peak RSS starts from its
parent's), and prints the rows under the module's name with the seconds it took.
A benchmark that fails to run shows as one missed row with its error; the others
still run.

    python benchmarks/run.py                      # everything
    python benchmarks/run.py engine_memory ...    # only the named modules

The exit status is 1 when any goal was missed (or a benchmark failed), else 0.
"""

from __future__ import annotations

import importlib
import json
import math
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from _common import Row, row

ORDER = [
    "engine_overhead",
    "engine_requests",
    "engine_throughput",
    "engine_memory",
    "import_time",
    "chat_requests",
    "cli_throughput",
    "cli_memory",
]


APART = {"peers", "engine_instructions", "soak"}
"""Run only when named: ``peers`` needs the ``bench`` extra, ``engine_instructions`` valgrind; these and
``soak`` take minutes."""


def benchmark_names() -> list[str]:
    """The benchmark modules present: the known ones in order, then any others by name."""
    present = sorted(
        p.stem for p in HERE.glob("*.py") if not p.stem.startswith("_") and p.stem != "run" and p.stem not in APART
    )
    return [name for name in ORDER if name in present] + [name for name in present if name not in ORDER]


def run_one(name: str) -> tuple[list[Row], float]:
    """The rows of benchmark ``name``, run in a fresh interpreter, and the seconds it took.

    A benchmark that fails is one missed row naming its error.
    """
    started = time.monotonic()
    command = [sys.executable, str(Path(__file__).resolve()), "--one", name]
    done = subprocess.run(command, cwd=HERE.parent, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return [row(f"{name}: did not run ({last})"[:110], math.nan, "-", False, "error")], seconds
    rows: list[Row] = json.loads(done.stdout.strip().splitlines()[-1])
    return rows, seconds


def _rows_of(name: str) -> list[Row]:
    """Import benchmark ``name`` and call its ``run()`` (in this interpreter)."""
    runner = getattr(importlib.import_module(name), "run", None)
    return list(runner()) if runner is not None else []


def _value(value: float) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "-"
    return f"{value:,.3f}" if abs(value) < 1e6 else f"{value:,.0f}"


def print_sections(sections: Sequence[tuple[str, list[Row], float]]) -> None:
    """Print all rows as one table, a heading per benchmark."""
    rows = [r for _, section, _ in sections for r in section]
    width = max([len(r["name"]) for r in rows] + [40])
    print(f"{'figure':<{width}}  {'value':>12} {'unit':<7} {'goal':<10} result")
    for name, section, seconds in sections:
        print(f"-- {name} ({seconds:.1f} s)")
        for r in section:
            mark = "ok" if r["ok"] else "MISSED"
            print(f"{r['name']:<{width}}  {_value(r['value']):>12} {r['unit']:<7} {r['goal']:<10} {mark}")


def main(argv: Sequence[str]) -> int:
    """Run the named benchmarks (all when none are named); print the table; 1 if a goal was missed."""
    names = list(argv) or benchmark_names()
    unknown = [name for name in names if name not in benchmark_names() and name not in APART]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; present: {', '.join(benchmark_names())}")
        return 2
    started = time.monotonic()
    sections = []
    for name in names:
        rows, seconds = run_one(name)
        sections.append((name, rows, seconds))
        print(f"   {name}: {seconds:.1f} s", file=sys.stderr, flush=True)
    print_sections(sections)
    missed = [r for _, rows, _ in sections for r in rows if not r["ok"]]
    count = sum(len(rows) for _, rows, _ in sections)
    print(f"{count} figures, {len(missed)} missed, {time.monotonic() - started:.0f} s in all")
    return 1 if missed else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        rows = _rows_of(sys.argv[2])
        print(json.dumps(rows))
        sys.exit(0)
    sys.exit(main(sys.argv[1:]))
