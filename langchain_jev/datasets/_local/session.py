"""What a run shares with its worker processes: options, rows as jobs, the session that reads and writes.

One process reads and writes: a `Session` streams the rows (naming bad ones
with their line, skipping rows an earlier run judged), writes each result the
moment it is known, and keeps the tally and the progress display. `Job` is one
row to judge and `judge_job` judges it; `langchain_jev.datasets._local.run` (judging here)
and `langchain_jev.datasets._local.worker` (judging in a worker process) both build on
these, so neither imports the other.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TextIO

from langchain_jev._errors import JevInputError
from langchain_jev._input import JevJudgeInput
from langchain_jev._verdict import plain
from langchain_jev.datasets._local.progress import Progress
from langchain_jev.datasets._lock import ResultsLock, ResultsLockedError
from langchain_jev.datasets._model import cache_failure
from langchain_jev.datasets._readers import DatasetError, Format, count_rows, read_rows
from langchain_jev.datasets._rows import FieldMap, judge_row
from langchain_jev.datasets._tally import Tally, repeated_problem_line
from langchain_jev.datasets.results import (
    ResultsError,
    ResultsFile,
    Resumed,
    error_record,
    resume_results,
    verdict_record,
)

if TYPE_CHECKING:
    from langchain_jev._criteria import JevCriterion
    from langchain_jev._verdict import JevVerdict

__all__ = [
    "Job",
    "JobOutcome",
    "RowJudge",
    "RunOptions",
    "RunResult",
    "Session",
    "StopRun",
    "column_hint",
    "connect_failure",
    "judge_job",
]


@dataclass(frozen=True)
class RunOptions:
    """What to run and how (the command line's options, parsed)."""

    data: str
    fmt: Format
    fields: FieldMap = field(default_factory=FieldMap)
    required: Sequence[str] = ()
    named: Sequence[str] = ()
    """Fields the judge's questions name that a row may lack: said once when the first row lacks one."""
    concurrency: int = 8
    out: str | None = None
    cache: str | None = None
    """``--cache``: named when its file breaks mid-run."""
    resume: bool = False
    strict: bool = False
    progress: bool = True
    workers: int | None = 1
    """Processes judging rows: 1 judges in this process; None chooses (`cli_pool.auto_workers`)."""
    rate_limit: float | None = None
    """Requests per second over all workers (the single-process model paces itself)."""
    judge: Mapping[str, Any] | None = None
    """What decides the verdicts (`langchain_jev.datasets._fingerprint.judge_description`): recorded in the
    results file's header, and checked by ``resume``."""
    endpoint: str | None = None
    """Where the decision model's requests go (a URL), named when none of the first requests connects."""
    run: Mapping[str, Any] | None = None
    """What the run knows of itself (dataset, judge file, server host, version, date, redacted command),
    recorded in the results file's header for the report."""
    timed: bool = False
    """Keep each judged row's seconds in its record (``guardrail-eval``'s time per check)."""


@dataclass
class RunResult:
    """What a run saw: the tally of results, bad rows, and why it stopped early, if it did."""

    tally: Tally
    bad_rows: int = 0
    fatal: str | None = None
    """A problem with the input that stopped the run (unreadable file, changed data, strict mode)."""
    broken: str | None = None
    """A failure of the run itself that stopped it (a worker process died, the results could not be
    written, the decision model could not be reached at all)."""
    resumable: bool = True
    """Whether ``--resume`` can finish the run after ``broken`` (not when the results went nowhere)."""
    pipe_closed: bool = False
    """The results went to stdout and its reader closed the pipe."""
    resumed: Resumed | None = None
    workers: int = 1
    """Processes that judged the rows (1: this one)."""


class ReadableRow(NamedTuple):
    """A row the reader could read: where it is in the dataset, its data, and whether it came from CSV."""

    number: int
    line: int
    data: dict[str, Any]
    from_csv: bool


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
        return plain(self, "line", "key", "data", row="number", id="row_id", csv="from_csv")


@dataclass(frozen=True)
class JobOutcome:
    """A judged row's result record, the problem that made it bad input, or why the run must stop."""

    record: dict[str, Any] | None
    problem: str | None = None
    stop: str | None = None
    """A failure no row can get past (the response cache is not a sound database any more)."""


class RowJudge(Protocol):
    """What judges a row: a `JevJudge`, or anything with its criteria that judges an input as one.

    A guardrail's battery is run so (`langchain_jev.guardrails.quality.BatteryJudge`).
    """

    @property
    def criteria(self) -> Sequence[JevCriterion]:
        """The criteria each row's verdict has one finding of, in order."""
        ...

    async def ajudge(self, input: JevJudgeInput, /) -> JevVerdict:
        """The verdict of one row's input."""
        ...


async def judge_job(
    judge: RowJudge, job: Job, cache: str | None = None, *, timed: bool = False
) -> JobOutcome:
    """Judge one row: its verdict record, an error record (never a pass), or bad input.

    ``timed``: the verdict record keeps the seconds its check took under ``seconds``
    (the request, with any wait for the rate limit; off by default, so two runs of the
    same judge write the same records). ``cache`` names the run's ``--cache`` file,
    for the message that stops the run when it breaks.
    """
    started = time.perf_counter()
    try:
        verdict = await judge.ajudge(job.input)
    except JevInputError as error:
        return JobOutcome(None, str(error))
    except sqlite3.DatabaseError as error:  # the cache's file: every row would fail alike
        return JobOutcome(None, stop=cache_failure(cache, error))
    except Exception as error:  # the model failed, or a check raised: never a pass
        return JobOutcome(error_record(job.number, job.line, job.key, job.row_id, error))
    record = verdict_record(job.number, job.line, job.key, job.row_id, verdict)
    if timed:
        record["seconds"] = round(time.perf_counter() - started, 6)
    return JobOutcome(record)


class StopRun(Exception):
    """Raised by `Session.bad` under ``--strict``: judge no more rows."""


CONNECT_ERRORS = frozenset(
    {
        "TypeSafeAPIConnectionError",
        "TypeSafeAPITimeoutError",
        "APIConnectionError",
        "APITimeoutError",
        "ConnectError",
        "ConnectTimeout",
        "ConnectionError",
        "ConnectionRefusedError",
    }
)
"""Error types (as result records name them) that mean a request never reached the model."""

GIVE_UP_AFTER = 8
"""A run stops when its first this many rows (at most ``--concurrency``) all failed to connect."""


def connect_failure(record: Mapping[str, Any]) -> bool:
    """True when a result record says its request could not reach the decision model.

    Example:
        >>> connect_failure({"error": "TypeSafeAPIConnectionError: Connection error."})
        True
        >>> connect_failure({"error": "TypeSafeInternalServerError: down"}), connect_failure({"passed": True})
        (False, False)

    """
    error = record.get("error")
    return isinstance(error, str) and error.split(":", 1)[0].strip() in CONNECT_ERRORS


class Session:
    """The reading and writing side of one run: rows in, result lines, tally and progress out.

    `open` locks the results file, resumes it, counts the rows and opens it;
    `jobs` streams the rows still to judge; `record` and `record_lines` write
    results as they come; `close` closes the file, drops the lock and ends the
    display. A write that fails, or a run whose first requests all fail to
    connect, stops the run (``result.broken`` says why); nothing raises.
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
        self.lock: ResultsLock | None = None
        self.connect_failures = 0
        self.reached = False
        self.hinted = False
        self.hinted_named = False
        self.repeated: dict[str, list[int]] = {}
        """A bad rows' problem -> [rows with it, the line of the first], to say each problem once."""
        self.halted = False
        """True once nothing more can be recorded usefully: the results cannot be written, or the
        model cannot be reached at all. Rows in flight are then abandoned, not waited for."""
        self.give_up_after = max(1, min(GIVE_UP_AFTER, options.concurrency))

    @property
    def stopped(self) -> bool:
        """True once the run must judge no more rows."""
        return self.result.fatal is not None or self.result.broken is not None

    @property
    def remaining(self) -> int | None:
        """Rows still to judge (bad rows included), when the total is known."""
        return None if self.total is None else max(0, self.total - len(self.done))

    def open(self) -> bool:
        """Lock, resume, count the rows and open the results file; False (with ``fatal`` set) if not."""
        options, result = self.options, self.result
        out = options.out
        if out and ResultsLock.applies_to(out):
            lock = ResultsLock(out)
            try:
                lock.acquire()
            except ResultsLockedError as error:
                result.fatal = str(error)
                return False
            except OSError as error:
                result.fatal = f"cannot write {out}: {error.strerror or error}"
                return False
            self.lock = lock
        if options.resume and out and out != "-":
            try:
                result.resumed = resume_results(out, result.tally.add, judge=options.judge)
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
            self.writer = (
                ResultsFile(out, append=options.resume, judge=options.judge, run=options.run) if out else None
            )
        except OSError as error:
            result.fatal = f"cannot write {out}: {error.strerror or error}"
            return False
        return True

    def close(self) -> None:
        """Close the results file, drop its lock and draw the last progress line."""
        try:
            if self.writer is not None:
                writer, self.writer = self.writer, None
                try:
                    writer.close()
                except OSError as error:  # the last buffered bytes could not be written
                    if self.result.broken is None:
                        self._write_failed(error)
        finally:
            if self.lock is not None:
                self.lock.release()
            self.progress.finish()

    def jobs(self) -> Iterator[Job]:
        """The rows still to judge, in order; bad rows are reported on the way.

        Raises:
            StopRun: a bad row under ``--strict``.

        """
        try:
            yield from self._jobs()
        finally:
            self._say_repeated()

    def readable_rows(self) -> Iterator[ReadableRow]:
        """The dataset's rows that can be read, in order, until the run is `stopped`.

        A row that cannot be read is reported `bad`; a file that cannot be read at all
        sets ``fatal``. A stream of rows of any kind (a judge's, a simulation's) reads them here.
        """
        try:
            for raw in read_rows(self.options.data, self.options.fmt):
                if self.stopped:
                    return
                if raw.data is None:
                    self.bad(raw.number, raw.line, raw.problem or "cannot be read")
                    continue
                yield ReadableRow(raw.number, raw.line, raw.data, raw.from_csv)
        except DatasetError as error:
            self.result.fatal = f"{self.label}: {error}"

    def _jobs(self) -> Iterator[Job]:
        options = self.options
        for raw in self.readable_rows():
            mapped = judge_row(raw.data, options.fields, options.required, from_csv=raw.from_csv)
            if self.already_done(raw.number, raw.line, mapped.key):
                if self.stopped:
                    return
                continue
            if mapped.input is not None and not self.hinted_named:
                self.hinted_named = True
                lacking = column_hint(raw.data, options.fields, options.named)
                if lacking is not None:
                    self.progress.note(
                        f"{self.label}: warning: the judge's questions name a field the first row "
                        f"lacks: {lacking} (list it under `requires:` to refuse such rows)"
                    )
            if mapped.input is None:
                self._hint(raw.data)
                self.bad(raw.number, raw.line, mapped.problem or "cannot be judged")
                continue
            yield Job(raw.number, raw.line, mapped.key, mapped.row_id, raw.data, raw.from_csv, mapped.input)

    def already_done(self, number: int, line: int, key: str) -> bool:
        """True when an earlier run recorded row ``number``; a row whose content changed since sets ``fatal``.

        A stream of rows of any kind (a judge's, a simulation's) asks it of each row before it
        runs it, and stops once the run is `stopped`.
        """
        if number not in self.done:
            return False
        if self.done[number] != key and self.result.fatal is None:
            self.result.fatal = (
                f"{self.label}:{line}: row {number} is not the row recorded in "
                f"{self.options.out}; the data changed since that run (start a new --out)"
            )
        return True

    def _hint(self, row: Mapping[str, Any]) -> None:
        if self.hinted:
            return
        hint = column_hint(row, self.options.fields, self.options.required)
        if hint is not None:
            self.hinted = True
            self.progress.note(f"{self.label}: {hint}")

    def stop(self, message: str) -> None:
        """End the run as bad input (exit 2): ``message`` says why; rows in flight are abandoned."""
        if self.result.fatal is None:
            self.result.fatal = message
        self.halted = True

    def bad(self, number: int, line: int, problem: str) -> None:
        """Report a row that cannot be judged (named with its line) and count it.

        Raises:
            StopRun: under ``--strict``, after the first such row.

        """
        self.result.bad_rows += 1
        self.progress.skip()
        seen = self.repeated.setdefault(problem, [0, line])
        seen[0] += 1
        if seen[0] == 1:  # a problem is said once, with its first row; `_say_repeated` counts the rest
            self.progress.note(f"{self.label}:{line}: row {number}: {problem}")
        if self.options.strict:
            if self.result.fatal is None:
                self.result.fatal = f"stopped at the first bad row (--strict): line {line}"
            raise StopRun

    def _say_repeated(self) -> None:
        """One line per problem that more than one row had: how many rows, and where the first was."""
        for problem, (rows, line) in self.repeated.items():
            if rows > 1:
                self.progress.note(repeated_problem_line(self.label, rows, line, problem))
        self.repeated.clear()

    def record(self, record: dict[str, Any]) -> None:
        """Write one result record, count it and show the progress (nothing once the run halted)."""
        if self.halted or not self._written(lambda writer: writer.write(record)):
            return
        self.result.tally.add(record)
        self.progress.advance(record.get("passed") is True)
        self._watch_connections((record,))

    def record_lines(self, lines: list[str], views: Sequence[dict[str, Any]]) -> None:
        """Write result lines made elsewhere (one write), and count their tally views."""
        if not lines or self.halted or not self._written(lambda writer: writer.write_lines(lines)):
            return
        passed = 0
        for view in views:
            self.result.tally.add(view)
            passed += view.get("passed") is True
        self.progress.advance_many(len(lines), passed)
        self._watch_connections(views)

    def _written(self, write: Callable[[ResultsFile], object]) -> bool:
        """Hand the results file to ``write`` (True with none); False when it failed (the run halts)."""
        if self.writer is not None:
            try:
                write(self.writer)
            except OSError as error:
                self._write_failed(error)
                return False
        return True

    def _watch_connections(self, records: Iterable[Mapping[str, Any]]) -> None:
        """Stop the run when its first requests all failed to connect (later failures are rows' errors)."""
        if self.reached:
            return
        for record in records:
            if not connect_failure(record):
                self.reached = True
                return
            self.connect_failures += 1
            if self.connect_failures >= self.give_up_after and self.result.broken is None:
                where = self.options.endpoint or "the decision model"
                self.halted = True
                self.result.broken = (
                    f"cannot connect to {where}: the first {self.connect_failures} requests all failed "
                    f"({record.get('error')}); is the server running, and is --base-url right?"
                )
                return

    def _write_failed(self, error: OSError) -> None:
        out = self.options.out
        if error.errno == errno.EPIPE or isinstance(error, BrokenPipeError):
            message = "cannot write the results: the reader closed the pipe"
            self.result.pipe_closed = out == "-"
        else:
            message = f"cannot write {'the results' if out == '-' else out}: {error.strerror or error}"
        self.halted = True
        self.result.resumable = bool(out and out != "-" and ResultsLock.applies_to(out))
        if self.result.broken is None or self.result.broken.startswith("cannot connect"):
            self.result.broken = message


def column_hint(row: Mapping[str, Any], fields: FieldMap, required: Sequence[str]) -> str | None:
    """A hint for a row lacking a column the judge needs under every name: which option names it.

    Example:
        >>> hint = column_hint({"prompt": "Hi?", "reply": "Hello"}, FieldMap(), ["assistant_answer"])
        >>> for part in hint.split("; "):
        ...     print(part)
        no 'answer' column (nor 'assistant_answer', 'output', 'response', ...)
        the rows have prompt, reply: name the answer column with --answer-field
        >>> column_hint({"answer": "Hello"}, FieldMap(), ["assistant_answer"]) is None
        True

    """
    options = {
        "user_question": ("question", "--question-field"),
        "assistant_answer": ("answer", "--answer-field"),
        "expected_output": ("expected", "--expected-field"),
        "supporting_context": ("context", "--context-field"),
        "tool_calls": ("tool calls", "--tool-calls-field"),
    }
    for name in required:
        if name not in options:
            continue
        columns = fields.columns(name)
        if any(column in row for column in columns):
            continue
        part, option = options[name]
        more = ", ..." if len(columns) > 4 else ""
        others = f" (nor {', '.join(repr(c) for c in columns[1:4])}{more})" if len(columns) > 1 else ""
        have = ", ".join(str(k) for k in list(row)[:12]) or "no columns"
        return f"no {columns[0]!r} column{others}; the rows have {have}: name the {part} column with {option}"
    return None


def _say_resumed(resumed: Resumed, stderr: TextIO) -> None:
    parts = [f"resuming: {len(resumed.done)} row(s) already judged"]
    if resumed.dropped_errors:
        parts.append(f"{resumed.dropped_errors} row(s) that could not be judged are judged again")
    if resumed.truncated:
        parts.append("a last line cut short by the interruption was dropped")
    stderr.write("; ".join(parts) + "\n")
    stderr.flush()
