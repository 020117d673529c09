"""``langchain-jev simulate DATA --app MODULE:ATTR --judge SPEC``: a simulated conversation per row.

`add_parser` adds the command and its options; `simulate_command` parses them
into a `SimulationSetup` and hands the rows to the engine
(`langchain_jev.simulation._dataset.run_simulations`). The results file is
``judge``'s (header, records, lock, ``--resume``), so ``--html``, ``compare`` and
``rejudge`` read it; the run ends with ``judge``'s table and exit codes.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

from langchain_jev.cli._arguments import (
    add_allow_code,
    add_command,
    add_concurrency_option,
    add_fail_under_option,
    add_format_option,
    add_html_option,
    add_judge_option,
    add_model_options,
    add_out_option,
    add_quiet_option,
    add_resume_option,
    add_strict_option,
    html_unavailable,
    invalid_judge_file,
    positive_int,
    rate,
)
from langchain_jev.datasets._exit_codes import (
    EXIT_INTERRUPTED,
    PROG,
    bad_input,
)
from langchain_jev.datasets._paths import FileRole, clash

__all__ = ["add_parser", "simulate_command"]


def _fraction(text: str) -> float:
    value = rate(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 1, got {text}")
    return value


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``simulate`` subcommand to the subparsers; return its parser."""
    parser = add_command(
        commands,
        "simulate",
        simulate_command,
        with_parser=True,
        help="run a simulated conversation per row of personas and goals, each turn judged",
        description=(
            "Run a conversation between --app and a simulated user per row of DATA (JSONL, a JSON\n"
            "array, or CSV): columns persona and goal steer --user-model, script holds the user's\n"
            "fixed first turns (a list, or one text; in CSV a JSON array), 'id' names the row.\n"
            "After each turn the judge's questions and --stop-when go in one request; the last\n"
            "turn's verdict is the row's. --out is judge's results file: --resume runs only the\n"
            "conversations not recorded, --html draws its report, compare reads it."
        ),
    )
    parser.add_argument("data", metavar="DATA", help="the personas and goals: .jsonl, .json or .csv")
    parser.add_argument(
        "--app", required=True, metavar="MODULE:ATTR", help="the app: a graph, agent or runnable"
    )
    add_judge_option(parser)
    parser.add_argument(
        "--user-model",
        metavar="MODEL",
        help="the chat model playing each row's persona (after its script): MODULE:ATTR when that "
        "imports, else provider:model as --model takes it (e.g. openai:gpt-4o-mini)",
    )
    parser.add_argument(
        "--max-turns", type=positive_int, default=5, metavar="N", help="user turns at most (5)"
    )
    parser.add_argument("--stop-when", metavar="QUESTION", help="a yes/no question that ends a conversation")
    parser.add_argument(
        "--stop-minimum", type=_fraction, default=0.8, metavar="P", help="the yes --stop-when needs (0.8)"
    )
    add_format_option(parser)
    add_allow_code(parser, "run code the judge file names (call: conditions, feedback_renderer)")
    add_model_options(parser)
    run = parser.add_argument_group("running")
    add_concurrency_option(run, "conversations at once", 4)
    add_out_option(run, "write one JSON line per conversation here ('-': stdout)")
    add_resume_option(run, "keep the conversations in --out, run the rest")
    add_fail_under_option(run, "exit 1 when the pass rate is under RATE")
    add_strict_option(run)
    add_quiet_option(run)
    add_html_option(run)
    return parser


