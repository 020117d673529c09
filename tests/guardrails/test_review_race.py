"""A review token works once even when two resumes present it at once: exactly one allow takes effect.

The use-once check read the spent record and then wrote it, so two resumes racing with the same token
could both find it unspent and both allow. The claim is now atomic in the process (a lock per token)
and a splitter in the store (a claim id written, the door closed, the id read back), so of the claims
made at once exactly one wins in a process and at most one across processes. The stores below hold
every claimant at its first read of the spent record until all have made it (a barrier), so each
round is the race the old check lost; no assertion is timed.
"""

from __future__ import annotations

import asyncio
import itertools
import queue
import threading
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from langchain_jev.guardrails import GuardrailSettings, review_token
from langchain_jev.guardrails._policy import GuardrailReport
from langchain_jev.guardrails._review import ReviewBinding, _split, claim_token, reviewed, spent_key
from langchain_jev.middleware import JevGuardrailMiddleware
from langchain_jev.models import InMemoryCache
from tests.fakes import JevWire
from tests.guardrails.helpers import SEQUENTIAL, chat

KEY = "a review key nobody else holds"
REPLY = "A fair reply."
SPENT = spent_key("x").partition(":")[0]


class RacingStore(InMemoryCache):
    """A store that holds each claimant after its first read of a spent record until ``parties`` have read.

    So every claimant reads the record before any writes it: the interleaving in which a read-then-write
    check lets all of them through. The barrier's timeout only keeps a broken run from hanging.
    """

    def __init__(self, parties: int) -> None:
        super().__init__()
        self.barrier = threading.Barrier(parties, timeout=60)
        self._read = threading.local()

    def get(self, key: str) -> dict[str, Any] | None:
        value = super().get(key)
        if key.startswith(SPENT) and not getattr(self._read, "done", False):
            self._read.done = True
            self.barrier.wait()  # every claimant has read the record before any goes on to write it
        return value


def _settings() -> GuardrailSettings:
    return GuardrailSettings.of(
        None, on_inconclusive="interrupt", review_key=KEY, review_store=lambda item: None
    )


def _review(store: Any, binding: ReviewBinding, token: str) -> GuardrailReport:
    report = GuardrailReport("input", False, undecided=("hate",))
    answer = {"decision": "allow", "token": token}
    return reviewed(report, binding, {"text": "x"}, lambda request: answer, _settings(), store, check="input")


def _token(binding: ReviewBinding) -> str:
    request = {
        "thread_id": binding.thread_id,
        "review_id": binding.review_id,
        "fingerprint": binding.fingerprint,
    }
    return review_token(KEY, request)


def _race(count: int, run: Callable[[int], Any]) -> list[Any]:
    results: list[Any] = [None] * count
    errors: list[BaseException] = []

    def one(index: int) -> None:
        try:
            results[index] = run(index)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def _racing_reviews(claimants: int, thread_id: str, *, in_loops: bool = False) -> list[bool]:
    """Whether each of ``claimants`` resumes, racing with one token, allowed (each in its own loop)."""
    store = RacingStore(claimants)
    binding = ReviewBinding(thread_id, "r1", "f1")
    token = _token(binding)

    async def in_loop() -> GuardrailReport:
        return await asyncio.to_thread(_review, store, binding, token)

    def one(_: int) -> GuardrailReport:
        return asyncio.run(in_loop()) if in_loops else _review(store, binding, token)

    reports = _race(claimants, one)
    assert all((r.review == "allow") is (not r.refused) for r in reports)
    return [r.review == "allow" for r in reports]


@pytest.mark.parametrize("claimants", [2, 4])
def test_of_resumes_racing_with_one_token_exactly_one_allows(claimants: int) -> None:
    for round_ in range(40):
        assert _racing_reviews(claimants, f"t{round_}").count(True) == 1, round_


def test_of_resumes_racing_in_event_loops_of_their_own_exactly_one_allows() -> None:
    for round_ in range(40):
        assert _racing_reviews(2, f"t{round_}", in_loops=True).count(True) == 1, round_


class Scheduled(InMemoryCache):
    """One store that claimants in processes of their own (no shared lock) use one operation at a time.

    Before each operation a claimant says so and waits for its turn; the test hands out turns in the
    order a schedule gives, so every interleaving of the claimants' reads and writes can be run.
    """

    def __init__(self, claimants: int) -> None:
        super().__init__()
        self.turns = [threading.Semaphore(0) for _ in range(claimants)]
        self.signals: list[queue.Queue[str]] = [queue.Queue() for _ in range(claimants)]
        self.me = threading.local()

    def _turn(self) -> None:
        index = self.me.index
        self.signals[index].put("op")
        if not self.turns[index].acquire(timeout=60):  # pragma: no cover - a broken schedule
            raise AssertionError("no turn came")

    def get(self, key: str) -> dict[str, Any] | None:
        self._turn()
        return super().get(key)

    def put(self, key: str, value: Mapping[str, Any]) -> None:
        self._turn()
        super().put(key, value)


