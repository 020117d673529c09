"""What a run shares with its worker processes: options, rows as jobs, the session that reads and writes.

One process reads and writes: a `Session` streams the rows (naming bad ones
with their line, skipping rows an earlier run judged), writes each result the
moment it is known, and keeps the tally and the progress display. `Job` is one
row to judge and `judge_job` judges it; `langchain_jev.cli.run` (judging here)
and `langchain_jev.cli.worker` (judging in a worker process) both build on
these, so neither imports the other.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from langchain_jev.cli.progress import Progress
from langchain_jev.cli.readers import DatasetError, Format, count_rows, read_rows
from langchain_jev.cli.report import Tally
from langchain_jev.cli.results import (
    ResultsError,
    ResultsFile,
    Resumed,
    error_record,
    resume_results,
    verdict_record,
)
from langchain_jev.cli.rows import FieldMap, map_row, row_key
from langchain_jev.errors import JevInputError
from langchain_jev.input import JevJudgeInput
from langchain_jev.judge import JevJudge

__all__ = [
    "Job",
    "JobOutcome",
    "RunOptions",
    "RunResult",
    "Session",
    "StopRun",
    "judge_job",
    "lean_gc",
]


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
    workers: int | None = 1
    """Processes judging rows: 1 judges in this process; None chooses (`cli_pool.auto_workers`)."""
    rate_limit: float | None = None
    """Requests per second over all workers (the single-process model paces itself)."""


@dataclass
class RunResult:
    """What a run saw: the tally of results, bad rows, and why it stopped early, if it did."""

    tally: Tally
    bad_rows: int = 0
    fatal: str | None = None
    """A problem with the input that stopped the run (unreadable file, changed data, strict mode)."""
    broken: str | None = None
    """A failure of the run itself that stopped it (a worker process died)."""
    resumed: Resumed | None = None
    workers: int = 1
    """Processes that judged the rows (1: this one)."""


@dataclass(frozen=True)
class Job:
    """One row to judge: where it is in the dataset, its content key, and its judge input."""

    number: int
    line: int
    key: str
    row_id: Any
    data: dict[str, Any]
    from_csv: bool
    input: JevJudgeInput

    def payload(self) -> dict[str, Any]:
        """The row as plain data, for a worker process (which maps it again)."""
        return {
            "row": self.number,
            "line": self.line,
            "key": self.key,
            "id": self.row_id,
            "data": self.data,
            "csv": self.from_csv,
        }


@dataclass(frozen=True)
class JobOutcome:
    """A judged row's result record, or the problem that made it bad input."""

    record: dict[str, Any] | None
    problem: str | None = None


async def judge_job(judge: JevJudge, job: Job) -> JobOutcome:
    """Judge one row: its verdict record, an error record (never a pass), or bad input."""
    try:
        verdict = await judge.ajudge(job.input)
    except JevInputError as error:
        return JobOutcome(None, str(error))
    except Exception as error:  # the model failed, or a check raised: never a pass
        return JobOutcome(error_record(job.number, job.line, job.key, job.row_id, error))
    return JobOutcome(verdict_record(job.number, job.line, job.key, job.row_id, verdict))


