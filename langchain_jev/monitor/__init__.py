"""Judge a LangSmith project's live traffic on the client: `monitor` (and `amonitor`).

A pass reads the project's new runs, judges each once with the full engine, and
writes one feedback per criterion plus the verdict; a saved cursor makes the
next pass start where this one stopped, and feedback ids derived from the
judge, the run and the key make a rerun, a restart or an overlapping backfill
write nothing new.

Modules, one job each:

- `_read`: reading runs with ``runs.query_v2`` (and a conversation's turns);
- `_ids`: the judge's fingerprint, feedback ids, the deterministic sample (pure);
- `_window`: the window a pass reads, from ``since``, ``until`` and the cursor (pure);
- `_cursor`: what a monitor has finished, and moving it on (pure); `_store`: where it is kept;
- `_threads`: ``threads=True``, an idle conversation judged as one thread (pure);
- `_feedback`: what a verdict writes (pure) and the writing; `_limits`: the 429 pause;
- `_pass`: one pass's decisions and its two drivers; `_monitor`: `monitor` and `amonitor`.

Example:
    >>> from langchain_jev.monitor import feedback_id, sampled
    >>> run = "0b6f4c9e-5a43-4c8e-9b8e-2f7a1c2d3e4f"
    >>> feedback_id("sha256:ab", run, "polite") == feedback_id("sha256:ab", run, "polite")
    True
    >>> sampled(run, 1.0)
    True

"""

from __future__ import annotations

from langchain_jev.monitor._cursor import Cursor, RunRef, Window
from langchain_jev.monitor._ids import MONITOR_NAMESPACE, feedback_id, judge_fingerprint, sampled
from langchain_jev.monitor._monitor import DEFAULT_CONCURRENCY, DEFAULT_CURSOR, amonitor, monitor
from langchain_jev.monitor._pass import MonitorLine, MonitorSummary
from langchain_jev.monitor._store import CursorKey, CursorStore, FileCursorStore, default_cursor_dir
from langchain_jev.monitor._threads import DEFAULT_IDLE
from langchain_jev.monitor._window import SETTLE

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_CURSOR",
    "DEFAULT_IDLE",
    "MONITOR_NAMESPACE",
    "SETTLE",
    "Cursor",
    "CursorKey",
    "CursorStore",
    "FileCursorStore",
    "MonitorLine",
    "MonitorSummary",
    "RunRef",
    "Window",
    "amonitor",
    "default_cursor_dir",
    "feedback_id",
    "judge_fingerprint",
    "monitor",
    "sampled",
]
