"""``langchain-jev guardrail-eval DATA --out PATH``: measure a guardrail's battery on labelled rows.

`add_parser` adds the command and its options; `guardrail_eval_command` parses
them into a `HazardBattery` and hands it to
`langchain_jev.guardrails.quality.guardrail_eval`, which runs it
through the dataset run (results file, resume, lock, progress) and measures it;
this module prints the table (`langchain_jev.guardrails.quality._tables`) and
writes what was asked (``--json``, ``--suggest``'s thresholds).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from langchain_jev.cli._arguments import (
    add_command,
    add_format_option,
    add_html_option,
    add_json_option,
    add_model_options,
    add_out_option,
    add_pacing_options,
    add_quiet_option,
    add_repeatable,
    add_resume_option,
    add_strict_option,
    html_unavailable,
)
from langchain_jev.datasets._exit_codes import (
    EXIT_INTERRUPTED,
    EXIT_MODEL_ERRORS,
    EXIT_OK,
    PROG,
    bad_input,
)
from langchain_jev.datasets._paths import FileRole, clash

__all__ = ["add_parser", "guardrail_eval_command"]


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``guardrail-eval`` subcommand to the subparsers; return its parser."""
    parser = add_command(
        commands,
        "guardrail-eval",
        guardrail_eval_command,
        help="measure a guardrail on labelled rows: catch rate, false refusals, time per check",
        description=(
            "Run a hazard battery over DATA (JSONL, JSON or CSV), one request per row, and report\n"
            "per category and overall: ROC AUC, precision, recall and false-refusal rate at the\n"
            "battery's thresholds and the presets', precision at recall 0.8/0.9/0.95, recall at 1%\n"
            "false-positive rate, and P50/P95/P99 time per check. Each row holds the text judged\n"
            "(--text-field, or a conversation under 'messages') and a label: safe, unsafe (with\n"
            "--categories-field) or the categories it violates. --out is the results file; --resume\n"
            "finishes a stopped run of the same battery."
        ),
    )
    parser.add_argument("data", metavar="DATA", help="the labelled rows: .jsonl, .json or .csv")
    add_format_option(parser)
    battery = parser.add_argument_group("battery")
    battery.add_argument(
        "--side",
        choices=("input", "output", "tool_results"),
        help="the side judged (default: the one the rows' side column names, else input)",
    )
    battery.add_argument(
        "--categories", metavar="NAMES", help="comma-separated names or codes (default: all)"
    )
    battery.add_argument("--strictness", choices=("lenient", "balanced", "strict"), default="balanced")
    add_repeatable(
        battery, "--threshold", "NAME=P", "a category's own threshold in place of the preset's (repeatable)"
    )
    battery.add_argument(
        "--thresholds", metavar="FILE", help="per-category thresholds: a --suggest-out file, or {name: p}"
    )
    columns = parser.add_argument_group("columns")
    columns.add_argument("--text-field", default="text", metavar="NAME", help="what is judged (text)")
    columns.add_argument("--label-field", default="label", metavar="NAME", help="the label (label)")
    columns.add_argument("--categories-field", default="categories", metavar="NAME", help="(categories)")
    columns.add_argument("--id-field", default="id", metavar="NAME", help="the row's name (id)")
    columns.add_argument("--side-field", default="side", metavar="NAME", help="the row's side (side)")
    add_model_options(parser)
    run = parser.add_argument_group("running")
    add_pacing_options(run)
    add_out_option(run, "the results file, one JSON line per row (needed)")
    run.add_argument(
        "--from-shadow",
        action="store_true",
        help="DATA is a shadow file (shadow_recorder) with labels added: measure its recorded "
        "probabilities, with no model and no request",
    )
    add_resume_option(run)
    add_strict_option(run)
    add_quiet_option(run)
    add_json_option(run, "write every figure as JSON here", "PATH")
    add_html_option(run, "write an HTML report: curves per category, false refusals, misses")
    run.add_argument(
        "--suggest",
        metavar="TARGET",
        help="suggest per-category thresholds for frr=RATE (false refusals at most) or recall=RATE",
    )
    run.add_argument("--suggest-out", metavar="PATH", help="write the suggested thresholds here (JSON)")
    return parser


def _thresholds(args: argparse.Namespace) -> dict[str, float]:
    """The per-category thresholds given (``--thresholds`` file first, ``--threshold`` over it)."""
    given: dict[str, float] = {}
    if args.thresholds:
        with open(args.thresholds, encoding="utf-8") as handle:
            data = json.load(handle)
        table = data.get("thresholds", data) if isinstance(data, dict) else None
        if not isinstance(table, dict):
            raise ValueError(f"--thresholds {args.thresholds}: not an object of category: threshold")
        given.update(table)
    for item in args.threshold:
        name, _, value = item.partition("=")
        try:
            given[name.strip()] = float(value)
        except ValueError:
            raise ValueError(f"--threshold {item!r} is not NAME=P (e.g. hate=0.4)") from None
    return given


