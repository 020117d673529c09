"""``langchain-jev calibrate DATA --judge SPEC --label FIELD``: the judge against human labels.

It judges the rows of DATA (as ``judge`` does, with all its options) or reuses
a results file of them (``--results``), reads the labels (``--label FIELD`` for
an overall label that stands in for every criterion, ``--label CRITERION=FIELD``
per criterion), and prints per criterion the calibration figures, the
agreement at the current threshold (and, when a jury judged, each member's beside
the jury's), and a suggested threshold for the
objective (``--target``, ``--max-false-pass``, ``--max-false-fail``), with the
overall verdict's agreement before and after. ``--write-judge`` writes the
judge file with the suggested thresholds (nothing else changed) and prints the
diff; ``--repeat K`` asks the model K times per row (the cache bypassed) and
reports how stable each criterion is; ``--json`` writes every figure;
``--html`` draws the report. Labels are never sent to the model.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from langchain_jev.cli._arguments import add_command, add_json_option, invalid_judge_file

__all__ = ["DEFINITIONS", "add_parser", "calibrate_command"]

DEFINITIONS: dict[str, str] = {
    "n": "rows where the criterion was answered (readable answer, not NOT_APPLICABLE) and labelled",
    "base_rate": "share of those rows that people pass",
    "pass_rate": "share of those rows that the judge passes (the finding does not block the verdict)",
    "auroc": "chance that a row people pass gets a higher pass probability than a row they fail (ties half)",
    "brier": "mean of (pass probability - label)^2, label 1 for pass and 0 for fail",
    "ece": "sum over 10 equal-width probability bins of "
    "(rows in bin / rows) * |share passed by people - mean probability|",
    "accuracy": "share of rows where judge and people agree, at the threshold",
    "kappa": "Cohen's kappa: (observed agreement - chance agreement) / (1 - chance agreement); "
    "null when chance agreement is 1",
    "kappa_interval": "95% percentile bootstrap interval of kappa (rows resampled with replacement; seeded)",
    "false_pass_rate": "of the rows people fail, the share the judge passes",
    "false_fail_rate": "of the rows people pass, the share the judge fails",
    "pass probability": "noul: probability of yes; score: share of probability on levels >= minimum; "
    "choice: share of probability on accepted labels",
    "sweep": "the figures at each threshold: noul minimum 0.00-1.00 by 0.01, score minimum at each level, "
    "min_confidence 0.50-1.00 by 0.05 for choices (and pooled for scores and choices)",
    "flip_rate": "share of the rows answered in every repeat whose outcome (blocks or not) "
    "differs between repeats",
    "mean_variance": "mean over rows of the population variance, over the repeats, of the pass probability",
    "overall": "the overall verdict (passed) against the overall label",
}
"""What every figure of ``--json`` means."""


def add_parser(commands: Any, judge: argparse.ArgumentParser, rate: Any, positive_int: Any) -> None:
    """Add the ``calibrate`` subcommand: the options of ``judge`` and its own."""
    parser = add_command(
        commands,
        "calibrate",
        calibrate_command,
        with_parser=True,
        parents=[judge],
        conflict_handler="resolve",
        help="measure a judge file against human labels and suggest thresholds",
        description=__doc__.split("\n\n", 1)[1].replace("\n", " ") if __doc__ else None,
        epilog="exit codes: 0 ok; 2 bad input (unreadable labels or files); 3 rows could not be judged",
        formatter_class=argparse.HelpFormatter,
    )
    own = parser.add_argument_group("calibration")
    own.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="FIELD|CRITERION=FIELD",
        required=True,
        help="the field of the overall label, or CRITERION=FIELD for one criterion's label (repeatable); "
        "labels are true/false, 1/0, pass/fail, yes/no, or a choice's option",
    )
    own.add_argument(
        "--results", metavar="PATH", help="reuse this results file of DATA instead of judging it"
    )
    own.add_argument(
        "--target", choices=("kappa", "accuracy"), default="kappa", help="what to maximise (kappa)"
    )
    bound = own.add_mutually_exclusive_group()
    bound.add_argument(
        "--max-false-pass",
        type=rate,
        metavar="RATE",
        help="suggest thresholds that pass at most "
        "this share of the rows people fail, failing the fewest rows people pass",
    )
    bound.add_argument(
        "--max-false-fail",
        type=rate,
        metavar="RATE",
        help="suggest thresholds that fail at most "
        "this share of the rows people pass, passing the fewest rows people fail",
    )
    own.add_argument(
        "--write-judge", metavar="NEW", help="write the judge file with the suggested thresholds here"
    )
    own.add_argument(
        "--repeat",
        type=positive_int,
        default=1,
        metavar="K",
        help="ask the model K times per row (cache bypassed) and report stability",
    )
    add_json_option(own)
    own.add_argument("--seed", type=int, default=0, help="seed of the bootstrap interval (0)")
    own.add_argument(
        "--bootstrap", type=positive_int, default=1000, metavar="N", help="bootstrap rounds (1000)"
    )


def calibrate_command(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run ``calibrate`` with parsed arguments; return the exit code (output to the streams current now)."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    from langchain_jev import JudgeSpecError
    from langchain_jev._errors import CalibrationError, DatasetError, RedecideError, ResultsError
    from langchain_jev.calibration._labels import label_records
    from langchain_jev.calibration._measure import build_calibration
    from langchain_jev.cli._arguments import preflight
    from langchain_jev.cli._judge import judge_files
    from langchain_jev.datasets import _strict_json as strict_json
    from langchain_jev.datasets._exit_codes import EXIT_BAD_INPUT, EXIT_MODEL_ERRORS, EXIT_OK, bad_input
    from langchain_jev.datasets._options import allow_code
    from langchain_jev.datasets._paths import FileRole
    from langchain_jev.datasets._redecide import NoRequestModel, read_to_redecide
    from langchain_jev.datasets._stored import read_results
    from langchain_jev.datasets._writing import write_atomic
    from langchain_jev.spec import load_spec

    def fail(message: str) -> int:
        return bad_input(stderr, message)

    inputs, outputs = judge_files(args)
    if args.results:
        inputs.append(FileRole("--results", args.results))
    outputs += [FileRole("--write-judge", args.write_judge), FileRole("--json", args.json)]
    problem = preflight(inputs, outputs, args.html)
    if problem is not None:
        return fail(problem)
    try:
        overall, per_criterion = parse_labels(args.label)
    except CalibrationError as error:
        return fail(str(error))
    try:
        spec = load_spec(args.judge)
        judge = spec.build(NoRequestModel(), allow_code=allow_code(args.allow_code))
    except JudgeSpecError as error:
        return fail(invalid_judge_file(error))
    args.ignore_field = [*args.ignore_field, *([overall] if overall else []), *per_criterion.values()]
    runs: list[list[dict[str, Any]]] = []
    any_errors = False
    with tempfile.TemporaryDirectory(prefix="jev-calibrate-") as scratch:
        try:
            if args.results:
                runs.append(read_to_redecide(args.results, spec).records)
            wanted = max(args.repeat, 1)
            while len(runs) < wanted:
                out = (
                    args.out
                    if (not runs and args.out and args.out != "-")
                    else os.path.join(scratch, f"{len(runs)}.jsonl")
                )
                code = _judge_once(args, parser, out, bypass_cache=args.repeat > 1, first=not runs)
                if code == EXIT_BAD_INPUT:
                    return code
                any_errors = any_errors or code == EXIT_MODEL_ERRORS
                runs.append(read_results(out))
            label_fields = {*([overall] if overall else []), *per_criterion.values()}
            sources, places, data_keys = _dataset_rows(args, label_fields)
            records = runs[0]
            by_key = {key: number for number, known in data_keys.items() for key in known}
            _check_keys(records, data_keys, by_key, args)
            numbers = [_row_number(r, by_key) for r in records]
            labelled_sources = [sources.get(n, {}) for n in numbers]
            where = [places.get(n, f"row {n}") for n in numbers]
            labelled = label_records(
                judge,
                records,
                labelled_sources,
                per_criterion or overall,
                overall if per_criterion else None,
                where=where,
            )
            repeats = _aligned(runs) if len(runs) > 1 else []
            calibration = build_calibration(
                judge, labelled, repeats=repeats, seed=args.seed, rounds=args.bootstrap
            )
            suggestion = calibration.suggest(
                args.target, max_false_pass=args.max_false_pass, max_false_fail=args.max_false_fail
            )
        except (CalibrationError, ResultsError, DatasetError) as error:
            if isinstance(error, RedecideError):
                return fail(f"{args.results}: {error}")
            return fail(str(error))
    _print(calibration, suggestion, stdout)
    if args.write_judge:
        try:
            diff = calibration.write_judge(args.judge, args.write_judge, suggestion)
        except CalibrationError as error:
            return fail(f"--write-judge: {error}")
        except OSError as error:  # the judge file is as it was (or absent): never written in part
            return fail(f"cannot write {args.write_judge}: {error.strerror or error}")
        stdout.write(f"\nwrote {args.write_judge}" + (":\n" + diff if diff else " (no threshold changed)\n"))
    if args.json:
        document = {**calibration.to_dict(suggestion), "definitions": DEFINITIONS}
        try:  # whole or not at all: a full disk leaves the previous file
            write_atomic(args.json, strict_json.dumps(document, indent=2, default=_plain) + "\n")
        except OSError as error:
            return fail(f"cannot write {args.json}: {error.strerror or error}")
    if args.html:
        from langchain_jev.datasets._options import field_map
        from langchain_jev.datasets._states import states_for
        from langchain_jev.report import write_report
        from langchain_jev.report._provenance import provenance_of

        notes: list[str] = []
        try:
            write_report(
                args.html,
                judge,
                runs[0],
                title=f"calibrate: {args.data} with {args.judge}",
                calibration=calibration,
                suggestion=suggestion,
                states=states_for(
                    None, dataset=args.data, fmt=args.format, fields=field_map(args), notes=notes
                ),
                provenance=provenance_of(
                    None, runs[0], dataset=args.data, judge_file=args.judge, results=args.results or args.out
                ),
                notes=notes,
            )
        except OSError as error:
            return fail(f"cannot write {args.html}: {error.strerror or error}")
    stdout.flush()
    return EXIT_MODEL_ERRORS if any_errors else EXIT_OK


def _plain(value: Any) -> Any:
    return str(value)


def parse_labels(items: Sequence[str]) -> tuple[str | None, dict[str, str]]:
    """``--label`` values as the overall label's field and the per-criterion fields.

    Example:
        >>> parse_labels(["human", "polite=polite_ok"])
        ('human', {'polite': 'polite_ok'})

    """
    from langchain_jev._errors import CalibrationError

    overall: str | None = None
    per_criterion: dict[str, str] = {}
    for item in items:
        name, sep, column = item.partition("=")
        if sep:
            if not name.strip() or not column.strip():
                raise CalibrationError(f"--label {item!r}: give CRITERION=FIELD")
            per_criterion[name.strip()] = column.strip()
        elif overall is not None:
            raise CalibrationError(f"--label {item!r}: one overall label only (already {overall!r})")
        else:
            overall = item.strip()
    return overall, per_criterion


def _judge_once(
    args: argparse.Namespace, parser: argparse.ArgumentParser, out: str, *, bypass_cache: bool, first: bool
) -> int:
    from langchain_jev.cli._judge import judge_command

    run = argparse.Namespace(**vars(args))
    run.out, run.html, run.resume = out, None, bool(args.resume and first and out == args.out)
    run.fail_under = None
    if bypass_cache:
        run.cache = None
    if not first:
        run.quiet = True
    return judge_command(run, parser)


def _dataset_rows(
    args: argparse.Namespace, label_fields: set[str]
) -> tuple[dict[int, Mapping[str, Any]], dict[int, str], dict[int, set[str]]]:
    from langchain_jev.datasets._readers import detect_format, read_rows
    from langchain_jev.datasets._rows import source_key

    fmt = detect_format(args.data, args.format)
    sources: dict[int, Mapping[str, Any]] = {}
    places: dict[int, str] = {}
    keys: dict[int, set[str]] = {}
    label = os.path.basename(args.data)
    for raw in read_rows(args.data, fmt):
        if raw.data is None:
            continue
        sources[raw.number] = raw.data
        places[raw.number] = f"{label}:{raw.line}"
        # a row's key covers its labels only if they were in it when it was judged
        unlabelled = {k: v for k, v in raw.data.items() if k not in label_fields}
        keys[raw.number] = {
            source_key(raw.data, from_csv=raw.from_csv),
            source_key(unlabelled, from_csv=raw.from_csv),
        }
    return sources, places, keys


def _check_keys(
    records: Sequence[Mapping[str, Any]],
    keys: Mapping[int, set[str]],
    by_key: Mapping[str, int],
    args: argparse.Namespace,
) -> None:
    from langchain_jev._errors import CalibrationError

    for record in records:
        number = record.get("row")
        if not isinstance(number, int):  # a row judged on Ray: named by its key alone
            number = by_key.get(str(record.get("key")), -1)
        if record.get("key") not in keys.get(number, set()):
            raise CalibrationError(
                f"{args.results or args.out}: row {record.get('row', record.get('key'))} is not a row of "
                f"{args.data}: the results are of other data (or the row changed since it was judged)"
            )


def _row_number(record: Mapping[str, Any], by_key: Mapping[str, int]) -> int:
    """The dataset row of a record: its ``row``, or for a row judged on Ray (no ``row``) its key's row."""
    if isinstance(record.get("row"), int):
        return int(record["row"])
    return by_key.get(str(record.get("key")), 0)


