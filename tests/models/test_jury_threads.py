"""A hung jury member costs a fixed number of threads, whatever the number of calls.

Before, each call left a thread behind for a member that did not return (59
threads after 60 calls): the jury's timeout bounded only its wait. Now a
synchronous member's late calls are counted, and a member with
`MAX_LATE_CALLS` of them is not called until one returns (that call is its
failure at once); asynchronous members are cancelled at the timeout. Nothing
here times anything: threads and calls are counted.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from langchain_core.decisions import BaseDecisionModel, ClassifierResponse, Noul, Question, State

from langchain_jev import JevCriterion, JevJudge, Outcome
from langchain_jev.models import JuryDecisionModel
from langchain_jev.models._member_calls import MAX_LATE_CALLS
from langchain_jev.testing import ScriptedDecisionModel

POLITE = JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)


class Hung(BaseDecisionModel):
    """A member whose every call waits for ``gate`` (synchronously, or on the event loop when async)."""

    model: str = "hung"
    gate: Any = None
    calls: int = 0
    cancelled: int = 0

    @property
    def _provider(self) -> str:
        return "test"

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        self.calls += 1
        self.gate.wait(60)  # a hang guard only: the test sets the gate long before
        return ScriptedDecisionModel({"polite": 0.9})._classify(state, questions)

    async def _aclassify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        self.calls += 1
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return ScriptedDecisionModel({"polite": 0.9})._classify(state, questions)


def jury_with_hung_member(gate: threading.Event) -> tuple[JevJudge, Hung]:
    hung = Hung(gate=gate)
    jury = JuryDecisionModel(
        {"ok": ScriptedDecisionModel({"polite": 0.9}, model="ok"), "hung": hung}, quorum=1, timeout=0.05
    )
    return JevJudge([POLITE], model=jury), hung


def wait_for(condition: Any, tries: int = 600) -> bool:
    """Whether ``condition()`` held within ``tries`` looks a tenth of a second apart (threads end in their time)."""
    pause = threading.Event()
    for _ in range(tries):
        if condition():
            return True
        pause.wait(0.1)
    return bool(condition())


def test_sixty_calls_with_a_hung_member_leave_at_most_the_bound_of_threads() -> None:
    gate = threading.Event()
    judge, hung = jury_with_hung_member(gate)
    base = threading.active_count()
    try:
        for _ in range(60):
            verdict = judge.judge("Hi?", "Hello!")
            assert verdict.finding("polite").outcome is Outcome.PASSED  # the quorum of one answered
        assert wait_for(lambda: threading.active_count() - base <= MAX_LATE_CALLS, tries=50)  # before: 59
        assert hung.calls == MAX_LATE_CALLS  # the rest were its failure at once, never started
        failed = verdict.response.panel.failed["hung"]
        assert "still running past the jury's timeout" in failed
    finally:
        gate.set()
    assert wait_for(lambda: threading.active_count() <= base)
    judge.judge("Hi?", "Hello!")  # the member is asked again once its calls returned
    assert hung.calls == MAX_LATE_CALLS + 1


def test_many_threads_sharing_a_jury_with_a_hung_member_are_bounded_too() -> None:
    gate = threading.Event()
    judge, hung = jury_with_hung_member(gate)
    base = threading.active_count()
    try:
        with ThreadPoolExecutor(max_workers=16) as pool:
            verdicts = list(pool.map(lambda _: judge.judge("Hi?", "Hello!"), range(200)))
        assert all(v.finding("polite").outcome is Outcome.PASSED for v in verdicts)
        # at most the bound late, plus the calls started before the first of them was found late
        assert wait_for(lambda: threading.active_count() - base <= MAX_LATE_CALLS + 16, tries=50)
        assert hung.calls <= MAX_LATE_CALLS + 16  # not one per call (200)
    finally:
        gate.set()
    assert wait_for(lambda: threading.active_count() <= base)


def test_an_async_member_that_hangs_is_cancelled_and_keeps_nothing() -> None:
    gate = threading.Event()
    judge, hung = jury_with_hung_member(gate)

    async def many() -> list[Any]:
        verdicts = [await judge.ajudge("Hi?", "Hello!") for _ in range(60)]
        await asyncio.sleep(0)
        pending = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        assert pending == []
        return verdicts

    before = threading.active_count()
    verdicts = asyncio.run(many())
    assert all(v.finding("polite").outcome is Outcome.PASSED for v in verdicts)
    assert hung.cancelled == hung.calls == 60  # every call started, and every one cancelled
    assert threading.active_count() <= before
    gate.set()


@pytest.mark.parametrize("quorum", [1, 2])
def test_the_late_member_is_a_failure_the_quorum_sees(quorum: int) -> None:
    gate = threading.Event()
    hung = Hung(gate=gate)
    jury = JuryDecisionModel(
        {"ok": ScriptedDecisionModel({"polite": 0.9}, model="ok"), "hung": hung}, quorum=quorum, timeout=0.05
    )
    try:
        verdict = JevJudge([POLITE], model=jury).judge("Hi?", "Hello!")
        expected = Outcome.PASSED if quorum == 1 else Outcome.ERROR
        assert verdict.finding("polite").outcome is expected
        assert verdict.response.panel.failed["hung"].startswith("TimeoutError: no answer within 0.05 s")
    finally:
        gate.set()
