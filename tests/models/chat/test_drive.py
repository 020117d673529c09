"""The one driver: the sync and the async entry points step a procedure alike, and close it however it ends."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage

from langchain_jev.models._chat.calls import Call
from langchain_jev.models._chat.drive import Outcome, Procedure, drive, run_now
from langchain_jev.models._chat.replies import Reply
from langchain_jev.models._response import DecisionResponse

STEPS = st.lists(st.one_of(st.integers(min_value=1, max_value=4), st.just("probe")), max_size=6)
"""A procedure's steps: a batch of that many calls, or another call's probe to wait for."""


def _procedure(steps: list[int | str], fail_at: int | None, log: list[Any]) -> Procedure:
    """Yield ``steps`` (raising at ``fail_at``), logging what comes back and that it was closed."""
    try:
        for index, step in enumerate(steps):
            if index == fail_at:
                raise ValueError(f"step {index} failed")
            if step == "probe":
                probe: Future[bool | None] = Future()
                probe.set_result(True)
                log.append(("waited", (yield probe)))
            else:
                assert isinstance(step, int)
                calls = [Call((HumanMessage(f"{index}.{i}"),)) for i in range(step)]
                outcomes = yield calls
                log.append([o.message.content if isinstance(o, Reply) else repr(o) for o in outcomes])
        return DecisionResponse(model="m", answers={}, strategy=f"{len(steps)} steps")
    finally:
        log.append("closed")


def _replies(calls: list[Call]) -> list[Outcome]:
    return [Reply(AIMessage(f"{call.messages[0].content}!")) for call in calls]


def _sync(steps: list[int | str], fail_at: int | None) -> tuple[object, list[Any]]:
    log: list[Any] = []

    async def run(calls: list[Call]) -> list[Outcome]:
        return _replies(calls)

    async def wait(probe: Future[bool | None]) -> None:
        probe.result()

    try:
        result: object = run_now(drive(_procedure(steps, fail_at, log), run, wait))
    except ValueError as error:
        result = ("raised", str(error))
    return result, log


def _async(steps: list[int | str], fail_at: int | None) -> tuple[object, list[Any]]:
    log: list[Any] = []

    async def run(calls: list[Call]) -> list[Outcome]:
        await asyncio.sleep(0)  # a real suspension, as a provider's call is
        return _replies(calls)

    async def wait(probe: Future[bool | None]) -> None:
        await asyncio.shield(asyncio.wrap_future(probe))

    async def main() -> object:
        try:
            return await drive(_procedure(steps, fail_at, log), run, wait)
        except ValueError as error:
            return ("raised", str(error))

    return asyncio.run(main()), log


@settings(max_examples=60, deadline=None)
@given(steps=STEPS, fail_at=st.one_of(st.none(), st.integers(min_value=0, max_value=6)))
def test_the_sync_and_async_entry_points_drive_a_procedure_alike(
    steps: list[int | str], fail_at: int | None
) -> None:
    sync, sync_log = _sync(steps, fail_at)
    run, async_log = _async(steps, fail_at)
    assert sync_log == async_log
    assert sync_log[-1] == "closed" and sync_log.count("closed") == 1  # closed once, however it ended
    if isinstance(sync, DecisionResponse):
        assert isinstance(run, DecisionResponse) and sync.strategy == run.strategy
        assert fail_at is None or fail_at >= len(steps)
    else:
        assert sync == run == ("raised", f"step {fail_at} failed")


def test_the_sync_run_refuses_a_drive_that_suspends_and_closes_its_procedure() -> None:
    log: list[Any] = []
    procedure = _procedure([1], None, log)  # held here: only the driver can close it

    async def run(calls: list[Call]) -> list[Outcome]:
        await asyncio.sleep(0)
        return _replies(calls)

    async def wait(probe: Future[bool | None]) -> None:
        probe.result()

    with pytest.raises(RuntimeError, match="suspended"):
        run_now(drive(procedure, run, wait))
    assert log == ["closed"]


@pytest.mark.parametrize("entry", ["sync", "async"])
def test_a_drive_its_calls_break_off_closes_its_procedure_and_raises_their_error(entry: str) -> None:
    log: list[Any] = []
    procedure = _procedure([2, 2], None, log)  # held here: only the driver can close it

    async def run(calls: list[Call]) -> list[Outcome]:
        raise OSError("connection reset")

    async def wait(probe: Future[bool | None]) -> None:
        probe.result()

    finish: Callable[[Coroutine[Any, Any, DecisionResponse]], DecisionResponse]
    finish = run_now if entry == "sync" else asyncio.run
    with pytest.raises(OSError, match="connection reset"):
        finish(drive(procedure, run, wait))
    assert log == ["closed"]
