"""The feedback a monitor writes: what it says (pure) and the writing of it (sync and async).

`feedback_requests` turns a verdict into one request per criterion and the
verdict (``jev_pass``), worded as the LangSmith evaluator words them
(`langchain_jev.langsmith.verdict_results`), each with its `feedback_id`.
`create_arguments` is what ``Client.create_feedback`` is called with: the
project (``session_id``), the run's start time, the judge as the source, and
``extend_trace_retention`` False unless asked. ``trace_id`` is left out on
purpose: with it and the default retention, the client queues the feedback in
its background uploader, which extends the trace's retention whatever is asked
and says nothing of a failure, so a cursor could pass feedback never written.
Left out, each call is one request, answered before the run counts as written.

`FeedbackWriter` sends the requests: a 409 (the id is there already) counts as
written, a 429 pauses every worker for its ``Retry-After``, and comments and
errors never carry a known key.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_jev._verdict import JevVerdict
from langchain_jev.langsmith import verdict_results
from langchain_jev.models._secrets import redact, redact_error
from langchain_jev.monitor._ids import feedback_id
from langchain_jev.monitor._limits import RateGate, retry_after

__all__ = ["FeedbackRequest", "FeedbackWriter", "WriteOutcome", "create_arguments", "feedback_requests"]

SOURCE = "langchain-jev monitor"
"""The feedback source's name, in each feedback's ``source_info``."""
RATE_LIMIT_TRIES = 6
"""Times one feedback is tried while LangSmith answers 429 (each after the pause it asks for)."""
TRANSIENT_TRIES = 3
"""Times one feedback is tried while LangSmith fails otherwise (a 5xx, a dropped connection)."""


@dataclass(frozen=True, slots=True)
class FeedbackRequest:
    """One feedback to write: its id, the run it is on, and what it says."""

    id: uuid.UUID
    run_id: str
    key: str
    score: float | None
    value: str | None
    comment: str | None
    feedback_config: Any = None


def feedback_requests(
    verdict: JevVerdict,
    *,
    fingerprint: str,
    subject: str,
    run_id: str,
    key_prefix: str | None = None,
) -> list[FeedbackRequest]:
    """One request per criterion and one for the verdict, ids derived from ``fingerprint`` and ``subject``.

    ``subject`` is what was judged (the run id; for a conversation, the thread and
    its last turn), ``run_id`` the run the feedback is written on.

    Example:
        >>> from langchain_jev import JevCriterion, JevFinding, JevVerdict, Outcome
        >>> check = JevCriterion.check("short", lambda d: True, "too long")
        >>> verdict = JevVerdict(True, (JevFinding(check, None, Outcome.PASSED, "short: ok"),), None, "")
        >>> run = "0b6f4c9e-5a43-4c8e-9b8e-2f7a1c2d3e4f"
        >>> [(r.key, r.score) for r in feedback_requests(verdict, fingerprint="sha256:ab",
        ...                                              subject=run, run_id=run)]
        [('short', 1.0), ('jev_pass', 1.0)]

    """
    results = verdict_results(verdict, key_prefix=key_prefix)["results"]
    return [
        FeedbackRequest(
            id=feedback_id(fingerprint, subject, result.key),
            run_id=run_id,
            key=result.key,
            score=None if result.score is None else float(result.score),
            value=None if result.value is None else str(result.value),
            comment=redact(result.comment) if result.comment else result.comment,
            feedback_config=result.feedback_config,
        )
        for result in results
    ]


def create_arguments(
    request: FeedbackRequest,
    *,
    session_id: str,
    start_time: datetime.datetime | None,
    fingerprint: str,
    extend_trace_retention: bool = False,
) -> dict[str, Any]:
    """The keyword arguments of ``Client.create_feedback`` for ``request`` (see the module documentation).

    Example:
        >>> run = "0b6f4c9e-5a43-4c8e-9b8e-2f7a1c2d3e4f"
        >>> request = FeedbackRequest(uuid.uuid4(), run, "ok", 1.0, "PASSED", None)
        >>> sent = create_arguments(request, session_id="p1", start_time=None, fingerprint="sha256:ab")
        >>> sent["extend_trace_retention"], sent["session_id"], "trace_id" in sent
        (False, 'p1', False)

    """
    arguments: dict[str, Any] = {
        "run_id": request.run_id,
        "key": request.key,
        "score": request.score,
        "value": request.value,
        "comment": request.comment,
        "feedback_id": request.id,
        "feedback_config": request.feedback_config,
        "feedback_source_type": "model",
        "source_info": {"source": SOURCE, "judge_fingerprint": fingerprint},
        "session_id": session_id,
        "extend_trace_retention": extend_trace_retention,
        "stop_after_attempt": 1,  # retried here, where one 429 pauses every worker
    }
    if start_time is not None:
        arguments["start_time"] = start_time
    return arguments


@dataclass(frozen=True, slots=True)
class WriteOutcome:
    """What writing one run's feedback came to: how many were new and how many LangSmith had."""

    written: int
    existing: int


class FeedbackWriter:
    """Writes feedback through a ``langsmith.Client``, one 429 pausing every worker (see the module)."""

    def __init__(self, client: Any, gate: RateGate | None = None) -> None:
        self._client = client
        self.gate = gate or RateGate()

    def write(self, requests: Sequence[FeedbackRequest], arguments: Any) -> WriteOutcome:
        """Send every request (``arguments(request)`` gives its keyword arguments); raise on a failure."""
        written = existing = 0
        for request in requests:
            if self._send(arguments(request)):
                written += 1
            else:
                existing += 1
        return WriteOutcome(written, existing)

    async def awrite(self, requests: Sequence[FeedbackRequest], arguments: Any) -> WriteOutcome:
        """`write`, each request in a worker thread (``langsmith.Client`` is synchronous)."""
        written = existing = 0
        for request in requests:
            await self.gate.await_open()
            if await asyncio.to_thread(self._send, arguments(request)):
                written += 1
            else:
                existing += 1
        return WriteOutcome(written, existing)

    def _send(self, arguments: dict[str, Any]) -> bool:
        """True when written, False when LangSmith had it; raises what could not be written."""
        limited = transient = 0
        while True:
            self.gate.wait()
            try:
                with _said_here():
                    self._client.create_feedback(**arguments)
                return True
            except Exception as error:
                if _conflict(error):
                    return False
                pause = retry_after(error)
                if pause is not None and limited + 1 < RATE_LIMIT_TRIES:
                    limited += 1
                    self.gate.pause(pause)
                    continue
                if pause is None and _transient(error) and transient + 1 < TRANSIENT_TRIES:
                    transient += 1
                    time.sleep(0.5 * 2**transient)
                    continue
                raise redact_error(error) from None


class _SaidHere(logging.Filter):
    """Drops ``create_feedback``'s own error log (with its traceback) while a writer handles the error."""

    active = threading.local()

    def filter(self, record: logging.LogRecord) -> bool:
        return not (getattr(self.active, "on", False) and record.getMessage() == "Error creating feedback")


_FILTER = _SaidHere()
logging.getLogger("langsmith.client").addFilter(_FILTER)


class _said_here:
    def __enter__(self) -> None:
        _SaidHere.active.on = True

    def __exit__(self, *exc: object) -> None:
        _SaidHere.active.on = False


def _conflict(error: BaseException) -> bool:
    return (
        "Conflict" in type(error).__name__
        or getattr(getattr(error, "response", None), "status_code", None) == 409
    )


def _transient(error: BaseException) -> bool:
    name = type(error).__name__
    return name in ("LangSmithAPIError", "LangSmithConnectionError", "LangSmithRequestTimeout")
