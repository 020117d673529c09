"""``langchain-jev judges``: list the prebuilt judges, or print one's file to copy and edit.

Example:
    langchain-jev judges
    langchain-jev judges show rag > my_rag.yaml

"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any

from langchain_jev.cli._arguments import add_command

__all__ = ["add_parser", "listing", "run"]


def add_parser(commands: Any) -> None:
    """Add the ``judges`` command (with ``show NAME``) to the command line's subparsers."""
    judges = add_command(
        commands,
        "judges",
        run,
        epilog=None,
        help="list the prebuilt judges, or print one (judges show NAME)",
        description=(
            "The prebuilt judges, each a judge file shipped with the package: pass its name to "
            "`judge --judge NAME`, or print it with `judges show NAME` to copy and edit."
        ),
        formatter_class=argparse.HelpFormatter,
    )
    actions = judges.add_subparsers(dest="action", metavar="ACTION")
    show = actions.add_parser("show", help="print a prebuilt judge's file")
    show.add_argument("name", metavar="NAME", help="the prebuilt judge, e.g. rag")


def run(args: argparse.Namespace) -> int:
    """Run ``judges`` (list) or ``judges show NAME`` (print the file); return the exit code."""
    from langchain_jev._errors import JevConfigurationError
    from langchain_jev.judges._catalog import judge_text

    if getattr(args, "action", None) == "show":
        try:
            text = judge_text(args.name)
        except JevConfigurationError as error:
            sys.stderr.write(f"langchain-jev: error: {error}\n")
            return 2
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return 0
    sys.stdout.write(listing() + "\n")
    return 0


def listing(width: int = 80) -> str:
    """The catalogue as the command prints it: each judge, what it asks, the fields it reads.

    Lines are at most ``width`` columns, so the listing fits a terminal of 80.

    Example:
        >>> for line in listing().splitlines()[:3]:
        ...     print(line)
        rag                  grounded in the context; context relevant; answer relevant;
                             complete against the expected output; citations accurate
                             needs user_question, assistant_answer; reads

    """
    from langchain_jev.judges._catalog import CATALOGUE

    lines: list[str] = []
    column = max(len(entry.name) for entry in CATALOGUE) + 1
    indent = " " * (column + 1)
    for entry in CATALOGUE:
        asks = textwrap.wrap(entry.asks, width - len(indent)) or [""]
        lines.append(f"{entry.name:<{column}} {asks[0]}")
        lines.extend(indent + rest for rest in asks[1:])
        fields = "needs " + ", ".join(entry.needs)
        if entry.reads:
            fields += "; reads " + ", ".join(entry.reads) + " when given"
        lines.extend(textwrap.wrap(fields, width, initial_indent=indent, subsequent_indent=indent + "  "))
    lines.append("")
    lines.append("Run one: langchain-jev judge DATA --judge NAME.")
    lines.append("Copy one: langchain-jev judges show NAME.")
    return "\n".join(lines)
