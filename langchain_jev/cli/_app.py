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
    run = getattr(args, "run", None)
    if run is None:  # no command named
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return int(run(args, parser) if args.with_parser else run(args))
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
    from langchain_jev.cli._arguments import add_command, exit_codes_epilog, positive_int, rate
    from langchain_jev.cli._validate import schema
    from langchain_jev.cli._validate import validate as validate_file

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Judge model output with typed atomic questions, from the command line.",
        epilog=exit_codes_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_command(
        commands,
        "schema",
        lambda _args: schema(),
        help="print the JSON Schema of judge files",
        epilog=None,
        formatter_class=argparse.HelpFormatter,
    )
    validate = add_command(
        commands,
        "validate",
        lambda args: validate_file(args.judge),
        help="check a judge file as judge would, importing none of its code, asking no model",
        description=(
            "Check a judge file with every check that building the judge runs (a file judge refuses "
            "is refused here, with the same message), importing none of the code it names and asking "
            "no model; list the code it names."
        ),
        epilog=None,
        formatter_class=argparse.HelpFormatter,
    )
    validate.add_argument("judge", metavar="SPEC", help="the judge file (YAML or JSON)")
    from langchain_jev.cli._judges import add_parser

    add_parser(commands)
    judge_parser = judge.add_parser(commands)
    rejudge.add_parser(commands)
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
