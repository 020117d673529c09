"""`monitor` and `amonitor`: one pass of a judge over a LangSmith project's traced runs.

This module checks the options, resolves the client, the project, the cursor
and the window, and hands the pass to `langchain_jev.monitor._pass`.
"""

from __future__ import annotations

import datetime
import logging
import os
from collections.abc import Callable
from typing import Any

from langchain_jev.errors import JevConfigurationError
from langchain_jev.judge import JevJudge
from langchain_jev.models.secrets import install_log_filter, remember_secret
from langchain_jev.monitor._cursor import Cursor
from langchain_jev.monitor._feedback import FeedbackWriter
from langchain_jev.monitor._ids import check_rate, judge_fingerprint
from langchain_jev.monitor._pass import MonitorLine, MonitorPass, MonitorSummary, arun_pass, run_pass
from langchain_jev.monitor._read import AsyncRunSource, RunSource
from langchain_jev.monitor._store import CursorKey, CursorStore, FileCursorStore
from langchain_jev.monitor._threads import DEFAULT_IDLE
from langchain_jev.monitor._window import Moment, window_of

__all__ = ["DEFAULT_CONCURRENCY", "DEFAULT_CURSOR", "amonitor", "monitor"]

DEFAULT_CONCURRENCY = 8
"""Runs judged at once by default."""


class _DefaultCursor:
    """The default of ``cursor=``: a `FileCursorStore` in `default_cursor_dir`."""

    def __repr__(self) -> str:
        return "DEFAULT_CURSOR"


DEFAULT_CURSOR: Any = _DefaultCursor()
"""``cursor=`` default: cursors kept in files under `default_cursor_dir` (None keeps none)."""

_logger = logging.getLogger("langchain_jev.monitor")

CursorOption = CursorStore | str | os.PathLike[str] | None


def monitor(
    judge: JevJudge,
    *,
    project: str,
    filter: str | None = None,
    since: Moment | None = None,
    until: Moment | None = None,
    sample: float | None = None,
    threads: bool = False,
    idle: datetime.timedelta = DEFAULT_IDLE,
    max_runs: int | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    dry_run: bool = False,
    cursor: CursorOption = DEFAULT_CURSOR,
    client: Any = None,
    extend_trace_retention: bool = False,
    key_prefix: str | None = None,
    on_line: Callable[[MonitorLine], None] | None = None,
) -> MonitorSummary:
    """Judge a LangSmith project's new runs once each and write the feedback: one pass.

    Reads the project's root runs (``filter``: a LangSmith filter choosing others)
    with ``runs.query_v2``, maps each as the LangSmith evaluator and the dataset
    command do (`langchain_jev.runs.judge_input_from_run`), judges it with the
    full engine, and writes one feedback per criterion plus ``jev_pass``. Run it
    again (a schedule, a loop) to keep up with the project.

    Args:
        judge: the judge; its fingerprint (`judge_fingerprint`) names its cursor and feedback ids.
        project: the LangSmith project (tracing project) name.
        filter: a LangSmith filter expression choosing the runs (default: root runs).
        since, until: the window of start times (see `langchain_jev.monitor._window`);
            by default from where the last pass stopped (a day back the first time) to
            a minute ago. A backfill over runs already judged writes nothing.
        sample: keep a run when the hash of its id falls under this rate (`sampled`).
        threads: judge each conversation once it has been ``idle``, as one thread.
        max_runs: judge at most this many runs (or threads) in this pass: the spend cap.
        concurrency: runs judged at once.
        dry_run: judge and say what would be written (``on_line``), writing nothing, not
            even the cursor.
        cursor: a `CursorStore`, a folder for `FileCursorStore`, or None for no cursor
            (feedback ids still keep every feedback once).
        client: a ``langsmith.Client`` (default: one from the environment).
        extend_trace_retention: let each feedback extend its trace's retention (costs money).
        key_prefix: put before every feedback key (as `JevRunEvaluator`'s).
        on_line: receives each line the pass says (a run skipped or failed, a dry run's
            preview); by default they are logged by ``langchain_jev.monitor``.

    Returns:
        What the pass did, in counts.

    Raises:
        JevConfigurationError: an option is out of range (the message names it).

    Example:
        A pass every ten minutes, a tenth of the runs::

            from langchain_jev.monitor import monitor
            summary = monitor(judge, project="prod-chat", sample=0.1, max_runs=500)
            print("\\n".join(summary.lines()))

    """
    options = _checked(judge, project, sample, max_runs, concurrency, key_prefix)
    client = _client(client)
    source = RunSource(client)
    project_id = source.project_id(project)
    state = _state(judge, project, project_id, filter, since, until, sample, threads, idle, max_runs,
                   dry_run, cursor, extend_trace_retention, key_prefix, on_line, options)  # fmt: skip
    if state is None:
        return _nothing(judge, project, threads, dry_run)
    state.refs[:] = source.refs(project_id, state.window, filter)
    state.summary.read = len(state.refs)
    return run_pass(state, source, FeedbackWriter(client, state.gate), concurrency)


