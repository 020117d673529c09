"""The ``langchain-jev`` command line: the parser of its commands, and ``main``, which dispatches to them.

Example:
    langchain-jev judge rows.jsonl --judge judge.yaml --out results.jsonl --fail-under 0.8
    langchain-jev judge rows.jsonl --judge rag          # a prebuilt judge, by name
    langchain-jev judges                                # the prebuilt judges; judges show rag prints one

Each command lives in a module of its own (`judge`, `judges`, `rejudge`, `calibrate`,
`compare`, `simulate`, `guardrail_eval`, `validate`, `deploy`, `monitor`); this module only
builds the parser from them and runs the one named, turning an interrupt, a closed stdout or
a bug into its exit code (`langchain_jev.datasets._exit_codes`). Nothing imports this module
but the package's entry points (``langchain_jev.cli`` and ``python -m``).

"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from langchain_jev.datasets._exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_MODEL_ERRORS,
    PROG,
    silence_stdout,
)

__all__ = ["main"]


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
            from langchain_jev.cli._validate import schema

            return schema()
        if args.command == "validate":
            from langchain_jev.cli._validate import validate

            return validate(args.judge)
        if args.command == "judge":
            from langchain_jev.cli._judge import judge_command

            return judge_command(args, parser)
        if args.command == "simulate":
            from langchain_jev.cli._simulate import simulate_command

            return simulate_command(args, parser)
        if args.command == "judges":
            from langchain_jev.cli._judges import run

            return run(args)
        if args.command == "rejudge":
            from langchain_jev.cli._rejudge import rejudge

            return rejudge(args)
        if args.command == "calibrate":
            from langchain_jev.cli._calibrate import calibrate_command

            return calibrate_command(args, parser)
        if args.command == "compare":
            from langchain_jev.cli._compare import compare_command

            return compare_command(args)
        if args.command == "guardrail-eval":
            from langchain_jev.cli._guardrail_eval import guardrail_eval_command

            return guardrail_eval_command(args)
        if args.command == "deploy":
            from langchain_jev.cli._deploy import deploy_command

            return deploy_command(args)
        if args.command == "monitor":
            from langchain_jev.cli._monitor import monitor_command

            return monitor_command(args)
    except KeyboardInterrupt:
        sys.stderr.write(f"\n{PROG}: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # stdout's reader went away: nothing more to say there
        silence_stdout()
        return EXIT_MODEL_ERRORS
    except Exception as error:  # a bug: one line, not a traceback (LANGCHAIN_JEV_DEBUG=1 shows it)
        if os.environ.get("LANGCHAIN_JEV_DEBUG"):
            raise
        sys.stderr.write(
            f"{PROG}: internal error: {type(error).__name__}: {error} "
            "(please report it; LANGCHAIN_JEV_DEBUG=1 shows the traceback)\n"
        )
        return EXIT_INTERNAL
    parser.print_help(sys.stderr)
    return EXIT_BAD_INPUT


def _parser() -> argparse.ArgumentParser:
    from langchain_jev.cli import (
        _calibrate as calibrate,
    )
    from langchain_jev.cli import (
        _compare as compare,
    )
    from langchain_jev.cli import (
        _deploy as deploy,
    )
    from langchain_jev.cli import (
        _guardrail_eval as guardrail_eval,
    )
    from langchain_jev.cli import (
        _judge as judge,
    )
    from langchain_jev.cli import (
        _monitor as monitor,
    )
    from langchain_jev.cli import (
        _rejudge as rejudge,
    )
    from langchain_jev.cli import (
        _simulate as simulate,
    )
    from langchain_jev.cli._arguments import exit_codes_epilog, positive_int, rate

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Judge model output with typed atomic questions, from the command line.",
        epilog=exit_codes_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("schema", help="print the JSON Schema of judge files")
    validate = commands.add_parser(
        "validate",
        help="check a judge file as judge would, importing none of its code, asking no model",
        description=(
            "Check a judge file with every check that building the judge runs (a file judge refuses "
            "is refused here, with the same message), importing none of the code it names and asking "
            "no model; list the code it names."
        ),
    )
    validate.add_argument("judge", metavar="SPEC", help="the judge file (YAML or JSON)")
    from langchain_jev.cli._judges import add_parser

    add_parser(commands)
    judge_parser = judge.add_parser(commands)
    rejudge.add_parser(commands, rate)
    calibrate.add_parser(commands, judge_parser, rate, positive_int)
    compare.add_parser(commands)
    simulate.add_parser(commands)
    guardrail_eval.add_parser(commands)
    deploy.add_parser(commands)
    monitor.add_parser(commands)
    return parser


def _version() -> str:
    from langchain_jev import __version__

    return __version__