def guardrail_eval_command(args: argparse.Namespace) -> int:
    """Run ``guardrail-eval`` with parsed arguments; return the exit code."""
    from langchain_jev._errors import DatasetError, JevConfigurationError, ResultsError
    from langchain_jev.datasets._model import build_model, model_problem
    from langchain_jev.datasets._options import model_settings
    from langchain_jev.datasets._pacing import RateLimiter
    from langchain_jev.datasets._readers import detect_format
    from langchain_jev.guardrails._battery import HazardBattery
    from langchain_jev.guardrails.quality._evaluate import Columns, guardrail_eval, sides_in
    from langchain_jev.guardrails.quality._labels import choose_side
    from langchain_jev.guardrails.quality._thresholds import Target

    err = sys.stderr
    unavailable = html_unavailable(args.html)
    if unavailable:  # before any row is judged
        return bad_input(err, unavailable)
    inputs = [FileRole("DATA", args.data), FileRole("--thresholds", args.thresholds)]
    outputs = [
        FileRole("--out", args.out),
        FileRole("--json", args.json),
        FileRole("--suggest-out", args.suggest_out),
    ]
    outputs.append(FileRole("--cache", args.cache))
    problem = clash([i for i in inputs if i.path], [o for o in outputs if o.path])
    if problem is not None:
        return bad_input(err, problem)
    try:
        target = Target.parse(args.suggest) if args.suggest else None
        thresholds = _thresholds(args)
    except (ValueError, OSError) as error:
        return bad_input(err, str(error))
    if args.from_shadow:
        return _from_shadow(args, thresholds, target)
    if not args.out or args.out == "-":
        return bad_input(err, "--out PATH is needed: guardrail-eval measures the results it writes")
    try:
        limiter = RateLimiter(args.rate_limit) if args.rate_limit is not None else None
        model, closers = build_model(model_settings(args), limiter)
        categories = [c.strip() for c in args.categories.split(",")] if args.categories else None
        found = sides_in(args.data, detect_format(args.data, args.format), Columns(side=args.side_field))
        battery = HazardBattery(
            choose_side(found, args.side),
            categories=categories,
            strictness=args.strictness,
            model=model,
            thresholds=thresholds,
        )
    except (ValueError, OSError, JevConfigurationError, DatasetError) as error:
        return bad_input(err, f"{args.data}: {error}" if isinstance(error, ValueError) else str(error))
    except ImportError as error:
        return bad_input(err, model_problem(str(args.model), error, named_by_file=False))
    columns = Columns(
        args.text_field, args.label_field, args.categories_field, args.id_field or None, args.side_field
    )
    try:
        evaluated = guardrail_eval(
            args.data,
            battery,
            args.out,
            columns=columns,
            fmt=args.format,
            resume=args.resume,
            concurrency=args.concurrency,
            progress=not args.quiet,
            strict=args.strict,
            stderr=err,
            run_description={"dataset": args.data, "format": args.format},
            closers=closers,
        )
    except KeyboardInterrupt:
        err.write(f"\n{PROG}: interrupted (run again with --resume to finish)\n")
        return EXIT_INTERRUPTED
    except (DatasetError, ResultsError, OSError) as error:
        return bad_input(err, str(error))
    run = evaluated.run
    if run is not None and run.fatal:
        return bad_input(err, run.fatal)
    _say(args, evaluated.quality, evaluated.label_problems, target)
    if run is not None and run.broken:
        err.write(f"{PROG}: error: {run.broken}: run again with --resume to finish\n")
        return EXIT_MODEL_ERRORS
    return EXIT_OK


def _from_shadow(args: argparse.Namespace, thresholds: dict[str, float], target: Any) -> int:
    """``--from-shadow``: measure a labelled shadow file from its recorded probabilities."""
    from langchain_jev.guardrails.quality._shadow import measure_shadow

    try:
        quality, problems = measure_shadow(args.data, thresholds or None)
    except (ValueError, OSError) as error:
        return bad_input(sys.stderr, str(error))
    _say(args, quality, problems, target)
    return EXIT_OK


def _say(args: argparse.Namespace, quality: Any, problems: list[str], target: Any) -> None:
    """Print the table and the rows left out; write ``--json`` and the suggested thresholds."""
    from langchain_jev.guardrails.quality._tables import format_quality, format_suggestion
    from langchain_jev.guardrails.quality._thresholds import suggest_thresholds

    print(format_quality(quality))
    for line in problems[:20]:
        sys.stderr.write(f"{PROG}: warning: {line}\n")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(quality.to_dict(), handle, indent=2, allow_nan=False)
    if args.html:
        from langchain_jev.report._guardrail_page import write_guardrail_report

        write_guardrail_report(args.html, quality, f"guardrail-eval: {args.data}")
    if target is not None:
        suggestion = suggest_thresholds(quality, target)
        print("\n" + format_suggestion(suggestion))
        if args.suggest_out:
            data = {"side": quality.direction, "strictness": args.strictness, **suggestion.to_dict()}
            with open(args.suggest_out, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2, allow_nan=False)
