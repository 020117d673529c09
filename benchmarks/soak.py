"""Soak: what a process that runs for weeks keeps, counted over long runs.

Each part runs in a fresh interpreter (so no part inherits another's memory) and
first fills what it measures to its bound (a warm-up), then runs on:

- **evaluator**: a `JevRunEvaluator` (Jev over the real SDK and an in-process
  transport) judges ``DEFAULT_RECORDS`` runs, then ``EVALUATOR_RUNS`` (20,000)
  more; the figure is the growth of the process's RSS per 1,000 runs over those
  (before its records were bounded: 0.42 MiB per 1,000);
- **cache**: a `CachedDecisionModel` with its default `InMemoryCache` answers
  ``DEFAULT_MEMORY_ENTRIES`` distinct requests, then ``CACHED_REQUESTS`` (30,000)
  more; RSS growth per 1,000 requests (before: 0.53 MiB);
- **ledger**: a guardrail `Ledger` shared through a `SQLiteCache` file of 5,000
  entries records the judged prefixes of ``LEDGER_THREADS`` conversations; the
  file's size at the end over its size a third of the way through (before: it grew
  by 804 KiB per 1,000 threads, without end);
- **threads**: a jury with a member that hangs is called ``JURY_CALLS`` (1,000)
  times with a 10 ms timeout; the threads still alive at the end, over the
  baseline (before: one per call);
- **event loops**: what a `JevDecisionModel`'s async client per loop costs: making
  one (with its bounded transport) over one request through it, so that one client
  per call would cost that much more, and one per loop costs it once.

    python benchmarks/soak.py
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx2
from _common import Row, interleaved, print_table, row
from langchain_core.decisions import BaseDecisionModel, ClassifierResponse, Noul, Question, State
from langchain_core.messages import AIMessage, HumanMessage
from langsmith.run_trees import RunTree
from typesafe_sdk import AsyncTypeSafeClient, RetryPolicy, TypeSafeClient

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.guardrails._ledger import Ledger
from langchain_jev.langsmith import DEFAULT_RECORDS, JevRunEvaluator
from langchain_jev.models import CachedDecisionModel, JevDecisionModel, JuryDecisionModel, SQLiteCache
from langchain_jev.models._cache import DEFAULT_MEMORY_ENTRIES
from langchain_jev.models._member_calls import MAX_LATE_CALLS
from langchain_jev.models._transport import AsyncBoundedTransport
from langchain_jev.testing import ScriptedDecisionModel

EVALUATOR_RUNS = 20_000
CACHED_REQUESTS = 30_000
LEDGER_THREADS = 6_000
LEDGER_ENTRIES = 5_000
JURY_CALLS = 1_000
GROWTH_GOAL = 0.1
"""MiB of RSS per 1,000 operations past the bound: flat but for the allocator's churn (a quarter of
the 0.42 and 0.53 MiB per 1,000 that were kept before the bounds)."""

MiB = 2**20
POLITE = JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)
_BODY = json.dumps(
    {
        "model": "jev-latest",
        "usage": {"input_tokens": 40, "output_tokens": 1},
        "answers": {"polite": {"type": "noul", "noul": 0.9}},
    }
).encode()


def _answer(request: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(200, content=_BODY, headers={"content-type": "application/json"})


def _jev() -> JevDecisionModel:
    transport = httpx2.MockTransport(_answer)
    retry = RetryPolicy(max_retries=0)
    return JevDecisionModel(
        client=TypeSafeClient(api_key="sk-soak", transport=transport, retry=retry),
        async_client=AsyncTypeSafeClient(api_key="sk-soak", transport=transport, retry=retry),
    )


def _rss() -> float:
    """The process's resident memory now, in MiB (after a full collection)."""
    gc.collect()
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024 / MiB
    raise RuntimeError("no VmRSS in /proc/self/status")


def _run(index: int) -> RunTree:
    run = RunTree(name="target", run_type="chain", inputs={"question": f"Question {index}?"})
    run.end(outputs={"answer": f"Answer {index}, thank you."})
    return run


def evaluator_growth() -> float:
    evaluator = JevRunEvaluator(JevJudge([POLITE], model=_jev()))
    for index in range(DEFAULT_RECORDS):  # the records fill to their bound
        evaluator.evaluate_run(_run(index))
    start = _rss()
    for index in range(DEFAULT_RECORDS, DEFAULT_RECORDS + EVALUATOR_RUNS):
        evaluator.evaluate_run(_run(index))
    assert len(evaluator._records) == DEFAULT_RECORDS
    return (_rss() - start) / (EVALUATOR_RUNS / 1000)


def cache_growth() -> float:
    cached = CachedDecisionModel(_jev())  # the default store
    request = {"questions": {"polite": POLITE.question}}

    def ask(index: int) -> None:
        cached.invoke({**request, "state": {"assistant_answer": f"Answer {index}, thank you."}})  # type: ignore[typeddict-item]

    for index in range(DEFAULT_MEMORY_ENTRIES):
        ask(index)
    start = _rss()
    for index in range(DEFAULT_MEMORY_ENTRIES, DEFAULT_MEMORY_ENTRIES + CACHED_REQUESTS):
        ask(index)
    assert len(cached.cache) == DEFAULT_MEMORY_ENTRIES
    return (_rss() - start) / (CACHED_REQUESTS / 1000)


