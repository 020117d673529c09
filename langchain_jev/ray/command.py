"""``langchain-jev judge DATA --engine ray``: the dataset command on a Ray cluster.

Ray Data reads the rows (JSONL, CSV or Parquet), a pool of actors judges them
(`judge_dataset`), and the results go to ``--out``: a results file of JSON
lines, the same records as the local engine writes (each keyed by its row's
content and ``id``, since Ray reads rows without their line numbers), or, for
a path ending in ``.parquet``, a Parquet dataset of the rows with their
verdict columns. The same table closes the run.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from langchain_jev.datasets.model import ModelSettings
from langchain_jev.datasets.rows import FieldMap
from langchain_jev.datasets.tally import Tally

if TYPE_CHECKING:
    from langchain_jev.spec import JudgeSpec

__all__ = ["RayOptions", "RayResult", "judge_on_ray", "read_dataset", "run_ray"]


def judge_on_ray(args: Any, spec: Any, stderr: TextIO) -> int:
    """Run ``langchain-jev judge`` with ``--engine ray``: the parsed arguments and the loaded judge file."""
    from langchain_jev.datasets.exit_codes import EXIT_INTERRUPTED, bad_input, exit_code
    from langchain_jev.datasets.options import field_map, model_settings
    from langchain_jev.datasets.tally import format_table, summary_lines

    def fail(message: str) -> int:
        return bad_input(stderr, message)

    if args.resume:
        return fail("--resume is for the local engine; a run on Ray judges every row again")
    try:
        import ray  # noqa: F401
    except ImportError:
        from langchain_jev._extras import install_hint

        return fail(f"--engine ray needs Ray: {install_hint('ray')}")
    fmt = args.format or _format_of(args.data)
    options = RayOptions(
        data=args.data,
        fmt=fmt,
        fields=field_map(args),
        settings=model_settings(args),
        out=args.out,
        address=args.ray_address,
        actors=max(1, args.workers or 2),
        in_flight=args.concurrency,
        rate_limit=args.rate_limit,
    )
    try:
        result = run_ray(spec, options, stderr)
    except KeyboardInterrupt:
        stderr.write("\nlangchain-jev: interrupted\n")
        return EXIT_INTERRUPTED
    except (OSError, ValueError) as error:  # Ray could not read DATA
        return fail(f"cannot read {args.data}: {str(error).strip().splitlines()[0]}")
    report = stderr if args.out == "-" else sys.stdout
    report.write(format_table(result.tally) + "\n\n")
    for line in summary_lines(result.tally, bad_rows=result.bad_rows, fail_under=args.fail_under):
        report.write(line + "\n")
    report.flush()
    return exit_code(result.bad_rows, result.tally.pass_rate, args.fail_under, result.tally.errors)


def _format_of(path: str) -> str:
    """Parquet by its extension (or a directory of Parquet files), else as the local engine decides."""
    import os

    from langchain_jev.datasets.readers import detect_format

    if path.lower().endswith(".parquet") or os.path.isdir(path):
        return "parquet"
    return detect_format(path)


@dataclass(frozen=True)
class RayOptions:
    """The command line's options for a run on Ray."""

    data: str
    fmt: str
    fields: FieldMap
    settings: ModelSettings
    out: str | None = None
    address: str | None = None
    actors: int = 2
    in_flight: int = 32
    rate_limit: float | None = None


@dataclass
class RayResult:
    """What a run on Ray counted: the tally and the rows that could not be read as judge inputs."""

    tally: Tally
    bad_rows: int = 0


def read_dataset(path: str, fmt: str) -> Any:
    """The rows of ``path`` as a Ray Dataset, read by Ray Data (``fmt``: jsonl, json, csv or parquet)."""
    import ray.data

    if fmt == "parquet":
        return ray.data.read_parquet(path)
    if fmt == "csv":
        import csv

        import pyarrow as pa
        import pyarrow.csv as pacsv

        # every cell as text, as the local engine reads CSV; the row mapping reads JSON cells
        delimiter = "\t" if path.lower().endswith(".tsv") else ","
        with open(path, newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle, delimiter=delimiter), [])
        return ray.data.read_csv(
            path,
            parse_options=pacsv.ParseOptions(delimiter=delimiter),
            convert_options=pacsv.ConvertOptions(column_types=dict.fromkeys(header, pa.string())),
            file_extensions=None,
        )
    return ray.data.read_json(path, lines=fmt == "jsonl", file_extensions=None)


def run_ray(spec: JudgeSpec, options: RayOptions, stderr: TextIO) -> RayResult:
    """Judge ``options.data`` with the judge file ``spec`` on Ray and write the results.

    Ray is the running one, a local cluster, or the one at ``options.address``.
    """
    import ray

    from langchain_jev.ray.dataset import judge_dataset

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(
            address=options.address, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR
        )
    try:
        ray.data.DataContext.get_current().enable_progress_bars = False
        rows = read_dataset(options.data, options.fmt)
        judged = judge_dataset(
            rows,
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
        if options.out and options.out.endswith(".parquet"):
            judged.write_parquet(options.out)
            records: Iterable[Mapping[str, Any]] = (
                json.loads(row["jev_record"])
                for row in ray.data.read_parquet(options.out).select_columns(["jev_record"]).iter_rows()
            )
            return _count(records, spec, options.settings.model, None, stderr)
        records = (json.loads(row["jev_record"]) for row in judged.iter_rows())
        return _count(records, spec, options.settings.model, options.out, stderr)
    finally:
        if started_here:
            ray.shutdown()


def _count(
    records: Iterable[Mapping[str, Any]], spec: JudgeSpec, model: str | None, out: str | None, stderr: TextIO
) -> RayResult:
    """Tally the records and write them as the local engine does: header, one line per row, locked."""
    from langchain_jev.datasets.fingerprint import judge_description
    from langchain_jev.datasets.lock import ResultsLock
    from langchain_jev.datasets.results import ResultsFile
    result = RayResult(Tally((c.name, c.kind) for c in spec.criteria))
    lock = ResultsLock(out) if out and ResultsLock.applies_to(out) else None
    if lock is not None:
        lock.acquire()
    try:
        writer = ResultsFile(out, judge=judge_description(spec, model)) if out else None
        try:
            for record in records:
                if "problem" in record:
                    result.bad_rows += 1
                    stderr.write(f"{_name(record)}: {record['problem']}\n")
                    continue
                if writer is not None:
                    writer.write(record)
                result.tally.add(record)
        finally:
            if writer is not None:
                writer.close()
    finally:
        if lock is not None:
            lock.release()
    return result


def _name(record: Mapping[str, Any]) -> str:
    return f"row id {record['id']!r}" if "id" in record else f"row {record.get('key', '?')}"
