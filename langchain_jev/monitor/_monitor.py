"""`monitor` and `amonitor`: one pass of a judge over a LangSmith project's traced runs.

This module checks the options (`MonitorOptions`), resolves the client, the
project, the cursor and the window, and hands the pass to
`langchain_jev.monitor._pass`.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import os
from collections.abc import Callable
from typing import Any, TypedDict

from typing_extensions import Unpack

from langchain_jev._errors import JevConfigurationError
from langchain_jev._judge import JevJudge
from langchain_jev.langsmith import Prepare
from langchain_jev.models._secrets import install_log_filter, remember_secret
from langchain_jev.monitor._cursor import Cursor
from langchain_jev.monitor._feedback import FeedbackWriter
from langchain_jev.monitor._ids import check_rate, judge_fingerprint
from langchain_jev.monitor._pass import MonitorLine, MonitorPass, MonitorSummary, arun_pass, run_pass
from langchain_jev.monitor._read import AsyncRunSource, RunSource
from langchain_jev.monitor._store import CursorKey, CursorStore, FileCursorStore
from langchain_jev.monitor._threads import DEFAULT_IDLE
from langchain_jev.monitor._window import Moment, window_of

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_CURSOR",
    "MonitorArguments",
    "MonitorOptions",
    "amonitor",
    "monitor",
]

DEFAULT_CONCURRENCY = 8
"""Runs judged at once by default."""


class _DefaultCursor:
    """The default of ``cursor=``: a `FileCursorStore` in `default_cursor_dir`."""

    def __repr__(self) -> str:
        return "DEFAULT_CURSOR"


DEFAULT_CURSOR: Any = _DefaultCursor()
"""``cursor=`` default: cursors kept in files under `default_cursor_dir` (None keeps none)."""

CursorOption = CursorStore | str | os.PathLike[str] | None
"""What ``cursor=`` takes."""

_logger = logging.getLogger("langchain_jev.monitor")


class MonitorArguments(TypedDict, total=False):
    """What `monitor` and `amonitor` take besides the judge, the project and the client (each optional).

    Each is documented by `monitor`; `MonitorOptions` holds their defaults and checks them.
    """

    filter: str | None
    since: Moment | None
    until: Moment | None
    sample: float | None
    threads: bool
    idle: datetime.timedelta
    max_runs: int | None
    concurrency: int
    dry_run: bool
    cursor: CursorOption
    extend_trace_retention: bool
    key_prefix: str | None
    prepare: Prepare | None
    on_line: Callable[[MonitorLine], None] | None


@dataclasses.dataclass(frozen=True)
class MonitorOptions:
    """A monitor's options, checked (each as `monitor` documents it; a bad one is named)."""

    judge: JevJudge
    project: str
    filter: str | None = None
    since: Moment | None = None
    until: Moment | None = None
    sample: float | None = None
    threads: bool = False
    idle: datetime.timedelta = DEFAULT_IDLE
    max_runs: int | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    dry_run: bool = False
    cursor: CursorOption = DEFAULT_CURSOR
    extend_trace_retention: bool = False
    key_prefix: str | None = None
    prepare: Prepare | None = None
    on_line: Callable[[MonitorLine], None] | None = None
    fingerprint: str = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fingerprint", judge_fingerprint(self.judge))  # refuses a non-judge
        if not isinstance(self.project, str) or not self.project.strip():
            raise JevConfigurationError(f"project must be a project's name, got {self.project!r}")
        if self.filter is not None and not isinstance(self.filter, str):
            raise JevConfigurationError(f"filter must be a LangSmith filter expression, got {self.filter!r}")
        if self.sample is not None:
            check_rate(self.sample)
        if not isinstance(self.idle, datetime.timedelta) or self.idle.total_seconds() < 0:
            raise JevConfigurationError(f"idle must be a timedelta of 0 or more, got {self.idle!r}")
        _whole("max_runs", self.max_runs, 0, optional=True)
        _whole("concurrency", self.concurrency, 1)
        if self.key_prefix is not None and not isinstance(self.key_prefix, str):
            raise JevConfigurationError(f"key_prefix must be a string, got {type(self.key_prefix).__name__}")
        if self.prepare is not None and not callable(self.prepare):
            raise JevConfigurationError("prepare must be callable as prepare(run, None)")

    @property
    def key(self) -> CursorKey:
        """The key of this monitor's cursor: the project, the judge, runs or threads, the filter."""
        return CursorKey(
            self.project, self.fingerprint, "threads" if self.threads else "runs", self.filter or None
        )

    def store(self) -> CursorStore | None:
        """Where the cursor is kept (None: nowhere)."""
        cursor = self.cursor
        if cursor is None:
            return None
        if cursor is DEFAULT_CURSOR:
            return FileCursorStore()
        if isinstance(cursor, (str, os.PathLike)):
            return FileCursorStore(cursor)
        if isinstance(cursor, CursorStore):
            return cursor
        raise JevConfigurationError(
            f"cursor must be a CursorStore, a folder or None, got {type(cursor).__name__}"
        )

    def new_pass(self, project_id: str) -> MonitorPass | None:
        """The pass over the window after the saved cursor; None when there is nothing new to read."""
        store = self.store()
        saved = (store.load(self.key) if store is not None else None) or Cursor()
        now = datetime.datetime.now(datetime.UTC)
        window = window_of(self.since, self.until, saved, now)
        if window is None:
            return None
        return MonitorPass(
            judge=self.judge,
            fingerprint=self.fingerprint,
            project=self.project,
            project_id=project_id,
            window=window,
            refs=[],
            cursor=saved,
            key=self.key,
            store=store,
            sample=self.sample,
            threads=self.threads,
            idle=self.idle,
            max_runs=self.max_runs,
            dry_run=self.dry_run,
            extend_trace_retention=self.extend_trace_retention,
            key_prefix=self.key_prefix,
            prepare_run=self.prepare,
            on_line=self.on_line or _log,
            now=now,
        )

    def caught_up(self) -> MonitorSummary:
        """The summary of a pass with nothing new to read."""
        return MonitorSummary(
            self.project, self.fingerprint, None, threads=self.threads, dry_run=self.dry_run
        )


