"""The one driver of a classification: it steps a procedure, making the calls it asks for.

A procedure (`Procedure`) is a generator that yields what it needs (`Step`: a batch of
calls to run, or another call's probe to wait for) and is sent the outcomes back; `drive`
steps it to its response. The async entry point awaits `drive`; the sync one runs it to
its end in this thread (`run_now`), with calls and waits that never suspend.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Generator
from concurrent.futures import Future
from typing import Any

from langchain_jev.models._chat.calls import Call
from langchain_jev.models._chat.replies import Reply
from langchain_jev.models._response import DecisionResponse
from langchain_jev.models._secrets import redact_error

__all__ = ["Outcome", "Procedure", "Step", "drive", "run_now", "value_of"]

Outcome = Reply | Exception
"""What came back for one call: its reply, or the error it raised (the procedure raises it)."""
Step = list[Call] | Future[bool | None]
"""What a procedure asks of its driver: run these calls, or wait for another call's probe."""
Procedure = Generator[Step, list[Outcome], DecisionResponse]
"""A classification's steps: it yields a `Step`, is sent the outcomes, and returns the response."""


def value_of(outcome: Outcome) -> Reply:
    """The reply of an outcome; an error is raised."""
    if isinstance(outcome, Exception):
        raise outcome
    return outcome


def _advance(procedure: Procedure, outcomes: list[Outcome] | None) -> Step | DecisionResponse:
    """Send the outcomes of the last batch (None to start); the next batch, or the response."""
    try:
        return procedure.send(outcomes)  # type: ignore[arg-type]
    except StopIteration as stop:
        response: DecisionResponse = stop.value
        return response


async def drive(
    procedure: Procedure,
    run: Callable[[list[Call]], Awaitable[list[Outcome]]],
    wait: Callable[[Future[bool | None]], Awaitable[object]],
) -> DecisionResponse:
    """Step ``procedure`` to its response: ``run`` makes a batch of calls, ``wait`` waits for another's probe.

    An error comes out redacted, and the procedure is closed however the drive ends (an
    interrupted or cancelled call gives up its probe at once).
    """
    try:
        step = _advance(procedure, None)
        while not isinstance(step, DecisionResponse):
            if isinstance(step, Future):
                await wait(step)  # another call is probing for log-probabilities
                step = _advance(procedure, [])
            else:
                step = _advance(procedure, await run(step))
        return step
    except Exception as error:  # the provider's error may hold an echoed key (body, headers)
        failure = redact_error(error)
    finally:
        procedure.close()
    raise failure  # outside the handler: no unredacted error rides along as its context


def run_now(driving: Coroutine[Any, Any, DecisionResponse]) -> DecisionResponse:
    """Run a `drive` whose calls and waits never suspend to its end, in this thread (no event loop)."""
    try:
        driving.send(None)
    except StopIteration as stop:
        response: DecisionResponse = stop.value
        return response
    driving.close()
    raise RuntimeError("a sync drive suspended: its calls and waits must not await")
