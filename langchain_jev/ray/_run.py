"""A dataset judged on a Ray cluster: the rows read on Ray, judged by actors, the results written.

`run_ray` is the Ray engine's whole run, as `langchain_jev.datasets._local.run` is the local
engine's. The rows are read on Ray, by this package's own readers for JSONL, JSON and
CSV (`langchain_jev.ray._reading`) and by Ray Data for Parquet (`read_dataset`); a pool of
actors judges them (`judge_dataset`); the results go to the output: a results file of
JSON lines, the same records the local engine writes (rows read from a file keep their
row and line), locked for the run as the local engine locks it, or, for a path ending
in ``.parquet``, one Parquet file of the rows with their verdict columns (a folder of
Parquet files only when the output names a folder: an existing one, or a path ending in
``/``). What the run counted comes back as a `RayResult`, its tally and bad rows, or why
it could not go on (``fatal``: bad input; ``broken``: Ray itself failed). Ray's own logs
stay out of the way unless ``verbose``. The command, ``langchain-jev judge DATA --engine
ray``, is `langchain_jev.cli._judge`.

Nothing here imports Ray when this module loads: `ray_missing` says whether it can run.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from langchain_jev._errors import JevError
from langchain_jev.datasets._lock import ResultsLock
from langchain_jev.datasets._model import ModelSettings, described_model
from langchain_jev.datasets._readers import detect_format
from langchain_jev.datasets._rows import FieldMap
from langchain_jev.datasets._tally import Tally, repeated_problem_line
from langchain_jev.datasets.results import ResultsFile

if TYPE_CHECKING:
    from langchain_jev.spec import JudgeSpec

__all__ = ["RayOptions", "RayResult", "format_of", "ray_missing", "read_dataset", "run_ray"]

_QUIET_LOGGERS = ("ray", "ray.data", "ray.serve", "ray.train", "ray.tune")


def ray_missing() -> str | None:
    """How to install Ray when it cannot be imported here (the ``ray`` extra), else None."""
    try:
        import ray  # noqa: F401
    except ImportError:
        from langchain_jev._extras import install_hint

        return install_hint("ray")
    return None


def format_of(path: str, explicit: str | None) -> str | None:
    """Parquet by its extension (or a folder of Parquet files), else as the local engine decides.

    None when there is no such file or folder.
    """
    if os.path.isdir(path):
        return "parquet"
    if not os.path.isfile(path):
        return None
    if explicit is None and path.lower().endswith(".parquet"):
        return "parquet"
    return detect_format(path, explicit)


def _is_parquet(out: str) -> bool:
    return out.lower().rstrip("/" + os.sep).endswith(".parquet") or _is_folder(out)


def _is_folder(out: str) -> bool:
    return out.endswith(("/", os.sep)) or os.path.isdir(out)


def _is_file_out(out: str) -> bool:
    return out != "-" and not _is_folder(out)


@dataclass(frozen=True)
class RayOptions:
    """What a run on Ray is asked: the data and its columns, the model, the output and the pool."""

    data: str
    fmt: str
    fields: FieldMap
    settings: ModelSettings
    out: str | None = None
    address: str | None = None
    actors: int = 2
    in_flight: int = 32
    """Requests each actor keeps in flight (``--concurrency`` split over the actors)."""
    rate_limit: float | None = None
    verbose: bool = False
    """Ray's own logs and progress bars on (off by default)."""
    run: Mapping[str, Any] | None = None
    """What the run knows of itself, kept in the results file's header (`run_description`)."""


@dataclass
class RayResult:
    """What a run on Ray counted: the tally and the rows that could not be read as judge inputs.

    A run that could not go on says why in one line: ``fatal`` for bad input (the
    output locked or unwritable, rows that do not fit one Parquet file, an input
    the judge refused), ``broken`` when Ray itself failed.
    """

    tally: Tally
    bad_rows: int = 0
    fatal: str | None = None
    broken: str | None = None


class _RunFailed(Exception):
    """The run could not go on: one line for the user (bad input, or Ray itself failed)."""

    def __init__(self, message: str, *, bad_input: bool) -> None:
        super().__init__(message)
        self.bad_input = bad_input


def read_dataset(path: str, fmt: str) -> Any:
    """The rows of ``path`` as a Ray Dataset: Parquet read by Ray Data, JSONL, JSON and CSV by our readers."""
    if fmt == "parquet":
        import ray.data

        return ray.data.read_parquet(path)
    from langchain_jev.ray._reading import read_file

    return read_file(path, fmt)  # type: ignore[arg-type]


