"""The I/O of a guardrail, done by one of two drivers: a check is written once, sync and async alike.

A rail's check and the model's door are generators: they yield what they need
done (a `Step`) and are sent the result, or thrown the error, back. `drive` does
the steps synchronously and `adrive` asynchronously, so no logic is written
twice. The steps:

- `Ask`: one battery request, with the rail's deadline (past it, `TimeoutError`);
- `Call`: the model call of the door, a hidden run (no handler of the caller's but
  the allowed tracers sees it; `langchain_jev.guardrails._hidden`) unless told otherwise;
- `Begin` / `Await` / `Drop`: the model call started as a `Draft` beside the
  steps that follow (a worker thread, or a task), waited on for its tokens or its
  output, or dropped (see `langchain_jev.guardrails._draft`);
- `Show`: a judged chunk shown to the caller's streams, or the end of what was
  shown (see `langchain_jev.guardrails._release`);
- `Prefix` / `Mark`: look up / record conversations in a `Ledger`;
- `Grant` / `Claim`: record the tool calls of a released reply / take one for its
  run (see `langchain_jev.guardrails._calls`);
- `Trace`: the decision's trace run (`jev_guardrail_decision`);
- any awaitable: an async ``on_flag`` to wait for.

Whatever way a procedure ends (its result, an error, an interrupt), the driver
drops every draft it began that has not returned and fails every release left
open, so nothing of a draft outlives the step.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.runnables.config import ensure_config
from langchain_core.runnables.utils import coro_with_context

from langchain_jev.guardrails._calls import ReleasedCalls
from langchain_jev.guardrails._deadline import late, within
from langchain_jev.guardrails._draft import Draft
from langchain_jev.guardrails._hidden import (
    DEFAULT_TRACERS,
    Tracers,
    enter_hidden,
    hidden_config,
    hidden_method,
)
from langchain_jev.guardrails._ledger import Ledger
from langchain_jev.guardrails._release import Release

__all__ = [
    "Ask",
    "Await",
    "Begin",
    "Call",
    "Claim",
    "Drop",
    "Grant",
    "Mark",
    "Prefix",
    "Procedure",
    "Show",
    "Step",
    "Trace",
    "adrive",
    "drive",
]

T = TypeVar("T")


@dataclass(frozen=True)
class Ask:
    """One battery request (the assessment is sent back), within ``timeout`` seconds.

    The step carries the battery's own bound methods, ``battery.invoke`` and
    ``battery.ainvoke`` (`HazardBattery.invoke`), so the yield names the code that
    runs it; the driver calls them on the battery's hidden copy (`hidden_method`).
    ``config`` is the run's hidden config (`hidden_config`); the request runs as a
    hidden run (`enter_hidden`) that only ``tracers`` see.
    """

    assess: Callable[[Any, RunnableConfig], Any]
    aassess: Callable[[Any, RunnableConfig], Awaitable[Any]]
    data: Any
    config: RunnableConfig
    timeout: float | None
    tracers: Tracers = DEFAULT_TRACERS


@dataclass(frozen=True)
class Call:
    """The model's call (its output is sent back).

    ``invoke`` / ``ainvoke`` are given the config to run with; with ``hidden`` it
    is `hidden_config`, entered as a hidden run (`enter_hidden`), so no handler
    but the allowed ``tracers`` sees the call or anything nested in it.
    """

    invoke: Callable[[RunnableConfig], Any]
    ainvoke: Callable[[RunnableConfig], Awaitable[Any]]
    config: RunnableConfig | None
    hidden: bool
    tags: tuple[str, ...] = ()
    tracers: Tracers = DEFAULT_TRACERS


@dataclass(frozen=True)
class Begin:
    """Start the model's call, hidden, as a `Draft` that runs beside the steps that follow (it is sent back).

    With ``capture`` the draft keeps the tokens its model streams, for the door to judge and release.
    """

    call: Call
    capture: bool = False


@dataclass(frozen=True)
class Await:
    """Wait for a draft to have ``chunks`` chunks and ``tokens`` tokens, or to return.

    Neither given: until it returns. A `DraftView` is sent back, or the call's error thrown in.
    """

    draft: Draft
    chunks: int | None = None
    tokens: int | None = None


@dataclass(frozen=True)
class Drop:
    """Drop a draft: its reply is discarded and its call cancelled where it can be."""

    draft: Draft


@dataclass(frozen=True)
class Show:
    """Show a judged ``chunk`` to the caller's streams; with ``end``, end what was shown with the reply."""

    release: Release
    chunk: AIMessageChunk | None = None
    end: AIMessage | None = None


