"""Engine overhead: JevJudge.invoke against the decision model and the bare SDK call.

All three make the same System One request through the real typesafe-sdk client
over one in-process transport, so the network is out of the picture and what is
left is each layer's own work. Ratios are of CPU time (this thread's), taken in
one run, timed in alternation, medians of the rounds; the machine's load is a row
of its own. From 10 to 1,000 criteria: the cost of a criterion must stay flat, so
the judge over the SDK is held to the same bound at 1,000 as at 50, and what each
extra criterion costs above 200 is shown beside the SDK's own cost per criterion.
The theoretical limit of judge / SDK is 1: the judge makes that very call.

    python benchmarks/engine_overhead.py
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2
from _common import Row, interleaved, load_row, print_table, row
from langchain_core.decisions import Noul
from typesafe_sdk import RetryPolicy, TypeSafeClient

from langchain_jev import JevCriterion, JevJudge, JevJudgeInput
from langchain_jev.models import JevDecisionModel

SIZES = (1, 10, 50, 200, 1000)
GOALS = {10: 1.5, 50: 1.3}
"""Judge / decision model."""
SDK_GOALS = {10: 1.4, 50: 1.6, 1000: 1.6}
"""Judge / bare SDK call."""


def _client(size: int) -> TypeSafeClient:
    body = json.dumps(
        {
            "model": "jev-latest",
            "usage": {"input_tokens": 100, "output_tokens": size},
            "answers": {f"c{i}": {"type": "noul", "noul": 0.9} for i in range(size)},
        }
    ).encode()

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body, headers={"content-type": "application/json"})

    return TypeSafeClient(
        api_key="sk-bench", transport=httpx2.MockTransport(handler), retry=RetryPolicy(max_retries=0)
    )


def sides(size: int) -> dict[str, Callable[[], object]]:
    """The three calls compared, at ``size`` criteria: the judge, its decision model, the bare SDK call."""
    client = _client(size)
    model = JevDecisionModel(client=client)
    questions = {f"c{i}": Noul(instructions=f"Is statement {i} true of `assistant_answer`?") for i in range(size)}
    judge = JevJudge([JevCriterion.noul(name, q, 0.5) for name, q in questions.items()], model=model)
    data = JevJudgeInput("What is the boiling point of water?", "100 C at sea level.")
    state = data.to_state()
    wire: dict[str, Any] = {name: q.model_dump(mode="json") for name, q in questions.items()}
    verdict = judge.invoke(data)
    assert verdict.passed and len(verdict.findings) == size
    return {
        "judge": lambda: judge.invoke(data),
        "model": lambda: model.invoke({"state": state, "questions": questions}),
        "sdk": lambda: client.system_one(state, wire),
    }


def measure(size: int, rounds: int = 11, inner: int | None = None) -> dict[str, float]:
    """Seconds per call of the judge, the decision model and the bare SDK at ``size`` criteria."""
    inner = inner if inner is not None else max(3, min(40, 4000 // size))
    calls = sides(size)
    seconds = interleaved(
        list(calls.values()), rounds if size < 200 else rounds + 4, inner, clock=time.thread_time
    )
    return dict(zip(calls, seconds, strict=True))


def run() -> list[Row]:
    """The engine overhead rows of the benchmark table."""
    rows: list[Row] = [load_row()]
    measured: dict[int, dict[str, float]] = {}
    for size in SIZES:
        t = measured[size] = measure(size)
        goal = GOALS.get(size)
        ratio = t["judge"] / t["model"]
        rows.append(
            row(
                f"engine: judge / decision model, {size} criteria",
                ratio,
                f"<= {goal}" if goal else "(info)",
                goal is None or ratio <= goal,
            )
        )
        sdk_goal = SDK_GOALS.get(size)
        sdk_ratio = t["judge"] / t["sdk"]
        rows.append(
            row(
                f"engine: judge / bare SDK call, {size} criteria (limit 1)",
                sdk_ratio,
                f"<= {sdk_goal}" if sdk_goal else "(info)",
                sdk_goal is None or sdk_ratio <= sdk_goal,
            )
        )
    for low, high in ((10, 200), (200, 1000)):
        span = high - low
        sdk = (measured[high]["sdk"] - measured[low]["sdk"]) / span * 1e6
        ours = (measured[high]["judge"] - measured[low]["judge"]) / span * 1e6 - sdk
        rows.append(
            row(
                f"engine: the judge's own cost per extra criterion, {low} to {high} (the SDK's: {sdk:.1f} us)",
                ours,
                "(info)",
                True,
                "us",
            )
        )
    rows.append(load_row("at the end"))
    return rows


if __name__ == "__main__":
    print_table("Engine overhead (same in-process transport, medians of interleaved runs)", run())
