"""A stopped run resumed: its results file checked for the same judge, kept to its verdicts, rewritten whole.

`resume_results` refuses (leaving the file as it was) a file another judge wrote, keeps the rows
that have a verdict (one per row), drops the rows that could not be judged (they are judged again)
and a last line cut short by a kill, and says which rows are done (`Resumed`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from langchain_jev._errors import ResultsError
from langchain_jev.datasets._header import is_header
from langchain_jev.datasets._paths import real_path
from langchain_jev.datasets._reading import bounded_lines, open_regular
from langchain_jev.datasets._stored import read_header
from langchain_jev.datasets._writing import atomic_output

__all__ = ["Resumed", "resume_results"]


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
    path: str | os.PathLike[str],
    on_record: Callable[[Mapping[str, Any]], None] | None = None,
    *,
    judge: Mapping[str, Any] | None = None,
) -> Resumed:
    """Read an earlier results file, keep its verdicts, and rewrite it without the rest.

    With ``judge`` (a `judge_description`), the file must have been written by
    that judge: its header is checked first, and the file is refused, left as
    it was, when it records another judge (the message says what differs) or
    none. The file is then rewritten (atomically, with its permissions; through a
    symlink its target is rewritten and the link kept) with its header and only
    the records that have a verdict, one per row, so appending the rows still to
    do neither repeats nor loses one. ``on_record`` sees each kept record (to
    count it in the report). A missing file is an empty start.

    Raises:
        ResultsError: another judge wrote the file, or a line before the last is
            not a record of this command.

    """
    named = Path(path)
    target = Path(real_path(named))  # a symlinked --out: its target is rewritten, the link kept
    resumed = Resumed()
    if not target.exists():
        return resumed
    if judge is not None:
        _check_judge(named, judge)
    try:
        with open_regular(target) as source, atomic_output(target) as sink:
            pending: bytes | None = None
            number = 0
            for raw in bounded_lines(source, name=str(named)):
                if pending is not None:
                    _keep(pending, number, resumed, sink, on_record, named)
                number += 1
                pending = raw
            if pending is not None:
                if pending.endswith(b"\n") or _parses(pending):
                    _keep(pending.rstrip(b"\r\n") + b"\n", number, resumed, sink, on_record, named)
                else:
                    resumed.truncated = True
    except OSError as error:
        raise ResultsError(f"cannot resume from {named}: {error.strerror or error}") from None
    return resumed


def _check_judge(target: Path, judge: Mapping[str, Any]) -> None:
    from langchain_jev.datasets._fingerprint import differences, fingerprint

    header = read_header(target)  # a header edited into something else is refused, naming its field
    try:
        empty = target.stat().st_size == 0
    except OSError as error:
        raise ResultsError(f"cannot resume from {target}: {error.strerror or error}") from None
    if header is None:
        if empty:
            return
        raise ResultsError(
            f"{target} does not say which judge wrote it (it has no header line); "
            "to judge the rows again, start a new --out"
        )
    recorded = header.get("judge")
    if header.get("fingerprint") == fingerprint(judge) and recorded is not None:
        return
    changes = differences(recorded, judge) if isinstance(recorded, Mapping) else ["the judge is not recorded"]
    raise ResultsError(
        f"{target} was written by another judge; --resume continues only the same judge:\n  "
        + "\n  ".join(changes or ["the judge differs"])
        + "\nstart a new --out, or resume with the judge and --model of that run"
    )


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
    if number == 1 and is_header(record):  # checked by `_check_judge` when a judge is given
        sink.write(raw if raw.endswith(b"\n") else raw + b"\n")
        return
    if not isinstance(record, dict) or not isinstance(record.get("row"), int) or "key" not in record:
        raise ResultsError(
            f"{target}:{number}: a record without 'row' and 'key'; is this a results file of langchain-jev?"
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
