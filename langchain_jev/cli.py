"""The ``langchain-jev`` command line: run a judge file over a dataset, or print the judge schema.

Example:
    langchain-jev judge rows.jsonl --judge judge.yaml --out results.jsonl --fail-under 0.8

Exit codes: 0 when all went well; 1 when the overall pass rate is under
``--fail-under``; 2 on bad input (an unreadable or invalid file, a row missing a
field the judge needs, changed data on ``--resume``); 3 when some rows could not
be judged because the decision model failed (they are recorded as errors and
count as not passed). A bad input outranks the pass rate, which outranks errors.

"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import math
import os
import sys
import warnings
from collections.abc import Sequence
from typing import Any, TextIO

__all__ = ["EXIT_BAD_INPUT", "EXIT_BELOW_THRESHOLD", "EXIT_MODEL_ERRORS", "EXIT_OK", "main"]

EXIT_OK = 0
"""Every row was judged and the pass rate is not under ``--fail-under``."""
EXIT_BELOW_THRESHOLD = 1
"""The overall pass rate is under ``--fail-under``."""
EXIT_BAD_INPUT = 2
"""Bad input: an unreadable or invalid file, a row missing fields the judge needs."""
EXIT_MODEL_ERRORS = 3
"""Some rows could not be judged: the decision model failed for them."""
EXIT_INTERRUPTED = 130

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
    if args.command == "schema":
        from langchain_jev.spec import judge_schema

        sys.stdout.write(json.dumps(judge_schema(), indent=2) + "\n")
        return EXIT_OK
    if args.command == "judge":
        return _judge(args, parser)
    parser.print_help(sys.stderr)
    return EXIT_BAD_INPUT


# --------------------------------------------------------------------------- arguments


def _rate(text: str) -> float:
    try:
        value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (or 0% and 100%), got {text}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


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
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("schema", help="print the JSON Schema of judge files")
    judge = commands.add_parser(
        "judge",
        help="run a judge file over a dataset",
        description=(
            "Run a judge file over DATA (JSONL, a JSON array, or CSV), one result line per row. "
            "Columns question/user_question, answer/assistant_answer, expected/expected_output, "
            "context/supporting_context and tool_calls feed the judge input; 'id' names the row; "
            "every other column becomes a state field of its own name."
        ),
        epilog=(
            "exit codes: 0 ok; 1 pass rate under --fail-under; 2 bad input (unreadable or "
            "invalid file, a row missing fields the judge needs); 3 some rows could not be "
            "judged (decision model errors)"
        ),
    )
    judge.add_argument("data", metavar="DATA", help="the dataset: .jsonl, .json or .csv")
    judge.add_argument(
        "--judge", required=True, metavar="SPEC", help="the judge file (YAML or JSON)"
    )
    judge.add_argument(
        "--format", choices=("jsonl", "json", "csv"), help="DATA's format (default: by extension)"
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
        "--base-url", metavar="URL", help="a Jev-compatible server (default: TYPESAFE_BASE_URL)"
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
    run.add_argument("--out", metavar="PATH", help="write one JSON line per row here ('-': stdout)")
    run.add_argument(
        "--resume", action="store_true", help="keep the rows already in --out, judge the rest"
    )
    run.add_argument(
        "--fail-under",
        type=_rate,
        metavar="RATE",
        help="exit 1 when the overall pass rate is under RATE (0-1, or a percentage)",
    )
    run.add_argument("--strict", action="store_true", help="stop at the first bad row")
    run.add_argument("--quiet", action="store_true", help="no progress display")
    return parser


# --------------------------------------------------------------------------- judge


def _judge(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    warnings.filterwarnings("ignore", message=".*is in beta.*")
    from langchain_jev.cli_readers import DatasetError, detect_format
    from langchain_jev.cli_report import format_table, summary_lines
    from langchain_jev.cli_rows import FieldMap
    from langchain_jev.cli_run import RunOptions, RunResult, run_dataset
    from langchain_jev.errors import JevConfigurationError
    from langchain_jev.spec import JudgeSpecError, load_spec

    if args.resume and (not args.out or args.out == "-"):
        parser.error("--resume needs --out PATH (the results file to continue)")
    err = sys.stderr
    try:
        spec = load_spec(args.judge)
    except JudgeSpecError as error:
        return _fail(err, "the judge file is invalid:\n  " + "\n  ".join(error.messages()))
    try:
        if not os.path.isfile(args.data):
            raise DatasetError(f"cannot read {args.data}: no such file")
        fmt = detect_format(args.data, args.format)
    except DatasetError as error:
        return _fail(err, str(error))
    try:
        model, closers = _model(args)
        judge = spec.build(model)
    except JudgeSpecError as error:
        return _fail(err, "the judge file is invalid:\n  " + "\n  ".join(error.messages()))
    except JevConfigurationError as error:
        return _fail(err, str(error))
    except (ImportError, ValueError) as error:  # a chat model string its provider cannot serve
        return _fail(err, f"--model {args.model}: {str(error).strip().splitlines()[0]}")
    options = RunOptions(
        data=args.data,
        fmt=fmt,
        fields=FieldMap.of(
            question=args.question_field,
            answer=args.answer_field,
            expected=args.expected_field,
            context=args.context_field,
            tool_calls=args.tool_calls_field,
            id_field=args.id_field,
            ignored=args.ignore_field,
        ),
        required=spec.required_fields(),
        concurrency=args.concurrency,
        out=args.out,
        resume=args.resume,
        strict=args.strict,
        progress=not args.quiet,
    )

    async def go() -> RunResult:
        try:
            return await run_dataset(judge, options, err)
        finally:
            for close in closers:
                await _close(close)

    try:
        result = asyncio.run(go())
    except KeyboardInterrupt:
        resume = " (run again with --resume to finish)" if args.out and args.out != "-" else ""
        err.write(f"\n{_PROG}: interrupted{resume}\n")
        return EXIT_INTERRUPTED
    if result.tally.rows or result.bad_rows or not result.fatal:
        report = err if args.out == "-" else sys.stdout
        report.write(format_table(result.tally) + "\n\n")
        for line in summary_lines(result.tally, bad_rows=result.bad_rows, fail_under=args.fail_under):
            report.write(line + "\n")
        report.flush()
    if result.fatal:
        return _fail(err, result.fatal)
    return exit_code(result.bad_rows, result.tally.pass_rate, args.fail_under, result.tally.errors)


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


def _model(args: argparse.Namespace) -> tuple[Any, list[Any]]:
    """The decision model the options describe, and what to close after the run."""
    from langchain_jev.errors import JevConfigurationError

    name: str | None = args.model
    provider, _, rest = (name or "").partition(":")
    closers: list[Any] = []
    model: Any
    if name and rest and provider not in ("jev", "typesafe"):
        if args.base_url:
            raise JevConfigurationError(
                "--base-url is for Jev-compatible servers; a chat model takes its own settings "
                "from its provider's environment variables"
            )
        from langchain_jev.models.chat import ChatModelDecisionModel

        model = ChatModelDecisionModel(name)
    else:
        from langchain_jev.models.jev import JevDecisionModel

        settings: dict[str, Any] = {}
        if name:
            settings["model"] = rest or provider
        if args.base_url:
            settings["base_url"] = args.base_url
        if args.timeout is not None:
            settings["timeout"] = args.timeout
        if args.max_retries is not None:
            from typesafe_sdk import RetryPolicy

            settings["retry"] = RetryPolicy(max_retries=args.max_retries)
        plain = JevDecisionModel(**settings)  # resolves the key, model and URL, or says what is missing
        client = _async_client(plain, args.concurrency)
        model = JevDecisionModel(**settings, async_client=client)
        closers.extend([client, model])
    if args.rate_limit is not None:
        from langchain_jev.cli_pacing import PacedDecisionModel, RateLimiter

        model = PacedDecisionModel(inner=model, limiter=RateLimiter(args.rate_limit))
    if args.cache:
        from langchain_jev.cache import CachedDecisionModel, SQLiteCache

        cache = SQLiteCache(args.cache)
        closers.append(cache)
        model = CachedDecisionModel(model, cache)
    return model, closers


def _async_client(model: Any, concurrency: int) -> Any:
    """An SDK client like ``model``'s own, with its connections spread over small pools.

    A single pool's bookkeeping grows with its connections; see `cli_transport`.
    """
    from typesafe_sdk import AsyncTypeSafeClient

    from langchain_jev.cli_transport import ShardedTransport, shard_count

    return AsyncTypeSafeClient(
        api_key=model.api_key.get_secret_value(),
        model=model.model,
        base_url=model.base_url,
        timeout=model.timeout,
        retry=model.retry,
        transport=ShardedTransport(shard_count(concurrency), concurrency),
    )


async def _close(thing: Any) -> None:
    method = getattr(thing, "aclose", None) or getattr(thing, "close", None)
    if method is None:
        return
    try:
        result = method()
        if inspect.isawaitable(result):
            await result
    except Exception:  # closing must not hide the run's outcome
        pass


def _fail(stream: TextIO, message: str) -> int:
    stream.write(f"{_PROG}: error: {message}\n")
    stream.flush()
    return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
