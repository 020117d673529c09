"""``langchain-jev schema`` and ``langchain-jev validate SPEC``: the judge file format, and one file checked.

Example:
    langchain-jev schema > judge.schema.json
    langchain-jev validate judge.yaml

"""

from __future__ import annotations

import json
import sys

from langchain_jev.datasets.exit_codes import EXIT_OK, bad_input

__all__ = ["schema", "validate"]


def schema() -> int:
    """Print the JSON Schema of judge files; return the exit code."""
    from langchain_jev.spec import judge_schema

    sys.stdout.write(json.dumps(judge_schema(), indent=2) + "\n")
    sys.stdout.flush()
    return EXIT_OK


def validate(path: str) -> int:
    """Check the judge file at ``path`` without building it, list the code it names; return the exit code."""
    from langchain_jev.spec import JudgeSpecError, load_spec
    from langchain_jev.spec.code import code_references

    try:
        spec = load_spec(path)
    except JudgeSpecError as error:
        return bad_input(sys.stderr, "the judge file is invalid:\n  " + "\n  ".join(error.messages()))
    sys.stdout.write(f"{path}: a valid judge file with {len(spec.criteria)} criteria\n")
    for where, _, reference in code_references(spec):
        sys.stdout.write(f"  {where} names code {reference!r} (runs only with --allow-code)\n")
    return EXIT_OK

