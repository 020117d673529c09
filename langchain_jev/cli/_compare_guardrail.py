"""``langchain-jev compare A B`` when A and B are results files of ``guardrail-eval``.

`guardrail_compare` reads both headers: two judge runs are left to the judge
comparison (it returns None), a judge run beside a guardrail run is refused naming
both files, and two guardrail runs are compared
(`langchain_jev.compare._guardrail.compare_guardrail_files`): the table printed,
``--json`` and ``--html`` written as for judge runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from typing import Any, TextIO

__all__ = ["guardrail_compare"]

WriteFigures = Callable[[argparse.Namespace, Mapping[str, Any], TextIO, Callable[[], None]], "int | None"]
"""``compare``'s writer of ``--json`` (the figures) and ``--html`` (drawn by the callable it is given)."""


def guardrail_compare(
    args: argparse.Namespace, stdout: TextIO, stderr: TextIO, write_figures: WriteFigures
) -> int | None:
    """Compare two ``guardrail-eval`` results files; None when neither is one (a judge comparison)."""
    from langchain_jev._errors import ResultsError
    from langchain_jev.compare._guardrail import (
        GUARDRAIL,
        JUDGE,
        compare_guardrail_files,
        mixed_kinds,
        results_kind,
    )
    from langchain_jev.datasets._exit_codes import EXIT_OK, bad_input
    from langchain_jev.datasets._stored import read_header

    try:
        kinds = (results_kind(read_header(args.a)), results_kind(read_header(args.b)))
    except ResultsError:
        return None  # the judge comparison says why a file cannot be read
    if kinds == (JUDGE, JUDGE):
        return None
    if kinds != (GUARDRAIL, GUARDRAIL):
        return bad_input(
            stderr, f"cannot compare {args.a} with {args.b}: {mixed_kinds((args.a, args.b), kinds)}"
        )
    if args.judge or args.out:
        return bad_input(
            stderr, f"--judge and --out compare answers head to head; {GUARDRAIL} results hold none"
        )
    try:
        compared = compare_guardrail_files(args.a, args.b, on=args.on, only_shared=args.only_shared)
    except ResultsError as error:  # a ComparisonError too: different datasets, no dataset named
        return bad_input(stderr, f"cannot compare {args.a} with {args.b}: {error}")
    stdout.write(f"A: {args.a}\nB: {args.b}\n\n{compared.table(flips=max(0, args.flips))}\n")
    stdout.flush()

    def draw() -> None:
        from langchain_jev.report._guardrail_compare_page import write_guardrail_comparison

        write_guardrail_comparison(args.html, compared, f"compare: {args.a} -> {args.b}")

    code = write_figures(args, compared.to_dict(), stderr, draw)
    return EXIT_OK if code is None else code
