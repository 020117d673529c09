"""Throughput of ``judge_dataset`` on a local Ray cluster against the loopback Jev server.

A local Ray cluster (``ray.init(num_cpus=2)``) judges ROWS rows with ACTORS
actors, each keeping IN_FLIGHT requests going, against a server that takes
DELAY seconds per request: the best the pool can do is
ACTORS x IN_FLIGHT / DELAY rows/s. The achieved rate is measured on the
server's clock (first request to last answer), so Ray's start-up is left out;
the wall time including start-up is printed too, since it decides when one
machine is enough. For scale, the plain command line (``langchain-jev judge``,
one machine, the same requests in flight) judges the same rows on the same
server.

Run: ``python benchmarks/ray_throughput.py [ROWS]`` (needs ``langchain-jev[ray]``).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, print_table, row
from cli_throughput import cli_env, write_rows

from langchain_jev.testing.server import JevServer

ACTORS = 2
IN_FLIGHT = 32
DELAY = 0.1
ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
JUDGE = ROOT / "examples" / "weather_judge.yaml"
THEORETICAL = ACTORS * IN_FLIGHT / DELAY
GOAL = 0.8


def _rate(times: list[float], expected: int) -> float:
    if len(times) != expected:
        raise RuntimeError(f"expected {expected} requests, the server saw {len(times)}")
    return expected / (times[-1] + DELAY - times[0])


def ray_rate(server: JevServer, data: Path) -> tuple[float, float]:
    """Rows/s on the server's clock, and the wall seconds including Ray's start-up."""
    import ray

    from langchain_jev.ray import judge_dataset

    started = time.monotonic()
    os.environ["TYPESAFE_API_KEY"] = "sk-benchmark"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    try:
        server.reset()
        rows = ray.data.read_json(str(data), lines=True)
        judged = judge_dataset(
            rows, str(JUDGE), base_url=server.base_url, actors=ACTORS, in_flight=IN_FLIGHT, batch_size=256
        )
        count = sum(1 for _ in judged.iter_rows())
        if count != ROWS:
            raise RuntimeError(f"expected {ROWS} rows out, got {count}")
        return _rate(server.times(), ROWS), time.monotonic() - started
    finally:
        ray.shutdown()


def cli_rate(server: JevServer, data: Path, out: Path) -> tuple[float, float]:
    """Rows/s of the plain command line at the same requests in flight, and its wall seconds."""
    import subprocess

    server.reset()
    command = [
        sys.executable, "-m", "langchain_jev.cli", "judge", str(data), "--judge", str(JUDGE),
        "--base-url", server.base_url, "--concurrency", str(ACTORS * IN_FLIGHT), "--out", str(out), "--quiet",
    ]
    started = time.monotonic()
    done = subprocess.run(command, env=cli_env(), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the command failed ({done.returncode}): {done.stderr[-2000:]}")
    return _rate(server.times(), ROWS), time.monotonic() - started


def run() -> list[Row]:
    """Ray, then the command line, on one server; rows of {name, value, goal, ok}."""
    with tempfile.TemporaryDirectory() as folder, JevServer(delay=DELAY, keep_bodies=False) as server:
        data = Path(folder) / "rows.jsonl"
        write_rows(data, ROWS)
        ray_rows, ray_wall = ray_rate(server, data)
        cli_rows, cli_wall = cli_rate(server, data, Path(folder) / "results.jsonl")
    return [
        row(f"Ray rows/s ({ACTORS} actors x {IN_FLIGHT} in flight, 100 ms server)", ray_rows, "-", True, "rows/s"),
        row(f"Ray / theoretical {THEORETICAL:.0f} rows/s", ray_rows / THEORETICAL, f">= {GOAL}",
            ray_rows / THEORETICAL >= GOAL),
        row("Ray wall time, start-up included", ray_wall, "-", True, "s"),
        row(f"command line rows/s (--concurrency {ACTORS * IN_FLIGHT})", cli_rows, "-", True, "rows/s"),
        row("command line wall time", cli_wall, "-", True, "s"),
        row("Ray / command line (rows/s)", ray_rows / cli_rows, "-", True),
    ]


if __name__ == "__main__":
    results = run()
    print_table(f"judge_dataset on a local Ray cluster ({ROWS} rows)", results)
    print(json.dumps({r["name"]: round(r["value"], 3) for r in results}))