@contextlib.contextmanager
def lean_gc(threshold: int = 10_000) -> Iterator[None]:
    """Keep the garbage collector off what is loaded already, and let it run less often, meanwhile.

    Judging makes many short-lived objects per row; by default the collector
    runs every 700 of them and keeps scanning the libraries' long-lived objects.
    Frozen (``gc.freeze``), those are left alone, and collecting every
    ``threshold`` objects costs a fraction of the time. Both are undone after.

    Example:
        >>> import gc
        >>> with lean_gc():
        ...     gc.get_threshold()[0]
        10000

    """
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(threshold, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


class StopRun(Exception):
    """Raised by `Session.bad` under ``--strict``: judge no more rows."""


class Session:
    """The reading and writing side of one run: rows in, result lines, tally and progress out.

    `open` resumes an earlier results file, counts the rows and opens the
    results file; `jobs` streams the rows still to judge; `record` and
    `record_lines` write results as they come; `close` ends the display.
    """

    def __init__(self, criteria: Iterable[tuple[str, str]], options: RunOptions, stderr: TextIO) -> None:
        self.options = options
        self.stderr = stderr
        self.result = RunResult(Tally(criteria))
        self.label = os.path.basename(options.data)
        self.done: dict[int, str] = {}
        self.total: int | None = None
        self.progress = Progress(stderr, None, enabled=False)
        self.writer: ResultsFile | None = None

    @property
    def stopped(self) -> bool:
        """True once the run must judge no more rows."""
        return self.result.fatal is not None or self.result.broken is not None

    @property
    def remaining(self) -> int | None:
        """Rows still to judge (bad rows included), when the total is known."""
        return None if self.total is None else max(0, self.total - len(self.done))

    def open(self) -> bool:
        """Resume, count the rows and open the results file; False (with ``fatal`` set) if not."""
        options, result = self.options, self.result
        if options.resume and options.out and options.out != "-":
            try:
                result.resumed = resume_results(options.out, result.tally.add)
            except ResultsError as error:
                result.fatal = str(error)
                return False
            self.done = result.resumed.done
            _say_resumed(result.resumed, self.stderr)
        try:
            self.total = count_rows(options.data, options.fmt)
        except DatasetError as error:
            result.fatal = str(error)
            return False
        self.progress = Progress(
            self.stderr,
            self.total,
            already=len(self.done),
            already_passed=result.tally.passed,
            enabled=options.progress,
        )
        try:
            self.writer = ResultsFile(options.out, append=options.resume) if options.out else None
        except OSError as error:
            result.fatal = f"cannot write {options.out}: {error.strerror or error}"
            return False
        return True

    def close(self) -> None:
        """Close the results file and draw the last progress line."""
        try:
            if self.writer is not None:
                self.writer.close()
        finally:
            self.progress.finish()

    def jobs(self) -> Iterator[Job]:
        """The rows still to judge, in order; bad rows are reported on the way.

        Raises:
            StopRun: a bad row under ``--strict``.

        """
        options, result = self.options, self.result
        try:
            for raw in read_rows(options.data, options.fmt):
                if self.stopped:
                    return
                if raw.data is None:
                    self.bad(raw.number, raw.line, raw.problem or "cannot be read")
                    continue
                key = row_key(raw.data)
                if raw.number in self.done:
                    if self.done[raw.number] != key:
                        result.fatal = (
                            f"{self.label}:{raw.line}: row {raw.number} is not the row recorded in "
                            f"{options.out}; the data changed since that run (start a new --out)"
                        )
                        return
                    continue
                mapped = map_row(raw.data, options.fields, options.required, from_csv=raw.from_csv)
                if mapped.input is None:
                    self.bad(raw.number, raw.line, mapped.problem or "cannot be judged")
                    continue
                yield Job(raw.number, raw.line, key, mapped.row_id, raw.data, raw.from_csv, mapped.input)
        except DatasetError as error:
            result.fatal = f"{self.label}: {error}"

    def bad(self, number: int, line: int, problem: str) -> None:
        """Report a row that cannot be judged (named with its line) and count it.

        Raises:
            StopRun: under ``--strict``, after the first such row.

        """
        self.result.bad_rows += 1
        self.progress.skip()
        self.progress.note(f"{self.label}:{line}: row {number}: {problem}")
        if self.options.strict:
            if self.result.fatal is None:
                self.result.fatal = f"stopped at the first bad row (--strict): line {line}"
            raise StopRun

    def record(self, record: dict[str, Any]) -> None:
        """Write one result record, count it and show the progress."""
        if self.writer is not None:
            self.writer.write(record)
        self.result.tally.add(record)
        self.progress.advance(record.get("passed") is True)

    def record_lines(self, lines: list[str], views: Sequence[dict[str, Any]]) -> None:
        """Write result lines made elsewhere (one write), and count their tally views."""
        if not lines:
            return
        if self.writer is not None:
            self.writer.write_lines(lines)
        passed = 0
        for view in views:
            self.result.tally.add(view)
            passed += view.get("passed") is True
        self.progress.advance_many(len(lines), passed)


def _say_resumed(resumed: Resumed, stderr: TextIO) -> None:
    parts = [f"resuming: {len(resumed.done)} row(s) already judged"]
    if resumed.dropped_errors:
        parts.append(f"{resumed.dropped_errors} row(s) that could not be judged are judged again")
    if resumed.truncated:
        parts.append("a last line cut short by the interruption was dropped")
    stderr.write("; ".join(parts) + "\n")
    stderr.flush()
