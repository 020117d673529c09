"""Judging a dataset in worker processes, with this process as the only reader and writer.

One event loop judges a few hundred rows a second at most: the HTTP client's
work per request fills a core long before a Jev-compatible server is busy. So a
large run spreads its rows over worker processes (started with ``forkserver``
where the platform has it, else ``spawn``; never plain ``fork``). Each worker
builds its own judge from the same judge spec and model settings (plain data:
nothing with code in it crosses the process boundary) and judges its share of
``--concurrency`` rows at once on its own event loop.

This process stays the single reader and writer. It streams the rows and hands
each worker a few more than it can judge at once (so no worker waits for work,
and memory stays flat), writes every result line the moment a worker sends it,
keeps the tally and the progress display, and grants the tokens of one rate
limiter shared by all workers. Workers exit with it: a worker whose parent is
gone (killed, even with ``SIGKILL``) sees its job pipe close and exits at once.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import time
import types
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.context import DefaultContext, ForkServerContext, SpawnContext
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any

from langchain_jev.datasets._model import ModelSettings
from langchain_jev.datasets._rows import FieldMap

if TYPE_CHECKING:  # the judging modules load lazily, so `prestart` can start workers' imports early
    from langchain_jev.datasets._local.session import Job, Session
    from langchain_jev.datasets._pacing import RateLimiter
    from langchain_jev.spec import JudgeSpec

__all__ = [
    "CONCURRENCY_PER_WORKER",
    "ROWS_PER_WORKER",
    "WorkerSetup",
    "auto_workers",
    "available_cpus",
    "prestart",
    "resolve_workers",
    "run_pool",
    "split_concurrency",
]

CONCURRENCY_PER_WORKER = 32
"""``--workers auto`` starts a worker for every this many rows judged at once (up to the CPUs).

One event loop spends about 2 ms of CPU on a row (mostly in the HTTP client), so
it keeps up with some 400 rows a second: 32 rows at once against a server that
answers in 100 ms ask for 320. Against a slower server one loop keeps up with
more rows at once, and a worker more than needed costs only its start-up.
"""
ROWS_PER_WORKER = 500
"""...and for every this many rows to judge: workers take about half a second to start,
which a run of a thousand rows at 64 at once wins back; a smaller run does not."""

_PRELOAD = [
    "langchain_jev.datasets._local.worker",
    "langchain_jev.spec._model",
    "langchain_jev.models._jev",
    "langchain_jev.datasets._transport",
    "langchain_jev.models._cache",
]
"""What the fork server imports once, so that no worker has to."""
_TICK = 0.5
_STOP_GRACE = 10.0


def available_cpus() -> int:
    """The CPUs this process may run on.

    Example:
        >>> available_cpus() >= 1
        True

    """
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def auto_workers(concurrency: int, rows: int | None, cpus: int | None = None) -> int:
    """How many worker processes ``--workers auto`` uses.

    One per ``CONCURRENCY_PER_WORKER`` rows in flight and per ``ROWS_PER_WORKER``
    rows to judge, at most one per CPU, at least one (1 means: judge in this process).

    Example:
        >>> [auto_workers(c, 10_000, cpus=n) for c, n in ((64, 2), (128, 8), (32, 8))]
        [2, 4, 1]
        >>> auto_workers(64, 800, cpus=8), auto_workers(64, None, cpus=2)
        (1, 2)

    """
    cpus = available_cpus() if cpus is None else cpus
    by_rows = cpus if rows is None else rows // ROWS_PER_WORKER
    return max(1, min(cpus, concurrency // CONCURRENCY_PER_WORKER, by_rows))


def resolve_workers(requested: int | None, concurrency: int, rows: int | None) -> int:
    """The workers a run uses: ``requested`` (None: `auto_workers`), never more than ``concurrency``.

    A run with no row left to judge uses none (it judges here).

    Example:
        >>> resolve_workers(4, 2, 100), resolve_workers(2, 8, 0), resolve_workers(None, 64, 2000) >= 1
        (2, 1, True)

    """
    if rows == 0:
        return 1
    count = auto_workers(concurrency, rows) if requested is None else requested
    return max(1, min(count, concurrency))


def split_concurrency(concurrency: int, workers: int) -> list[int]:
    """Each worker's share of ``concurrency`` (as even as can be, none empty).

    Example:
        >>> split_concurrency(64, 2), split_concurrency(10, 3)
        ([32, 32], [4, 3, 3])

    """
    base, extra = divmod(concurrency, workers)
    return [base + (1 if index < extra else 0) for index in range(workers)]


@dataclass(frozen=True)
class WorkerSetup:
    """What a worker needs to build the judge this process built: plain data only.

    Example:
        >>> from langchain_jev.spec import load_spec
        >>> spec = load_spec({"criteria": [{"kind": "noul", "name": "ok", "instructions": "Ok?",
        ...     "minimum": 0.5}]})
        >>> setup = WorkerSetup.of(spec, ModelSettings(model="jev-latest"), FieldMap(), ["assistant_answer"])
        >>> sorted(setup.for_worker(8))
        ['fields', 'rate_limit', 'required', 'settings', 'spec']

    """

    spec: Mapping[str, Any]
    """The judge spec, validated, as JSON-ready data."""
    settings: ModelSettings
    fields: FieldMap
    required: Sequence[str]
    rate_limit: float | None = None
    """Requests per second over all workers: each request waits for a token from this process."""

    @classmethod
    def of(
        cls,
        spec: JudgeSpec,
        settings: ModelSettings,
        fields: FieldMap,
        required: Sequence[str],
        rate_limit: float | None = None,
    ) -> WorkerSetup:
        """The setup of workers judging with ``spec`` and a model as ``settings`` describe."""
        data = spec.model_dump(mode="json", by_alias=True, exclude_unset=True)
        return cls(data, settings, fields, list(required), rate_limit)

    def for_worker(self, concurrency: int) -> dict[str, Any]:
        """The JSON-ready setup of one worker judging ``concurrency`` rows at once."""
        settings = self.settings.to_dict()
        settings["concurrency"] = concurrency
        return {
            "spec": dict(self.spec),
            "settings": settings,
            "fields": self.fields.to_dict(),
            "required": list(self.required),
            "rate_limit": self.rate_limit,
        }


def run_pool(session: Session, setup: WorkerSetup, workers: int) -> None:
    """Judge the session's rows in ``workers`` processes; results go through ``session``.

    Returns when every row is judged, or the run stopped (``--strict``, changed
    data, a worker that died); the workers are gone by then.
    """
    from langchain_jev.datasets._pacing import RateLimiter

    limiter = RateLimiter(setup.rate_limit) if setup.rate_limit is not None else None
    pool = _Pool(session, limiter)
    finished = False
    try:
        pool.start(setup, split_concurrency(session.options.concurrency, workers))
        pool.wait_ready()
        session.progress.restart_clock()
        if not session.stopped:
            pool.judge(session.jobs())
        finished = not session.halted  # a halted run does not wait for the rows in flight
    except KeyboardInterrupt:
        pool.collect()  # results the workers have sent already go on disk too
        raise
    finally:
        pool.shutdown(graceful=finished)


@dataclass(eq=False)
class _Worker:
    index: int
    process: BaseProcess
    jobs: Connection
    """This process's end of the pipe that carries rows (and tokens) to the worker."""
    results: Connection
    """This process's end of the pipe that carries results (and token requests) back."""
    share: int
    capacity: int
    outstanding: int = 0
    ready: bool = False
    gone: bool = False

    @property
    def free(self) -> int:
        return 0 if self.gone or not self.ready else self.capacity - self.outstanding


