"""Dataset reading: time per megabyte of a large JSON array against a small one.

The command line streams a JSON array item by item. An item longer than the
read buffer is decoded again after each read of as much again, so a large item
costs time linear in its size; a quadratic reader would take eight times as long
per megabyte for an item eight times larger (the reader before this one: 11).

    python benchmarks/dataset_reading.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, print_table, row

from langchain_jev.datasets.readers import read_rows

SMALL, LARGE = 2 << 20, 16 << 20


def _seconds(path: Path, rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for raw in read_rows(path, "json"):
            assert raw.data is not None, raw.problem
        best = min(best, time.perf_counter() - started)
    return best


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
    print_table("Dataset reading (JSON arrays, best of three)", run())