def _aligned(runs: Sequence[Sequence[Mapping[str, Any]]]) -> list[list[Mapping[str, Any]]]:
    def name(record: Mapping[str, Any]) -> str:
        return f"{record.get('row', '')}:{record.get('key')}"

    common = set.intersection(*({name(r) for r in run} for run in runs))
    return [[r for r in sorted(run, key=name) if name(r) in common] for run in runs]


def _print(calibration: Any, suggestion: Any, out: TextIO) -> None:
    out.write("\ncalibration against the labels:\n")
    out.write(calibration.table() + "\n")
    members = calibration.members_table()
    if members:
        out.write(
            "\nthe jury's members against the same labels, each as the judge's only model\n"
            "(at the same thresholds, on the rows it answered):\n" + members + "\n"
        )
    out.write(f"\nsuggested thresholds ({suggestion.objective.describe()}):\n")
    changes = suggestion.changes()
    for name, old, new in changes:
        out.write(f"  {name}: {old:g} -> {new:g}\n")
        point = suggestion.points.get(name)
        if point is not None:
            out.write(f"    at {new:g}: {_figures(point.confusion)}\n")
    if not changes:
        out.write("  none: the current thresholds meet the objective best\n")
    for name, why in suggestion.unmet.items():
        out.write(f"  {name}: left as it is, {why}\n")
    if suggestion.before is not None and suggestion.after is not None:
        out.write("overall verdict against its label:\n")
        for label, agreement in (("before", suggestion.before), ("after", suggestion.after)):
            c = agreement.confusion
            out.write(f"  {label + ':':<7} {_figures(c)} (n={c.n})\n")
    if calibration.stability:
        out.write(f"\nstability over {calibration.repeats} requests per row:\n")
        for s in calibration.stability:
            variance = "-" if s.mean_variance is None else f"{s.mean_variance:.5f}"
            out.write(
                f"  {s.name}: flip rate {_f(s.flip_rate)}, "
                f"mean within-row variance {variance} ({s.rows} rows)\n"
            )


def _figures(c: Any) -> str:
    """A confusion's agreement figures in words, in the order of the table's columns."""
    return (
        f"accuracy {_f(c.accuracy)}, kappa {_f(c.kappa)}, "
        f"false-pass {_f(c.false_pass_rate)}, false-fail {_f(c.false_fail_rate)}"
    )


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
