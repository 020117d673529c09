"""Peak memory of ``langchain-jev judge`` on 1,000 and 10,000 rows.

Rows are streamed (read one at a time, a bounded number in flight, each result
written at once), so the run over ten times the rows should stay within twice
the peak of the smaller one. Each run is a fresh command against the loopback
Jev server at ``--concurrency 64``: first with the worker processes
``--workers auto`` gives it (two on two CPUs or more, for both sizes), then
judging in its own process (``--workers 1``). Figures per size:

- the command's own process: its peak resident memory from
  ``resource.getrusage`` in that process, with the memory after imports
  alongside so the growth during the run is visible;
- all its processes (the command, its workers, and the fork server and resource
  tracker that multiprocessing starts): the sum of each one's peak resident
  memory (``VmHWM`` in ``/proc``, read every 20 ms while they run; Linux only).
  Pages the workers share with the fork server count once per process, so the
  sum overstates what the machine spends.

Run: ``python benchmarks/cli_memory.py``
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, print_table, row
from cli_throughput import cli_env, write_rows

from tests.support.jev_server import JevServer

SIZES = (1_000, 10_000)
GOAL = 2.0
JUDGE = ROOT / "examples" / "weather_judge.yaml"

# Runs the command line in this process and prints its memory: after imports, and at peak.
_CHILD = """
import json, resource, sys
import langchain_jev.cli, langchain_jev.datasets._local.run, langchain_jev.spec, langchain_jev.models._jev
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
code = langchain_jev.cli.main(sys.argv[1:])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"code": code, "before_kib": before, "peak_kib": peak}), file=sys.stderr)
"""


def _tree_peaks(root: int) -> dict[int, int]:
    """Peak resident memory (KiB) of ``root`` and each of its descendants, now (Linux)."""
    parents: dict[int, int] = {}
    peaks: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        parents[int(entry.name)] = int(fields.get("PPid", "0").strip())
        if "VmHWM" in fields:
            peaks[int(entry.name)] = int(fields["VmHWM"].split()[0])
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in tree]
        tree.update(children)
        frontier.extend(children)
    return {pid: peaks[pid] for pid in tree if pid in peaks}


def measure(server: JevServer, rows: int, workers: str = "auto") -> dict[str, float]:
    """Peak and after-import resident memory (MiB) of one run over ``rows`` rows."""
    with tempfile.TemporaryDirectory() as folder:
        data, out = Path(folder) / "rows.jsonl", Path(folder) / "results.jsonl"
        write_rows(data, rows)
        command = [
            sys.executable, "-c", _CHILD, "judge", str(data), "--judge", str(JUDGE),
            "--base-url", server.base_url, "--concurrency", "64", "--out", str(out), "--quiet",
            "--workers", workers,
        ]
        process = subprocess.Popen(command, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seen: dict[int, int] = {}
        while process.poll() is None:
            if sys.platform == "linux":
                for pid, peak in _tree_peaks(process.pid).items():
                    seen[pid] = max(seen.get(pid, 0), peak)
            time.sleep(0.02)
        _, stderr = process.communicate()
        report = json.loads(stderr.strip().splitlines()[-1])
        if report["code"] != 0:
            raise RuntimeError(f"the command failed ({report['code']}): {stderr[-2000:]}")
        with open(out, encoding="utf-8") as handle:
            written = sum(1 for _ in handle) - 1  # the first line is the header
    if written != rows:
        raise RuntimeError(f"expected {rows} result lines, got {written}")
    return {
        "before": report["before_kib"] / 1024,
        "peak": report["peak_kib"] / 1024,
        "all": sum(seen.values()) / 1024,
        "processes": len(seen),
    }


def run() -> list[Row]:
    """Measure both sizes, with workers and without; rows of {name, value, goal, ok}."""
    with JevServer(keep_bodies=False) as server:
        small, large = (measure(server, size) for size in SIZES)
        alone_small, alone_large = (measure(server, size, "1") for size in SIZES)
    ratio = large["peak"] / small["peak"]
    alone = alone_large["peak"] / alone_small["peak"]
    rows = [
        row(f"--workers auto: peak RSS of the command, {SIZES[0]:,} rows", small["peak"], "-", True, "MiB"),
        row(f"--workers auto: peak RSS of the command, {SIZES[1]:,} rows", large["peak"], "-", True, "MiB"),
        row(f"--workers auto: growth during the run, {SIZES[1]:,} rows", large["peak"] - large["before"], "-", True, "MiB"),
        row("--workers auto: command's peak ratio, 10x the rows", ratio, f"<= {GOAL}", ratio <= GOAL),
    ]
    if small["processes"] and large["processes"]:
        total = large["all"] / small["all"]
        rows += [
            row(f"--workers auto: processes (command, workers, helpers), {SIZES[1]:,} rows", large["processes"], "-", True, "procs"),
            row(f"--workers auto: sum of their peak RSS, {SIZES[0]:,} rows", small["all"], "-", True, "MiB"),
            row(f"--workers auto: sum of their peak RSS, {SIZES[1]:,} rows", large["all"], "-", True, "MiB"),
            row("--workers auto: all processes' peak ratio, 10x the rows", total, f"<= {GOAL}", total <= GOAL),
        ]
    return [
        *rows,
        row(f"--workers 1: peak RSS, {SIZES[0]:,} rows", alone_small["peak"], "-", True, "MiB"),
        row(f"--workers 1: peak RSS, {SIZES[1]:,} rows", alone_large["peak"], "-", True, "MiB"),
        row(f"--workers 1: growth during the run, {SIZES[1]:,} rows", alone_large["peak"] - alone_large["before"], "-", True, "MiB"),
        row("--workers 1: peak ratio, 10x the rows", alone, f"<= {GOAL}", alone <= GOAL),
    ]


if __name__ == "__main__":
    started = time.monotonic()
    results = run()
    print_table(f"langchain-jev judge memory ({time.monotonic() - started:.0f} s)", results)
    sys.exit(0 if all(r["ok"] for r in results) else 1)