@dataclass(eq=False)
class _Pool:
    session: Session
    limiter: RateLimiter | None
    workers: list[_Worker] = field(default_factory=list)

    # ------------------------------------------------------------------ lifecycle

    def start(self, setup: WorkerSetup, shares: Sequence[int]) -> None:
        from langchain_jev.datasets._local.worker import worker_main

        context = _context()
        for index, share in enumerate(shares):
            jobs_in, jobs_out = context.Pipe(duplex=False)
            results_in, results_out = context.Pipe(duplex=False)
            process = context.Process(
                target=worker_main,
                args=(setup.for_worker(share), jobs_in, results_out),
                name=f"langchain-jev-worker-{index + 1}",
                daemon=True,
            )
            with _without_main():
                process.start()
            jobs_in.close()  # the worker holds these ends now; closing ours lets EOF mean "gone"
            results_out.close()
            prefetch = max(2, share // 4)
            self.workers.append(_Worker(index, process, jobs_out, results_in, share, share + prefetch))

    def wait_ready(self) -> None:
        while not self.session.stopped and not all(w.ready or w.gone for w in self.workers):
            self._poll()

    def collect(self) -> None:
        """Record the results already waiting in the pipes, without waiting for more."""
        for worker in self.workers:
            with contextlib.suppress(EOFError, OSError):
                while not worker.gone and worker.results.poll(0):
                    message = worker.results.recv()
                    if message[0] == "done":
                        self._results(worker, message[1])

    def shutdown(self, *, graceful: bool) -> None:
        for worker in self.workers:
            if graceful and not worker.gone:
                with contextlib.suppress(OSError):
                    worker.jobs.send(("stop",))
        deadline = time.monotonic() + (_STOP_GRACE if graceful else 0.0)
        for worker in self.workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join(2.0)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.jobs.close()
            worker.results.close()

    # ------------------------------------------------------------------ judging

    def judge(self, jobs: Iterator[Job]) -> None:
        exhausted = False
        while not self.session.halted:
            if not exhausted and not self.session.stopped:
                exhausted = self._dispatch(jobs)
            if (exhausted or self.session.stopped) and not any(w.outstanding for w in self.workers):
                return
            self._poll()

    def _dispatch(self, jobs: Iterator[Job]) -> bool:
        """Hand rows to workers with room for them; True once there are no more rows."""
        from langchain_jev.datasets._local.session import StopRun

        for worker in sorted(self.workers, key=lambda w: -w.free):
            room = worker.free
            if room < max(1, worker.share // 8):  # wait for a few slots: fewer, larger messages
                continue
            batch: list[dict[str, Any]] = []
            exhausted = False
            while len(batch) < room and not self.session.stopped:
                try:
                    batch.append(next(jobs).payload())
                except (StopIteration, StopRun):
                    exhausted = True
                    break
            if batch and self._send(worker, ("jobs", batch)):
                worker.outstanding += len(batch)
            if exhausted or self.session.stopped:
                return True
        return False

    def _poll(self) -> None:
        live = [w for w in self.workers if not w.gone]
        if not live:
            return
        by_connection = {id(w.results): w for w in live}
        for connection in wait([w.results for w in live], timeout=_TICK):
            assert isinstance(connection, Connection)
            self._receive(by_connection[id(connection)])

    def _receive(self, worker: _Worker) -> None:
        try:
            while True:
                self._handle(worker, worker.results.recv())
                if worker.gone or not worker.results.poll():
                    return
        except (EOFError, OSError):
            self._lost(worker)

    def _handle(self, worker: _Worker, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "done":
            self._results(worker, message[1])
        elif kind == "token":  # 0.0: a token taken for the worker; else when to ask again
            self._send(worker, ("token", self.limiter.take() if self.limiter is not None else 0.0))
        elif kind == "ready":
            worker.ready = True
        elif kind == "fatal":
            worker.gone = True
            worker.outstanding = 0
            if self.session.result.broken is None:
                self.session.result.broken = str(message[1])

    def _results(self, worker: _Worker, items: Sequence[tuple[Any, ...]]) -> None:
        from langchain_jev.datasets._local.session import StopRun

        lines: list[str] = []
        views: list[dict[str, Any]] = []
        worker.outstanding -= len(items)
        for item in items:
            if item[0] == "ok":
                lines.append(item[1])
                views.append(item[2])
                continue
            self.session.record_lines(lines, views)  # keep the order of the notes and lines
            lines, views = [], []
            if item[0] == "stop":
                self.session.stop(item[1])
                continue
            with contextlib.suppress(StopRun):
                self.session.bad(item[1], item[2], item[3])
        self.session.record_lines(lines, views)

    def _send(self, worker: _Worker, message: tuple[Any, ...]) -> bool:
        """Send ``message`` to ``worker``; False (and the worker counted lost) if it is gone."""
        try:
            worker.jobs.send(message)
        except OSError:
            self._lost(worker, unsent=len(message[1]) if message[0] == "jobs" else 0)
            return False
        return True

    def _lost(self, worker: _Worker, unsent: int = 0) -> None:
        if worker.gone:
            return
        worker.process.join(1.0)
        code = worker.process.exitcode
        lost, worker.outstanding, worker.gone = worker.outstanding + unsent, 0, True
        if self.session.result.broken is None:
            rows = f"; {lost} row(s) it was given are not in the results" if lost else ""
            self.session.result.broken = (
                f"worker process {worker.index + 1} stopped unexpectedly (exit code {code}){rows}"
            )


def prestart(workers: int | None, concurrency: int) -> None:
    """Start the process workers will fork from, if a run may use workers, so it loads meanwhile.

    Only where workers fork from a server process (``forkserver``); a run that
    then judges in this process leaves it idle, and it ends with this process.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    may_use = auto_workers(concurrency, None) > 1 if workers is None else min(workers, concurrency) > 1
    if may_use:
        from multiprocessing import forkserver

        _context()
        forkserver.ensure_running()


@contextlib.contextmanager
def _without_main() -> Iterator[None]:
    """Start a worker without this process's ``__main__`` module.

    A worker needs nothing from it (its entry point and data come from this
    package), and re-running it there, as ``spawn`` and ``forkserver`` do, would
    run a script that calls the command without an ``if __name__ == "__main__"``
    guard a second time, inside the worker.
    """
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def _context() -> ForkServerContext | SpawnContext | DefaultContext:
    """``forkserver`` where there is one (workers fork from a process with the imports), else ``spawn``."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(_PRELOAD)
        return context
    return multiprocessing.get_context("spawn")
