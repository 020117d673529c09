"""Engine overhead in instructions: the judge and the bare SDK call counted by callgrind.

CPU time on a shared machine moves with its load; instructions executed do not.
Each call is run in its own interpreter under ``valgrind --tool=callgrind`` with
instrumentation off until the calls begin (``callgrind_control -i on`` from inside,
after the judge is built and warmed up), and the count of a run with no calls is
taken off, so the figure is instructions per call. The judge and the SDK make the
same request as in ``engine_overhead``; the ratio at 10 and 1,000 criteria is
held to the same goals. Instructions do not see cache misses (a judge that
allocates more pays more for memory than its count says), so this complements
the CPU-time figures rather than replacing them. Run by name only (valgrind is
slow: four to eight minutes on 2 cores):

    python benchmarks/engine_instructions.py
    python benchmarks/run.py engine_instructions
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import Row, load_row, print_table, row

GOALS = {10: 1.4, 1000: 1.6}
"""Judge / bare SDK call, as in engine_overhead."""
CALLS = {10: 40, 1000: 12}
"""Calls counted per run."""
_COLLECTED = re.compile(r"Collected : (\d+)")


def _child(size: int, side: str, calls: int) -> None:
    """In the interpreter valgrind runs: build, warm up, then count ``calls`` calls of ``side``."""
    from engine_overhead import sides

    call = sides(size)[side]
    for _ in range(3):
        call()

    def instrument(state: str) -> None:
        subprocess.run(["callgrind_control", "-i", state, str(os.getpid())], check=True, capture_output=True)

    instrument("on")
    for _ in range(calls):
        call()
    instrument("off")


def count(size: int, side: str, calls: int) -> int:
    """Instructions callgrind counted while ``calls`` calls of ``side`` ran (and the toggles around them)."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        str(size),
        side,
        str(calls),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False, env={**os.environ, "PYTHONHASHSEED": "0"})
    found = _COLLECTED.findall(done.stderr)
    if done.returncode != 0 or not found:
        raise RuntimeError(f"callgrind run failed: {done.stderr.strip().splitlines()[-1:]}")
    return int(found[-1])


def run() -> list[Row]:
    """Instructions per call of the judge over the bare SDK call's, at 10 and 1,000 criteria."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        return [row("engine instructions: valgrind is not installed (not measured)", float("nan"), "-", True, "-")]
    rows: list[Row] = [load_row()]
    toggles = count(10, "sdk", 0)
    for size, goal in GOALS.items():
        calls = CALLS[size]
        judge = (count(size, "judge", calls) - toggles) / calls
        sdk = (count(size, "sdk", calls) - toggles) / calls
        ratio = judge / sdk
        rows.append(
            row(
                f"engine instructions: judge / bare SDK call, {size} criteria (SDK {sdk / 1e6:.2f} M per call)",
                ratio,
                f"<= {goal}",
                ratio <= goal,
            )
        )
    return rows


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
        sys.exit(0)
    print_table("Engine overhead in instructions (callgrind, each call in its own interpreter)", run())
