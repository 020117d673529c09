"""Requests and waiting of the judges that ask more than one thing: pairwise comparisons and juries.

Pairwise: two answers compared on 1, 3 and 7 criteria, each criterion asked in both
orders, over the real typesafe-sdk client and an in-process transport; requests
are counted at the transport. The goal is one request per pair, whatever the
number of criteria (the swapped question is one more question, not one more call).

The command: ``langchain-jev compare A B --judge SPEC`` over two judged runs of 12
rows, against the loopback server of `langchain_jev.testing.server`, with judge files
of 1 and 3 criteria; requests are counted at the server while the command compares.
The goal is one request per row.

Jury: a jury of three Jev members, each behind a transport that takes ``LATENCY``
seconds to answer, against one member alone, timed in alternation (sync and
async). The members are asked at once, so the jury's wait is about one member's:
the goal is a ratio of at most 1.5, where asking them in turn would give 3.

    python benchmarks/panel_requests.py
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2
from _common import Row, interleaved, print_table, row
from langchain_core.decisions import Noul
from typesafe_sdk import AsyncTypeSafeClient, RetryPolicy, TypeSafeClient

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.models import JevDecisionModel, JuryDecisionModel
from langchain_jev.pairwise import pairwise_judge

PAIRS = 20
LATENCY = 0.05
JURY_GOAL = 1.5


class Wire:
    """Answers every question (a choice its first label, a noul 0.9), after ``latency`` seconds."""

    def __init__(self, latency: float = 0.0) -> None:
        self.latency = latency
        self.requests = 0
        self.questions: list[int] = []
        self._lock = threading.Lock()

    def _answer(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        with self._lock:
            self.requests += 1
            self.questions.append(len(body["questions"]))
        answers: dict[str, Any] = {}
        for name, question in body["questions"].items():
            if question["type"] == "choice":
                label = next(iter(question["criteria"]))
                answers[name] = {"type": "choice", "choice": label, "probabilities": {label: 1.0}, "confidence": 1.0}
            else:
                answers[name] = {"type": "noul", "noul": 0.9}
        usage = {"input_tokens": 10, "output_tokens": len(answers)}
        return httpx2.Response(200, json={"model": body["model"], "answers": answers, "usage": usage})

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        if self.latency:
            time.sleep(self.latency)  # the server's time to answer, simulated
        return self._answer(request)

    async def handle_async(self, request: httpx2.Request) -> httpx2.Response:
        if self.latency:
            await asyncio.sleep(self.latency)
        return self._answer(request)

    def model(self) -> JevDecisionModel:
        retry = RetryPolicy(max_retries=0)
        return JevDecisionModel(
            client=TypeSafeClient(
                api_key="sk-bench", transport=httpx2.MockTransport(self), retry=retry, compression=False
            ),
            async_client=AsyncTypeSafeClient(
                api_key="sk-bench", transport=httpx2.MockTransport(self.handle_async), retry=retry, compression=False
            ),
        )


def pairwise_requests(criteria: int) -> tuple[float, float]:
    """Requests per pair, and questions per request, comparing ``PAIRS`` pairs on ``criteria`` criteria."""
    wire = Wire()
    judge = pairwise_judge({f"c{i}": f"Which answer meets criterion {i} better?" for i in range(criteria)}, wire.model())
    for index in range(PAIRS):
        judge.compare(f"Question {index}?", f"Answer A {index}.", f"Answer B {index}.")
    return wire.requests / PAIRS, sum(wire.questions) / len(wire.questions)


COMMAND_ROWS = 12


def command_requests(criteria: int) -> float:
    """Requests per row of ``langchain-jev compare A B --judge SPEC`` with a judge file of ``criteria`` nouls."""
    import contextlib
    import io
    import os
    import tempfile

    from langchain_jev.cli import main
    from langchain_jev.testing.server import JevServer

    os.environ.setdefault("TYPESAFE_API_KEY", "sk-bench")
    spec = {"criteria": [{"kind": "noul", "name": f"c{i}", "instructions": f"Criterion {i}?", "minimum": 0.5}
                         for i in range(criteria)]}
    with tempfile.TemporaryDirectory() as folder, JevServer({}, default_noul=0.9) as server:
        judge = Path(folder, "judge.json")
        judge.write_text(json.dumps(spec), encoding="utf-8")
        results = []
        for side in ("a", "b"):
            data = Path(folder, f"{side}.jsonl")
            data.write_text("".join(json.dumps({"id": f"q{n}", "question": f"Q{n}?", "answer": f"{side} {n}"}) + "\n"
                                    for n in range(COMMAND_ROWS)), encoding="utf-8")
            out = Path(folder, f"{side}.results.jsonl")
            with contextlib.redirect_stdout(io.StringIO()):
                main(["judge", str(data), "--judge", str(judge), "--base-url", server.base_url, "--quiet",
                      "--workers", "1", "--out", str(out)])
            results.append(str(out))
        server.reset()
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(["compare", *results, "--on", "id", "--judge", str(judge), "--base-url", server.base_url])
        if code != 0:
            raise RuntimeError(f"compare --judge exited {code}")
        return server.request_count / COMMAND_ROWS


def jury_ratios() -> tuple[float, float, float]:
    """Requests per jury verdict, and the jury's wall time over one member's (sync, async)."""
    criteria = [JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)]
    wires = [Wire(LATENCY) for _ in range(3)]
    jury = JevJudge(criteria, model=JuryDecisionModel({f"m{i}": w.model() for i, w in enumerate(wires)}))
    alone = JevJudge(criteria, model=Wire(LATENCY).model())
    jury.judge("Hi?", "Hello!")
    requests = sum(w.requests for w in wires)
    sync = interleaved([lambda: jury.judge("Hi?", "Hello!"), lambda: alone.judge("Hi?", "Hello!")], 5, 3)
    asynchronous = interleaved(
        [lambda: asyncio.run(jury.ajudge("Hi?", "Hello!")), lambda: asyncio.run(alone.ajudge("Hi?", "Hello!"))], 5, 3
    )
    return float(requests), sync[0] / sync[1], asynchronous[0] / asynchronous[1]


def run() -> list[Row]:
    """The rows of the pairwise and jury benchmark."""
    rows: list[Row] = []
    for criteria in (1, 3, 7):
        requests, questions = pairwise_requests(criteria)
        rows.append(row(f"pairwise: requests per pair, {criteria} criteria", requests, "== 1", requests == 1, "req"))
        rows.append(
            row(f"pairwise: questions per request, {criteria} criteria", questions, f"== {2 * criteria}",
                questions == 2 * criteria, "q")
        )
    for criteria in (1, 3):
        per_row = command_requests(criteria)
        rows.append(
            row(f"compare --judge: requests per row, {criteria} criteria", per_row, "== 1", per_row == 1, "req")
        )
    requests, sync, asynchronous = jury_ratios()
    rows.append(row("jury: requests per verdict, 3 members", requests, "== 3", requests == 3, "req"))
    rows.append(row("jury: wall time / one member's, 3 members, sync", sync, f"<= {JURY_GOAL}", sync <= JURY_GOAL))
    rows.append(
        row("jury: wall time / one member's, 3 members, async", asynchronous, f"<= {JURY_GOAL}",
            asynchronous <= JURY_GOAL)
    )
    return rows


if __name__ == "__main__":
    print_table("pairwise and jury", run())