@dataclass(frozen=True)
class Prefix:
    """How many of the first ``messages`` the ledger has judged (the count is sent back)."""

    ledger: Ledger
    messages: Sequence[BaseMessage]


@dataclass(frozen=True)
class Mark:
    """Record ``messages`` in the ledger as judged (from ``start`` on)."""

    ledger: Ledger
    messages: Sequence[BaseMessage]
    start: int = 0


@dataclass(frozen=True)
class Grant:
    """Record the ``tool_calls`` of a reply the door released in ``thread``, each to run once."""

    calls: ReleasedCalls
    thread: str
    tool_calls: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True)
class Claim:
    """Take ``tool_call`` for its one run (True is sent back; False: not released in ``thread``, or spent)."""

    calls: ReleasedCalls
    thread: str
    tool_call: Mapping[str, Any]


@dataclass(frozen=True)
class Trace:
    """The decision's trace run, with its report, a hidden run (``config`` is hidden) only ``tracers`` see."""

    report: dict[str, Any]
    config: RunnableConfig
    tracers: Tracers = DEFAULT_TRACERS


Step = Ask | Call | Begin | Await | Drop | Show | Prefix | Mark | Grant | Claim | Trace | Awaitable[Any]
"""What a procedure asks of its driver."""

Procedure = Generator[Step, Any, T]
"""A check or a door: yields steps, returns its result."""


def _record(report: dict[str, Any]) -> dict[str, Any]:
    return report


async def _arecord(report: dict[str, Any]) -> dict[str, Any]:
    return report


_DECISION = RunnableLambda(_record, afunc=_arecord, name="jev_guardrail_decision")


def _run_coroutine(awaitable: Awaitable[Any]) -> None:
    """Wait for an async callback from sync code (in a thread when a loop is running here)."""

    async def wait() -> None:
        await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(wait())
        return
    failure: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(wait())
        except BaseException as error:
            failure.append(error)

    thread = threading.Thread(target=target, name="jev-guardrail-on-flag")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


def _call(step: Call) -> Any:
    if not step.hidden:
        return step.invoke(ensure_config(step.config))
    config = _hidden(step)
    with enter_hidden(config, step.tracers) as context:
        return context.run(step.invoke, config)


async def _acall(step: Call) -> Any:
    if not step.hidden:
        return await step.ainvoke(ensure_config(step.config))
    config = _hidden(step)
    with enter_hidden(config, step.tracers) as context:
        return await coro_with_context(step.ainvoke(config), context)


def _asked(step: Ask) -> Any:
    with enter_hidden(step.config, step.tracers) as context:
        assess = context.run(hidden_method, step.assess)  # its decision model's own handlers out
        return context.run(assess, step.data, step.config)


def _ask(step: Ask) -> Any:
    """The battery's request, entered as a hidden run in the thread that makes it (see `within`)."""
    return within(step.timeout, partial(_asked, step))


async def _aask(step: Ask) -> Any:
    with enter_hidden(step.config, step.tracers) as context:
        aassess = context.run(hidden_method, step.aassess)
        asked = coro_with_context(aassess(step.data, step.config), context)
        if step.timeout is None:
            return await asked
        try:
            return await asyncio.wait_for(asked, step.timeout)
        except TimeoutError as error:
            if type(error) is not TimeoutError:  # the model's own timeout error
                raise
            raise TimeoutError(late(step.timeout)) from None


def _step(procedure: Procedure[T], sent: Any, failed: Exception | None) -> tuple[bool, Any]:
    """Send a step's result into the procedure (or throw its error in): (finished, next step or result)."""
    try:
        return False, (procedure.send(sent) if failed is None else procedure.throw(failed))
    except StopIteration as stop:
        return True, stop.value


def _hidden(call: Call) -> RunnableConfig:
    return hidden_config(call.config, *call.tags, tracers=call.tracers)


