"""One monitor pass: read the window, judge what is new, write its feedback, move the cursor.

`MonitorPass` holds everything a pass decides (pure but for the cursor it
saves): which runs are already finished, sampled out, still running or ready,
how each becomes a judge input, what a verdict writes, and the cursor after
each run is finished. `run_pass` and `arun_pass` drive it, the one with a
thread pool and the other with tasks; each holds at most ``concurrency`` runs
in flight and starts no judgement past ``max_runs``.

A run is finished when all its feedback is written (or LangSmith had it), when
it cannot be mapped (one line, counted), or when it is left out of the sample;
the cursor is saved after each, so a pass stopped at any moment (Ctrl-C, a
kill) resumes after the last run fully written. A run whose judge could not
reach its model, or whose feedback LangSmith refused, is not finished: it is
counted, said in one line, and read again by the next pass.
"""

from __future__ import annotations

import asyncio
import datetime
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from langsmith import schemas

from langchain_jev._errors import JevInputError
from langchain_jev._judge import JevJudge, JudgeInput
from langchain_jev._runs import judge_input_from_run
from langchain_jev._verdict import JevVerdict
from langchain_jev.langsmith import Prepare
from langchain_jev.models._secrets import redact, redact_error
from langchain_jev.monitor._cursor import Cursor, RunRef, Window, advance
from langchain_jev.monitor._feedback import (
    FeedbackRequest,
    FeedbackWriter,
    WriteOutcome,
    create_arguments,
    feedback_requests,
)
from langchain_jev.monitor._ids import sampled
from langchain_jev.monitor._limits import RateGate, retry_after
from langchain_jev.monitor._read import IDS_PER_QUERY
from langchain_jev.monitor._store import CursorKey, CursorStore
from langchain_jev.monitor._threads import group_threads, is_idle, thread_input, thread_subject

__all__ = ["MonitorLine", "MonitorPass", "MonitorSummary", "Unit", "arun_pass", "run_pass"]

LineKind = Literal["skipped", "failed", "preview"]
READ_TRIES = 6
"""Times a read is tried while LangSmith answers 429."""
MODEL_FAILED = "the judge could not reach its model"
WRITE_FAILED = "LangSmith did not take its feedback"


@dataclass(frozen=True, slots=True)
class MonitorLine:
    """One line a pass says: a run skipped (unmappable), a run that failed, or a dry run's preview."""

    kind: LineKind
    subject: str
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass
class MonitorSummary:
    """What a pass did, in counts (`lines` words them)."""

    project: str
    fingerprint: str
    window: Window | None
    threads: bool = False
    dry_run: bool = False
    read: int = 0
    """Runs in the window."""
    already: int = 0
    """Runs an earlier pass finished."""
    not_sampled: int = 0
    """Runs (or threads' runs) left out of the sample."""
    pending: int = 0
    """Runs still going (or threads not yet idle): judged by a later pass."""
    unmappable: int = 0
    """Runs (or threads) skipped because their inputs or outputs could not be mapped."""
    judged: int = 0
    """Runs (or threads) judged: one decision-model request each."""
    failed: int = 0
    """Judged or tried, but not written (the model unreachable, LangSmith refusing): retried next pass."""
    feedback_written: int = 0
    """Feedback written."""
    feedback_existing: int = 0
    """Feedback LangSmith already had (its id was there)."""
    stopped_at_cap: bool = False
    """True when ``max_runs`` stopped the pass before every run was judged."""

    def lines(self) -> list[str]:
        """The summary in words, a line each."""
        what = "threads" if self.threads else "runs"
        if self.window is None:
            return [f"{self.project}: nothing new since the last pass"]
        head = (
            f"{self.project}: {self.read} runs from {self.window.lo.isoformat()} to "
            f"{self.window.hi.isoformat()}; {self.judged} {what} judged"
        )
        parts = [head]
        for count, words in (
            (self.already, "already judged"),
            (self.not_sampled, "left out of the sample"),
            (self.pending, "still going (judged later)"),
            (self.unmappable, "skipped (could not be mapped)"),
            (self.failed, "failed (retried next pass)"),
        ):
            if count:
                parts.append(f"{count} {words}")
        written = "would be written (dry run)" if self.dry_run else "written"
        lines = ["; ".join(parts), f"feedback {written}: {self.feedback_written}"]
        if self.feedback_existing:
            lines[-1] += f" ({self.feedback_existing} already in LangSmith)"
        if self.stopped_at_cap:
            lines.append("stopped at --max-runs: the next pass continues from here")
        return lines