def run_ray(spec: JudgeSpec, options: RayOptions, stderr: TextIO) -> RayResult:
    """Judge ``options.data`` with the judge file ``spec`` on Ray and write the results.

    Ray is the running one, a local cluster, or the one at ``options.address``. A
    results file (or one Parquet file) is locked for the run, as the local engine
    locks it; a run that cannot go on comes back with ``fatal`` or ``broken`` set.
    """
    out = options.out
    lock = ResultsLock(out) if out and _is_file_out(out) and ResultsLock.applies_to(out) else None
    try:
        if lock is not None:
            lock.acquire()
    except JevError as error:
        return RayResult(_tally(spec), fatal=str(error))
    except OSError as error:
        return RayResult(_tally(spec), fatal=f"cannot write {out}: {error.strerror or error}")
    try:
        return _judged_on_ray(spec, options, stderr)
    except _RunFailed as failure:
        if failure.bad_input:
            return RayResult(_tally(spec), fatal=str(failure))
        return RayResult(_tally(spec), broken=str(failure))
    finally:
        if lock is not None:
            lock.release()


def _tally(spec: JudgeSpec) -> Tally:
    return Tally((c.name, c.kind) for c in spec.criteria)


def _judged_on_ray(spec: JudgeSpec, options: RayOptions, stderr: TextIO) -> RayResult:
    """The run itself, on the Ray it starts (and stops) or joins.

    Raises:
        _RunFailed: the data cannot be read, or Ray failed (one line says why).

    """
    import ray

    from langchain_jev.ray._dataset import judge_dataset

    started_here = not ray.is_initialized()
    with _ray_quiet(options.verbose, stderr) as stderr:
        if started_here:
            ray.init(
                address=options.address,
                include_dashboard=False,
                log_to_driver=options.verbose,
                logging_level=logging.INFO if options.verbose else logging.ERROR,
            )
        try:
            ray.data.DataContext.get_current().enable_progress_bars = options.verbose
            judged = judge_dataset(
                read_dataset(options.data, options.fmt),
                spec,
                model=options.settings.model,
                base_url=options.settings.base_url,
                timeout=options.settings.timeout,
                max_retries=options.settings.max_retries,
                cache=options.settings.cache,
                fields=options.fields,
                actors=options.actors,
                in_flight=options.in_flight,
                rate_limit=options.rate_limit,
                from_csv=options.fmt == "csv",
            )
            return _collect(judged, spec, options, stderr)
        except ray.exceptions.RayError as error:
            raise _failure(error) from None
        finally:
            if started_here:
                ray.shutdown()


def _collect(judged: Any, spec: JudgeSpec, options: RayOptions, stderr: TextIO) -> RayResult:
    """Bring the judged rows to the driver once: tally them, report bad rows, write ``--out``."""
    from langchain_jev.datasets._fingerprint import judge_description

    result = RayResult(_tally(spec))
    label = os.path.basename(options.data.rstrip("/" + os.sep))
    out = options.out
    if out and _is_parquet(out) and _is_folder(out):
        judged.write_parquet(out)
        batches: Iterator[Any] = _read_back(out)
        sink: _Sink = _NoSink()
    else:
        batches = judged.iter_batches(batch_format="pyarrow", batch_size=None)
        if out and _is_parquet(out):
            sink = _ParquetFile(out)
        elif out:
            model_name, _ = described_model(options.settings)  # as the local engine names it
            sink = _Lines(ResultsFile(out, judge=judge_description(spec, model_name), run=options.run))
        else:
            sink = _NoSink()
    bad: list[dict[str, Any]] = []
    with sink:
        for batch in batches:
            lines = batch.column("jev_record").to_pylist()
            kept = []
            for line in lines:
                record = json.loads(line)
                if "problem" in record:
                    result.bad_rows += 1
                    bad.append(record)
                    continue
                kept.append(line)
                result.tally.add(record)
            sink.write(batch, kept)
        sink.finish()
    for text in _bad_row_lines(bad, label):
        stderr.write(text + "\n")
    stderr.flush()
    return result


def _bad_row_lines(bad: list[dict[str, Any]], label: str) -> list[str]:
    """The bad rows as the local engine says them: in line order, a problem once (its first row), counted.

    Rows without a line (Parquet, rows built in Python) are each named, by id or key.
    """
    lines: list[str] = []
    repeated: dict[str, list[int]] = {}
    for record in sorted(bad, key=lambda r: (0, r["line"]) if "line" in r else (1, 0)):
        problem = record["problem"]
        if "line" in record:
            seen = repeated.setdefault(problem, [0, record["line"]])
            seen[0] += 1
            if seen[0] > 1:
                continue
        lines.append(f"{_name(record, label)}: {problem}")
    lines += [repeated_problem_line(label, rows, line, p) for p, (rows, line) in repeated.items() if rows > 1]
    return lines


