"""Dataset reading: time per megabyte of a large JSON array against a small one; peak memory of huge rows.

The command line streams a JSON array item by item. An item longer than the
read buffer is decoded again after each read of as much again, so a large item
costs time linear in its size; a quadratic reader would take eight times as long
per megabyte for an item eight times larger (the reader before this one: 11).

A row is never held at more than a few times the row cap (16 Mi characters):
a JSONL file of one 1 GiB line, and a CSV file of one record of 12 million
cells (34 MiB), are each counted and read in a fresh process whose peak
resident memory is reported, over the interpreter's own (for information; the
readers before these figures peaked at 2.1 GiB and 933 MiB).

    python benchmarks/dataset_reading.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, print_table, row

from langchain_jev.datasets._readers import read_rows

SMALL, LARGE = 2 << 20, 16 << 20


def _seconds(path: Path, rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for raw in read_rows(path, "json"):
            assert raw.data is not None, raw.problem
        best = min(best, time.perf_counter() - started)
    return best


_PEAK = """
import resource, sys
from langchain_jev.datasets._readers import count_rows, read_rows
path, fmt = sys.argv[1], sys.argv[2]
if path != "-":
    count_rows(path, fmt)
    problems = [raw.problem for raw in read_rows(path, fmt)]
    assert problems and problems[0], problems
try:  # the high-water mark of this process image (ru_maxrss keeps the forking parent's across exec)
    with open("/proc/self/status") as status:
        print(next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:")))
except OSError:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def _peak(path: Path | None, fmt: str) -> float:
    """Peak resident bytes of a fresh process that counts and reads ``path`` (None: imports only)."""
    root = str(Path(__file__).resolve().parents[1])
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, str(path) if path else "-", fmt],
        capture_output=True, text=True, check=True, cwd=root, env={"PYTHONPATH": root, "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    return float(done.stdout.split()[-1])


def peaks() -> list[Row]:
    """Peak memory, in MiB, reading a 1 GiB JSONL line and a 12-million-cell CSV record."""
    with tempfile.TemporaryDirectory() as folder:
        line = Path(folder) / "line.jsonl"
        with open(line, "w", encoding="ascii") as handle:
            handle.write('{"answer": "')
            for _ in range(1024):
                handle.write("x" * (1 << 20))
            handle.write('"}\n')
        record = Path(folder) / "record.csv"
        with open(record, "w", encoding="ascii") as handle:
            handle.write("id,answer\n1,")
            for _ in range(12):
                handle.write("a," * 1_000_000)
            handle.write("\n")
        base = _peak(None, "jsonl")
        jsonl, csv = _peak(line, "jsonl") - base, _peak(record, "csv") - base
    mib = float(1 << 20)
    return [
        row("reading: peak MiB over the interpreter's, one 1 GiB JSONL line", jsonl / mib, "(info)", True, "MiB"),
        row("reading: peak MiB over the interpreter's, a 12-million-cell CSV record", csv / mib, "(info)", True, "MiB"),
    ]


def run() -> list[Row]:
    """Seconds per MB, one large item / one small item, and many rows / one large item."""
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for name, size in (("small", SMALL), ("large", LARGE - 64)):
            paths[name] = Path(folder) / f"{name}.json"
            paths[name].write_text(json.dumps([{"answer": "x" * size}]), encoding="utf-8")
        rows = [{"id": i, "question": "q" * 50, "answer": "a" * 400} for i in range(LARGE // 480)]
        paths["rows"] = Path(folder) / "rows.json"
        paths["rows"].write_text(json.dumps(rows), encoding="utf-8")
        per_mb = {name: _seconds(path) / (path.stat().st_size / 1e6) for name, path in paths.items()}
    growth = per_mb["large"] / per_mb["small"]
    return [
        row("reading: s/MB, one 16 MB item / one 2 MB item", growth, "<= 3", growth <= 3),
        row("reading: s/MB, 16 MB of rows / one 16 MB item", per_mb["rows"] / per_mb["large"], "(info)", True),
    ]


if __name__ == "__main__":
    print_table("Dataset reading (JSON arrays, best of three; peak memory of huge rows)", run() + peaks())
