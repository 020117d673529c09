"""Throughput of ``langchain-jev judge --engine ray`` against the local engine and theory, in one run.

The same ROWS rows (a JSONL file) are judged twice against one loopback Jev
server that takes DELAY seconds per request, each time by the command a user
runs: with ``--engine ray --workers ACTORS`` (a local Ray cluster of ACTORS
actors, started by the command) and on the local engine, both at
``--concurrency`` IN_FLIGHT in all. The best either can do is
IN_FLIGHT / DELAY rows/s. Rates are taken on the server's clock (first request
to last answer), so start-up is left out; the wall time with start-up is printed
too, since it decides when one machine is enough.

The figures: Ray's rows/s against the local engine's and against theory (goals:
at least 0.9 of the local engine, 0.8 of theory), the most requests the server
saw in flight during the Ray run against the IN_FLIGHT asked for (goal 0.9) and
against one actor's share (every actor busy: one actor alone never passes its
share), and the CPU each run spent per
row, over the command and every process under it, sampled from ``/proc``
(Ray's actors and services, or the local worker processes; for information:
what the machine pays per row beside the requests, start-up included).

Run: ``python benchmarks/ray_throughput.py [ROWS]`` (needs ``langchain-jev[ray]``;
the machine to itself, since both engines share its cores with the server).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, load_row, print_table, row
from cli_throughput import cli_env, write_rows

from langchain_jev.testing.server import JevServer

ACTORS = 2
IN_FLIGHT = 64
DELAY = 0.1
ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
JUDGE = ROOT / "examples" / "weather_judge.yaml"
ANSWERS = {"is_grounded": 0.9, "helpfulness": 3, "mode": "answered", "has_details": 0.9}
"""What the server answers each of the judge's questions (it answers none nobody scripted)."""
THEORETICAL = IN_FLIGHT / DELAY
GOAL_LOCAL = 0.9
GOAL_THEORY = 0.8


def _rate(times: list[float], expected: int) -> float:
    if len(times) != expected:
        raise RuntimeError(f"expected {expected} requests, the server saw {len(times)}")
    return expected / (times[-1] + DELAY - times[0])


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _tree_cpu(root: int) -> dict[int, float]:
    """CPU seconds so far of ``root`` and every process under it (Linux ``/proc``; empty elsewhere)."""
    parents: dict[int, int] = {}
    spent: dict[int, float] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        parents[int(entry)] = int(fields[1])
        spent[int(entry)] = (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime
    tree, grown = {root}, True
    while grown:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grown = bool(more)
    return {pid: spent[pid] for pid in tree if pid in spent}


def _run_sampled(command: list[str]) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run ``command``; its result and the CPU seconds of its process tree, sampled every 0.2 s.

    Each process counts with the most it was seen to have spent, so a process that
    ends between two samples loses at most its last 0.2 s.
    """
    seen: dict[int, float] = {}
    with subprocess.Popen(command, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.2):
                for pid, cpu in _tree_cpu(process.pid).items():
                    seen[pid] = max(seen.get(pid, 0.0), cpu)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            stdout, stderr = process.communicate(timeout=1800)
        finally:
            done.set()
            sampler.join()
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr), sum(seen.values())


def judge(server: JevServer, data: Path, out: Path, *engine: str) -> dict[str, float]:
    """One run of the command: rows/s on the server's clock, wall seconds, peak in flight, CPU ms per row."""
    server.reset()
    command = [
        sys.executable, "-m", "langchain_jev.cli", "judge", str(data), "--judge", str(JUDGE),
        "--base-url", server.base_url, "--concurrency", str(IN_FLIGHT), "--out", str(out), "--quiet", *engine,
    ]  # fmt: skip
    started = time.monotonic()
    done, cpu = _run_sampled(command)
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"the command failed ({done.returncode}): {done.stderr[-2000:]}")
    written = len(out.read_text(encoding="utf-8").splitlines()) - 1  # the header
    if written != ROWS:
        raise RuntimeError(f"expected {ROWS} records, {out} holds {written}")
    return {
        "rate": _rate(server.times(), ROWS),
        "wall": wall,
        "peak": float(server.peak_in_flight),
        "cpu_ms": 1000 * cpu / ROWS,
    }


def run() -> list[Row]:
    """Ray, then the local engine, on one server; rows of {name, value, goal, ok}."""
    with tempfile.TemporaryDirectory() as folder, JevServer(ANSWERS, delay=DELAY, keep_bodies=False) as server:
        data = Path(folder) / "rows.jsonl"
        write_rows(data, ROWS)
        start = load_row()
        on_ray = judge(server, data, Path(folder) / "ray.jsonl", "--engine", "ray", "--workers", str(ACTORS))
        local = judge(server, data, Path(folder) / "local.jsonl")
    versus_local, versus_theory = on_ray["rate"] / local["rate"], on_ray["rate"] / THEORETICAL
    busy, share = on_ray["peak"] / IN_FLIGHT, IN_FLIGHT // ACTORS
    return [
        start,
        row(f"Ray rows/s ({ACTORS} actors, --concurrency {IN_FLIGHT}, 100 ms server)", on_ray["rate"], "-", True, "rows/s"),
        row("local engine rows/s (the same command without --engine ray)", local["rate"], "-", True, "rows/s"),
        row("Ray / local engine (rows/s)", versus_local, f">= {GOAL_LOCAL}", versus_local >= GOAL_LOCAL),
        row(f"Ray / theoretical {THEORETICAL:.0f} rows/s", versus_theory, f">= {GOAL_THEORY}", versus_theory >= GOAL_THEORY),
        row("local engine / theoretical", local["rate"] / THEORETICAL, "-", True),
        row(f"Ray: most requests in flight / {IN_FLIGHT} asked", busy, ">= 0.9", busy >= 0.9),
        row(f"Ray: every actor busy (most in flight > one actor's {share})", on_ray["peak"], f"> {share}", on_ray["peak"] > share, "reqs"),
        row("Ray wall time, start-up included", on_ray["wall"], "-", True, "s"),
        row("local engine wall time, start-up included", local["wall"], "-", True, "s"),
        row("Ray CPU per row (command, actors, Ray's services)", on_ray["cpu_ms"], "(info)", True, "ms"),
        row("local engine CPU per row (command and its workers)", local["cpu_ms"], "(info)", True, "ms"),
        load_row("at end"),
    ]  # fmt: skip


if __name__ == "__main__":
    results = run()
    print_table(f"langchain-jev judge --engine ray vs the local engine ({ROWS} rows)", results)
    print(json.dumps({r["name"]: round(r["value"], 3) for r in results}))