class _Opened:
    """The drafts and releases a procedure opened, closed however it ends."""

    def __init__(self) -> None:
        self.drafts: list[Draft] = []
        self.releases: list[Release] = []

    def note(self, release: Release) -> None:
        if all(release is not known for known in self.releases):
            self.releases.append(release)

    def close(self, error: BaseException | None) -> None:
        for draft in self.drafts:
            draft.drop()
        for release in self.releases:
            release.fail(error or RuntimeError("the guarded step ended before its reply was released"))

    async def aclose(self, error: BaseException | None) -> None:
        for draft in self.drafts:
            await draft.adrop()
        for release in self.releases:
            await release.afail(error or RuntimeError("the guarded step ended before its reply was released"))


def _show(step: Show) -> None:
    if step.chunk is not None:
        step.release.show(step.chunk)
    if step.end is not None:
        step.release.end(step.end)


async def _ashow(step: Show) -> None:
    if step.chunk is not None:
        await step.release.ashow(step.chunk)
    if step.end is not None:
        await step.release.aend(step.end)


def drive(procedure: Procedure[T]) -> T:
    """Do a procedure's steps synchronously; return its result."""
    opened = _Opened()
    try:
        return _drive(procedure, opened)
    except BaseException as error:
        opened.close(error)
        raise
    finally:
        opened.close(None)


def _drive(procedure: Procedure[T], opened: _Opened) -> T:
    finished, step = _step(procedure, None, None)
    while not finished:
        sent: Any = None
        failed: Exception | None = None
        try:
            if isinstance(step, Ask):
                sent = _ask(step)
            elif isinstance(step, Call):
                sent = _call(step)
            elif isinstance(step, Begin):
                call = step.call
                sent = Draft.start(call.invoke, _hidden(call), capture=step.capture, tracers=call.tracers)
                opened.drafts.append(sent)
            elif isinstance(step, Await):
                sent = step.draft.wait(chunks=step.chunks, tokens=step.tokens)
            elif isinstance(step, Drop):
                step.draft.drop()
            elif isinstance(step, Show):
                opened.note(step.release)
                _show(step)
            elif isinstance(step, Prefix):
                sent = step.ledger.judged_prefix(step.messages)
            elif isinstance(step, Mark):
                step.ledger.record(step.messages, step.start)
            elif isinstance(step, Grant):
                step.calls.grant(step.thread, step.tool_calls)
            elif isinstance(step, Claim):
                sent = step.calls.claim(step.thread, step.tool_call)
            elif isinstance(step, Trace):
                with enter_hidden(step.config, step.tracers) as context:
                    context.run(_DECISION.invoke, step.report, step.config)
            else:
                _run_coroutine(step)
        except Exception as error:
            failed = error
        finished, step = _step(procedure, sent, failed)
    result: T = step
    return result


async def adrive(procedure: Procedure[T]) -> T:
    """Do a procedure's steps asynchronously; return its result."""
    opened = _Opened()
    try:
        return await _adrive(procedure, opened)
    except BaseException as error:
        await opened.aclose(error)
        raise
    finally:
        await opened.aclose(None)


async def _adrive(procedure: Procedure[T], opened: _Opened) -> T:
    finished, step = _step(procedure, None, None)
    while not finished:
        sent: Any = None
        failed: Exception | None = None
        try:
            if isinstance(step, Ask):
                sent = await _aask(step)
            elif isinstance(step, Call):
                sent = await _acall(step)
            elif isinstance(step, Begin):
                call = step.call
                sent = Draft.astart(call.ainvoke, _hidden(call), capture=step.capture, tracers=call.tracers)
                opened.drafts.append(sent)
            elif isinstance(step, Await):
                sent = await step.draft.await_(chunks=step.chunks, tokens=step.tokens)
            elif isinstance(step, Drop):
                await step.draft.adrop()
            elif isinstance(step, Show):
                opened.note(step.release)
                await _ashow(step)
            elif isinstance(step, Prefix):
                sent = await step.ledger.ajudged_prefix(step.messages)
            elif isinstance(step, Mark):
                await step.ledger.arecord(step.messages, step.start)
            elif isinstance(step, Grant):
                await step.calls.agrant(step.thread, step.tool_calls)
            elif isinstance(step, Claim):
                sent = await step.calls.aclaim(step.thread, step.tool_call)
            elif isinstance(step, Trace):
                with enter_hidden(step.config, step.tracers) as context:
                    await coro_with_context(_DECISION.ainvoke(step.report, step.config), context)
            else:
                await step
        except Exception as error:
            failed = error
        finished, step = _step(procedure, sent, failed)
    result: T = step
    return result
