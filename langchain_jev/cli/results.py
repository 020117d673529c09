"""The results file of the command line: one JSON line per row, written as soon as it is known.

Every record names its row (``row``: its number from 1; ``line``: where it starts
in the dataset; ``key``: a hash of its content), so a run that was stopped can
be resumed: `resume_results` keeps the rows that have a verdict, drops rows that
could not be judged (they are judged again) and a last line cut short by a
kill, and says which rows are done.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from langchain_jev.errors import ResultsError
from langchain_jev.verdict import JevVerdict

__all__ = [
    "Resumed",
    "ResultsError",
    "ResultsFile",
    "error_record",
    "record_line",
    "resume_results",
    "verdict_record",
]


def verdict_record(
    row: int, line: int, key: str, row_id: Any, verdict: JevVerdict
) -> dict[str, Any]:
    """The result record of a judged row.

    Example:
        >>> from langchain_jev import JevCriterion, JevFinding, JevVerdict, Outcome
        >>> check = JevCriterion.check("short", lambda d: True, "too long")
        >>> verdict = JevVerdict(True, (JevFinding(check, None, Outcome.PASSED, "short: ok"),), None, "")
        >>> record = verdict_record(1, 1, "abc", "r1", verdict)
        >>> record["passed"], record["findings"][0]["outcome"]
        (True, 'PASSED')

    """
    record: dict[str, Any] = {"row": row, "line": line, "key": key}
    if row_id is not None:
        record["id"] = row_id
    record.update(verdict.to_dict())
    response = verdict.response
    if response is not None:
        record["model"] = response.model
        if response.request_id is not None:
            record["request_id"] = response.request_id
        if getattr(response, "cache_hit", False):
            record["cache_hit"] = True
    return record


def error_record(row: int, line: int, key: str, row_id: Any, error: BaseException) -> dict[str, Any]:
    """The record of a row that could not be judged: never a pass.

    Example:
        >>> error_record(2, 3, "abc", None, ConnectionError("refused"))["error"]
        'ConnectionError: refused'

    """
    record: dict[str, Any] = {"row": row, "line": line, "key": key}
    if row_id is not None:
        record["id"] = row_id
    record["passed"] = False
    record["error"] = f"{type(error).__name__}: {error}".strip()
    return record


def record_line(record: Mapping[str, Any]) -> str:
    """A record as its line of the results file (JSON, without the newline).

    Example:
        >>> record_line({"row": 1, "passed": True, "summary": "très bien"})
        '{"row": 1, "passed": true, "summary": "très bien"}'

    """
    return json.dumps(record, ensure_ascii=False, default=str)


@dataclass
class Resumed:
    """What an earlier run left: the rows done, and what was dropped to be judged again."""

    done: dict[int, str] = field(default_factory=dict)
    """Row number -> content key of each row that has a verdict."""
    dropped_errors: int = 0
    """Rows that could not be judged last time; they are judged again."""
    truncated: bool = False
    """The last line was cut short (the run was killed while writing it)."""


def resume_results(
    path: str | os.PathLike[str], on_record: Callable[[Mapping[str, Any]], None] | None = None
) -> Resumed:
    """Read an earlier results file, keep its verdicts, and rewrite it without the rest.

    The file is rewritten (atomically) with only the records that have a
    verdict, one per row, so appending the rows still to do neither repeats nor
    loses one. ``on_record`` sees each kept record (to count it in the report).
    A missing file is an empty start.

    Raises:
        ResultsError: a line before the last is not a record of this command.

    """
    target = Path(path)
    resumed = Resumed()
    if not target.exists():
        return resumed
    temporary = target.with_name(f".{target.name}.resume")
    try:
        with open(target, "rb") as source, open(temporary, "wb") as sink:
            pending: bytes | None = None
            number = 0
            for raw in source:
                if pending is not None:
                    _keep(pending, number, resumed, sink, on_record, target)
                number += 1
                pending = raw
            if pending is not None:
                if pending.endswith(b"\n") or _parses(pending):
                    _keep(pending.rstrip(b"\r\n") + b"\n", number, resumed, sink, on_record, target)
                else:
                    resumed.truncated = True
            sink.flush()
            os.fsync(sink.fileno())
        os.replace(temporary, target)
    except OSError as error:
        raise ResultsError(f"cannot resume from {target}: {error.strerror or error}") from None
    finally:
        if temporary.exists():
            temporary.unlink()
    return resumed


def _keep(
    raw: bytes,
    number: int,
    resumed: Resumed,
    sink: IO[bytes],
    on_record: Callable[[Mapping[str, Any]], None] | None,
    target: Path,
) -> None:
    if not raw.strip():
        return
    try:
        record = json.loads(raw)
    except ValueError:
        raise ResultsError(
            f"{target}:{number}: not a JSON line; is this a results file of langchain-jev?"
        ) from None
    if not isinstance(record, dict) or not isinstance(record.get("row"), int) or "key" not in record:
        raise ResultsError(
            f"{target}:{number}: a record without 'row' and 'key'; is this a results file of "
            "langchain-jev?"
        )
    if "error" in record:
        resumed.dropped_errors += 1
        return
    if record["row"] in resumed.done:
        return
    resumed.done[record["row"]] = str(record["key"])
    sink.write(raw if raw.endswith(b"\n") else raw + b"\n")
    if on_record is not None:
        on_record(record)


def _parses(raw: bytes) -> bool:
    try:
        json.loads(raw)
    except ValueError:
        return False
    return True


class ResultsFile:
    """Where result records go: a file (created, or appended to when resuming) or ``-`` for stdout.

    Each record is written as one line with a single write, then flushed, so a
    kill leaves at most the last line cut short.
    """

    def __init__(self, path: str | os.PathLike[str], *, append: bool = False) -> None:
        self.path = os.fspath(path)
        self._stream: IO[str]
        if self.path == "-":
            self._stream = sys.stdout
            self._owned = False
        else:
            self._stream = open(self.path, "a" if append else "w", encoding="utf-8")  # noqa: SIM115 - held until close()
            self._owned = True

    def write(self, record: Mapping[str, Any]) -> None:
        """Write one record as a JSON line and flush it."""
        self.write_lines([record_line(record)])

    def write_lines(self, lines: list[str]) -> None:
        """Write records already made lines by `record_line` (one write), and flush them."""
        self._stream.write("\n".join(lines) + "\n")
        self._stream.flush()

    def close(self) -> None:
        """Close the file (stdout stays open)."""
        if self._owned:
            self._stream.close()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
