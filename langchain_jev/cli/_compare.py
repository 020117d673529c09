"""``langchain-jev compare A.jsonl B.jsonl [--html OUT]``: two runs of the same rows, compared.

It joins the two results files row by row (by each row's content key, or with
``--on id`` by its id) and prints, per criterion and overall, both pass rates,
the difference with its paired 95% interval and McNemar's p (and says whether
the move is more than noise), then the rows that flipped, regressions first.
``--html`` writes the same as a page whose flipped rows open to both runs side
by side; ``--json`` every figure. Files of different datasets are refused with
the reason (exit 2); when the judges differ, what differs is named. B is the
newer run: what passed under A and fails under B is a regression.

With ``--judge SPEC`` it judges the two answers of each row head to head instead,
with the pairwise judge of the judge file's questions (``pairwise_judge(judge)``): each
row's state is read again from the dataset each run recorded, the question,
expected output, documents and shared fields go to the model with both answers,
one request per row (``--concurrency`` at once, the model options of ``judge``),
and it prints per criterion A's wins, B's wins, ties, the undecided (position bias)
and errors with a sign test; ``--out`` keeps each row's comparison as JSON lines,
``--html`` draws them, ``--json`` writes every figure.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from langchain_jev._judge import JevJudge
    from langchain_jev.compare._comparison import Comparison

__all__ = ["add_parser", "compare_command", "display_judge", "head_to_head_command"]


def add_parser(commands: Any) -> None:
    """Add the ``compare`` subcommand to the command line's subparsers."""
    from langchain_jev.cli._arguments import (
        add_allow_code,
        add_command,
        add_html_option,
        add_json_option,
        add_model_options,
        add_out_option,
        add_pacing_options,
    )

    parser = add_command(
        commands,
        "compare",
        compare_command,
        help="compare two results files of the same dataset: pass rates, noise, flipped rows; "
        "or (--judge) their answers head to head",
        description=" ".join(__doc__.split("\n\n")[1:3]).replace("\n", " ") if __doc__ else None,
        epilog="exit codes: 0 compared; 2 bad input (unreadable files, different datasets, a bad judge "
        "file, a row whose state cannot be read); 3 with --judge, rows the model could not compare",
        formatter_class=argparse.HelpFormatter,
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
    add_html_option(parser, "write the comparison as a self-contained HTML page", "OUT")
    add_json_option(parser)
    parser.add_argument(
        "--flips", type=int, default=20, metavar="N", help="flipped rows listed on the terminal (20)"
    )
    pairwise = parser.add_argument_group("head to head (--judge)")
    pairwise.add_argument(
        "--judge",
        metavar="SPEC",
        help="judge each row's two answers head to head with this judge file's questions (or a "
        "prebuilt judge's name), instead of comparing the stored verdicts",
    )
    add_out_option(pairwise, "write each row's comparison here as JSON lines")
    add_pacing_options(pairwise, "rows compared at once")
    add_allow_code(pairwise, "build code the judge file names")
    add_model_options(parser)


def compare_command(
    args: argparse.Namespace, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run ``compare`` with parsed arguments; return the exit code."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    from langchain_jev._errors import ResultsError
    from langchain_jev.compare import compare_files
    from langchain_jev.datasets._exit_codes import EXIT_OK, bad_input

    clash = _output_over_input(args)
    if clash:
        return bad_input(stderr, clash)
    from langchain_jev.cli._compare_guardrail import guardrail_compare

    guarded = guardrail_compare(args, stdout, stderr, _write_figures)  # None: two judge runs
    if guarded is not None:
        return guarded
    if args.judge:
        return head_to_head_command(args, stdout, stderr)
    if args.out:
        return bad_input(stderr, "--out keeps head-to-head comparisons: give --judge SPEC")
    try:
        comparison = compare_files(
            args.a, args.b, on=args.on, only_shared=args.only_shared, labels=("A", "B")
        )
    except ResultsError as error:  # a ComparisonError too: different datasets, unnamed rows
        return bad_input(stderr, f"cannot compare {args.a} with {args.b}: {error}")
    stdout.write(f"A: {args.a}\nB: {args.b}\n\n")
    stdout.write(comparison.table(flips=max(0, args.flips)) + "\n")
    stdout.flush()
    code = _write_figures(args, comparison.to_dict(), stderr, lambda: _write_html(args, comparison))
    return EXIT_OK if code is None else code


def head_to_head_command(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Run ``compare A B --judge SPEC``: each row's two answers judged head to head; return the exit code."""
    import asyncio

    from langchain_jev import JudgeSpecError
    from langchain_jev._errors import JevConfigurationError, ResultsError
    from langchain_jev.compare._answers import read_answer_pairs
    from langchain_jev.compare._head_to_head import acompare_answers, head_to_head_header, write_head_to_head
    from langchain_jev.datasets._exit_codes import EXIT_MODEL_ERRORS, EXIT_OK, bad_input
    from langchain_jev.datasets._fingerprint import judge_description
    from langchain_jev.datasets._local.session import connect_failure
    from langchain_jev.datasets._model import build_model, close_all, model_identity, model_problem
    from langchain_jev.datasets._options import allow_code, model_settings
    from langchain_jev.datasets._pacing import RateLimiter
    from langchain_jev.pairwise._build import pairwise_judge
    from langchain_jev.spec import load_spec

    try:
        spec = load_spec(args.judge)
    except JudgeSpecError as error:
        return bad_input(stderr, "the judge file is invalid: " + "; ".join(error.messages()))
    try:
        joined, pairs, headers = read_answer_pairs(args.a, args.b, on=args.on, only_shared=args.only_shared)
    except ResultsError as error:  # a ComparisonError too: different datasets, a row without its state
        return bad_input(stderr, f"cannot compare the answers of {args.a} and {args.b}: {error}")
    settings = model_settings(args)
    try:
        limiter = RateLimiter(args.rate_limit) if args.rate_limit is not None else None
        model, closers = build_model(settings, limiter, spec.decision_model())
        pairwise = pairwise_judge(spec.build(model, allow_code=allow_code(args.allow_code)))
    except JudgeSpecError as error:
        return bad_input(stderr, "the judge file is invalid: " + "; ".join(error.messages()))
    except JevConfigurationError as error:  # no key, no question to compare on, a refused model
        return bad_input(stderr, str(error))
    except (ImportError, ValueError) as error:  # a chat model string its provider cannot serve
        return bad_input(stderr, model_problem(str(args.model), error))
    model_name, endpoint = model_identity(model, settings)

    async def judged() -> Any:
        try:
            return await acompare_answers(pairwise, pairs, concurrency=args.concurrency, on=joined.on)
        finally:
            await close_all(closers)

    result = asyncio.run(judged())
    failed = [row for row in result.rows if row.verdict is None]
    if pairs and len(failed) == len(pairs) and all(connect_failure({"error": r.error}) for r in failed):
        where = endpoint or model_name or "the decision model"
        stderr.write(
            f"langchain-jev: error: cannot connect to {where}: every request failed ({failed[0].error}); "
            "is the server running, and is --base-url right?\n"
        )
        stderr.flush()
        return EXIT_MODEL_ERRORS
    report = stderr if args.out == "-" else stdout
    report.write(f"A: {args.a}\nB: {args.b}\njudged head to head with {args.judge} ({model_name})\n\n")
    report.write(result.table() + "\n")
    report.flush()
    if args.out:
        header = head_to_head_header(
            judge_description(spec, model_name), (str(args.a), str(args.b)), headers, joined.on
        )
        try:
            if args.out == "-":
                from langchain_jev.datasets.results import record_line

                stdout.write("".join(record_line(row.record()) + "\n" for row in result.rows))
                stdout.flush()
            else:
                write_head_to_head(args.out, result, header)
        except OSError as error:
            return bad_input(stderr, f"cannot write {args.out}: {error.strerror or error}")
    code = _write_figures(
        args, result.to_dict(), stderr, lambda: _write_head_to_head_html(args, result, headers, model_name)
    )
    if code is not None:
        return code
    return EXIT_MODEL_ERRORS if failed else EXIT_OK


def _output_over_input(args: argparse.Namespace) -> str | None:
    """Why an output would be written over an input (None: none would).

    The inputs are both results files, the datasets their headers record, the judge
    file and the cache; files are told apart by identity, not by name.
    """
    from langchain_jev._errors import ResultsError
    from langchain_jev.datasets._stored import read_header

    inputs: list[str] = [args.a, args.b]
    for path in (args.a, args.b):
        try:
            run = (read_header(path) or {}).get("run")
        except ResultsError:
            continue  # said when it is read
        if isinstance(run, Mapping) and isinstance(run.get("dataset_path"), str):
            inputs.append(run["dataset_path"])
    inputs.extend(path for path in (getattr(args, "judge", None), getattr(args, "cache", None)) if path)
    for option in ("--html", "--json", "--out"):
        path = getattr(args, option[2:], None)
        if not path or path == "-":
            continue
        for given in inputs:
            if _same_file(path, given):
                return f"{option} {path} is an input of this comparison ({given}): name another file"
    return None


def _same_file(one: str, other: str) -> bool:
    import os

    try:
        return os.path.samefile(one, other)
    except OSError:
        return os.path.realpath(one) == os.path.realpath(other)


def _write_figures(
    args: argparse.Namespace, figures: Mapping[str, Any], stderr: TextIO, draw: Callable[[], None]
) -> int | None:
    """Write ``--json`` (``figures``), then ``--html`` (``draw()``); the exit code of what failed, or None."""
    from langchain_jev.datasets._exit_codes import bad_input

    if args.json:
        from langchain_jev.datasets._writing import write_atomic

        try:  # whole or not at all: a full disk leaves the previous file
            write_atomic(args.json, json.dumps(figures, indent=2, allow_nan=False, default=str) + "\n")
        except OSError as error:
            return bad_input(stderr, f"cannot write {args.json}: {error.strerror or error}")
    if not args.html:
        return None
    try:
        draw()
    except OSError as error:
        return bad_input(stderr, f"cannot write {args.html}: {error.strerror or error}")
    except ImportError as error:  # what the page needs is not installed
        return bad_input(stderr, f"--html: {error}")
    return None


def _write_head_to_head_html(
    args: argparse.Namespace, result: Any, headers: tuple[Any, Any], model_name: str | None
) -> None:
    from langchain_jev.report._head_to_head_page import write_head_to_head_page
    from langchain_jev.report._provenance import provenance_of

    sides = ([r.pair.pair.a for r in result.rows], [r.pair.pair.b for r in result.rows])
    provenance = tuple(
        provenance_of(header, records, results=path)
        for header, records, path in zip(headers, sides, (args.a, args.b), strict=True)
    )
    write_head_to_head_page(
        args.html,
        result,
        title=f"head to head: {args.a} vs {args.b} with {args.judge}",
        provenance=(provenance[0], provenance[1]),
        judged_by=f"{args.judge} ({model_name})" if model_name else str(args.judge),
    )


def _write_html(args: argparse.Namespace, comparison: Comparison) -> None:
    from langchain_jev.datasets._states import states_for
    from langchain_jev.report._compare_page import write_comparison
    from langchain_jev.report._provenance import provenance_of

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
    from langchain_jev import JudgeSpecError
    from langchain_jev.datasets._header import judge_spec_data
    from langchain_jev.datasets._redecide import NoRequestModel
    from langchain_jev.spec import load_spec

    described = header.get("judge") if header else None
    if not isinstance(described, Mapping):
        return None
    data = judge_spec_data(described)  # a header read back was checked: its judge is a judge description
    data.pop("feedback_renderer", None)
    data["criteria"] = [
        c for c in data.get("criteria") or () if isinstance(c, Mapping) and not _names_code(c)
    ]
    try:
        return load_spec(data).build(NoRequestModel())
    except (JudgeSpecError, ValueError, TypeError):
        return None


def _names_code(value: Any) -> bool:
    if isinstance(value, Mapping):
        return value.get("call") is not None or any(_names_code(v) for v in value.values())
    if isinstance(value, list):
        return any(_names_code(v) for v in value)
    return False
