"""Peak memory and time of one Jev request to a hostile server, per hostile body.

Each case is a fresh interpreter (a process's peak resident memory only grows,
so cases must not share one) that makes one `JevDecisionModel` request, with
the default 16 MiB cap and ``timeout=1``, to the loopback hostile server of the
tests: an endless body, an endless chunked body, ``Content-Length: 10 GB``,
gzip, deflate and double-gzip bombs, a zstd bomb (refused where Python has no
zstd), and bodies and headers sent one byte each 0.2 s. The figures are the
growth of the process's peak resident memory over the same process just
before the request (its imports done), and the seconds the request took.
Goals: the growth stays within 4x the cap (the body is held once by httpx2,
once joined, and parsed) and the request within twice its deadline.

Run: ``python benchmarks/hostile_responses.py``
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, print_table, row

from langchain_jev.models._transport import MAX_RESPONSE_BYTES
from tests.support.hostile_server import HostileServer

CASES = (
    "endless",
    "chunked",
    "huge",
    "gzip-bomb",
    "deflate-bomb",
    "gzip-gzip-bomb",
    "zstd-bomb",
    "slow-body",
    "slow-headers",
)
TIMEOUT = 1.0

_CHILD = """
import json, resource, sys, time
from langchain_core.decisions import Noul
from typesafe_sdk import RetryPolicy
from langchain_jev.models import JevDecisionModel
model = JevDecisionModel(api_key="sk-bench-0123456789", base_url=sys.argv[1], timeout=float(sys.argv[2]),
                         retry=RetryPolicy(max_retries=0))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.monotonic()
try:
    model.invoke({"state": "Hi", "questions": {"ok": Noul(instructions="Ok?")}})
    outcome = "answered"
except Exception as error:
    outcome = type(error).__name__
took = time.monotonic() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"before_kib": before, "peak_kib": peak, "seconds": took, "outcome": outcome}))
"""


def measure(server: HostileServer, behaviour: str) -> dict[str, float | str]:
    """Memory growth (MiB), seconds and the error of one request to ``behaviour``."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, server.url(behaviour), str(TIMEOUT)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        "growth": (report["peak_kib"] - report["before_kib"]) / 1024,
        "seconds": report["seconds"],
        "outcome": report["outcome"],
    }


def run() -> list[Row]:
    """One memory row and one time row per hostile body."""
    cap = MAX_RESPONSE_BYTES / 2**20
    rows: list[Row] = []
    with HostileServer(interval=0.2, give_up_after=30.0) as server:
        for behaviour in CASES:
            found = measure(server, behaviour)
            growth, seconds = float(found["growth"]), float(found["seconds"])
            outcome = found["outcome"]
            rows.append(
                row(f"{behaviour}: peak RSS growth ({outcome})", growth, f"<= {4 * cap:g}", growth <= 4 * cap, "MiB")
            )
            rows.append(row(f"{behaviour}: seconds", seconds, f"<= {2 * TIMEOUT:g}", seconds <= 2 * TIMEOUT, "s"))
    return rows


if __name__ == "__main__":
    print_table("Hostile responses: one request each, 16 MiB cap, timeout=1", run())