@dataclass
class Unit:
    """One thing judged: a run, or an idle thread; the runs it finishes; the run its feedback is on."""

    subject: str
    run_id: str
    refs: list[RunRef]
    thread_id: str | None = None
    start_time: datetime.datetime | None = None
    data: JudgeInput | None = None


@dataclass
class MonitorPass:
    """The decisions of one pass (see the module documentation); the drivers do the I/O."""

    judge: JevJudge
    fingerprint: str
    project: str
    project_id: str
    window: Window
    refs: list[RunRef]
    cursor: Cursor
    key: CursorKey
    store: CursorStore | None
    sample: float | None = None
    threads: bool = False
    idle: datetime.timedelta = datetime.timedelta(minutes=15)
    max_runs: int | None = None
    dry_run: bool = False
    extend_trace_retention: bool = False
    key_prefix: str | None = None
    prepare_run: Prepare | None = None
    on_line: Callable[[MonitorLine], None] | None = None
    now: datetime.datetime = field(default_factory=lambda: datetime.datetime.now(datetime.UTC))
    summary: MonitorSummary = field(init=False)
    _finished: set[str] = field(init=False, default_factory=set)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock)
    _started: int = field(init=False, default=0)
    stop: threading.Event = field(init=False, default_factory=threading.Event)
    gate: RateGate = field(init=False, default_factory=RateGate)

    def __post_init__(self) -> None:
        self.summary = MonitorSummary(
            self.project, self.fingerprint, self.window, threads=self.threads, dry_run=self.dry_run
        )
        self.summary.read = len(self.refs)

    # -------------------------------------------------------------- deciding

    def units(self) -> list[Unit]:
        """What this pass judges, in order; counts (and finishes) the runs it will not."""
        fresh = [ref for ref in self.refs if not self.cursor.finished(ref)]
        self.summary.already = len(self.refs) - len(fresh)
        if not self.threads:
            ready: list[Unit] = []
            for ref in fresh:
                if not sampled(ref.id, self.sample):
                    self.summary.not_sampled += 1
                    self._finished.add(ref.id)
                elif not ref.ended:
                    self.summary.pending += 1
                else:
                    ready.append(Unit(ref.id, ref.id, [ref], start_time=ref.start_time))
            return ready
        threads, alone = group_threads(fresh)
        self.summary.unmappable += len(alone)
        for ref in alone:
            self._say("skipped", ref.id, f"run {ref.id}: skipped: it belongs to no thread (--threads)")
            self._finished.add(ref.id)
        units: list[Unit] = []
        for thread_id, refs in threads.items():
            if not sampled(thread_id, self.sample):
                self.summary.not_sampled += len(refs)
                self._finished.update(ref.id for ref in refs)
            elif not is_idle(refs, self.now, self.idle):
                self.summary.pending += len(refs)
            else:
                last = refs[-1]
                units.append(
                    Unit("", last.trace_id or last.id, refs, thread_id=thread_id, start_time=last.start_time)
                )
        return sorted(units, key=lambda unit: unit.refs[-1].order)

    def batches(self, units: Sequence[Unit]) -> Iterator[list[Unit]]:
        """``units`` in groups of `IDS_PER_QUERY`, stopping (and saying so) at ``max_runs``."""
        for start in range(0, len(units), IDS_PER_QUERY):
            batch = list(units[start : start + IDS_PER_QUERY])
            if self.max_runs is not None:
                room = self.max_runs - self._started
                if room <= 0:
                    self.summary.stopped_at_cap = True
                    return
                if len(batch) > room:
                    batch = batch[:room]
                    self.summary.stopped_at_cap = True
            self._started += len(batch)
            yield batch
            if self.summary.stopped_at_cap:
                return

    def prepare(self, unit: Unit, run: schemas.Run | None, turns: Sequence[schemas.Run] = ()) -> bool:
        """Map the unit's run (or turns) to its judge input; False (said, counted, finished) if it cannot."""
        try:
            if self.threads:
                if not turns:
                    raise JevInputError("LangSmith returned no turns for the thread")
                last = turns[-1]
                unit.run_id = str(last.id)
                unit.start_time = last.start_time
                unit.subject = thread_subject(str(unit.thread_id), str(last.id))
                unit.data = thread_input(turns)
            else:
                if run is None:
                    raise JevInputError("LangSmith no longer returns the run")
                unit.start_time = run.start_time
                unit.subject = str(run.id)
                unit.data = (
                    judge_input_from_run(run) if self.prepare_run is None else self.prepare_run(run, None)
                )
        except JevInputError as error:
            self.unmappable(unit, error)
            return False
        return True

    def unmappable(self, unit: Unit, error: BaseException) -> None:
        """Say, count and finish a unit whose run cannot be judged as it is."""
        what = f"thread {unit.thread_id}" if self.threads else f"run {unit.run_id}"
        self._say("skipped", unit.subject or unit.run_id, f"{what}: skipped: {redact(str(error))}")
        with self._lock:
            self.summary.unmappable += 1
        self.finish(unit)

    def requests(self, unit: Unit, verdict: JevVerdict) -> list[FeedbackRequest]:
        """The feedback a verdict writes on the unit's run."""
        return feedback_requests(
            verdict,
            fingerprint=self.fingerprint,
            subject=unit.subject,
            run_id=unit.run_id,
            key_prefix=self.key_prefix,
        )

    def arguments(self, unit: Unit) -> Callable[[FeedbackRequest], dict[str, Any]]:
        """What ``create_feedback`` is called with for each of the unit's requests."""

        def of(request: FeedbackRequest) -> dict[str, Any]:
            return create_arguments(
                request,
                session_id=self.project_id,
                start_time=unit.start_time,
                fingerprint=self.fingerprint,
                extend_trace_retention=self.extend_trace_retention,
            )

        return of

    # -------------------------------------------------------------- recording

    def judging(self, unit: Unit) -> JudgeInput:
        """Count one decision-model request; the unit's judge input."""
        assert unit.data is not None
        with self._lock:
            self.summary.judged += 1
        return unit.data

    def not_judged(self, unit: Unit, error: BaseException) -> None:
        """The judge raised: a bad input is skipped, a model out of reach is retried next pass."""
        if isinstance(error, JevInputError):
            self.unmappable(unit, error)
        else:
            self.failed(unit, MODEL_FAILED, error)

    def to_write(self, unit: Unit, verdict: JevVerdict) -> list[FeedbackRequest]:
        """What a verdict writes; nothing in a dry run (it says it instead) or once the pass is stopping."""
        requests = self.requests(unit, verdict)
        if self.dry_run:
            self.preview(unit, requests)
            return []
        return [] if self.stop.is_set() else requests

    def preview(self, unit: Unit, requests: Sequence[FeedbackRequest]) -> None:
        """A dry run's line per unit: the feedback it would write."""
        said = ", ".join(f"{r.key}={r.value}" for r in requests)
        self._say("preview", unit.subject, f"would write on run {unit.run_id}: {said}")
        with self._lock:
            self.summary.feedback_written += len(requests)
        self.finish(unit)

    def written(self, unit: Unit, outcome: WriteOutcome) -> None:
        """Count a unit's feedback and finish it."""
        with self._lock:
            self.summary.feedback_written += outcome.written
            self.summary.feedback_existing += outcome.existing
        self.finish(unit)

    def failed(self, unit: Unit, stage: str, error: BaseException) -> None:
        """Say and count a unit not finished (``stage``: what failed); the next pass reads it again."""
        what = f"thread {unit.thread_id}" if self.threads else f"run {unit.run_id}"
        said = (
            redact(f"{type(error).__name__}: {error}").splitlines()[0] if str(error) else type(error).__name__
        )
        self._say(
            "failed", unit.subject or unit.run_id, f"{what}: not judged: {stage}: {said} (retried next pass)"
        )
        with self._lock:
            self.summary.failed += 1

    def finish(self, unit: Unit) -> None:
        """Mark the unit's runs finished and save the cursor (not in a dry run)."""
        with self._lock:
            self._finished.update(ref.id for ref in unit.refs)
        self.save()

    def save(self) -> None:
        """Save the cursor as it stands (nothing in a dry run or without a store)."""
        if self.dry_run or self.store is None:
            return
        with self._lock:
            cursor = advance(self.cursor, self.window, self.refs, self._finished)
            self.store.save(self.key, cursor)

    def _say(self, kind: LineKind, subject: str, text: str) -> None:
        if self.on_line is not None:
            self.on_line(MonitorLine(kind, subject, text))


