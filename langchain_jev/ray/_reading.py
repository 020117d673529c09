"""Dataset files read on Ray by the local engine's own readers, so both engines see the same rows.

Ray Data's JSON reader goes through pandas, which guesses: ``"007"`` becomes
7, a column named ``modified`` becomes a date, a large integer a float, and a
row without a key gets the NaN of a column other rows have. No later step can
undo a guess, so `read_file` reads JSONL, JSON arrays and CSV with
`langchain_jev.datasets._readers.read_stream` instead, in Ray's read task: every
row reaches the actors as the JSON text of exactly the object the local engine
reads (`ROW`), with its number (`NUMBER`) and line (`LINE`), or with the
problem that made it unreadable (`PROBLEM`). The rows then go through
`langchain_jev.datasets._rows.judge_row` as they do locally, and their records
name their row and line as the local engine's do. Parquet is columnar and
typed, so Ray Data reads it as it is.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from langchain_jev._extras import missing_extra

try:
    import pyarrow as pa
    from ray.data.datasource import FileBasedDatasource
except ImportError as error:  # pragma: no cover - the ray extra is installed in the tests
    raise missing_extra("langchain_jev.ray", "ray[data]", "ray") from error

from langchain_jev.datasets._readers import Format, detect_format, read_stream

if TYPE_CHECKING:
    import ray.data

__all__ = ["LINE", "NUMBER", "PROBLEM", "ROW", "SOURCE_COLUMNS", "DatasetFile", "read_file"]

ROW = "jev_row"
"""The column holding a row read from a file, as the JSON text of its object (null if unreadable)."""
NUMBER = "jev_row_number"
"""The row's number in its file, from 1."""
LINE = "jev_line"
"""The line of its file the row starts on."""
PROBLEM = "jev_problem"
"""Why the row could not be read (null when it could)."""
SOURCE_COLUMNS = (ROW, NUMBER, LINE, PROBLEM)
"""The columns of a Dataset `read_file` made."""

_ROWS_PER_BLOCK = 1024


class DatasetFile(FileBasedDatasource):
    """A JSONL, JSON or CSV file as a Ray datasource, read by this package's readers (one task per file)."""

    def __init__(self, path: str, fmt: Format, *, tsv: bool = False, **options: Any) -> None:
        super().__init__(path, file_extensions=None, **options)
        self.fmt: Format = fmt
        self.tsv = tsv

    def _read_stream(self, f: Any, path: str) -> Iterator[pa.Table]:
        rows, numbers, lines, problems = [], [], [], []
        for raw in read_stream(io.BufferedReader(f, 1 << 16), self.fmt, tsv=self.tsv):
            rows.append(None if raw.data is None else json.dumps(raw.data, ensure_ascii=False))
            numbers.append(raw.number)
            lines.append(raw.line)
            problems.append(raw.problem)
            if len(rows) >= _ROWS_PER_BLOCK:
                yield _block(rows, numbers, lines, problems)
                rows, numbers, lines, problems = [], [], [], []
        if rows:
            yield _block(rows, numbers, lines, problems)


def _block(
    rows: list[str | None], numbers: list[int], lines: list[int], problems: list[str | None]
) -> pa.Table:
    return pa.table(
        {
            ROW: pa.array(rows, pa.large_string()),
            NUMBER: pa.array(numbers, pa.int64()),
            LINE: pa.array(lines, pa.int64()),
            PROBLEM: pa.array(problems, pa.string()),
        }
    )


def read_file(path: str, fmt: Format | None = None) -> ray.data.Dataset:
    """The rows of the JSONL, JSON or CSV file at ``path`` as a Ray Dataset of `SOURCE_COLUMNS`.

    ``fmt`` is ``"jsonl"``, ``"json"`` or ``"csv"``; by default it is told from the
    extension, else the content, as the command line tells it. Pass the Dataset to
    `langchain_jev.ray.judge_dataset` (with ``from_csv=True`` for a CSV file) and its
    rows are judged, keyed and named by row and line exactly as the local engine
    judges that file.

    Raises:
        DatasetError: the format is unknown or the file cannot be opened.

    Example:
        >>> import ray  # doctest: +SKIP
        >>> read_file("rows.jsonl").take(1)  # doctest: +SKIP
        [{'jev_row': '{"answer": "Hello"}', 'jev_row_number': 1, 'jev_line': 1, 'jev_problem': None}]

    """
    import ray.data

    fmt = fmt or detect_format(path)
    source = DatasetFile(path, fmt, tsv=path.lower().endswith(".tsv"))
    dataset: ray.data.Dataset = ray.data.read_datasource(source)
    return dataset
