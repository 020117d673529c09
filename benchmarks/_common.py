"""Shared helpers for the benchmarks: interleaved timing and the result rows."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from typing import IO, Any

Row = dict[str, Any]


def row(name: str, value: float, goal: str, ok: bool, unit: str = "ratio") -> Row:
    """One line of the benchmark table."""
    return {"name": name, "value": value, "goal": goal, "ok": ok, "unit": unit}


def machine_load() -> str:
    """The machine's load averages (1, 5 and 15 minutes) and CPUs, for the printout of a timed run."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:  # pragma: no cover - a platform without load averages
        return "load average unknown"
    return f"load average {one:.2f} / {five:.2f} / {fifteen:.2f} on {os.cpu_count()} CPUs"


def load_row(when: str = "at start") -> Row:
    """The 1-minute load average per CPU as a row: a timed table says how busy the machine was."""
    try:
        one = os.getloadavg()[0]
    except OSError:  # pragma: no cover - a platform without load averages
        one = float("nan")
    cpus = os.cpu_count() or 1
    return row(f"machine: load per CPU {when} (1-minute average {one:.2f}, {cpus} CPUs)", one / cpus, "(info)", True, "load")


def served_url(stdout: IO[str], lines: int = 10) -> str:
    """The URL a ``python -m langchain_jev.testing.server`` child prints (its ``TYPESAFE_BASE_URL`` export).

    Raises:
        RuntimeError: the first ``lines`` lines do not name it (the server failed to start).

    """
    for _ in range(lines):
        line = stdout.readline()
        if line.startswith("export TYPESAFE_BASE_URL="):
            return line.split("=", 1)[1].strip()
    raise RuntimeError("the scripted Jev server printed no URL")


def interleaved(
    fns: Sequence[Callable[[], object]],
    rounds: int,
    inner: int,
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """Median seconds per call of each function, timed in alternation so load hits all alike.

    ``clock`` is wall time by default; ``time.thread_time`` counts this thread's CPU alone,
    which other processes on a shared machine do not move.
    """
    samples: list[list[float]] = [[] for _ in fns]
    for fn in fns:  # warm up
        for _ in range(inner):
            fn()
    for _ in range(rounds):
        for index, fn in enumerate(fns):
            start = clock()
            for _ in range(inner):
                fn()
            samples[index].append((clock() - start) / inner)
    return [statistics.median(s) for s in samples]


def print_table(title: str, rows: Sequence[Row]) -> None:
    """Print rows as an aligned table."""
    print(title)
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        mark = "ok" if r["ok"] else "MISSED"
        print(f"  {r['name']:<{width}}  {r['value']:>9.3f} {r['unit']:<6} goal {r['goal']:<10} {mark}")
