"""Throughput of concurrent ``ajudge`` calls against a server that takes its time.

``CONCURRENCY`` workers share one judge (one async Jev client, its connection
pool) and judge ``VERDICTS`` inputs against the loopback Jev server, which waits
``DELAY`` seconds before each answer. The best any client can do is
``CONCURRENCY / DELAY`` verdicts per second; the figure is the share of that the
engine achieves, timed from the first call to the last verdict (after a warm-up
that opens the pool's connections). What is lost is the engine's and the SDK's own
work per verdict, which the server's wait is meant to hide.

The server runs in its own process (``python -m langchain_jev.testing.server``), so
the client's interpreter does the client's work alone, as with a remote Jev.

    python benchmarks/engine_throughput.py
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, print_table, row, served_url
from langchain_core.decisions import Choice, Noul

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.models import JevDecisionModel

CONCURRENCY = 32
DELAY = 0.1
VERDICTS = 960
GOAL = 0.8


def _judge(model: JevDecisionModel) -> JevJudge:
    return JevJudge(
        [
            JevCriterion.noul("grounded", Noul(instructions="Is `assistant_answer` supported?"), 0.7),
            JevCriterion.choice(
                "tone", Choice(instructions="Tone?", criteria={"calm": None, "rude": None}), ["calm"]
            ),
        ],
        model=model,
    )


@contextmanager
def jev_server() -> Iterator[str]:
    """The loopback Jev server in a child process; yields its URL."""
    answers = json.dumps({"grounded": 0.9, "tone": "calm"})
    command = [sys.executable, "-m", "langchain_jev.testing.server", "--delay", str(DELAY), "--answers", answers]
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        yield served_url(child.stdout)
    finally:
        child.terminate()
        child.wait(timeout=10)


async def _measure(url: str) -> float:
    """Verdicts per second."""
    model = JevDecisionModel(api_key="sk-bench", base_url=url)
    judge = _judge(model)
    try:
        await asyncio.gather(*(judge.ajudge({"assistant_answer": "warm-up"}) for _ in range(CONCURRENCY)))
        numbers = iter(range(VERDICTS))

        async def worker() -> None:
            for number in numbers:
                verdict = await judge.ajudge({"marker": f"row-{number}", "assistant_answer": "It rains."})
                assert verdict.passed

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
        return VERDICTS / (time.perf_counter() - started)
    finally:
        await model.aclose()


def run() -> list[Row]:
    """The rows of the throughput benchmark."""
    with jev_server() as url:
        rate = asyncio.run(_measure(url))
    theoretical = CONCURRENCY / DELAY
    fraction = rate / theoretical
    return [
        row(
            f"engine: verdicts/s, {CONCURRENCY} concurrent, {DELAY * 1000:g} ms server",
            rate,
            "(info)",
            True,
            "verd/s",
        ),
        row(f"engine: verdicts/s / theoretical {theoretical:g}", fraction, f">= {GOAL:g}", fraction >= GOAL),
    ]


if __name__ == "__main__":
    print_table(f"Engine throughput ({VERDICTS} verdicts)", run())
