"""The Ray side of judging: an actor that judges batches of rows, and a rate limit all actors share.

`JudgeActor` is the callable class `judge_dataset` hands to ``map_batches``:
each actor builds its judge once, then judges every row of a batch on its own
event loop with at most ``in_flight`` requests at once (Ray runs several of its
batches at once on that loop). Every input row comes out with its verdict
columns: a row whose request failed after the model's retries is an error row
(never a pass, never dropped), a row that cannot be read as a judge input is a
bad row. `RateLimitActor` holds one token bucket for the whole pool.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from langchain_jev._extras import missing_extra

try:
    import pyarrow as pa
    import ray  # noqa: F401  (the actors run on it)
except ImportError as error:  # pragma: no cover - the ray extra is installed in the tests
    raise missing_extra("langchain_jev.ray", "ray[data]", "ray") from error

from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev.datasets._collector import lean_gc_for_good
from langchain_jev.datasets._model import cache_failure
from langchain_jev.datasets._pacing import ParentLimiter, RateLimiter, TokenBucket
from langchain_jev.datasets._rows import judge_row
from langchain_jev.datasets.results import error_record, record_head, record_line, verdict_record
from langchain_jev.models._secrets import contains_secret, install_log_filter, redact_data
from langchain_jev.ray._reading import LINE, NUMBER, PROBLEM, ROW
from langchain_jev.ray._source import JudgeSource

__all__ = ["COLUMNS", "JudgeActor", "RateLimitActor", "verdict_columns"]

COLUMNS = ("jev_key", "jev_passed", "jev_summary", "jev_feedback", "jev_error", "jev_record")
"""The columns added to every row: its content key, the verdict, and the whole result record.

``jev_record`` is the row's line of the command line's results file (JSON), so
``langchain-jev rejudge`` and ``calibrate`` read it as they read that file.
"""


def verdict_columns(record: Mapping[str, Any]) -> dict[str, Any]:
    """The added columns of one row, from its result record.

    Example:
        >>> columns = verdict_columns({"key": "k1", "passed": False, "error": "TimeoutError: slow"})
        >>> columns["jev_passed"], columns["jev_error"]
        (False, 'TimeoutError: slow')

    """
    line = record_line(record)  # the results file's line, known keys redacted
    if any(isinstance(record.get(name), str) and contains_secret(record[name]) for name in _TEXT_COLUMNS):
        record = redact_data(record)  # the columns too: no echoed key (the whole record walked only then)
    error = record.get("error")
    problem = record.get("problem")
    return {
        "jev_key": str(record.get("key", "")),
        "jev_passed": record.get("passed") is True,
        "jev_summary": str(record.get("summary", "")),
        "jev_feedback": str(record.get("feedback", "")),
        "jev_error": str(error) if error is not None else (f"bad input: {problem}" if problem else None),
        "jev_record": line,
    }


_TEXT_COLUMNS = ("key", "summary", "feedback", "error", "problem")
"""The record's fields that become columns of their own, beside its line."""


class RateLimitActor:
    """One token bucket for every actor of a run: ``take`` grants a token, or says when to ask again.

    The caller waits on its own loop, so this actor never blocks and one rate
    holds however many actors ask.
    """

    def __init__(self, rate: float) -> None:
        import time

        self._bucket = TokenBucket(rate)
        self._clock = time.monotonic

    def take(self) -> float:
        """0.0 and a token taken for the caller, or the seconds until there is one (`TokenBucket.take`)."""
        return self._bucket.take(self._clock())


