"""``langchain-jev monitor --project NAME --judge SPEC``: judge a LangSmith project's new runs, once each.

`add_parser` adds the command; `monitor_command` runs one pass of
`langchain_jev.monitor.monitor` with the judge file and the decision model the
options describe (as ``judge`` builds them), then prints the pass's summary.
Lines about single runs (skipped, failed) go to stderr; a ``--dry-run``'s
previews and the summary to stdout. The LangSmith client comes from the
environment (``LANGSMITH_API_KEY``, ``LANGSMITH_ENDPOINT``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from langchain_jev.cli._arguments import (
    add_allow_code,
    add_command,
    add_judge_option,
    add_model_options,
    add_pacing_options,
    exit_codes_epilog,
    invalid_judge_file,
    non_negative_int,
    rate,
)
from langchain_jev.datasets._exit_codes import EXIT_MODEL_ERRORS, EXIT_OK, bad_input
from langchain_jev.datasets._options import allow_code, model_settings

__all__ = ["add_parser", "monitor_command"]


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``monitor`` subcommand to the subparsers; return its parser."""
    parser = add_command(
        commands,
        "monitor",
        monitor_command,
        help="judge a LangSmith project's new traced runs, writing feedback once per run",
        description=(
            "Judge the new root runs of a LangSmith project (or those --filter chooses) with a judge\n"
            "file and write one feedback per criterion plus jev_pass on each. A cursor kept per\n"
            "project and judge makes the next pass start where this one stopped; feedback ids are\n"
            "derived from the judge, the run and the key, so a rerun or a backfill writes nothing new.\n"
            "Runs are read with the inputs/outputs mapping of the LangSmith evaluator and `judge`."
        ),
        epilog=(
            "environment:\n"
            "  LANGSMITH_API_KEY       the LangSmith key (LANGSMITH_ENDPOINT for another server)\n"
            "  TYPESAFE_API_KEY        the API key for Jev (needed unless --model names a chat model)\n"
            "  LANGCHAIN_JEV_STATE_DIR where cursors are kept, when --cursor is not given\n\n"
            + exit_codes_epilog()
        ),
    )
    parser.add_argument("--project", required=True, metavar="NAME", help="the LangSmith tracing project")
    add_judge_option(parser)
    add_allow_code(parser, "run code the judge file names")
    runs = parser.add_argument_group("runs")
    runs.add_argument(
        "--filter", metavar="F", help="a LangSmith filter choosing the runs (default: root runs)"
    )
    runs.add_argument(
        "--since", metavar="T", help="from this time: 2026-01-05, 2026-01-05T08:00Z, or 6h, 7d ago"
    )
    runs.add_argument("--until", metavar="T", help="up to this time (default: a minute ago)")
    runs.add_argument("--sample", type=rate, metavar="R", help="judge this share of runs, chosen by run id")
    runs.add_argument(
        "--threads", action="store_true", help="judge each idle conversation once, as one thread"
    )
    runs.add_argument(
        "--idle", metavar="SPAN", default="15m", help="with --threads: idle after this long (15m)"
    )
    runs.add_argument(
        "--max-runs", type=non_negative_int, metavar="N", help="judge at most N runs in this pass"
    )
    runs.add_argument("--dry-run", action="store_true", help="judge and print the feedback; write nothing")
    runs.add_argument(
        "--cursor", metavar="DIR", help="keep cursors in DIR (default: LANGCHAIN_JEV_STATE_DIR)"
    )
    runs.add_argument("--no-cursor", action="store_true", help="keep no cursor: read the whole window")
    runs.add_argument(
        "--extend-trace-retention", action="store_true", help="let each feedback extend its trace's retention"
    )
    runs.add_argument("--key-prefix", metavar="PREFIX", help="put before every feedback key")
    add_model_options(parser)
    pacing = parser.add_argument_group("pacing")
    add_pacing_options(pacing, "runs judged at once")
    return parser


def monitor_command(args: argparse.Namespace) -> int:
    """Run ``monitor`` with parsed arguments; return the exit code."""
    from langchain_jev import JudgeSpecError
    from langchain_jev._errors import JevConfigurationError
    from langchain_jev.datasets._model import build_model, model_problem
    from langchain_jev.datasets._pacing import RateLimiter
    from langchain_jev.models._secrets import redact
    from langchain_jev.monitor import DEFAULT_CURSOR, MonitorLine, monitor
    from langchain_jev.monitor._window import span
    from langchain_jev.spec import load_spec

    err = sys.stderr
    try:
        spec = load_spec(args.judge)
        limiter = RateLimiter(args.rate_limit) if args.rate_limit is not None else None
        model, _closers = build_model(model_settings(args), limiter, spec.decision_model())
        judge = spec.build(model, allow_code=allow_code(args.allow_code))
    except JudgeSpecError as error:
        return bad_input(err, invalid_judge_file(error))
    except JevConfigurationError as error:
        return bad_input(err, str(error))
    except (ImportError, ValueError) as error:
        return bad_input(err, model_problem(str(args.model or spec.model), error))

    def say(line: MonitorLine) -> None:
        stream = sys.stdout if line.kind == "preview" else err
        stream.write(line.text + "\n")
        stream.flush()

    try:
        summary = monitor(
            judge,
            project=args.project,
            filter=args.filter,
            since=args.since,
            until=args.until,
            sample=args.sample,
            threads=args.threads,
            idle=span(args.idle),
            max_runs=args.max_runs,
            concurrency=args.concurrency,
            dry_run=args.dry_run,
            cursor=None if args.no_cursor else (args.cursor or DEFAULT_CURSOR),
            extend_trace_retention=args.extend_trace_retention,
            key_prefix=args.key_prefix,
            on_line=say,
        )
    except JevConfigurationError as error:
        return bad_input(err, str(error))
    except Exception as error:
        if type(error).__name__ == "LangSmithNotFoundError":
            return bad_input(err, f"no LangSmith project named {args.project!r} (--project)")
        if type(error).__module__.startswith("langsmith"):
            said = redact(f"{type(error).__name__}: {error}").splitlines()[0]
            err.write(f"langchain-jev: error: LangSmith: {said}\n")
            return EXIT_MODEL_ERRORS
        raise
    for line in summary.lines():
        sys.stdout.write(line + "\n")
    sys.stdout.flush()
    return EXIT_MODEL_ERRORS if summary.failed else EXIT_OK