# ------------------------------------------------------------------ the drivers


def run_pass(state: MonitorPass, source: Any, writer: FeedbackWriter, concurrency: int) -> MonitorSummary:
    """Drive a pass with a thread pool (see the module documentation)."""
    units = state.units()
    state.save()  # the runs this pass will not judge are finished already
    running: set[Future[None]] = set()

    def judge_and_write(unit: Unit) -> None:
        try:
            verdict = state.judge.invoke(state.judging(unit))
        except Exception as error:
            state.not_judged(unit, error)
            return
        requests = state.to_write(unit, verdict)
        if requests:
            try:
                outcome = writer.write(requests, state.arguments(unit))
            except Exception as error:
                state.failed(unit, WRITE_FAILED, error)
                return
            state.written(unit, outcome)

    def settle(block: bool) -> None:
        nonlocal running
        while running and (block or len(running) >= concurrency):
            done, running = wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in done:
                future.result()  # a cursor that cannot be saved stops the pass

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="jev-monitor") as pool:
        try:
            for batch in state.batches(units):
                for unit in _read_batch(state, source, batch):
                    settle(block=False)
                    running.add(pool.submit(judge_and_write, unit))
            settle(block=True)
        except BaseException:
            state.stop.set()  # runs in flight finish their judgement but write nothing more
            for future in running:
                future.cancel()
            raise
        finally:
            state.save()
    return state.summary


