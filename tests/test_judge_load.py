"""A bounded load test: 5,000 verdicts, 200 concurrent ``ajudge`` calls, 5% injected faults.

One judge with its own Jev clients talks to the loopback server. Every twentieth
input meets a fault, chosen by its index, so the test knows each input's fate in
advance: a fault the retry policy mends yields the same verdict as a clean run, a
fault that persists raises the provider's error, and a malformed answer makes that
one finding ERROR. The server echoes each input's marker as the request id, and the
answers are computed from the marker, so a verdict that belonged to another input
would show. The whole run sits under one generous wall-clock bound (a hang
detector, not a speed assertion), and the client's sockets are all closed after.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest
from langchain_core.decisions import Choice, Noul
from typesafe_sdk import RetryPolicy, TypeSafeInternalServerError

from langchain_jev import JevCriterion, JevJudge, JevVerdict, Outcome
from langchain_jev.models import JevDecisionModel
from tests.support.faults import API_KEY, HAS_PROC, RETRY_COUNT, sockets_to
from tests.support.jev_server import Fault, JevServer, Received

pytestmark = pytest.mark.slow  # a fault matrix: `-m 'not slow'` leaves it out

VERDICTS = 5_000
CONCURRENCY = 200
FAULT_EVERY = 20  # 5% of the inputs
HANG_BOUND = 300.0  # seconds for the whole run: only a hang gets near it

KINDS = ("503 once", "429 once", "dropped once", "500 always", "malformed answer")


def kind_of(index: int) -> str | None:
    """The fault input ``index`` meets, or None."""
    return KINDS[(index // FAULT_EVERY) % len(KINDS)] if index % FAULT_EVERY == 0 else None


def probability(index: int) -> float:
    """The probability of yes the server gives input ``index`` (spread over 0..1)."""
    return (index * 37 % 101) / 100


def tone(index: int) -> str:
    return "calm" if index % 3 else "angry"


def index_of(state: Any) -> int:
    return int(str(state["marker"]).removeprefix("input-"))


def answers(state: Any, questions: Any) -> dict[str, Any]:
    index = index_of(state)
    if kind_of(index) == "malformed answer":
        return {"ok": {"type": "noul", "noul": 1.5}, "tone": tone(index)}
    return {"ok": probability(index), "tone": tone(index)}


def faults(received: Received) -> Fault | None:
    if not isinstance(received.state, dict) or "marker" not in received.state:
        return None
    kind = kind_of(index_of(received.state))
    first_attempt = received.headers.get(RETRY_COUNT) is None
    if kind == "500 always":
        return Fault(status=500)
    if not first_attempt:
        return None
    if kind == "503 once":
        return Fault(status=503)
    if kind == "429 once":
        return Fault(status=429, retry_after=0)
    if kind == "dropped once":
        return Fault(drop=True)
    return None


def expected_requests() -> int:
    once = {"503 once", "429 once", "dropped once", "500 always"}  # two attempts each (one retry)
    return sum(2 if kind_of(i) in once else 1 for i in range(VERDICTS))


def check(index: int, outcome: JevVerdict | BaseException) -> str:
    """Assert that ``outcome`` is what input ``index`` should get; return its kind of ending."""
    kind = kind_of(index)
    if kind == "500 always":
        assert isinstance(outcome, TypeSafeInternalServerError), (index, outcome)
        assert "500 injected fault: Internal Server Error" in str(outcome)
        return "raised"
    assert isinstance(outcome, JevVerdict), (index, outcome)
    assert outcome.response is not None and outcome.response.request_id == f"input-{index}"
    assert outcome.finding("tone").label == tone(index)
    assert outcome.finding("tone").outcome is (Outcome.PASSED if tone(index) == "calm" else Outcome.FAILED)
    ok = outcome.finding("ok")
    if kind == "malformed answer":
        assert ok.outcome is Outcome.ERROR and "got 1.5" in ok.detail
        return "verdict with an error finding"
    assert ok.value == pytest.approx(probability(index))
    assert ok.outcome is (Outcome.PASSED if probability(index) >= 0.5 else Outcome.FAILED)
    assert outcome.passed is (probability(index) >= 0.5 and tone(index) == "calm")
    return "verdict"


async def test_five_thousand_verdicts_at_two_hundred_concurrent_calls_with_five_percent_faults() -> None:
    criteria = [
        JevCriterion.noul("ok", Noul(instructions="Is `assistant_answer` acceptable?"), 0.5),
        JevCriterion.choice(
            "tone", Choice(instructions="Tone?", criteria={"calm": None, "angry": None}), ["calm"]
        ),
    ]
    retry = RetryPolicy(max_retries=1, backoff_initial=0.001, backoff_max=0.002, backoff_jitter=0.0)
    with JevServer(answers, faults=faults, keep_bodies=False) as server:
        port = int(server.base_url.rsplit(":", 1)[1])
        model = JevDecisionModel(api_key=API_KEY, base_url=server.base_url, retry=retry, timeout=60.0)
        judge = JevJudge(criteria, model=model)
        gate = asyncio.Semaphore(CONCURRENCY)
        active = peak = 0

        async def one(index: int) -> JevVerdict | BaseException:
            nonlocal active, peak
            async with gate:
                active += 1
                peak = max(peak, active)
                try:
                    return await judge.ajudge(
                        {"marker": f"input-{index}", "assistant_answer": f"answer {index}"}
                    )
                except Exception as error:  # every call must end in a verdict or an error: both are checked
                    return error
                finally:
                    active -= 1

        try:
            outcomes = await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(VERDICTS))), HANG_BOUND)
            open_while_pooled = sockets_to(port) if HAS_PROC else None
        finally:
            await model.aclose()

        assert len(outcomes) == VERDICTS and peak == CONCURRENCY
        endings = Counter(check(index, outcome) for index, outcome in enumerate(outcomes))
        faulted = VERDICTS // FAULT_EVERY
        assert endings == {
            "verdict": VERDICTS - 2 * faulted // len(KINDS),
            "raised": faulted // len(KINDS),
            "verdict with an error finding": faulted // len(KINDS),
        }
        assert server.request_count == expected_requests()
        assert sorted(set(server.markers())) == sorted(f"input-{i}" for i in range(VERDICTS))
        if HAS_PROC:
            assert open_while_pooled is not None and 0 < open_while_pooled <= 100  # the SDK pools 100 at most
            assert sockets_to(port) == 0