def simulate_command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run ``simulate`` with parsed arguments; return the exit code."""
    warnings.filterwarnings("ignore", message=".*is in beta.*")
    for option in ("resume", "html"):
        if getattr(args, option) and (not args.out or args.out == "-"):
            parser.error(f"--{option} needs --out PATH (the results file)")
    unavailable = html_unavailable(args.html)
    if unavailable:
        return bad_input(sys.stderr, unavailable)

    from langchain_jev import JudgeSpecError
    from langchain_jev._errors import JevConfigurationError
    from langchain_jev.cli._judge import finish_run
    from langchain_jev.datasets._fingerprint import judge_description
    from langchain_jev.datasets._local.session import RunOptions
    from langchain_jev.datasets._model import build_model, model_identity, model_problem
    from langchain_jev.datasets._options import allow_code, model_settings
    from langchain_jev.datasets._readers import DatasetError, detect_format
    from langchain_jev.datasets._reading import check_regular
    from langchain_jev.datasets._rows import FieldMap
    from langchain_jev.report._provenance import run_description
    from langchain_jev.simulation._dataset import (
        SimulationSetup,
        load_object,
        run_simulations,
        simulation_description,
        stop_criterion,
    )
    from langchain_jev.spec import load_spec

    err = sys.stderr
    inputs = [FileRole("DATA", args.data)]
    outputs = [FileRole("--out", args.out), FileRole("--html", args.html), FileRole("--cache", args.cache)]
    problem = clash(inputs, outputs)
    if problem is not None:
        return bad_input(err, problem)
    try:
        spec = load_spec(args.judge)
        check_regular(args.data)
        fmt = detect_format(args.data, args.format)
        settings = model_settings(args)
        model, closers = build_model(settings, None, spec.decision_model())
        stop = stop_criterion(args.stop_when, args.stop_minimum) if args.stop_when is not None else None
        setup = SimulationSetup(
            app=load_object(args.app, "--app"),
            judge=spec.build(model, allow_code=allow_code(args.allow_code)),
            max_turns=args.max_turns,
            stop_when=stop,
            user_model=_user_model(args.user_model) if args.user_model else None,
        )
    except JudgeSpecError as error:
        return bad_input(err, invalid_judge_file(error))
    except OSError as error:
        return bad_input(err, f"cannot read {args.data}: {error.strerror or error}")
    except (DatasetError, JevConfigurationError) as error:
        return bad_input(err, str(error))
    except (ImportError, ValueError) as error:  # a chat model string its provider cannot serve
        return bad_input(err, model_problem(str(args.model or spec.model), error))
    model_name, endpoint = model_identity(model, settings)
    described = judge_description(spec, model_name)
    fields = FieldMap()
    options = RunOptions(
        data=args.data,
        fmt=fmt,
        fields=fields,
        concurrency=args.concurrency,
        out=args.out,
        cache=args.cache,
        resume=args.resume,
        strict=args.strict,
        progress=not args.quiet,
        judge=simulation_description(
            described, app=args.app, user_model=args.user_model, max_turns=args.max_turns, stop=stop
        ),
        endpoint=endpoint or model_name,
        run=run_description(
            dataset=args.data,
            fmt=fmt,
            fields=fields.to_dict(),
            judge_file=args.judge,
            base_url=endpoint,
            argv=[PROG, *sys.argv[1:]],
            fail_under=args.fail_under,
        ),
    )
    to_file = bool(args.out and args.out != "-")
    try:
        result = run_simulations(setup, options, err, closers=closers)
    except KeyboardInterrupt:
        err.write(f"\n{PROG}: interrupted{' (run again with --resume to finish)' if to_file else ''}\n")
        err.flush()
        return EXIT_INTERRUPTED
    title = f"simulate: {args.data} with {args.app}, judged by {args.judge}"
    return finish_run(result, args, err, title=title)


def _user_model(reference: str) -> Any:
    """The chat model ``--user-model`` names: ``module:attribute`` if it imports, else ``provider:model``."""
    from langchain_jev._errors import JevConfigurationError
    from langchain_jev.models._chat.loading import load_chat_model
    from langchain_jev.simulation._dataset import load_object

    try:
        return load_object(reference, "--user-model")
    except JevConfigurationError as imported:
        try:
            return load_chat_model(reference)
        except Exception as error:
            raise JevConfigurationError(
                f"{imported}; nor is it a provider:model chat model: {type(error).__name__}: {error}"
            ) from None
