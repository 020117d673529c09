"""Throughput of ``langchain-jev judge`` against the loopback Jev server.

At ``--concurrency 64`` with a server that takes 100 ms per request, the best a
run can do is 640 rows/s. The achieved rate is measured on the server's clock,
from the first request's arrival to the last answer, so the command's start-up
(imports) and final table are left out. Goal: at least 0.85 of 640 rows/s.

The command runs as a user runs it, with the default ``--workers auto``: at
``--concurrency 64`` over 3,200 rows that is one worker process per CPU, up to
four (the table says how many).

For scale, the same requests are also sent by the bare typesafe-sdk client (64
workers calling ``system_one``, no judge, no command line) in a fresh process
against the same server: that is the ceiling the transport alone allows on this
machine, and the last row says how much of it the command line keeps.

Run: ``python benchmarks/cli_throughput.py``
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, print_table, row

from tests.support.jev_server import JevServer

CONCURRENCY = 64
DELAY = 0.1
ROWS = 3200
GOAL = 0.85
JUDGE = ROOT / "examples" / "weather_judge.yaml"
THEORETICAL = CONCURRENCY / DELAY


def write_rows(path: Path, count: int) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for index in range(count):
            row = {
                "id": f"r{index}",
                "question": f"Will it rain in town {index} tomorrow?",
                "answer": f"Yes: rain from 9am to noon in town {index}, about 3 mm.",
                "search_required": False,
            }
            handle.write(json.dumps(row) + "\n")


def cli_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TYPESAFE_", "LANGSMITH_", "LANGCHAIN_"))}
    env["TYPESAFE_API_KEY"] = "sk-benchmark"
    env["PYTHONPATH"] = str(ROOT)
    return env


def _rate(times: list[float], expected: int) -> float:
    if len(times) != expected:
        raise RuntimeError(f"expected {expected} requests, the server saw {len(times)}")
    return expected / (times[-1] + DELAY - times[0])


def cli_rate(server: JevServer, rows: int) -> tuple[float, int]:
    """Rows/s of the command line, and the most requests it had in flight."""
    with tempfile.TemporaryDirectory() as folder:
        data, out = Path(folder) / "rows.jsonl", Path(folder) / "results.jsonl"
        write_rows(data, rows)
        server.reset()
        command = [
            sys.executable, "-m", "langchain_jev.cli", "judge", str(data), "--judge", str(JUDGE),
            "--base-url", server.base_url, "--concurrency", str(CONCURRENCY), "--out", str(out), "--quiet",
        ]
        done = subprocess.run(command, env=cli_env(), capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the command failed ({done.returncode}): {done.stderr[-2000:]}")
        with open(out, encoding="utf-8") as handle:
            written = sum(1 for _ in handle) - 1  # the first line is the header
        if written != rows:
            raise RuntimeError(f"expected {rows} result lines, got {written}")
        return _rate(server.times(), rows), server.peak_in_flight


def sdk_rate(server: JevServer, rows: int) -> float:
    """Rows/s of the bare SDK client sending the same kind of request (in a fresh process)."""
    server.reset()
    command = [sys.executable, __file__, "--bare-sdk", server.base_url, str(rows)]
    subprocess.run(command, env=cli_env(), check=True, capture_output=True, text=True)
    return _rate(server.times(), rows)


async def _bare_sdk(url: str, rows: int) -> None:
    from typesafe_sdk import AsyncTypeSafeClient

    questions = {
        "helpfulness": {"type": "score", "instructions": "How helpful?", "criteria": ["0", "1", "2", "3"]},
        "mode": {"type": "choice", "instructions": "How?", "criteria": {"answered": None, "clarification_needed": None}},
        "has_details": {"type": "noul", "instructions": "Detailed?"},
    }
    client = AsyncTypeSafeClient(base_url=url)
    numbers = iter(range(rows))

    async def worker() -> None:
        for number in numbers:
            state = {"user_question": f"Will it rain in town {number}?", "assistant_answer": "Yes."}
            await client.system_one(state, questions)

    await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
    await client.aclose()


def run() -> list[Row]:
    """Measure the command line and the bare SDK, alternating; rows of {name, value, goal, ok}."""
    with JevServer(delay=DELAY, keep_bodies=False) as server:
        cli, peak = cli_rate(server, ROWS)
        sdk = sdk_rate(server, ROWS)
    fraction = cli / THEORETICAL
    from langchain_jev.datasets._local.pool import auto_workers

    return [
        row("worker processes (--workers auto)", auto_workers(CONCURRENCY, ROWS), "-", True, "procs"),
        row("command line rows/s (concurrency 64, 100 ms server)", cli, "-", True, "rows/s"),
        row("most requests in flight", peak, f"<= {CONCURRENCY}", peak <= CONCURRENCY, "reqs"),
        row("command line / theoretical 640 rows/s", fraction, f">= {GOAL}", fraction >= GOAL),
        row("bare SDK rows/s (same server, 64 workers)", sdk, "-", True, "rows/s"),
        row("bare SDK / theoretical 640 rows/s", sdk / THEORETICAL, "-", True),
        row("command line / bare SDK", cli / sdk, "-", True),
    ]


if __name__ == "__main__":
    if sys.argv[1:2] == ["--bare-sdk"]:
        asyncio.run(_bare_sdk(sys.argv[2], int(sys.argv[3])))
        sys.exit(0)
    started = time.monotonic()
    results = run()
    print_table(f"langchain-jev judge throughput ({ROWS} rows, {time.monotonic() - started:.0f} s)", results)
    sys.exit(0 if all(r["ok"] for r in results) else 1)
