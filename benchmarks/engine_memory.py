"""Memory growth over many verdicts: does judging keep anything per verdict?

One judge over the real typesafe-sdk clients and an in-process transport judges
``WARM_UP`` inputs, then ``VERDICTS`` more, under ``tracemalloc``; the figure is
the memory still allocated after the run over the memory allocated after the
warm-up (garbage collected both times). Caches, pools and lazily built parts are
all in place after the warm-up, so a ratio near 1 means nothing is kept per
verdict. Both entry points are measured, each in a fresh interpreter so neither
inherits the other's leftovers: ``judge`` in a loop, and ``ajudge`` from
``WORKERS`` concurrent workers.

    python benchmarks/engine_memory.py
"""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2
from _common import Row, print_table, row
from langchain_core.decisions import Choice, Noul
from typesafe_sdk import AsyncTypeSafeClient, RetryPolicy, TypeSafeClient

from langchain_jev import JevCriterion, JevJudge, JevJudgeInput
from langchain_jev.models import JevDecisionModel

WARM_UP = 200
VERDICTS = 1000
WORKERS = 25
GOAL = 1.1

_BODY = json.dumps(
    {
        "model": "jev-latest",
        "usage": {"input_tokens": 120, "output_tokens": 2},
        "answers": {
            "grounded": {"type": "noul", "noul": 0.9},
            "tone": {
                "type": "choice",
                "choice": "calm",
                "probabilities": {"calm": 0.9, "rude": 0.1},
                "confidence": 0.9,
            },
        },
    }
).encode()


def _answer(request: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(200, content=_BODY, headers={"content-type": "application/json"})


def _judge() -> JevJudge:
    transport = httpx2.MockTransport(_answer)
    retry = RetryPolicy(max_retries=0)
    model = JevDecisionModel(
        client=TypeSafeClient(api_key="sk-bench", transport=transport, retry=retry),
        async_client=AsyncTypeSafeClient(api_key="sk-bench", transport=transport, retry=retry),
    )
    return JevJudge(
        [
            JevCriterion.noul("grounded", Noul(instructions="Is `assistant_answer` supported?"), 0.7),
            JevCriterion.choice(
                "tone", Choice(instructions="Tone?", criteria={"calm": None, "rude": None}), ["calm"]
            ),
        ],
        model=model,
    )


def _data(number: int) -> JevJudgeInput:
    return JevJudgeInput(f"Question {number}?", f"Answer {number}.", context=[f"Document {number}."])


def _held(work: Callable[[int, int], None]) -> float:
    """Allocated bytes after ``VERDICTS`` verdicts over those after the warm-up."""
    tracemalloc.start()
    try:
        work(0, WARM_UP)
        gc.collect()
        start = tracemalloc.get_traced_memory()[0]
        work(WARM_UP, VERDICTS)
        gc.collect()
        end = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return end / start


def sync_ratio() -> float:
    judge = _judge()

    def work(first: int, count: int) -> None:
        for number in range(first, first + count):
            judge.judge(_data(number))

    return _held(work)


def async_ratio() -> float:
    judge = _judge()

    async def judge_all(first: int, count: int) -> None:
        numbers = iter(range(first, first + count))

        async def worker() -> None:
            for number in numbers:
                await judge.ajudge(_data(number))

        await asyncio.gather(*(worker() for _ in range(WORKERS)))

    loop = asyncio.new_event_loop()
    try:
        return _held(lambda first, count: loop.run_until_complete(judge_all(first, count)))
    finally:
        loop.close()


def _fresh(entry: str) -> float:
    """The ratio of one entry point, measured in a fresh interpreter."""
    command = [sys.executable, str(Path(__file__).resolve()), "--measure", entry]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    ratio: float = json.loads(done.stdout.strip().splitlines()[-1])
    return ratio


def run() -> list[Row]:
    """The rows of the memory benchmark."""
    sync, concurrent = _fresh("sync"), _fresh("async")
    return [
        row(f"engine: memory after {VERDICTS} judge() / after warm-up", sync, f"<= {GOAL:g}", sync <= GOAL),
        row(
            f"engine: memory after {VERDICTS} ajudge() / after warm-up",
            concurrent,
            f"<= {GOAL:g}",
            concurrent <= GOAL,
        ),
    ]


if __name__ == "__main__":
    if sys.argv[1:2] == ["--measure"]:
        print(json.dumps(sync_ratio() if sys.argv[2] == "sync" else async_ratio()))
    else:
        print_table("Engine memory growth (tracemalloc)", run())