async def amonitor(
    judge: JevJudge,
    *,
    project: str,
    filter: str | None = None,
    since: Moment | None = None,
    until: Moment | None = None,
    sample: float | None = None,
    threads: bool = False,
    idle: datetime.timedelta = DEFAULT_IDLE,
    max_runs: int | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    dry_run: bool = False,
    cursor: CursorOption = DEFAULT_CURSOR,
    client: Any = None,
    extend_trace_retention: bool = False,
    key_prefix: str | None = None,
    on_line: Callable[[MonitorLine], None] | None = None,
) -> MonitorSummary:
    """Asynchronous `monitor`: reads through ``Client.runs``, awaits the judge, the same options."""
    options = _checked(judge, project, sample, max_runs, concurrency, key_prefix)
    client = _client(client)
    source = AsyncRunSource(client)
    project_id = await source.project_id(project)
    state = _state(judge, project, project_id, filter, since, until, sample, threads, idle, max_runs,
                   dry_run, cursor, extend_trace_retention, key_prefix, on_line, options)  # fmt: skip
    if state is None:
        return _nothing(judge, project, threads, dry_run)
    state.refs[:] = await source.refs(project_id, state.window, filter)
    state.summary.read = len(state.refs)
    return await arun_pass(state, source, FeedbackWriter(client, state.gate), concurrency)


def _checked(
    judge: Any, project: Any, sample: Any, max_runs: Any, concurrency: Any, key_prefix: Any
) -> dict[str, Any]:
    fingerprint = judge_fingerprint(judge)  # refuses what is not a JevJudge
    if not isinstance(project, str) or not project.strip():
        raise JevConfigurationError(f"project must be a project's name, got {project!r}")
    if sample is not None:
        check_rate(sample)
    if max_runs is not None and (isinstance(max_runs, bool) or not isinstance(max_runs, int) or max_runs < 0):
        raise JevConfigurationError(f"max_runs must be a whole number >= 0 or None, got {max_runs!r}")
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise JevConfigurationError(f"concurrency must be a whole number >= 1, got {concurrency!r}")
    if key_prefix is not None and not isinstance(key_prefix, str):
        raise JevConfigurationError(f"key_prefix must be a string, got {type(key_prefix).__name__}")
    return {"fingerprint": fingerprint}


def _client(client: Any) -> Any:
    install_log_filter()  # no known key reaches a log line, the client's own included
    if client is None:
        from langsmith import Client

        client = Client()
    key = getattr(client, "api_key", None)
    if isinstance(key, str) and key:
        remember_secret(key)
    return client


def _store(cursor: CursorOption) -> CursorStore | None:
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


def _state(
    judge: JevJudge,
    project: str,
    project_id: str,
    filter: str | None,
    since: Moment | None,
    until: Moment | None,
    sample: float | None,
    threads: bool,
    idle: datetime.timedelta,
    max_runs: int | None,
    dry_run: bool,
    cursor: CursorOption,
    extend_trace_retention: bool,
    key_prefix: str | None,
    on_line: Callable[[MonitorLine], None] | None,
    options: dict[str, Any],
) -> MonitorPass | None:
    """The pass, or None when its window is empty (the cursor has caught up)."""
    store = _store(cursor)
    fingerprint = options["fingerprint"]
    key = CursorKey(project, fingerprint, "threads" if threads else "runs", filter or None)
    saved = (store.load(key) if store is not None else None) or Cursor()
    now = datetime.datetime.now(datetime.UTC)
    window = window_of(since, until, saved, now)
    if window is None:
        return None
    return MonitorPass(
        judge=judge,
        fingerprint=fingerprint,
        project=project,
        project_id=project_id,
        window=window,
        refs=[],
        cursor=saved,
        key=key,
        store=store,
        sample=sample,
        threads=threads,
        idle=idle,
        max_runs=max_runs,
        dry_run=dry_run,
        extend_trace_retention=extend_trace_retention,
        key_prefix=key_prefix,
        on_line=on_line or _log,
        now=now,
    )


def _nothing(judge: JevJudge, project: str, threads: bool, dry_run: bool) -> MonitorSummary:
    return MonitorSummary(project, judge_fingerprint(judge), None, threads=threads, dry_run=dry_run)


def _log(line: MonitorLine) -> None:
    if line.kind == "preview":
        _logger.info("%s", line.text)
    else:
        _logger.warning("%s", line.text)
