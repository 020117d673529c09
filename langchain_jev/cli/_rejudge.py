"""``langchain-jev rejudge RESULTS --judge SPEC``: decide stored answers again, with zero requests.

The results file of ``langchain-jev judge`` keeps each finding's raw answer;
this command decides them again under another judge file's thresholds,
``min_confidence`` and failure policy, and prints the same table as ``judge``
(writing the same records with ``--out``, and a report with ``--html``). A
criterion whose question changed since the answers were stored, a check that
changed, or a question whose ``applies_when`` changed (as the results file's
header tells) cannot be decided again: the command refuses it by name (exit 2).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, TextIO

__all__ = ["add_parser", "rejudge"]


def add_parser(commands: Any) -> None:
    """Add the ``rejudge`` subcommand to the command line's subparsers."""
    from langchain_jev.cli._arguments import (
        add_allow_code,
        add_command,
        add_fail_under_option,
        add_html_option,
        add_judge_option,
        add_out_option,
        add_quiet_option,
    )

    parser = add_command(
        commands,
        "rejudge",
        rejudge,
        help="decide stored answers again under another judge file (no requests)",
        description=(
            "Decide the answers stored in RESULTS (a results file of `langchain-jev judge`) again "
            "under the thresholds, min_confidence and failure policy of SPEC, without a request. "
            "A criterion whose question changed is refused by name."
        ),
        epilog="exit codes: 0 ok; 1 pass rate under --fail-under; 2 bad input (or a changed question); "
        "3 some rows had not been judged",
        formatter_class=argparse.HelpFormatter,
    )
    parser.add_argument("results", metavar="RESULTS", help="a results file of `langchain-jev judge`")
    add_judge_option(parser, "the judge file (YAML or JSON)")
    add_allow_code(parser, "build the checks and feedback renderer the judge file names as code (as judge)")
    add_out_option(parser)
    add_html_option(parser)
    add_fail_under_option(parser, "exit 1 when the overall pass rate is under RATE")
    add_quiet_option(parser, "no progress display (rejudge shows none; as judge accepts it)")


def rejudge(args: argparse.Namespace, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``rejudge`` with parsed arguments; return the exit code (output to the streams current now)."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    from langchain_jev import JudgeSpecError
    from langchain_jev._errors import RedecideError, ResultsError
    from langchain_jev.cli._arguments import invalid_judge_file, preflight
    from langchain_jev.datasets._exit_codes import bad_input, exit_code
    from langchain_jev.datasets._options import allow_code
    from langchain_jev.datasets._paths import FileRole
    from langchain_jev.datasets._redecide import NoRequestModel, read_to_redecide, redecide_records
    from langchain_jev.datasets._tally import Tally, format_table, summary_lines
    from langchain_jev.spec import load_spec

    def fail(message: str) -> int:
        return bad_input(stderr, message)

    inputs = [FileRole("RESULTS", args.results)]
    if os.path.isfile(args.judge):
        inputs.append(FileRole("--judge", args.judge))
    problem = preflight(inputs, [FileRole("--out", args.out), FileRole("--html", args.html)], args.html)
    if problem is not None:
        return fail(problem)
    try:
        spec = load_spec(args.judge)
        judge = spec.build(NoRequestModel(), allow_code=allow_code(args.allow_code))
    except JudgeSpecError as error:
        return fail(invalid_judge_file(error))
    try:
        stored = read_to_redecide(args.results, spec)
        records, header = stored.records, stored.header
        redone = list(redecide_records(judge, records))
    except RedecideError as error:
        return fail(f"{args.results}: " + str(error))
    except ResultsError as error:
        return fail(str(error))
    tally = Tally((c.name, c.kind) for c in judge.criteria)
    for record in redone:
        tally.add(record)
    if args.out:
        from langchain_jev.datasets._fingerprint import judge_description

        described = judge_description(spec, _model_of(header, records))
        run = header.get("run") if header else None  # the stored run's account of where its rows came from
        try:
            _write_out(args.out, described, dict(run) if isinstance(run, dict) else None, redone)
        except OSError as error:
            return fail(f"cannot write {args.out}: {error.strerror or error}")
    report = stderr if args.out == "-" else stdout
    report.write(format_table(tally) + "\n\n")
    for line in summary_lines(tally, fail_under=args.fail_under):
        report.write(line + "\n")
    report.write(f"decided again from {len(records)} stored row(s) of {args.results}: 0 requests\n")
    report.flush()
    if args.html:
        from langchain_jev.report._run_report import draw_run_report

        try:  # the stored run's header says where its rows are, so each row shows its judged state
            draw_run_report(
                args.html,
                args.results,
                judge,
                records=redone,
                title=f"rejudge: {args.results} under {args.judge}",
            )
        except OSError as error:
            return fail(f"cannot write {args.html}: {error.strerror or error}")
        except ResultsError as error:
            return fail(f"--html {args.html}: {error}")
    return exit_code(0, tally.pass_rate, args.fail_under, tally.unjudged)


def _model_of(header: dict[str, Any] | None, records: list[dict[str, Any]]) -> str | None:
    """The model that gave the stored answers: as the results file's header says, else as a record does."""
    described = header.get("judge") if header else None
    if isinstance(described, dict) and isinstance(described.get("model"), str):
        return str(described["model"])
    return next((str(r["model"]) for r in records if isinstance(r.get("model"), str)), None)


def _write_out(
    out: str, judge: dict[str, Any], run: dict[str, Any] | None, records: list[dict[str, Any]]
) -> None:
    """The records decided again, as a results file written whole or not at all.

    To stdout (``-``), a device or a pipe they go as `ResultsFile` sends them: the records alone.
    """
    from langchain_jev.datasets._header import header_record
    from langchain_jev.datasets._paths import file_identity
    from langchain_jev.datasets._writing import write_atomic
    from langchain_jev.datasets.results import ResultsFile, record_line

    lines = [record_line(record) for record in records]
    if file_identity(out) is None:
        with ResultsFile(out, judge=judge, run=run) as stream:
            if lines:
                stream.write_lines(lines)
        return
    write_atomic(out, "".join(line + "\n" for line in [record_line(header_record(judge, run)), *lines]))