def _interleaved(schedule: list[int], claimants: int) -> list[bool]:
    """Run the store's splitter for ``claimants`` at once, their operations in the order of ``schedule``."""
    store = Scheduled(claimants)
    binding = ReviewBinding("t", "r1", "f1")
    token = _token(binding)
    wins: list[bool] = [False] * claimants
    errors: list[BaseException] = []

    def claimant(index: int) -> None:
        store.me.index = index
        try:
            wins[index] = _split(store, token, binding)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)
        finally:
            store.signals[index].put("end")

    threads = [threading.Thread(target=claimant, args=(i,)) for i in range(claimants)]
    for t in threads:
        t.start()
    status = [store.signals[i].get(timeout=60) for i in range(claimants)]
    order = [*schedule, *[i for i in range(claimants) for _ in range(5)]]  # then each to its end
    for index in order:
        if status[index] == "end":
            continue
        store.turns[index].release()
        status[index] = store.signals[index].get(timeout=60)
    for t in threads:
        t.join()
    assert not errors, errors
    return wins


def test_every_interleaving_of_two_processes_claiming_one_token_lets_at_most_one_win() -> None:
    for schedule in sorted(set(itertools.permutations([0] * 5 + [1] * 5))):
        wins = _interleaved(list(schedule), 2)
        assert wins.count(True) <= 1, schedule
        if schedule[:5] in ((0,) * 5, (1,) * 5):  # one ran alone first: it wins
            assert wins[schedule[0]] is True, schedule


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 2), max_size=15))
def test_any_interleaving_of_three_processes_claiming_one_token_lets_at_most_one_win(
    schedule: list[int],
) -> None:
    assert _interleaved(schedule, 3).count(True) <= 1


def test_claimants_one_after_another_let_exactly_the_first_win() -> None:
    assert _interleaved([], 3) == [True, False, False]


def test_a_store_that_keeps_nothing_allows_nobody() -> None:
    class Forgetful(InMemoryCache):
        def put(self, key: str, value: Mapping[str, Any]) -> None:
            return None

    binding = ReviewBinding("t", "r1", "f1")
    assert claim_token(Forgetful(), _token(binding), binding) is False


def test_a_spent_token_refuses_a_second_resume_after_the_race() -> None:
    store = InMemoryCache()
    binding = ReviewBinding("t", "r1", "f1")
    token = _token(binding)
    assert _review(store, binding, token).review == "allow"
    assert _review(store, binding, token).review == "refuse"


# ---------------------------------------------------------------- through an agent


def _agent(store: Any) -> Any:
    guard = JevGuardrailMiddleware(
        check_output=False,
        categories=["hate"],
        model=JevWire({}, default=None).model(),  # every check inconclusive: put to review
        on_inconclusive="interrupt",
        review_key=KEY,
        review_store=lambda item: None,
        ledger=store,
        **SEQUENTIAL,
    )
    return create_agent(chat(*[REPLY] * 4), middleware=[guard], checkpointer=InMemorySaver())


def _allowed(out: dict[str, Any]) -> bool:
    return bool(out["messages"][-1].content == REPLY and not out.get("__interrupt__"))


def _racing_resumes(way: str, thread_id: str) -> list[bool]:
    """Whether each of two resumes of one paused agent turn, racing with one token, was allowed."""
    agent = _agent(RacingStore(2))
    config: Any = {"configurable": {"thread_id": thread_id}}
    out = agent.invoke({"messages": [HumanMessage("Describe them.", id="m1")]}, config)
    (pending,) = out["__interrupt__"]
    resume = Command(resume={"decision": "allow", "token": review_token(KEY, pending.value)})

    def run(_: int) -> dict[str, Any]:
        if way == "invoke":
            result: dict[str, Any] = agent.invoke(resume, config)
        else:
            result = asyncio.run(agent.ainvoke(resume, config))
        return result

    return [_allowed(o) for o in _race(2, run)]


@pytest.mark.parametrize("way", ["invoke", "ainvoke"])
def test_two_resumes_of_one_pause_with_one_token_allow_once(way: str) -> None:
    for round_ in range(8):
        assert _racing_resumes(way, f"race-{round_}").count(True) == 1, round_
