"""``langchain-jev deploy JUDGE``: a judge file deployed as a LangSmith online evaluator (a rule).

Example:
    langchain-jev deploy judge.yaml --project support-bot --sampling-rate 0.1 --dry-run
    langchain-jev deploy safety --project support-bot --filter 'eq(is_root, true)' --threads

The rule is `langchain_jev.online.deploy`'s: this module reads the options, prints
the rule (``--dry-run``) or the created rule's id, and the notes on what stays with
the package, to stderr.

"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from typing import Any

from langchain_jev.datasets._exit_codes import EXIT_MODEL_ERRORS, EXIT_OK, PROG, bad_input

__all__ = ["add_parser", "deploy_command"]


def add_parser(commands: Any) -> None:
    """Add the ``deploy`` command to the command line's subparsers."""
    from langchain_jev.cli._arguments import add_allow_code, add_command, add_repeatable, rate

    deploy = add_command(
        commands,
        "deploy",
        deploy_command,
        help="deploy a judge as a LangSmith online evaluator (a rule LangSmith runs on live runs)",
        description=(
            "Create a LangSmith decision-model rule from a judge file: each question criterion "
            "becomes a question (a feedback key) under its name, asked by the judge's decision "
            "model of every sampled run of a project (or a dataset's experiments). The rule "
            "records answers; thresholds, code checks and the verdict stay with the package."
        ),
        epilog=(
            "environment:\n"
            "  LANGSMITH_API_KEY   the LangSmith API key (never printed)\n"
            "  LANGSMITH_ENDPOINT  the LangSmith API, when not the cloud's"
        ),
    )
    deploy.add_argument(
        "judge", metavar="JUDGE", help="the judge file (YAML or JSON), or a prebuilt judge's name"
    )
    where = deploy.add_mutually_exclusive_group(required=True)
    where.add_argument("--project", metavar="NAME", help="the tracing project whose runs the rule judges")
    where.add_argument("--dataset", metavar="NAME", help="the dataset whose experiments it judges")
    deploy.add_argument(
        "--sampling-rate",
        type=rate,
        metavar="R",
        help="the share of runs judged: a fraction (0.1) or a percentage (10%%); default every run",
    )
    deploy.add_argument("--filter", metavar="F", help="a LangSmith run filter, e.g. 'eq(is_root, true)'")
    deploy.add_argument(
        "--threads", action="store_true", help="judge each thread once it goes idle, instead of each run"
    )
    add_repeatable(
        deploy,
        "--map",
        "VAR=FIELD",
        "read prompt variable VAR from run field FIELD, e.g. user_question=input.messages (repeatable)",
    )
    deploy.add_argument("--name", metavar="NAME", help="the rule's name (default: after its questions)")
    deploy.add_argument(
        "--model",
        metavar="MODEL",
        help="the decision model instead of the file's: jev:NAME, openai-decisions:NAME",
    )
    add_allow_code(deploy, "import code the judge file names (needed to build it; the rule never runs it)")
    deploy.add_argument("--dry-run", action="store_true", help="print the rule it would create; send nothing")


def deploy_command(args: argparse.Namespace) -> int:
    """Run ``deploy`` with parsed arguments; return the exit code."""
    from langchain_jev import JudgeSpecError
    from langchain_jev._errors import JevConfigurationError
    from langchain_jev.cli._arguments import invalid_judge_file
    from langchain_jev.datasets._options import allow_code
    from langchain_jev.online import JevDeployWarning, deploy
    from langchain_jev.spec import load_spec

    err = sys.stderr
    mapping = _mapping(args.map)
    if isinstance(mapping, str):
        return bad_input(err, mapping)
    try:
        spec = load_spec(args.judge)
        judge = spec.build(args.model, allow_code=allow_code(args.allow_code))
    except JudgeSpecError as error:
        return bad_input(err, invalid_judge_file(error))
    except (JevConfigurationError, ImportError, ValueError) as error:
        return bad_input(err, str(error))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JevDeployWarning)  # said below, once each, as notes
            deployment = deploy(
                judge,
                project=args.project,
                dataset=args.dataset,
                sampling_rate=args.sampling_rate,
                filter=args.filter,
                threads=args.threads,
                variable_mapping=mapping or None,
                display_name=args.name,
                dry_run=args.dry_run,
            )
    except JevConfigurationError as error:
        return bad_input(err, str(error))
    except Exception as error:  # LangSmith refused or could not be reached (redacted by deploy)
        err.write(f"{PROG}: error: LangSmith did not create the rule: {type(error).__name__}: {error}\n")
        return EXIT_MODEL_ERRORS
    for note in deployment.notes:
        err.write(f"{PROG}: note: {note}\n")
    kind, name = deployment.target
    keys = ", ".join(deployment.rule.questions)
    if args.dry_run:
        sys.stdout.write(json.dumps(dict(deployment.body), indent=2, ensure_ascii=False) + "\n")
        err.write(f"{PROG}: dry run: nothing was sent; deploying looks {kind} {name!r} up and adds its id\n")
        return EXIT_OK
    sys.stdout.write(
        f"created rule {deployment.id} ({deployment.rule.display_name!r}) on {kind} {name!r}: "
        f"feedback keys {keys}\n"
    )
    return EXIT_OK


def _mapping(pairs: list[str]) -> dict[str, str] | str:
    """The ``--map VAR=FIELD`` pairs as a mapping, or the problem with one."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        variable, equals, path = pair.partition("=")
        if not equals or not variable.strip() or not path.strip():
            return f"--map {pair!r}: give VAR=FIELD, e.g. user_question=input.messages"
        mapping[variable.strip()] = path.strip()
    return mapping