def monitor(
    judge: JevJudge, *, project: str, client: Any = None, **options: Unpack[MonitorArguments]
) -> MonitorSummary:
    r"""Judge a LangSmith project's new runs once each and write the feedback: one pass.

    Reads the project's root runs (``filter``: a LangSmith filter choosing others)
    with ``runs.query_v2``, maps each as the LangSmith evaluator and the dataset
    command do (`langchain_jev.judge_input_from_run`), judges it with the
    full engine, and writes one feedback per criterion plus ``jev_pass``. Run it
    again (a schedule, a loop) to keep up with the project.

    Args:
        judge: the judge; its fingerprint (`judge_fingerprint`) names its cursor and feedback ids.
        project: the LangSmith project (tracing project) name.
        filter: a LangSmith filter expression choosing the runs (default: root runs).
        since: where the window starts (an aware datetime, a timedelta or text such as
            ``7d`` or ``2026-01-05``); by default where the last pass stopped, a day
            back the first time. A backfill over runs already judged writes nothing.
        until: where the window ends (default: a minute ago).
        sample: keep a run when the hash of its id falls under this rate (`sampled`).
        threads: judge each conversation once it has been ``idle``, as one thread.
        idle: how long a conversation goes without a turn before it is judged.
        max_runs: judge at most this many runs (or threads) in this pass: the spend cap.
        concurrency: runs judged at once.
        dry_run: judge and say what would be written (``on_line``), writing nothing, not
            even the cursor.
        cursor: a `CursorStore`, a folder for `FileCursorStore`, or None for no cursor
            (feedback ids still keep every feedback once).
        client: a ``langsmith.Client`` (default: one from the environment).
        extend_trace_retention: let each feedback extend its trace's retention (costs money).
        key_prefix: put before every feedback key (as `JevRunEvaluator`'s).
        prepare: ``(run, None) -> JevJudgeInput`` (or a state), replacing the default mapping
            (as `JevRunEvaluator`'s); a `JevInputError` it raises skips the run.
        on_line: receives each line the pass says (a run skipped or failed, a dry run's
            preview); by default they are logged by ``langchain_jev.monitor``.

    Returns:
        What the pass did, in counts.

    Raises:
        JevConfigurationError: an option is out of range (the message names it).

    Example:
        A pass every ten minutes over a tenth of the runs, at most 500 of them::

            from langchain_jev.monitor import monitor
            summary = monitor(judge, project="prod-chat", sample=0.1, max_runs=500)
            print("\\n".join(summary.lines()))

    """
    checked = MonitorOptions(judge, project, **options)
    client = _client(client)
    source = RunSource(client)
    state = checked.new_pass(source.project_id(project))
    if state is None:
        return checked.caught_up()
    state.refs[:] = source.refs(state.project_id, state.window, checked.filter)
    state.summary.read = len(state.refs)
    return run_pass(state, source, FeedbackWriter(client, state.gate), checked.concurrency)


async def amonitor(
    judge: JevJudge, *, project: str, client: Any = None, **options: Unpack[MonitorArguments]
) -> MonitorSummary:
    """Asynchronous `monitor`: reads through ``Client.runs``, awaits the judge; the same options."""
    checked = MonitorOptions(judge, project, **options)
    client = _client(client)
    source = AsyncRunSource(client)
    state = checked.new_pass(await source.project_id(project))
    if state is None:
        return checked.caught_up()
    state.refs[:] = await source.refs(state.project_id, state.window, checked.filter)
    state.summary.read = len(state.refs)
    return await arun_pass(state, source, FeedbackWriter(client, state.gate), checked.concurrency)


def _whole(name: str, value: Any, minimum: int, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        bound = f"a whole number >= {minimum}" + (" or None" if optional else "")
        raise JevConfigurationError(f"{name} must be {bound}, got {value!r}")


def _client(client: Any) -> Any:
    install_log_filter()  # no known key reaches a log line, the client's own included
    if client is None:
        from langsmith import Client

        client = Client()
    key = getattr(client, "api_key", None)
    if isinstance(key, str) and key:
        remember_secret(key)
    return client


def _log(line: MonitorLine) -> None:
    if line.kind == "preview":
        _logger.info("%s", line.text)
    else:
        _logger.warning("%s", line.text)
