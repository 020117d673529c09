"""A worker process of the command line: judges the rows its parent sends, on its own event loop.

`worker_main` is the process's entry point. It builds the judge from the plain
setup the parent sent (the judge spec, the model settings, the column map),
says it is ready, then judges up to its share of ``--concurrency`` rows at
once and sends back, for each row, its result line (made here, so the parent
only writes it) with the few fields the parent's tally counts, or the problem
that makes it bad input.

Messages are tuples over two pipes (a thread of the worker reads the job
pipe). Parent to worker: ``("jobs", [row, ...])``, ``("token", seconds)`` (0: a
token was taken for the request, which goes now; else ask again after as long) and
``("stop",)``. Worker to parent: ``("ready",)``, ``("done", [item, ...])`` (an
item is ``("ok", line, tally_view)``, ``("bad", row, line, problem)`` or ``("stop", message)``:
the run cannot go on, its cache broke),
``("token",)`` (asking leave to send a request, when the run is rate limited)
and ``("fatal", message)``.

A worker never outlives its parent: when the job pipe closes before ``stop``
(the parent was killed), the worker exits at once.

Once its judge is built, a worker keeps the garbage collector off what it has
loaded and lets it run less often (`langchain_jev.datasets._collector.lean_gc`).
"""

from __future__ import annotations

import asyncio
import collections
import os
import signal
import threading
import warnings
from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import Any

from langchain_jev._judge import JevJudge
from langchain_jev.datasets._collector import lean_gc
from langchain_jev.datasets._local.session import Job, judge_job
from langchain_jev.datasets._model import ModelSettings, build_model, close_all
from langchain_jev.datasets._pacing import ParentLimiter
from langchain_jev.datasets._rows import FieldMap, judge_row
from langchain_jev.datasets._tally import tally_view
from langchain_jev.datasets.results import record_line

__all__ = ["worker_main"]


def worker_main(setup: Mapping[str, Any], jobs: Connection, results: Connection) -> None:
    """Run a worker: judge the rows that come through ``jobs``, answer through ``results``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt is the parent's to handle
    warnings.filterwarnings("ignore", message=".*is in beta.*")
    asyncio.run(_Worker(setup, jobs, results).serve())


class _Worker:
    def __init__(self, setup: Mapping[str, Any], jobs: Connection, results: Connection) -> None:
        self.setup = setup
        self.jobs = jobs
        self.results = results
        self.share = int(setup["settings"]["concurrency"])
        self.fields = FieldMap.from_dict(setup["fields"])
        self.required = list(setup["required"])
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.outbox: list[tuple[Any, ...]] = []
        self.tokens: collections.deque[asyncio.Future[float]] = collections.deque()
        self.stopping = False

    async def serve(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            judge, closers = await self._build()
        except Exception as error:  # the parent built the same judge: this is the environment
            self.results.send(("fatal", f"a worker process could not build the judge: {error}"))
            return
        threading.Thread(target=self._read, args=(loop,), name="jobs", daemon=True).start()
        self.results.send(("ready",))
        slots = [asyncio.ensure_future(self._slot(judge)) for _ in range(self.share)]
        try:
            with lean_gc():
                await asyncio.gather(*slots)
            self._flush()
        except Exception as error:
            self.results.send(("fatal", f"a worker process failed: {type(error).__name__}: {error}"))
        finally:
            for slot in slots:
                slot.cancel()
            await close_all(closers)

    async def _build(self) -> tuple[JevJudge, list[Any]]:
        from langchain_jev.spec import load_spec

        spec = load_spec(self.setup["spec"])
        rate = self.setup.get("rate_limit")
        limiter = ParentLimiter(float(rate), self._token) if rate is not None else None
        settings = ModelSettings.from_dict(self.setup["settings"])
        model, closers = build_model(settings, limiter, spec.decision_model())
        try:
            return spec.build(model, allow_code=True), closers  # the parent built it under the user's opt-in
        except Exception:
            await close_all(closers)
            raise

    # ------------------------------------------------------------------ messages in

    def _read(self, loop: asyncio.AbstractEventLoop) -> None:
        """Read the job pipe in a thread of its own, whatever the event loop is doing.

        The loop sends results with blocking writes: were it also the one to read
        the job pipe, a full results pipe (the parent busy sending a large batch of
        rows) and a full job pipe (this worker busy sending) would wait on each
        other for ever. Read here, rows always drain, so the parent's send ends,
        and it goes back to reading results.
        """
        while True:
            try:
                message = self.jobs.recv()
            except (EOFError, OSError):
                self._parent_gone()
                return
            loop.call_soon_threadsafe(self._handle, message)
            if message[0] == "stop":
                return

    def _parent_gone(self) -> None:
        if not self.stopping:
            os._exit(0)  # the parent is gone: so is this worker, whatever it was doing

    def _handle(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "jobs":
            for payload in message[1]:
                self.queue.put_nowait(payload)
        elif kind == "token":
            self.tokens.popleft().set_result(float(message[1]))
        elif kind == "stop":
            self.stopping = True
            for _ in range(self.share):
                self.queue.put_nowait(None)

    async def _token(self) -> float:
        """Ask the parent for a token: 0.0 when one was taken for this request, else when to ask again."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.tokens.append(future)
        self.results.send(("token",))
        return await future

    # ------------------------------------------------------------------ judging

    async def _slot(self, judge: JevJudge) -> None:
        while True:
            payload = await self.queue.get()
            if payload is None:
                return
            self._send(await self._judge(judge, payload))

    async def _judge(self, judge: JevJudge, payload: Mapping[str, Any]) -> tuple[Any, ...]:
        number, line = int(payload["row"]), int(payload["line"])
        mapped = judge_row(payload["data"], self.fields, self.required, from_csv=bool(payload["csv"]))
        if mapped.input is None:
            return ("bad", number, line, mapped.problem or "cannot be judged")
        data, from_csv = payload["data"], bool(payload["csv"])
        job = Job(number, line, str(payload["key"]), payload["id"], data, from_csv, mapped.input)
        outcome = await judge_job(judge, job, self.setup["settings"].get("cache"))
        if outcome.stop is not None:
            return ("stop", outcome.stop)
        if outcome.record is None:
            return ("bad", number, line, outcome.problem or "cannot be judged")
        return ("ok", record_line(outcome.record), tally_view(outcome.record))

    # ------------------------------------------------------------------ messages out

    def _send(self, item: tuple[Any, ...]) -> None:
        """Queue a result; results finished in the same turn of the loop go in one message."""
        if not self.outbox:
            asyncio.get_running_loop().call_soon(self._flush)
        self.outbox.append(item)

    def _flush(self) -> None:
        if self.outbox:
            items, self.outbox = self.outbox, []
            self.results.send(("done", items))