def ledger_file() -> list[float]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ledger.sqlite"
        store = SQLiteCache(path, max_entries=LEDGER_ENTRIES)
        ledger = Ledger(store, namespace="soak")
        third = 0
        for thread in range(LEDGER_THREADS):
            turn = [
                HumanMessage(f"thread {thread}: hello"),
                AIMessage("Hello! How can I help?"),
                HumanMessage("Thanks."),
            ]
            ledger.record(turn)
            if thread == LEDGER_THREADS // 3:
                third = _size(path)
        store.sweep()
        end = _size(path)
        rows = len(store)
        store.close()
    return [end / third, end / MiB, float(rows)]


def _size(path: Path) -> int:
    """The database file's bytes once its write-ahead log is checkpointed into it."""
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return os.path.getsize(path)


class _Hung(BaseDecisionModel):
    model: str = "hung"
    gate: Any = None

    @property
    def _provider(self) -> str:
        return "soak"

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        self.gate.wait(600)
        raise TimeoutError("released")


def hung_threads() -> list[float]:
    gate = threading.Event()
    jury = JuryDecisionModel(
        {"ok": ScriptedDecisionModel({"polite": 0.9}, model="ok"), "hung": _Hung(gate=gate)},
        quorum=1,
        timeout=0.01,
    )
    judge = JevJudge([POLITE], model=jury)
    base = threading.active_count()
    for index in range(JURY_CALLS):
        judge.judge("Hi?", f"Hello {index}!")
    time.sleep(0.5)  # the answering member's threads end
    left = threading.active_count() - base
    gate.set()
    return [float(left)]


def loop_client_cost() -> float:
    """Making an async client (and its bounded transport) over one request through an existing one."""
    transport = httpx2.MockTransport(_answer)
    client = AsyncTypeSafeClient(api_key="sk-soak", transport=transport, retry=RetryPolicy(max_retries=0))
    loop = asyncio.new_event_loop()
    questions = {"polite": {"type": "noul", "instructions": "Is `assistant_answer` polite?"}}

    def request() -> None:
        loop.run_until_complete(client.system_one("Hi", questions))

    def make() -> None:
        AsyncTypeSafeClient(api_key="sk-soak", transport=AsyncBoundedTransport(base_url="http://jev.test"))

    try:
        made, asked = interleaved([make, request], rounds=15, inner=20)
    finally:
        loop.close()
    return made / asked


PARTS = {
    "evaluator": lambda: [evaluator_growth()],
    "cache": lambda: [cache_growth()],
    "ledger": ledger_file,
    "threads": hung_threads,
    "loops": lambda: [loop_client_cost()],
}


def _fresh(part: str) -> list[float]:
    command = [sys.executable, str(Path(__file__).resolve()), "--measure", part]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    values: list[float] = json.loads(done.stdout.strip().splitlines()[-1])
    return values


def run() -> list[Row]:
    """The rows of the soak benchmark."""
    (evaluator,) = _fresh("evaluator")
    (cache,) = _fresh("cache")
    grown, size, rows = _fresh("ledger")
    (threads,) = _fresh("threads")
    (cost,) = _fresh("loops")
    return [
        row(
            f"soak: RSS growth over {EVALUATOR_RUNS:,} evaluator runs past its {DEFAULT_RECORDS:,} records, per 1,000",
            evaluator, f"<= {GROWTH_GOAL:g}", evaluator <= GROWTH_GOAL, "MiB",
        ),
        row(
            f"soak: RSS growth over {CACHED_REQUESTS:,} cached requests past the default cache's {DEFAULT_MEMORY_ENTRIES:,}, per 1,000",
            cache, f"<= {GROWTH_GOAL:g}", cache <= GROWTH_GOAL, "MiB",
        ),
        row(
            f"soak: shared ledger file after {LEDGER_THREADS:,} threads / after {LEDGER_THREADS // 3:,} (bound {LEDGER_ENTRIES:,} entries)",
            grown, "<= 1.1", grown <= 1.1,
        ),
        row(f"soak: shared ledger file at the end ({int(rows):,} entries)", size, "(info)", True, "MiB"),
        row(
            f"soak: threads left by a hung jury member after {JURY_CALLS:,} calls",
            threads, f"<= {MAX_LATE_CALLS}", threads <= MAX_LATE_CALLS, "threads",
        ),
        row("soak: making an async client for a loop / one request through it", cost, "(info)", True),
    ]  # fmt: skip


if __name__ == "__main__":
    if sys.argv[1:2] == ["--measure"]:
        print(json.dumps(PARTS[sys.argv[2]]()))
    else:
        print_table("Soak: what a long-lived process keeps", run())
