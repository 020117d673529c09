"""Run every benchmark of the package and print one table.

Every module in this folder with a ``run() -> list[dict]`` function is a
benchmark; each returns rows ``{name, value, goal, ok, unit}``, every value a
ratio or count measured in that one run, with its goal beside it. This script
imports them in a fixed order (newcomers after, by name), runs each, and prints
the rows under the module's name with the seconds it took. A benchmark that
fails to run shows as one missed row with its error; the others still run.

    python benchmarks/run.py                      # everything
    python benchmarks/run.py engine_memory ...    # only the named modules

The exit status is 1 when any goal was missed (or a benchmark failed), else 0.
"""

from __future__ import annotations

import importlib
import math
import sys
import time
import traceback
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


def benchmark_names() -> list[str]:
    """The benchmark modules present: the known ones in order, then any others by name."""
    present = sorted(p.stem for p in HERE.glob("*.py") if not p.stem.startswith("_") and p.stem != "run")
    return [name for name in ORDER if name in present] + [name for name in present if name not in ORDER]


def run_one(name: str) -> tuple[list[Row], float]:
    """The rows of benchmark ``name`` and the seconds it took; a failure is one missed row."""
    started = time.monotonic()
    try:
        module = importlib.import_module(name)
        runner = getattr(module, "run", None)
        if runner is None:
            return [], time.monotonic() - started
        rows: list[Row] = list(runner())
    except Exception as error:
        traceback.print_exc(file=sys.stderr)
        rows = [
            row(f"{name}: did not run ({type(error).__name__}: {error})"[:110], math.nan, "-", False, "error")
        ]
    return rows, time.monotonic() - started


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
    unknown = [name for name in names if name not in benchmark_names()]
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
    sys.exit(main(sys.argv[1:]))
