"""``langchain-jev judge DATA --judge SPEC``: run a judge file over a dataset, here or on Ray.

`add_parser` adds the command and its options; `judge_command` runs it: the
local engine (`langchain_jev.datasets._local.run`) judges the rows in this process or its
worker processes, or, with ``--engine ray``, `judge_on_ray` hands them to the Ray
engine (`langchain_jev.ray._run`), whose actors share ``--concurrency``
(`split_in_flight`). With ``--workers N`` (by default chosen from
``--concurrency``, the rows and the CPUs) the rows are judged in N worker
processes, or on N actors; this process stays the only reader and writer of a
local run. Either run ends with the same table and exit codes. `write_judge_report`
draws ``--html`` from the results file.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import TYPE_CHECKING, Any, TextIO

from langchain_jev.cli._arguments import (
    add_allow_code,
    add_command,
    add_fail_under_option,
    add_format_option,
    add_html_option,
    add_judge_option,
    add_model_options,
    add_out_option,
    add_pacing_options,
    add_quiet_option,
    add_repeatable,
    add_resume_option,
    add_strict_option,
    exit_codes_epilog,
    html_unavailable,
    invalid_judge_file,
    workers,
)
from langchain_jev.datasets._exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_BELOW_THRESHOLD,
    EXIT_INTERRUPTED,
    EXIT_MODEL_ERRORS,
    EXIT_OK,
    PROG,
    bad_input,
    exit_code,
    silence_stdout,
)
from langchain_jev.datasets._options import allow_code, field_map, model_settings
from langchain_jev.datasets._paths import FileRole, clash

if TYPE_CHECKING:
    from langchain_jev.datasets._local.session import RunResult
    from langchain_jev.datasets._rows import FieldMap
    from langchain_jev.spec import JudgeSpec

__all__ = [
    "add_parser",
    "finish_run",
    "judge_command",
    "judge_files",
    "judge_on_ray",
    "report_table",
    "split_in_flight",
    "write_judge_report",
]


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``judge`` subcommand to the subparsers; return its parser (``calibrate`` takes its options)."""
    judge = add_command(
        commands,
        "judge",
        judge_command,
        with_parser=True,
        help="run a judge file over a dataset",
        description=(
            "Run a judge file over DATA (JSONL, a JSON array, or CSV), one result line per row.\n"
            "Columns question/user_question/input/query, answer/assistant_answer/output/response\n"
            "(or result, text, generation, content), expected/expected_output/reference,\n"
            "context/supporting_context/documents/source_documents and tool_calls feed the judge\n"
            "input, as in the LangSmith mapping (--question-field and the like name other columns);\n"
            "'id' names the row; every other column becomes a state field of its own name.\n"
            "--out is written by one run at a time; its first line records the judge, and --resume\n"
            "continues only the same judge."
        ),
        epilog=(
            "environment:\n"
            "  TYPESAFE_API_KEY        the API key for Jev (needed unless --model names a chat model)\n"
            "  TYPESAFE_BASE_URL       the server, when --base-url is not given\n"
            "  TYPESAFE_DEFAULT_MODEL  the Jev model, when --model is not given\n\n" + exit_codes_epilog()
        ),
    )
    judge.add_argument("data", metavar="DATA", help="the dataset: .jsonl, .json or .csv")
    add_judge_option(
        judge, "the judge file (YAML or JSON), or a prebuilt judge's name (see `langchain-jev judges`)"
    )
    add_format_option(judge)
    add_allow_code(judge, "run code the judge file names (call: conditions, feedback_renderer)")
    names = judge.add_argument_group("columns")
    for part in ("question", "answer", "expected", "context", "tool-calls"):
        names.add_argument(f"--{part}-field", metavar="NAME", help=f"column of the {part.replace('-', ' ')}")
    names.add_argument("--id-field", metavar="NAME", default="id", help="column naming the row (default: id)")
    add_repeatable(names, "--ignore-field", "NAME", "a column to leave out of the state (repeatable)")
    add_model_options(judge)
    run = judge.add_argument_group("running")
    add_pacing_options(run)
    run.add_argument(
        "--workers",
        type=workers,
        default=None,
        metavar="N",
        help="processes judging rows, each with its share of --concurrency; 1 judges in this "
        "process; auto (the default) starts one per 32 rows at once and per 500 rows to judge, "
        "at most one per CPU",
    )
    add_out_option(run)
    add_resume_option(run)
    add_fail_under_option(run)
    add_strict_option(run)
    run.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local (default): this machine; ray: a Ray cluster reads, judges and writes the rows "
        "(needs langchain-jev[ray]; DATA may also be Parquet, --out PATH.parquet writes Parquet)",
    )
    run.add_argument("--ray-address", metavar="ADDR", help="the Ray cluster to join (default: a local one)")
    add_quiet_option(run)
    run.add_argument(
        "--verbose", action="store_true", help="with --engine ray: show Ray's own logs and progress bars"
    )
    add_html_option(run)
    return judge


