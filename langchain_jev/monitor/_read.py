"""Reading a project's runs with ``runs.query_v2``, and the pure pieces of it.

A pass reads in two steps. First the references of every run in its window
(`REF_SELECTS`: ids, times, status, trace and thread; a thousand a page), which
it orders and filters against the cursor and the sample; then the runs it will
judge, a hundred ids at a time, with their inputs and outputs (`RUN_SELECTS`:
``query_v2`` returns only ids unless ``selects`` asks for more). Both steps pass
the window's two ends explicitly: ``query_v2`` reads only the last day when
``min_start_time`` is left out, which would quietly shorten a backfill.

`RunSource` reads through the client's synchronous v2 API, `AsyncRunSource`
through ``Client.runs`` (asynchronous); the query itself (`ref_query`,
`run_query`) and the reading of what comes back (`ref_of`, `run_of`,
`turn_of`) are pure and shared. Root runs by default; a LangSmith ``filter``
chooses others (``is_root`` is then left to the filter).
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Sequence
from typing import Any

from langsmith import schemas

from langchain_jev._errors import JevConfigurationError
from langchain_jev.monitor._cursor import RunRef, Window

__all__ = [
    "IDS_PER_QUERY",
    "REF_SELECTS",
    "RUN_SELECTS",
    "TURN_SELECTS",
    "AsyncRunSource",
    "RunSource",
    "ref_of",
    "ref_query",
    "run_of",
    "run_query",
    "turn_of",
]

REF_SELECTS = ["ID", "START_TIME", "END_TIME", "STATUS", "TRACE_ID", "THREAD_ID"]
"""What the first step reads of each run."""
RUN_SELECTS = [
    "ID", "NAME", "RUN_TYPE", "STATUS", "START_TIME", "END_TIME", "INPUTS", "OUTPUTS", "ERROR",
    "TRACE_ID", "PROJECT_ID", "THREAD_ID", "EXTRA", "TAGS",
]  # fmt: skip
"""What the second step reads of each run it judges."""
TURN_SELECTS = ["TRACE_ID", "START_TIME", "END_TIME", "NAME", "INPUTS", "OUTPUTS", "ERROR"]
"""What ``--threads`` reads of each turn of a conversation (``threads.list_traces``)."""
IDS_PER_QUERY = 100
"""Runs asked for by id in one query of the second step."""
REFS_PER_PAGE = 1000
"""Run references per page of the first step (``query_v2``'s largest page)."""


def ref_query(project_id: str, window: Window, filter: str | None) -> dict[str, Any]:
    """The ``query_v2`` arguments of the first step: every run of the window, references only.

    Example:
        >>> from datetime import datetime, timezone
        >>> day = datetime(2026, 1, 1, tzinfo=timezone.utc)
        >>> window = Window(day, day.replace(day=2))
        >>> query = ref_query("p1", window, None)
        >>> query["is_root"], query["min_start_time"].day, query["selects"][:2]
        (True, 1, ['ID', 'START_TIME'])

    """
    query: dict[str, Any] = {
        "project_ids": [project_id],
        "min_start_time": window.lo,
        "max_start_time": window.hi,
        "selects": list(REF_SELECTS),
        "page_size": REFS_PER_PAGE,
    }
    if filter:
        query["filter"] = filter
    else:
        query["is_root"] = True
    return query


def run_query(project_id: str, window: Window, ids: Sequence[str]) -> dict[str, Any]:
    """The ``query_v2`` arguments of the second step: these runs, with inputs and outputs."""
    if len(ids) > IDS_PER_QUERY:
        raise JevConfigurationError(f"at most {IDS_PER_QUERY} runs are read by id at once, got {len(ids)}")
    return {
        "project_ids": [project_id],
        "ids": list(ids),
        "min_start_time": window.lo,
        "max_start_time": window.hi,
        "selects": list(RUN_SELECTS),
        "page_size": IDS_PER_QUERY,
    }


def ref_of(item: Any) -> RunRef | None:
    """A run reference from a ``query_v2`` item; None for an item without an id or a start time."""
    run_id = _uuid_text(getattr(item, "id", None))
    start = _aware(getattr(item, "start_time", None))
    if run_id is None or start is None:
        return None
    status = str(getattr(item, "status", None) or "").upper()
    ended = status != "PENDING" and getattr(item, "end_time", None) is not None
    return RunRef(
        run_id,
        start,
        trace_id=_uuid_text(getattr(item, "trace_id", None)) or run_id,
        ended=ended,
        thread_id=_text(getattr(item, "thread_id", None)),
    )


def run_of(item: Any, project_id: str) -> schemas.Run:
    """A ``langsmith.schemas.Run`` from a ``query_v2`` item, as the LangSmith mapping reads runs."""
    run_id = _uuid_text(getattr(item, "id", None))
    if run_id is None:
        raise JevConfigurationError("LangSmith returned a run without an id")
    run_type = getattr(item, "run_type", None)
    status = getattr(item, "status", None)
    fields: dict[str, Any] = {
        "id": run_id,
        "name": getattr(item, "name", None) or "run",
        "run_type": str(run_type).lower() if run_type else "chain",
        "start_time": _aware(getattr(item, "start_time", None)) or datetime.datetime.now(datetime.UTC),
        "end_time": _aware(getattr(item, "end_time", None)),
        "trace_id": _uuid_text(getattr(item, "trace_id", None)) or run_id,
        "session_id": _uuid_text(getattr(item, "project_id", None)) or project_id,
        "inputs": _mapping(getattr(item, "inputs", None)) or {},
        "outputs": _mapping(getattr(item, "outputs", None)),
        "error": getattr(item, "error", None),
        "status": str(status).lower() if status else None,
        "extra": _mapping(getattr(item, "extra", None)),
        "tags": getattr(item, "tags", None),
    }
    return schemas.Run(**{key: value for key, value in fields.items() if value is not None})


def turn_of(item: Any, project_id: str) -> schemas.Run:
    """One turn of a conversation (a ``threads.list_traces`` item) as a root run."""
    trace_id = _uuid_text(getattr(item, "trace_id", None))
    if trace_id is None:
        raise JevConfigurationError("LangSmith returned a turn of a conversation without a trace id")
    fields: dict[str, Any] = {
        "id": trace_id,
        "trace_id": trace_id,
        "name": getattr(item, "name", None) or "turn",
        "run_type": "chain",
        "start_time": _aware(getattr(item, "start_time", None)) or datetime.datetime.now(datetime.UTC),
        "end_time": _aware(getattr(item, "end_time", None)),
        "session_id": project_id,
        "inputs": _mapping(getattr(item, "inputs", None)) or {},
        "outputs": _mapping(getattr(item, "outputs", None)),
        "error": getattr(item, "error", None),
    }
    return schemas.Run(**{key: value for key, value in fields.items() if value is not None})


class RunSource:
    """Reads a project's runs through a ``langsmith.Client``'s synchronous v2 API."""

    def __init__(self, client: Any) -> None:
        api = getattr(client, "_get_langsmith_api_sync", None)
        if api is None:
            raise JevConfigurationError(
                "the monitor reads runs with runs.query_v2: it needs a langsmith.Client of langsmith >= 0.15"
            )
        self._client = client
        self._api = api()

    def project_id(self, project: str) -> str:
        """The id of the project named ``project`` (LangSmith says when there is none)."""
        return str(self._client.read_project(project_name=project).id)

    def refs(self, project_id: str, window: Window, filter: str | None) -> list[RunRef]:
        """Every run of the window, as references, in the order they are judged."""
        pages = self._api.runs.query_v2(**ref_query(project_id, window, filter))
        found = {
            ref.id: ref for ref in map(ref_of, pages) if ref is not None and window.holds(ref.start_time)
        }
        return sorted(found.values(), key=lambda ref: ref.order)

    def runs(self, project_id: str, window: Window, ids: Sequence[str]) -> dict[str, schemas.Run]:
        """The runs of ``ids`` with their inputs and outputs, by id (a run gone since is left out)."""
        pages = self._api.runs.query_v2(**run_query(project_id, window, ids))
        return {str(run.id): run for run in (run_of(item, project_id) for item in pages)}

    def turns(self, project_id: str, thread_id: str) -> list[schemas.Run]:
        """Every turn of the conversation ``thread_id``, in order."""
        pages = self._api.threads.list_traces(thread_id, project_id=project_id, selects=TURN_SELECTS)
        return sorted((turn_of(item, project_id) for item in pages), key=lambda run: run.start_time)


class AsyncRunSource:
    """Reads a project's runs through ``langsmith.Client.runs`` (the asynchronous v2 API)."""

    def __init__(self, client: Any) -> None:
        self._client = client

    async def project_id(self, project: str) -> str:
        """The id of the project named ``project``."""
        return str((await self._client.aread_project(project_name=project)).id)

    async def refs(self, project_id: str, window: Window, filter: str | None) -> list[RunRef]:
        """Every run of the window, as references, in the order they are judged."""
        found: dict[str, RunRef] = {}
        async for item in self._client.runs.query_v2(**ref_query(project_id, window, filter)):
            ref = ref_of(item)
            if ref is not None and window.holds(ref.start_time):
                found[ref.id] = ref
        return sorted(found.values(), key=lambda ref: ref.order)

    async def runs(self, project_id: str, window: Window, ids: Sequence[str]) -> dict[str, schemas.Run]:
        """The runs of ``ids`` with their inputs and outputs, by id."""
        found: dict[str, schemas.Run] = {}
        async for item in self._client.runs.query_v2(**run_query(project_id, window, ids)):
            run = run_of(item, project_id)
            found[str(run.id)] = run
        return found

    async def turns(self, project_id: str, thread_id: str) -> list[schemas.Run]:
        """Every turn of the conversation ``thread_id``, in order."""
        turns = [
            turn_of(item, project_id)
            async for item in self._client.threads.list_traces(
                thread_id, project_id=project_id, selects=TURN_SELECTS
            )
        ]
        return sorted(turns, key=lambda run: run.start_time)


def _uuid_text(value: Any) -> str | None:
    if value is None:
        return None
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        return None


def _aware(value: Any) -> datetime.datetime | None:
    if isinstance(value, str):
        try:
            value = datetime.datetime.fromisoformat(value)
        except ValueError:
            return None
    if not isinstance(value, datetime.datetime):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=datetime.UTC)


def _mapping(value: Any) -> dict[str, Any] | None:
    return dict(value) if isinstance(value, dict) else None


def _text(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None