class JudgeActor:
    """Judges batches of rows with a judge built once; the callable class of ``map_batches``.

    Each row gets the `COLUMNS`; its other columns pass through unchanged. A row
    read from a file by `langchain_jev.ray.read_file` is the JSON text of
    its object, with its number and line; any other row is its columns. Either
    goes through `langchain_jev.datasets._rows.judge_row`, as on the local engine.
    """

    def __init__(
        self, source: JudgeSource, in_flight: int, limiter: Any = None, rate: float | None = None
    ) -> None:
        install_log_filter()  # this worker's log records (its .err file) carry no known key
        self.source = source
        shared: RateLimiter | None = None
        if limiter is not None and rate is not None:
            shared = ParentLimiter(rate, lambda: _awaited(limiter.take.remote()))
        self.judge, self._closers = source.build(shared)
        self.in_flight = in_flight
        self._slots: asyncio.Semaphore | None = None
        lean_gc_for_good()  # this process only judges from here on

    async def __call__(self, batch: pa.Table) -> pa.Table:
        """Judge every row of ``batch``; return it with the verdict columns added."""
        if self._slots is None:  # made on the loop that judges
            self._slots = asyncio.Semaphore(self.in_flight)
        earlier = [name for name in (*COLUMNS, PROBLEM) if name in batch.column_names]
        if ROW in batch.column_names:  # rows read from a file, as the local engine reads them
            texts = batch.column(ROW).to_pylist()
            numbers = (
                batch.column(NUMBER).to_pylist() if NUMBER in batch.column_names else [None] * len(texts)
            )
            lines = batch.column(LINE).to_pylist() if LINE in batch.column_names else [None] * len(texts)
            problems = (
                batch.column(PROBLEM).to_pylist() if PROBLEM in batch.column_names else [None] * len(texts)
            )
            jobs = [
                self._text(text, number, line, problem)
                for text, number, line, problem in zip(texts, numbers, lines, problems, strict=True)
            ]
            batch = batch.drop_columns(earlier)
        else:
            batch = batch.drop_columns(earlier)  # a judged dataset judged again gets the new verdict
            jobs = [self._one(row, None, None) for row in batch.to_pylist()]
        records = await asyncio.gather(*jobs)
        columns = [verdict_columns(record) for record in records]
        for name in COLUMNS:
            batch = batch.append_column(name, pa.array([c[name] for c in columns], _TYPES[name]))
        return batch

    async def _text(
        self, text: str | None, number: int | None, line: int | None, problem: str | None
    ) -> dict[str, Any]:
        if text is None:
            return _bad(number, line, "", None, problem or "cannot be read")
        try:
            row = json.loads(text)
        except ValueError as error:  # a jev_row that was not made by read_file
            return _bad(number, line, "", None, f"{ROW} is not the JSON text of an object: {error}")
        if not isinstance(row, dict):
            return _bad(number, line, "", None, f"{ROW} is not the JSON text of an object")
        return await self._one(row, number, line)

    async def _one(self, row: dict[str, Any], number: int | None, line: int | None) -> dict[str, Any]:
        source = self.source
        mapped = judge_row(row, source.fields, source.required, from_csv=source.from_csv)
        if mapped.input is None:
            return _bad(number, line, mapped.key, mapped.row_id, mapped.problem or "cannot be judged")
        assert self._slots is not None
        async with self._slots:
            try:
                verdict = await self.judge.ajudge(mapped.input)
            except JevInputError as error:
                return _bad(number, line, mapped.key, mapped.row_id, str(error))
            except sqlite3.DatabaseError as error:  # the cache's file broke: no row can get past it
                raise JevConfigurationError(cache_failure(source.settings.cache, error)) from None
            except Exception as error:  # the model failed after its retries, or a check raised
                return error_record(number, line, mapped.key, mapped.row_id, error)
        return verdict_record(number, line, mapped.key, mapped.row_id, verdict)


_TYPES = {
    "jev_key": pa.string(),
    "jev_passed": pa.bool_(),
    "jev_summary": pa.string(),
    "jev_feedback": pa.string(),
    "jev_error": pa.string(),
    "jev_record": pa.string(),
}


async def _awaited(reference: Any) -> float:
    return float(await reference)


def _bad(number: int | None, line: int | None, key: str, row_id: Any, problem: str) -> dict[str, Any]:
    record = record_head(number, line, key, row_id)
    record["passed"] = False
    record["problem"] = problem
    return record
