"""Running a judge over a dataset: rows streamed in, a bounded number judged at once, results out.

`run_dataset` reads rows one by one, hands them to ``concurrency`` workers
through a bounded queue (so memory stays flat however long the file is), and
writes each result the moment it is known. Rows that cannot be read or lack a
field the judge needs are named with their line and skipped (or stop the run
with ``strict``); a row whose decision model fails is recorded as an error,
never as a pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from langchain_jev.cli_progress import Progress
from langchain_jev.cli_readers import DatasetError, Format, RawRow, count_rows, read_rows
from langchain_jev.cli_report import Tally
from langchain_jev.cli_results import (
    ResultsError,
    ResultsFile,
    Resumed,
    error_record,
    resume_results,
    verdict_record,
)
from langchain_jev.cli_rows import FieldMap, map_row, row_key
from langchain_jev.errors import JevInputError
from langchain_jev.input import JevJudgeInput
from langchain_jev.judge import JevJudge

__all__ = ["RunOptions", "RunResult", "run_dataset"]


@dataclass(frozen=True)
class RunOptions:
    """What to run and how (the command line's options, parsed)."""

    data: str
    fmt: Format
    fields: FieldMap = field(default_factory=FieldMap)
    required: Sequence[str] = ()
    concurrency: int = 8
    out: str | None = None
    resume: bool = False
    strict: bool = False
    progress: bool = True


@dataclass
class RunResult:
    """What a run saw: the tally of results, bad rows, and why it stopped early, if it did."""

    tally: Tally
    bad_rows: int = 0
    fatal: str | None = None
    """A problem that stopped the run (unreadable file, changed data, strict mode)."""
    resumed: Resumed | None = None


@dataclass(frozen=True)
class _Job:
    raw: RawRow
    key: str
    row_id: Any
    input: JevJudgeInput


class _Stop(Exception):
    pass


async def run_dataset(judge: JevJudge, options: RunOptions, stderr: TextIO) -> RunResult:
    """Judge every row of ``options.data`` and write one result line per row.

    Returns the run's tally; bad rows and a fatal problem are reported on
    ``stderr`` as they are met and counted in the result.
    """
    result = RunResult(Tally((c.name, c.kind) for c in judge.criteria))
    label = os.path.basename(options.data)
    done: dict[int, str] = {}
    if options.resume and options.out and options.out != "-":
        try:
            result.resumed = resume_results(options.out, result.tally.add)
        except ResultsError as error:
            result.fatal = str(error)
            return result
        done = result.resumed.done
        _say_resumed(result.resumed, stderr)
    try:
        total: int | None = count_rows(options.data, options.fmt)
    except DatasetError as error:
        result.fatal = str(error)
        return result
    progress = Progress(
        stderr,
        total,
        already=len(done),
        already_passed=result.tally.passed,
        enabled=options.progress,
    )
    try:
        writer = ResultsFile(options.out, append=options.resume) if options.out else None
    except OSError as error:
        result.fatal = f"cannot write {options.out}: {error.strerror or error}"
        return result
    try:
        await _run(judge, options, result, done, label, progress, writer)
    finally:
        if writer is not None:
            writer.close()
        progress.finish()
    return result


async def _run(
    judge: JevJudge,
    options: RunOptions,
    result: RunResult,
    done: dict[int, str],
    label: str,
    progress: Progress,
    writer: ResultsFile | None,
) -> None:
    queue: asyncio.Queue[_Job | None] = asyncio.Queue(maxsize=options.concurrency)

    def bad(raw: RawRow, problem: str) -> None:
        result.bad_rows += 1
        progress.skip()
        progress.note(f"{label}:{raw.line}: row {raw.number}: {problem}")
        if options.strict:
            result.fatal = f"stopped at the first bad row (--strict): line {raw.line}"
            raise _Stop

    def record(job: _Job, rec: dict[str, Any]) -> None:
        if writer is not None:
            writer.write(rec)
        result.tally.add(rec)
        progress.advance(rec.get("passed") is True)

    async def worker() -> None:
        while True:
            job = await queue.get()
            if job is None:
                return
            raw = job.raw
            try:
                verdict = await judge.ajudge(job.input)
            except JevInputError as error:
                with contextlib.suppress(_Stop):  # keep draining so the producer can finish
                    bad(raw, str(error))
                continue
            except Exception as error:  # the model failed, or a check raised: never a pass
                record(job, error_record(raw.number, raw.line, job.key, job.row_id, error))
                continue
            record(job, verdict_record(raw.number, raw.line, job.key, job.row_id, verdict))

    async def produce() -> None:
        try:
            for raw in read_rows(options.data, options.fmt):
                if result.fatal is not None:
                    return
                if raw.data is None:
                    bad(raw, raw.problem or "cannot be read")
                    continue
                key = row_key(raw.data)
                if raw.number in done:
                    if done[raw.number] != key:
                        result.fatal = (
                            f"{label}:{raw.line}: row {raw.number} is not the row recorded in "
                            f"{options.out}; the data changed since that run (start a new --out)"
                        )
                        return
                    continue
                mapped = map_row(raw.data, options.fields, options.required, from_csv=raw.from_csv)
                if mapped.input is None:
                    bad(raw, mapped.problem or "cannot be judged")
                    continue
                await queue.put(_Job(raw, key, mapped.row_id, mapped.input))
        except _Stop:
            return
        except DatasetError as error:
            result.fatal = f"{label}: {error}"
        finally:
            for _ in range(options.concurrency):
                await queue.put(None)

    workers = [asyncio.ensure_future(worker()) for _ in range(options.concurrency)]
    producer = asyncio.ensure_future(produce())
    everything = [producer, *workers]
    try:
        finished, _ = await asyncio.wait(everything, return_when=asyncio.FIRST_EXCEPTION)
        for task in finished:
            task.result()  # re-raise a worker's unexpected failure (a full disk, say)
        await asyncio.gather(*everything)
    finally:
        for task in everything:
            task.cancel()
        await asyncio.gather(*everything, return_exceptions=True)


def _say_resumed(resumed: Resumed, stderr: TextIO) -> None:
    parts = [f"resuming: {len(resumed.done)} row(s) already judged"]
    if resumed.dropped_errors:
        parts.append(f"{resumed.dropped_errors} row(s) that could not be judged are judged again")
    if resumed.truncated:
        parts.append("a last line cut short by the interruption was dropped")
    stderr.write("; ".join(parts) + "\n")
    stderr.flush()
