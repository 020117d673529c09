"""The ``langchain-jev`` command line: run a judge file over a dataset, or print the judge schema.

Example:
    langchain-jev judge rows.jsonl --judge judge.yaml --out results.jsonl --fail-under 0.8
    langchain-jev judge rows.jsonl --judge rag          # a prebuilt judge, by name
    langchain-jev judges                                # the prebuilt judges; judges show rag prints one

Exit codes (`EXIT_CODES`): 0 when all went well; 1 when the overall pass rate
is under ``--fail-under``; 2 on bad input (an unreadable or invalid file or
option, a row missing a field the judge needs, changed data or another judge on
``--resume``, a results file another run is writing); 3 when some rows were not
judged or not recorded: the decision model failed for them (they are recorded
as errors and count as not passed), could not be reached at all, a worker
process died, or the results could not be written (a full disk, a closed pipe);
130 when interrupted (Ctrl-C); 70 on an internal error (a bug: please report
it). A bad input outranks the pass rate, which outranks errors.

With ``--workers N`` (by default chosen from ``--concurrency``, the rows and the
CPUs) the rows are judged in N worker processes, each with its share of
``--concurrency``; this process stays the only reader and writer.

"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from langchain_jev.cli.model import ModelSettings
    from langchain_jev.cli.rows import FieldMap
    from langchain_jev.cli.session import RunResult

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_BELOW_THRESHOLD",
    "EXIT_CODES",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_MODEL_ERRORS",
    "EXIT_OK",
    "bad_input",
    "exit_code",
    "field_map",
    "main",
    "model_settings",
]

EXIT_OK = 0
"""Every row was judged and the pass rate is not under ``--fail-under``."""
EXIT_BELOW_THRESHOLD = 1
"""The overall pass rate is under ``--fail-under``."""
EXIT_BAD_INPUT = 2
"""Bad input: an unreadable or invalid file, a row missing fields the judge needs."""
EXIT_MODEL_ERRORS = 3
"""Some rows were not judged or not recorded: the decision model failed for them or could not be
reached, a worker process died, or the results could not be written."""
EXIT_INTERRUPTED = 130
"""Interrupted (Ctrl-C): what was judged is on disk; ``--resume`` finishes the run."""
EXIT_INTERNAL = 70
"""An internal error (``EX_SOFTWARE``): a bug of the command, reported in one line."""

EXIT_CODES: dict[int, str] = {
    EXIT_OK: "every row was judged (and the pass rate is not under --fail-under)",
    EXIT_BELOW_THRESHOLD: "the overall pass rate is under --fail-under",
    EXIT_BAD_INPUT: "bad input: an unreadable or invalid file or option, a row missing a field the "
    "judge needs, changed data or another judge on --resume, an --out another run is writing",
    EXIT_MODEL_ERRORS: "rows not judged or not recorded: the decision model failed or could not be "
    "reached, a worker process died, or the results could not be written (--resume finishes)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C); --resume finishes",
    EXIT_INTERNAL: "internal error (a bug: please report it)",
}
"""Every exit code of the command, with what it means (the help and the README list them)."""

_PROG = "langchain-jev"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code.

    Example:
        >>> main(["schema"]) == 0  # doctest: +ELLIPSIS
        {...
        True

    """
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "schema":
            from langchain_jev.spec import judge_schema

            sys.stdout.write(json.dumps(judge_schema(), indent=2) + "\n")
            sys.stdout.flush()
            return EXIT_OK
        if args.command == "validate":
            return _validate(args.judge)
        if args.command == "judge":
            return _judge(args, parser)
        if args.command == "judges":
            from langchain_jev.cli.judges import run

            return run(args)
        if args.command == "rejudge":
            from langchain_jev.cli.rejudge import rejudge

            return rejudge(args)
        if args.command == "calibrate":
            from langchain_jev.cli.calibrate import calibrate_command

            return calibrate_command(args, parser)
    except KeyboardInterrupt:
        sys.stderr.write(f"\n{_PROG}: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # stdout's reader went away: nothing more to say there
        _silence_stdout()
        return EXIT_MODEL_ERRORS
    except Exception as error:  # a bug: one line, not a traceback (LANGCHAIN_JEV_DEBUG=1 shows it)
        if os.environ.get("LANGCHAIN_JEV_DEBUG"):
            raise
        sys.stderr.write(
            f"{_PROG}: internal error: {type(error).__name__}: {error} "
            "(please report it; LANGCHAIN_JEV_DEBUG=1 shows the traceback)\n"
        )
        return EXIT_INTERNAL
    parser.print_help(sys.stderr)
    return EXIT_BAD_INPUT


def _silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's last flush meets no closed pipe."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


# --------------------------------------------------------------------------- arguments


def _rate(text: str) -> float:
    """``--fail-under``: a fraction (0 to 1), or a percentage (``80%``, or a number above 1: ``80``).

    A number from 0 to 1 is a fraction, so ``1`` is 100% and ``0.5`` is 50%; 1%
    is written ``1%`` (or ``0.01``).

    Example:
        >>> _rate("80"), _rate("0.8"), _rate("80%"), _rate("1"), _rate("1%")
        (0.8, 0.8, 0.8, 1.0, 0.01)

    """
    stripped = text.strip()
    percent = stripped.endswith("%")
    try:
        number = float(stripped.rstrip("%").strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(number) or not 0 <= number <= 100:
        raise argparse.ArgumentTypeError(
            f"must be a fraction from 0 to 1 or a percentage from 0 to 100, got {text}"
        )
    return number / 100 if percent or number > 1 else number


def _base_url(text: str) -> str:
    """``--base-url``: an http(s) URL with a host.

    Example:
        >>> _base_url("http://localhost:8000")
        'http://localhost:8000'

    """
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a server address: give the scheme and the host, "
            "e.g. http://localhost:8000 or https://jev.example.com"
        )
    return text.strip()


def _int_at_least(minimum: int, wording: str) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum`` (``wording`` says the bound)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {wording}, got {value}")
        return value

    return parse


_positive_int = _int_at_least(1, "at least 1")
_non_negative_int = _int_at_least(0, "0 or more")


def _workers(text: str) -> int | None:
    if text.strip().lower() == "auto":
        return None
    try:
        return _positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"must be 'auto' or a whole number of at least 1, got {text!r}"
        ) from None


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=_PROG,
        description="Judge model output with typed atomic questions, from the command line.",
        epilog=_exit_codes_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{_PROG} {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("schema", help="print the JSON Schema of judge files")
    validate = commands.add_parser(
        "validate",
        help="check a judge file without building it (imports nothing)",
        description="Check a judge file against the schema, importing nothing; list the code it names.",
    )
    validate.add_argument("judge", metavar="SPEC", help="the judge file (YAML or JSON)")
    from langchain_jev.cli.judges import add_parser

    add_parser(commands)
    judge = commands.add_parser(
        "judge",
        help="run a judge file over a dataset",
        description=(
            "Run a judge file over DATA (JSONL, a JSON array, or CSV), one result line per row.\n"
            "Columns question/user_question, answer/assistant_answer, expected/expected_output,\n"
            "context/supporting_context and tool_calls feed the judge input (--question-field and\n"
            "the like name other columns); 'id' names the row; every other column becomes a state\n"
            "field of its own name. --out is written by one run at a time; its first line records\n"
            "the judge, and --resume continues only the same judge."
        ),
        epilog=(
            "environment:\n"
            "  TYPESAFE_API_KEY        the API key for Jev (needed unless --model names a chat model)\n"
            "  TYPESAFE_BASE_URL       the server, when --base-url is not given\n"
            "  TYPESAFE_DEFAULT_MODEL  the Jev model, when --model is not given\n\n"
            + _exit_codes_epilog()
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    judge.add_argument("data", metavar="DATA", help="the dataset: .jsonl, .json or .csv")
    judge.add_argument(
        "--judge",
        required=True,
        metavar="SPEC",
        help="the judge file (YAML or JSON), or a prebuilt judge's name (see `langchain-jev judges`)",
    )
    judge.add_argument(
        "--format", choices=("jsonl", "json", "csv"), help="DATA's format (default: by extension)"
    )
    judge.add_argument(
        "--allow-code",
        metavar="MODULE",
        nargs="?",
        const="",
        action="append",
        help=(
            "run code the judge file names (call: conditions, feedback_renderer): alone, any "
            "module; with MODULE, only that module and those below it (repeatable)"
        ),
    )
    names = judge.add_argument_group("columns")
    for part in ("question", "answer", "expected", "context", "tool-calls"):
        names.add_argument(
            f"--{part}-field", metavar="NAME", help=f"column of the {part.replace('-', ' ')}"
        )
    names.add_argument(
        "--id-field", metavar="NAME", default="id", help="column naming the row (default: id)"
    )
    names.add_argument(
        "--ignore-field",
        metavar="NAME",
        action="append",
        default=[],
        help="a column to leave out of the state (repeatable)",
    )
    model = judge.add_argument_group("decision model")
    model.add_argument(
        "--model",
        metavar="MODEL",
        help="a Jev model name (default: TYPESAFE_DEFAULT_MODEL or jev-latest), or provider:model "
        "for a chat model (e.g. openai:gpt-4o-mini; needs langchain-jev[middleware])",
    )
    model.add_argument(
        "--base-url",
        type=_base_url,
        metavar="URL",
        help="a Jev-compatible server, http(s)://host[:port] (default: TYPESAFE_BASE_URL)",
    )
    model.add_argument(
        "--timeout", type=_positive_float, metavar="SECONDS", help="per HTTP operation"
    )
    model.add_argument(
        "--max-retries", type=_non_negative_int, metavar="N", help="retries per request"
    )
    model.add_argument(
        "--cache", metavar="PATH", help="answer repeated requests from this SQLite file"
    )
    run = judge.add_argument_group("running")
    run.add_argument(
        "--concurrency", type=_positive_int, default=8, metavar="N", help="rows judged at once (8)"
    )
    run.add_argument(
        "--rate-limit", type=_positive_float, metavar="PER_SECOND", help="requests per second at most"
    )
    run.add_argument(
        "--workers",
        type=_workers,
        default=None,
        metavar="N",
        help="processes judging rows, each with its share of --concurrency; 1 judges in this "
        "process; auto (the default) starts one per 32 rows at once and per 500 rows to judge, "
        "at most one per CPU",
    )
    run.add_argument("--out", metavar="PATH", help="write one JSON line per row here ('-': stdout)")
    run.add_argument(
        "--resume", action="store_true", help="keep the rows already in --out, judge the rest"
    )
    run.add_argument(
        "--fail-under",
        type=_rate,
        metavar="RATE",
        help="exit 1 when the overall pass rate is under RATE: a fraction from 0 to 1 or a "
        "percentage (80 and 0.8 both mean 80%%; 1 means 100%%, write 1%% for one percent)",
    )
    run.add_argument("--strict", action="store_true", help="stop at the first bad row")
    run.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local (default): this machine; ray: a Ray cluster reads, judges and writes the rows "
        "(needs langchain-jev[ray]; DATA may also be Parquet, --out PATH.parquet writes Parquet)",
    )
    run.add_argument(
        "--ray-address", metavar="ADDR", help="the Ray cluster to join (default: a local one)"
    )
    run.add_argument("--quiet", action="store_true", help="no progress display")
    run.add_argument("--html", metavar="REPORT", help="write a self-contained HTML report here")
    from langchain_jev.cli import calibrate, rejudge

    rejudge.add_parser(commands, _rate)
    calibrate.add_parser(commands, judge, _rate, _positive_int)
    return parser


def _exit_codes_epilog() -> str:
    import textwrap

    lines = ["exit codes:"]
    for code, meaning in EXIT_CODES.items():
        lines.extend(textwrap.wrap(meaning, 78, initial_indent=f"  {code:<4}", subsequent_indent=" " * 6))
    return "\n".join(lines)


def _version() -> str:
    from langchain_jev import __version__

    return __version__


# --------------------------------------------------------------------------- judge


def _judge(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    warnings.filterwarnings("ignore", message=".*is in beta.*")
    if args.resume and (not args.out or args.out == "-"):
        parser.error("--resume needs --out PATH (the results file to continue)")
    if args.html and (not args.out or args.out == "-"):
        parser.error("--html needs --out PATH (the report is drawn from the results file)")
    from langchain_jev.cli.pool import WorkerSetup, prestart

    prestart(args.workers, args.concurrency)  # workers' imports load while this process's do

    from langchain_jev.cli.fingerprint import judge_description
    from langchain_jev.cli.model import build_model, model_identity, model_problem
    from langchain_jev.cli.pacing import RateLimiter
    from langchain_jev.cli.readers import DatasetError, detect_format
    from langchain_jev.cli.run import RunOptions, run
    from langchain_jev.errors import JevConfigurationError
    from langchain_jev.spec import JudgeSpecError, load_spec

    err = sys.stderr
    try:
        spec = load_spec(args.judge)
    except JudgeSpecError as error:
        return bad_input(err, "the judge file is invalid:\n  " + "\n  ".join(error.messages()))
    if args.engine == "ray" or args.ray_address:
        from langchain_jev.ray.command import judge_on_ray

        if args.html and str(args.out).endswith(".parquet"):
            parser.error("--html is drawn from a results file: give --out PATH.jsonl with --engine ray")
        code = judge_on_ray(args, spec, err)
        if args.html and code in (EXIT_OK, EXIT_BELOW_THRESHOLD, EXIT_MODEL_ERRORS):
            from langchain_jev.cli.calibrate import write_judge_report

            if not write_judge_report(args.html, args.judge, args.out, err, _allow_code(args.allow_code)):
                return EXIT_BAD_INPUT
        return code
    try:
        if not os.path.isfile(args.data):
            raise DatasetError(f"cannot read {args.data}: no such file")
        fmt = detect_format(args.data, args.format)
    except DatasetError as error:
        return bad_input(err, str(error))
    settings = model_settings(args)
    try:
        limiter = RateLimiter(args.rate_limit) if args.rate_limit is not None else None
        model, closers = build_model(settings, limiter)
        judge = spec.build(model, allow_code=_allow_code(args.allow_code))
    except JudgeSpecError as error:
        return bad_input(err, "the judge file is invalid:\n  " + "\n  ".join(error.messages()))
    except JevConfigurationError as error:
        return bad_input(err, str(error))
    except (ImportError, ValueError) as error:  # a chat model string its provider cannot serve
        return bad_input(err, model_problem(str(args.model), error))
    model_name, endpoint = model_identity(model, settings)
    fields = field_map(args)
    options = RunOptions(
        data=args.data,
        fmt=fmt,
        fields=fields,
        required=spec.required_fields(),
        concurrency=args.concurrency,
        out=args.out,
        resume=args.resume,
        strict=args.strict,
        progress=not args.quiet,
        workers=args.workers,
        rate_limit=args.rate_limit,
        judge=judge_description(spec, model_name),
        endpoint=endpoint or model_name,
    )
    setup = WorkerSetup.of(spec, settings, fields, options.required, args.rate_limit)
    to_file = bool(args.out and args.out != "-")
    try:
        result = run(judge, options, err, setup=setup, closers=closers)
    except KeyboardInterrupt:
        resume = " (run again with --resume to finish)" if to_file else ""
        err.write(f"\n{_PROG}: interrupted{resume}\n")
        err.flush()
        return EXIT_INTERRUPTED
    if result.pipe_closed:
        _silence_stdout()
    if result.tally.rows or result.bad_rows or not (result.fatal or result.broken):
        _report(result, args.fail_under, err if args.out == "-" else sys.stdout)
    if args.html and (result.tally.rows or not result.fatal):
        from langchain_jev.cli.calibrate import write_judge_report

        if not write_judge_report(args.html, args.judge, args.out, err, _allow_code(args.allow_code)):
            return EXIT_BAD_INPUT
    if result.fatal:
        return bad_input(err, result.fatal)
    if result.broken:
        resume = ": run again with --resume to finish" if to_file and result.resumable else ""
        err.write(f"{_PROG}: error: {result.broken}{resume}\n")
        err.flush()
        return EXIT_MODEL_ERRORS
    return exit_code(result.bad_rows, result.tally.pass_rate, args.fail_under, result.tally.errors)


def _allow_code(given: Sequence[str] | None) -> bool | list[str]:
    """``--allow-code`` alone trusts any module; with names, those modules."""
    if not given:
        return False
    return True if "" in given else list(given)


def _validate(path: str) -> int:
    from langchain_jev.spec import JudgeSpecError, load_spec
    from langchain_jev.spec.code import code_references

    try:
        spec = load_spec(path)
    except JudgeSpecError as error:
        return bad_input(sys.stderr, "the judge file is invalid:\n  " + "\n  ".join(error.messages()))
    sys.stdout.write(f"{path}: a valid judge file with {len(spec.criteria)} criteria\n")
    for where, _, reference in code_references(spec):
        sys.stdout.write(f"  {where} names code {reference!r} (runs only with --allow-code)\n")
    return EXIT_OK


def _report(result: RunResult, fail_under: float | None, stream: TextIO) -> None:
    """The table and the summary; a reader that went away (``| head``) is not an error of the run."""
    from langchain_jev.cli.report import format_table, summary_lines

    try:
        stream.write(format_table(result.tally) + "\n\n")
        for line in summary_lines(result.tally, bad_rows=result.bad_rows, fail_under=fail_under):
            stream.write(line + "\n")
        stream.flush()
    except BrokenPipeError:
        if stream is sys.stdout:
            _silence_stdout()


def model_settings(args: argparse.Namespace) -> ModelSettings:
    """The decision model the ``judge`` command's options describe (the key comes from the environment)."""
    from langchain_jev.cli.model import ModelSettings

    return ModelSettings(
        model=args.model,
        base_url=args.base_url,
        timeout=args.timeout,
        max_retries=args.max_retries,
        cache=args.cache,
        concurrency=args.concurrency,
    )


def field_map(args: argparse.Namespace) -> FieldMap:
    """Which columns the ``judge`` command's options say hold each part of the judge input."""
    from langchain_jev.cli.rows import FieldMap

    return FieldMap.of(
        question=args.question_field,
        answer=args.answer_field,
        expected=args.expected_field,
        context=args.context_field,
        tool_calls=args.tool_calls_field,
        id_field=args.id_field,
        ignored=args.ignore_field,
    )


def exit_code(bad_rows: int, pass_rate: float | None, fail_under: float | None, errors: int) -> int:
    """The exit code of a finished run: bad input, then the threshold, then model errors.

    Example:
        >>> exit_code(0, 0.75, 0.8, 0), exit_code(1, 1.0, None, 0), exit_code(0, 0.9, 0.8, 2)
        (1, 2, 3)

    """
    if bad_rows:
        return EXIT_BAD_INPUT
    if fail_under is not None and (pass_rate is None or pass_rate < fail_under):
        return EXIT_BELOW_THRESHOLD
    if errors:
        return EXIT_MODEL_ERRORS
    return EXIT_OK


def bad_input(stream: TextIO, message: str) -> int:
    """Say ``message`` on ``stream`` as the command's one error line; return the bad-input exit code."""
    stream.write(f"{_PROG}: error: {message}\n")
    stream.flush()
    return EXIT_BAD_INPUT

