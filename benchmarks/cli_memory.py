"""Peak memory of ``langchain-jev judge`` on 1,000 and 10,000 rows.

Rows are streamed (read one at a time, a bounded number in flight, each result
written at once), so the run over ten times the rows should stay within twice
the peak of the smaller one. Each run is a fresh process against the loopback
Jev server; its peak resident memory comes from ``resource.getrusage`` in that
process, with the resident memory after imports reported alongside so the
growth during the run is visible.

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
import langchain_jev.cli, langchain_jev.cli_run, langchain_jev.spec, langchain_jev.models.jev
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
code = langchain_jev.cli.main(sys.argv[1:])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"code": code, "before_kib": before, "peak_kib": peak}), file=sys.stderr)
"""


def measure(server: JevServer, rows: int) -> dict[str, float]:
    """Peak and after-import resident memory (MiB) of one run over ``rows`` rows."""
    with tempfile.TemporaryDirectory() as folder:
        data, out = Path(folder) / "rows.jsonl", Path(folder) / "results.jsonl"
        write_rows(data, rows)
        command = [
            sys.executable, "-c", _CHILD, "judge", str(data), "--judge", str(JUDGE),
            "--base-url", server.base_url, "--concurrency", "64", "--out", str(out), "--quiet",
        ]
        done = subprocess.run(command, env=cli_env(), capture_output=True, text=True, check=False)
        report = json.loads(done.stderr.strip().splitlines()[-1])
        if report["code"] != 0:
            raise RuntimeError(f"the command failed ({report['code']}): {done.stderr[-2000:]}")
        with open(out, encoding="utf-8") as handle:
            written = sum(1 for _ in handle)
    if written != rows:
        raise RuntimeError(f"expected {rows} result lines, got {written}")
    return {"before": report["before_kib"] / 1024, "peak": report["peak_kib"] / 1024}


def run() -> list[Row]:
    """Measure both sizes; rows of {name, value, goal, ok}."""
    with JevServer(keep_bodies=False) as server:
        small, large = (measure(server, size) for size in SIZES)
    ratio = large["peak"] / small["peak"]
    return [
        row(f"peak RSS, {SIZES[0]:,} rows", small["peak"], "-", True, "MiB"),
        row(f"peak RSS, {SIZES[1]:,} rows", large["peak"], "-", True, "MiB"),
        row(f"growth during the run, {SIZES[0]:,} rows", small["peak"] - small["before"], "-", True, "MiB"),
        row(f"growth during the run, {SIZES[1]:,} rows", large["peak"] - large["before"], "-", True, "MiB"),
        row("peak ratio, 10x the rows", ratio, f"<= {GOAL}", ratio <= GOAL),
    ]


if __name__ == "__main__":
    started = time.monotonic()
    results = run()
    print_table(f"langchain-jev judge memory ({time.monotonic() - started:.0f} s)", results)
    sys.exit(0 if all(r["ok"] for r in results) else 1)
