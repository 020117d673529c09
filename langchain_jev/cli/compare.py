"""``langchain-jev compare A.jsonl B.jsonl [--html OUT]``: two runs of the same rows, compared.

It joins the two results files row by row (by each row's content key, or with
``--on id`` by its id) and prints, per criterion and overall, both pass rates,
the difference with its paired 95% interval and McNemar's p (and says whether
the move is more than noise), then the rows that flipped, regressions first.
``--html`` writes the same as a page whose flipped rows open to both runs side
by side; ``--json`` every figure. Files of different datasets are refused with
the reason (exit 2); when the judges differ, what differs is named. B is the
newer run: what passed under A and fails under B is a regression.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from langchain_jev.compare.comparison import Comparison
    from langchain_jev.judge import JevJudge

__all__ = ["add_parser", "compare_command", "display_judge"]


def add_parser(commands: Any) -> None:
    """Add the ``compare`` subcommand to the command line's subparsers."""
    parser = commands.add_parser(
        "compare",
        help="compare two results files of the same dataset: pass rates, noise, flipped rows",
        description=__doc__.split("\n\n", 1)[1].replace("\n", " ") if __doc__ else None,
        epilog="exit codes: 0 compared; 2 bad input (unreadable files, different datasets)",
    )
    parser.add_argument("a", metavar="A", help="the earlier results file (of `langchain-jev judge`)")
    parser.add_argument("b", metavar="B", help="the newer results file, of the same dataset")
    parser.add_argument(
        "--on",
        choices=("key", "id"),
        default="key",
        help="join rows by their content key (default: the same rows) or by their id (the same "
        "examples answered again)",
    )
    parser.add_argument(
        "--only-shared",
        action="store_true",
        help="compare the rows the files have in common when each has rows the other lacks",
    )
    parser.add_argument("--html", metavar="OUT", help="write the comparison as a self-contained HTML page")
    parser.add_argument("--json", metavar="OUT", help="write every figure here as JSON")
    parser.add_argument(
        "--flips", type=int, default=20, metavar="N", help="flipped rows listed on the terminal (20)"
    )


def compare_command(
    args: argparse.Namespace, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run ``compare`` with parsed arguments; return the exit code."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    from langchain_jev.compare import compare_files
    from langchain_jev.datasets.exit_codes import EXIT_OK, bad_input
    from langchain_jev.errors import ResultsError

    if (args.html and args.html in (args.a, args.b)) or (args.json and args.json in (args.a, args.b)):
        return bad_input(stderr, "--html and --json must not name a results file being compared")
    try:
        comparison = compare_files(
            args.a, args.b, on=args.on, only_shared=args.only_shared, labels=("A", "B")
        )
    except ResultsError as error:  # a ComparisonError too: different datasets, unnamed rows
        return bad_input(stderr, f"cannot compare {args.a} with {args.b}: {error}")
    stdout.write(f"A: {args.a}\nB: {args.b}\n\n")
    stdout.write(comparison.table(flips=max(0, args.flips)) + "\n")
    stdout.flush()
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as handle:
                json.dump(comparison.to_dict(), handle, indent=2, allow_nan=False, default=str)
                handle.write("\n")
        except OSError as error:
            return bad_input(stderr, f"cannot write {args.json}: {error.strerror or error}")
    if args.html:
        try:
            _write_html(args, comparison)
        except OSError as error:
            return bad_input(stderr, f"cannot write {args.html}: {error.strerror or error}")
        except ImportError as error:
            return bad_input(stderr, f"--html: {error}")
    return EXIT_OK


def _write_html(args: argparse.Namespace, comparison: Comparison) -> None:
    from langchain_jev.report.compare_page import write_comparison
    from langchain_jev.report.provenance import provenance_of
    from langchain_jev.report.run_report import states_for

    headers = comparison.headers
    sides = ([p.a for p in comparison.joined.pairs], [p.b for p in comparison.joined.pairs])
    provenance = tuple(
        provenance_of(header, records, results=path)
        for header, records, path in zip(headers, sides, (args.a, args.b), strict=True)
    )
    judge = display_judge(headers[1]) or display_judge(headers[0])
    flipped = ([f.pair.a for f in comparison.flips], [f.pair.b for f in comparison.flips])
    states = []
    for header, records in zip(headers, flipped, strict=True):
        source = states_for(header)  # the dataset each run recorded in its header
        states.append(source(records) if source is not None else None)
    write_comparison(
        args.html,
        comparison,
        judge,
        title=f"compare: {args.a} -> {args.b}",
        provenance=(provenance[0], provenance[1]),
        states=(states[0], states[1]),
    )


def display_judge(header: Mapping[str, Any] | None) -> JevJudge | None:
    """The judge a results file's header describes, to show thresholds with (None: none, or unbuildable).

    Criteria that name code are left out (nothing is imported to draw a page); their
    findings are still shown as recorded.

    Example:
        >>> header = {"judge": {"model": "m", "options": {"min_confidence": 0.6}, "criteria": [
        ...     {"kind": "noul", "name": "polite", "instructions": "Polite?", "minimum": 0.7}]}}
        >>> [c.name for c in display_judge(header).criteria]
        ['polite']

    """
    from langchain_jev.calibration.replay import NoRequestModel
    from langchain_jev.spec import JudgeSpecError, load_spec

    described = header.get("judge") if header else None
    if not isinstance(described, Mapping):
        return None
    options = dict(described.get("options") or {})
    options.pop("feedback_renderer", None)
    criteria = [c for c in described.get("criteria") or () if isinstance(c, Mapping) and not _names_code(c)]
    try:
        return load_spec({**options, "criteria": criteria}).build(NoRequestModel())
    except (JudgeSpecError, ValueError, TypeError):
        return None


def _names_code(value: Any) -> bool:
    if isinstance(value, Mapping):
        return value.get("call") is not None or any(_names_code(v) for v in value.values())
    if isinstance(value, list):
        return any(_names_code(v) for v in value)
    return False