def _read_back(folder: str) -> Iterator[Any]:
    import ray.data

    yield from (
        ray.data.read_parquet(folder)
        .select_columns(["jev_record"])
        .iter_batches(batch_format="pyarrow", batch_size=None)
    )


class _Sink:
    """Where the judged rows go as they come: written whole at ``finish``, removed if the run fails."""

    def write(self, batch: Any, lines: list[str]) -> None:
        """Take one batch: the rows (a pyarrow Table) and the record lines of its judged rows."""

    def finish(self) -> None:
        """Every batch is in: make the output whole."""

    def __enter__(self) -> _Sink:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close (an output not finished is removed)."""


class _NoSink(_Sink):
    pass


class _Lines(_Sink):
    """The results file: its header, then the records of the judged rows, as the local engine writes it."""

    def __init__(self, writer: ResultsFile) -> None:
        self.writer = writer

    def write(self, batch: Any, lines: list[str]) -> None:
        if lines:
            self.writer.write_lines(lines)

    def close(self) -> None:
        self.writer.close()


class _ParquetFile(_Sink):
    """One Parquet file of the rows and their verdict columns, written through the one atomic writer.

    The file is written beside the output (`langchain_jev.datasets._writing.atomic_output`) and
    moved in, synced, only when the run finishes: a run that fails leaves the output as it was.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.output = contextlib.ExitStack()
        self.writer: Any = None

    def write(self, batch: Any, lines: list[str]) -> None:
        import pyarrow.parquet as pq

        from langchain_jev.datasets._writing import atomic_output

        if self.writer is None:
            self.writer = pq.ParquetWriter(self.output.enter_context(atomic_output(self.path)), batch.schema)
        elif batch.schema != self.writer.schema:
            try:
                batch = batch.select(self.writer.schema.names).cast(self.writer.schema)
            except (KeyError, ValueError, TypeError) as error:
                raise _RunFailed(
                    f"cannot write {self.path} as one Parquet file: its rows do not all have the same "
                    f"columns ({error}); give --out a folder (ending in /) for a Parquet file per block",
                    bad_input=True,
                ) from None
        self.writer.write_table(batch)

    def finish(self) -> None:
        if self.writer is None:
            return
        self.writer.close()
        self.writer = None
        self.output.close()  # flushed, synced, moved over the output in one rename

    def close(self) -> None:
        if self.writer is not None:  # the run did not finish: the temporary file goes, the output stays
            with contextlib.suppress(Exception):
                self.writer.close()
            self.writer = None
            unfinished = OSError("the run did not finish")
            with contextlib.suppress(OSError):
                self.output.__exit__(OSError, unfinished, None)


def _failure(error: Exception) -> _RunFailed:
    """One line for a Ray error: the cause a task raised (bad input when it is ours), or Ray's own."""
    cause: BaseException | None = error
    for _ in range(8):
        nested = getattr(cause, "cause", None) or getattr(cause, "__cause__", None)
        if nested is None or nested is cause:
            break
        cause = nested
    if isinstance(cause, JevError):
        return _RunFailed(str(cause).strip().splitlines()[0], bad_input=True)
    text = str(cause or error).strip().splitlines()
    return _RunFailed(
        f"the run on Ray failed: {type(cause).__name__}: {text[0] if text else ''}", bad_input=False
    )


@contextlib.contextmanager
def _ray_quiet(verbose: bool, stderr: TextIO) -> Iterator[TextIO]:
    """While the run lasts (unless ``verbose``): Ray's Python loggers at ERROR, its C++ log lines dropped.

    Ray's C++ core writes its log lines (advice such as "constructor arguments in
    the object store") straight to file descriptor 2. When ``stderr`` is that
    descriptor, it is pointed at the null device meanwhile, and the stream yielded
    (for this command's own lines) writes to where stderr went before.
    """
    if verbose:
        yield stderr
        return
    loggers = [logging.getLogger(name) for name in _QUIET_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    saved: int | None = None
    ours: TextIO = stderr
    with contextlib.suppress(AttributeError, OSError, ValueError):
        if stderr.fileno() == 2:
            stderr.flush()
            saved = os.dup(2)
            ours = open(os.dup(saved), "w", encoding="utf-8", errors="backslashreplace", closefd=True)  # noqa: SIM115
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 2)
            os.close(null)
    try:
        yield ours
    finally:
        if saved is not None:
            with contextlib.suppress(OSError, ValueError):
                ours.flush()
                ours.close()
                os.dup2(saved, 2)
                os.close(saved)
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _name(record: Mapping[str, Any], label: str) -> str:
    """A bad row as the local engine names it (file and line), or by its id or key when Ray read no lines."""
    if "line" in record:
        return f"{label}:{record['line']}: row {record.get('row')}"
    return f"row id {record['id']!r}" if "id" in record else f"row {record.get('key', '?')}"
