"""Running a judge over a dataset: rows streamed in, a bounded number judged at once, results out.

The `Session` (`langchain_jev.datasets._local.session`) reads the rows and writes the
results. The judging happens either here, ``concurrency`` rows at once on one
event loop, or in worker processes (`langchain_jev.datasets._local.pool`) that each judge
their share of the rows at once; either way at most ``concurrency`` rows are in
flight, so memory stays flat however long the file is. A row whose decision
model fails is recorded as an error, never as a pass.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from langchain_jev.datasets._collector import lean_gc
from langchain_jev.datasets._local.session import (
    Job,
    RowJudge,
    RunOptions,
    RunResult,
    Session,
    StopRun,
    judge_job,
)

if TYPE_CHECKING:
    from langchain_jev.datasets._local.pool import WorkerSetup

__all__ = ["RunOptions", "RunResult", "run", "run_dataset"]

_HALT_CHECK = 0.1
"""Seconds between looks at whether the run halted (its results cannot be written, say)."""


def run(
    judge: RowJudge,
    options: RunOptions,
    stderr: TextIO,
    *,
    setup: WorkerSetup | None = None,
    closers: Sequence[Any] = (),
) -> RunResult:
    """Judge every row of ``options.data``, here or in worker processes, writing one line per row.

    ``judge`` is the judge built in this process, ``closers`` what its model
    needs closed. With ``setup`` (how a worker builds the same judge) and more
    than one worker (``options.workers``, or chosen when None), the rows are
    judged in worker processes and ``judge`` only names the criteria.
    """
    session = Session(((c.name, c.kind) for c in judge.criteria), options, stderr)
    try:
        opened = session.open()
        workers = 1
        if opened and setup is not None:
            from langchain_jev.datasets._local.pool import resolve_workers

            workers = resolve_workers(options.workers, options.concurrency, session.remaining)
        session.result.workers = workers
        if not opened:
            asyncio.run(_close(closers))
        elif workers > 1 and setup is not None:
            from langchain_jev.datasets._local.pool import run_pool, split_concurrency

            asyncio.run(_close(closers))  # the workers build their own models
            if options.progress:
                shares = "/".join(map(str, sorted(set(split_concurrency(options.concurrency, workers)))))
                session.progress.note(f"judging in {workers} worker processes, {shares} rows at once each")
            with lean_gc():
                run_pool(session, setup, workers)
        else:
            with lean_gc():
                asyncio.run(_judge_here(judge, session, closers))
    finally:
        session.close()
    return session.result


async def run_dataset(judge: RowJudge, options: RunOptions, stderr: TextIO) -> RunResult:
    """Judge every row of ``options.data`` in this event loop and write one result line per row.

    Returns the run's tally; bad rows and a fatal problem are reported on
    ``stderr`` as they are met and counted in the result.
    """
    session = Session(((c.name, c.kind) for c in judge.criteria), options, stderr)
    try:
        if session.open():
            await _judge_here(judge, session, ())
    finally:
        session.close()
    return session.result


async def _judge_here(judge: RowJudge, session: Session, closers: Sequence[Any]) -> None:
    try:
        await _judge_rows(judge, session)
    finally:
        await _close(closers)


async def _judge_rows(judge: RowJudge, session: Session) -> None:
    concurrency = session.options.concurrency
    queue: asyncio.Queue[Job | None] = asyncio.Queue(maxsize=concurrency)

    run_task = asyncio.current_task()

    async def worker() -> None:
        while True:
            job = await queue.get()
            if job is None:
                return
            # A row settled without a request (a check that raised, say) never suspends, so a
            # Ctrl-C (which cancels the run's task) would wait for every worker's next row: yield,
            # and judge no row once the run is being cancelled.
            await asyncio.sleep(0)
            if run_task is not None and run_task.cancelling():
                return
            if session.halted:
                continue  # the results cannot be written, or the model cannot be reached: drain
            outcome = await judge_job(judge, job, session.options.cache, timed=session.options.timed)
            if outcome.stop is not None:
                session.stop(outcome.stop)
                continue
            if outcome.record is not None:
                session.record(outcome.record)
                continue
            with contextlib.suppress(StopRun):  # keep draining so the producer can finish
                session.bad(job.number, job.line, outcome.problem or "cannot be judged")

    async def produce() -> None:
        # No `finally` here: a cancelled producer (Ctrl-C) must not wait to put anything on a
        # queue whose consumers are cancelled too; only a producer that ran out of rows ends them.
        with contextlib.suppress(StopRun):
            for job in session.jobs():
                await queue.put(job)
                if session.halted:
                    break
        for _ in range(concurrency):
            await queue.put(None)

    workers = [asyncio.ensure_future(worker()) for _ in range(concurrency)]
    producer = asyncio.ensure_future(produce())
    everything = [producer, *workers]
    try:
        pending: set[asyncio.Future[None]] = set(everything)
        while pending and not session.halted:  # a halted run abandons the rows in flight
            finished, pending = await asyncio.wait(
                pending, timeout=_HALT_CHECK, return_when=asyncio.FIRST_EXCEPTION
            )
            for task in finished:
                task.result()  # re-raise an unexpected failure
    finally:
        for task in everything:
            task.cancel()
        await asyncio.gather(*everything, return_exceptions=True)


async def _close(closers: Sequence[Any]) -> None:
    from langchain_jev.datasets._model import close_all

    await close_all(list(closers))