async def arun_pass(
    state: MonitorPass, source: Any, writer: FeedbackWriter, concurrency: int
) -> MonitorSummary:
    """Drive a pass with tasks (see the module documentation)."""
    units = state.units()
    state.save()
    slots = asyncio.Semaphore(concurrency)
    tasks: set[asyncio.Task[None]] = set()

    async def judge_and_write(unit: Unit) -> None:
        try:
            try:
                verdict = await state.judge.ainvoke(state.judging(unit))
            except Exception as error:
                state.not_judged(unit, error)
                return
            requests = state.to_write(unit, verdict)
            if requests:
                try:
                    outcome = await writer.awrite(requests, state.arguments(unit))
                except Exception as error:
                    state.failed(unit, WRITE_FAILED, error)
                    return
                state.written(unit, outcome)
        finally:
            slots.release()

    try:
        for batch in state.batches(units):
            for unit in await _aread_batch(state, source, batch):
                await slots.acquire()
                tasks.add(asyncio.create_task(judge_and_write(unit)))
                finished = {task for task in tasks if task.done()}
                tasks -= finished
                for task in finished:
                    task.result()
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        raise
    finally:
        state.save()
    return state.summary


def _read_batch(state: MonitorPass, source: Any, batch: list[Unit]) -> list[Unit]:
    """Read a batch's runs (or each thread's turns) and map them; the units ready to judge."""
    if state.threads:
        return [
            unit
            for unit in batch
            if state.prepare(
                unit, None, _gated(state.gate, partial(source.turns, state.project_id, unit.thread_id))
            )
        ]
    ids = [unit.run_id for unit in batch]
    runs = _gated(state.gate, partial(source.runs, state.project_id, state.window, ids))
    return [unit for unit in batch if state.prepare(unit, runs.get(unit.run_id))]


async def _aread_batch(state: MonitorPass, source: Any, batch: list[Unit]) -> list[Unit]:
    """`_read_batch`, awaiting the reads."""
    if state.threads:
        ready = []
        for unit in batch:
            turns = await _agated(state.gate, partial(source.turns, state.project_id, unit.thread_id))
            if state.prepare(unit, None, turns):
                ready.append(unit)
        return ready
    ids = [unit.run_id for unit in batch]
    runs = await _agated(state.gate, partial(source.runs, state.project_id, state.window, ids))
    return [unit for unit in batch if state.prepare(unit, runs.get(unit.run_id))]


def _gated(gate: RateGate, read: Callable[[], Any]) -> Any:
    """A read, tried again after the pause a 429 asks for (once the client's own retries are spent)."""
    for attempt in range(READ_TRIES):
        gate.wait()
        try:
            return read()
        except Exception as error:
            pause = retry_after(error)
            if pause is None or attempt + 1 == READ_TRIES:
                raise redact_error(error) from None
            gate.pause(pause)
    raise AssertionError("unreachable")


async def _agated(gate: RateGate, read: Callable[[], Any]) -> Any:
    """`_gated`, awaiting the read."""
    for attempt in range(READ_TRIES):
        await gate.await_open()
        try:
            return await read()
        except Exception as error:
            pause = retry_after(error)
            if pause is None or attempt + 1 == READ_TRIES:
                raise redact_error(error) from None
            gate.pause(pause)
    raise AssertionError("unreachable")