def judge_command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run ``judge`` with parsed arguments (``parser`` reports misused options); return the exit code."""
    warnings.filterwarnings("ignore", message=".*is in beta.*")
    if args.resume and (not args.out or args.out == "-"):
        parser.error("--resume needs --out PATH (the results file to continue)")
    if args.html and (not args.out or args.out == "-"):
        parser.error("--html needs --out PATH (the report is drawn from the results file)")
    unavailable = html_unavailable(args.html)
    if unavailable:
        return bad_input(sys.stderr, unavailable)
    from langchain_jev.datasets._local.pool import WorkerSetup, prestart

    prestart(args.workers, args.concurrency)  # workers' imports load while this process's do

    from langchain_jev import JudgeSpecError
    from langchain_jev._errors import JevConfigurationError
    from langchain_jev.datasets._fingerprint import judge_description
    from langchain_jev.datasets._local.run import RunOptions, run
    from langchain_jev.datasets._model import build_model, model_identity, model_problem
    from langchain_jev.datasets._pacing import RateLimiter
    from langchain_jev.datasets._readers import DatasetError, detect_format
    from langchain_jev.datasets._reading import check_regular
    from langchain_jev.spec import load_spec

    err = sys.stderr
    problem = clash(*judge_files(args))
    if problem is not None:  # before anything is read or written
        return bad_input(err, problem)
    try:
        spec = load_spec(args.judge)
    except JudgeSpecError as error:
        return bad_input(err, invalid_judge_file(error))
    if args.engine == "ray" or args.ray_address:
        if args.html and str(args.out).endswith(".parquet"):
            parser.error("--html is drawn from a results file: give --out PATH.jsonl with --engine ray")
        code = judge_on_ray(args, spec, err)
        if args.html and code in (EXIT_OK, EXIT_BELOW_THRESHOLD, EXIT_MODEL_ERRORS):
            trusted = allow_code(args.allow_code)
            if not write_judge_report(args.html, args.judge, args.out, err, trusted, args=args):
                return EXIT_BAD_INPUT
        return code
    try:
        check_regular(args.data)  # a FIFO, a device or a folder is refused now, not when rows are read
        fmt = detect_format(args.data, args.format)
    except OSError as error:
        return bad_input(err, f"cannot read {args.data}: {error.strerror or error}")
    except DatasetError as error:
        return bad_input(err, str(error))
    settings = model_settings(args)
    try:
        limiter = RateLimiter(args.rate_limit) if args.rate_limit is not None else None
        model, closers = build_model(settings, limiter, spec.decision_model())
        judge = spec.build(model, allow_code=allow_code(args.allow_code))
    except JudgeSpecError as error:
        return bad_input(err, invalid_judge_file(error))
    except JevConfigurationError as error:
        return bad_input(err, str(error))
    except (ImportError, ValueError) as error:  # a chat model string its provider cannot serve
        by_file = not args.model and spec.model is not None
        return bad_input(err, model_problem(str(args.model or spec.model), error, named_by_file=by_file))
    model_name, endpoint = model_identity(model, settings)
    fields = field_map(args)
    options = RunOptions(
        data=args.data,
        fmt=fmt,
        fields=fields,
        required=spec.required_fields(),
        named=spec.named_fields(),
        concurrency=args.concurrency,
        out=args.out,
        cache=args.cache,
        resume=args.resume,
        strict=args.strict,
        progress=not args.quiet,
        workers=args.workers,
        rate_limit=args.rate_limit,
        judge=judge_description(spec, model_name),
        endpoint=endpoint or model_name,
        run=_run_description(args, fmt, fields, endpoint),
    )
    setup = WorkerSetup.of(spec, settings, fields, options.required, args.rate_limit)
    to_file = bool(args.out and args.out != "-")
    try:
        result = run(judge, options, err, setup=setup, closers=closers)
    except KeyboardInterrupt:
        resume = " (run again with --resume to finish)" if to_file else ""
        err.write(f"\n{PROG}: interrupted{resume}\n")
        err.flush()
        return EXIT_INTERRUPTED
    return finish_run(result, args, err, report_args=args)


def finish_run(
    result: RunResult,
    args: argparse.Namespace,
    err: TextIO,
    *,
    report_args: argparse.Namespace | None = None,
    title: str | None = None,
) -> int:
    """The end of a local run (``judge``, ``simulate``): its table, ``--html``, what stopped it, its code.

    ``report_args`` (``judge``'s options) lets the report show each row's judged state;
    ``title`` heads the report.
    """
    to_file = bool(args.out and args.out != "-")
    if result.pipe_closed:
        silence_stdout()
    if result.tally.rows or result.bad_rows or not (result.fatal or result.broken):
        report_table(result, args.fail_under, err if args.out == "-" else sys.stdout)
    if args.html and (result.tally.rows or not result.fatal):
        trusted = allow_code(args.allow_code)
        if not write_judge_report(
            args.html,
            args.judge,
            args.out,
            err,
            trusted,
            args=report_args,
            bad_rows=result.bad_rows,
            title=title,
        ):
            return EXIT_BAD_INPUT
    if result.fatal:
        return bad_input(err, result.fatal)
    if result.broken:
        resume = ": run again with --resume to finish" if to_file and result.resumable else ""
        err.write(f"{PROG}: error: {result.broken}{resume}\n")
        err.flush()
        return EXIT_MODEL_ERRORS
    return exit_code(result.bad_rows, result.tally.pass_rate, args.fail_under, result.tally.unjudged)


def judge_on_ray(args: argparse.Namespace, spec: JudgeSpec, stderr: TextIO) -> int:
    """Run ``judge`` with ``--engine ray``: the parsed arguments and the loaded judge file; the exit code."""
    from langchain_jev.datasets._model import described_model
    from langchain_jev.datasets._tally import format_table, summary_lines
    from langchain_jev.ray._run import RayOptions, format_of, ray_missing, run_ray

    def fail(message: str) -> int:
        return bad_input(stderr, message)

    if args.resume:
        return fail("--resume is for the local engine; a run on Ray judges every row again")
    if args.strict:
        return fail(
            "--strict is for the local engine; a run on Ray reports every bad row and judges the rest"
        )
    missing = ray_missing()
    if missing is not None:
        return fail(f"--engine ray needs Ray: {missing}")
    fmt = format_of(args.data, args.format)
    if fmt is None:
        return fail(
            f"cannot read {args.data}: no such file (Ray reads a JSONL, JSON, CSV or Parquet file, "
            "or a folder of Parquet files)"
        )
    actors = max(1, args.workers or 2)
    settings, fields = model_settings(args), field_map(args)
    options = RayOptions(
        data=args.data,
        fmt=fmt,
        fields=fields,
        settings=settings,
        out=args.out,
        address=args.ray_address,
        actors=actors,
        in_flight=split_in_flight(args.concurrency, actors),
        rate_limit=args.rate_limit,
        verbose=bool(getattr(args, "verbose", False)),
        run=_run_description(args, fmt, fields, described_model(settings)[1]),
    )
    try:
        result = run_ray(spec, options, stderr)
    except KeyboardInterrupt:
        stderr.write(f"\n{PROG}: interrupted\n")
        return EXIT_INTERRUPTED
    if result.fatal is not None:
        return fail(result.fatal)
    if result.broken is not None:
        stderr.write(f"{PROG}: error: {result.broken}\n")
        stderr.flush()
        return EXIT_MODEL_ERRORS
    report = stderr if args.out == "-" else sys.stdout
    report.write(format_table(result.tally) + "\n\n")
    for line in summary_lines(result.tally, bad_rows=result.bad_rows, fail_under=args.fail_under):
        report.write(line + "\n")
    report.flush()
    return exit_code(result.bad_rows, result.tally.pass_rate, args.fail_under, result.tally.unjudged)


def split_in_flight(total: int, actors: int) -> int:
    """Each actor's share of ``--concurrency`` (the rows judged at once over the whole pool).

    Example:
        >>> split_in_flight(64, 2), split_in_flight(5, 2), split_in_flight(1, 4)
        (32, 3, 1)

    """
    return max(1, -(-total // actors))


def _run_description(
    args: argparse.Namespace, fmt: str, fields: FieldMap, endpoint: str | None
) -> dict[str, Any]:
    """What the run knows of itself, as the results header keeps it (under ``run``), for either engine."""
    from langchain_jev.report._provenance import run_description

    return run_description(
        dataset=args.data,
        fmt=fmt,
        fields=fields.to_dict(),
        judge_file=args.judge,
        base_url=endpoint,
        argv=[PROG, *sys.argv[1:]],
        fail_under=args.fail_under,
    )


def judge_files(args: argparse.Namespace) -> tuple[list[FileRole], list[FileRole]]:
    """The files ``judge`` (and ``calibrate``, which judges) reads, and those it writes."""
    inputs = [FileRole("DATA", args.data)]
    if os.path.isfile(args.judge):
        inputs.append(FileRole("--judge", args.judge))
    outputs = [FileRole("--out", args.out), FileRole("--html", args.html), FileRole("--cache", args.cache)]
    return inputs, outputs


def report_table(result: RunResult, fail_under: float | None, stream: TextIO) -> None:
    """A run's closing table and summary (``judge``'s, ``simulate``'s); a closed reader is no error."""
    from langchain_jev.datasets._tally import format_table, summary_lines

    try:
        stream.write(format_table(result.tally) + "\n\n")
        for line in summary_lines(result.tally, bad_rows=result.bad_rows, fail_under=fail_under):
            stream.write(line + "\n")
        stream.flush()
    except BrokenPipeError:
        if stream is sys.stdout:
            silence_stdout()


def write_judge_report(
    html: str,
    judge_path: str,
    results: str,
    err: TextIO,
    allow_code: bool | list[str] = False,
    *,
    args: argparse.Namespace | None = None,
    bad_rows: int | None = None,
    title: str | None = None,
) -> bool:
    """Draw the HTML report of a ``judge`` run from its results file; False (said on ``err``) if it cannot.

    With ``args`` (the run's options) the page shows each row's judged state, read
    again from the dataset with the run's columns, and colours the pass rates
    against ``--fail-under``.
    """
    from langchain_jev import JudgeSpecError
    from langchain_jev._errors import ResultsError
    from langchain_jev.report._run_report import draw_run_report

    try:
        draw_run_report(
            html,
            results,
            judge_path,
            allow_code=allow_code,
            dataset=getattr(args, "data", None),
            fmt=getattr(args, "format", None),
            fields=field_map(args) if args is not None else None,
            target=getattr(args, "fail_under", None),
            bad_rows=bad_rows,
            title=title or f"judge: {getattr(args, 'data', None) or results} with {judge_path}",
        )
    except (JudgeSpecError, ResultsError, OSError, ImportError) as error:
        said = error.strerror or error if isinstance(error, OSError) else error
        err.write(f"langchain-jev: error: --html {html}: {said}\n")
        err.flush()
        return False
    return True
