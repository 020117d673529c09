"""``langchain-jev schema`` and ``langchain-jev validate SPEC``: the judge file format, and one file checked.

Example:
    langchain-jev schema > judge.schema.json
    langchain-jev validate judge.yaml

"""

from __future__ import annotations

import json
import sys

from langchain_jev.datasets._exit_codes import EXIT_OK, bad_input

__all__ = ["schema", "validate"]


def schema() -> int:
    """Print the JSON Schema of judge files; return the exit code."""
    from langchain_jev.spec import judge_schema

    sys.stdout.write(json.dumps(judge_schema(), indent=2) + "\n")
    sys.stdout.flush()
    return EXIT_OK


def validate(path: str) -> int:
    """Check the judge file at ``path`` as building it would, list the code it names; return the exit code.

    Every check `JudgeSpec.build` runs runs here (`JudgeSpec.check`), and the model
    the file names is built (no request is sent), so a file `judge` refuses is
    refused here with the same message; only the code the file names is not
    imported (it runs only with ``--allow-code``).
    """
    from langchain_jev import JudgeSpecError
    from langchain_jev.cli._arguments import invalid_judge_file
    from langchain_jev.datasets._model import model_problem
    from langchain_jev.spec import load_spec
    from langchain_jev.spec._code import code_references

    try:
        spec = load_spec(path)
        spec.check()  # every check building the judge runs, but importing its code
        spec.decision_model()  # the model the file names, built as `judge` builds it (nothing is asked)
    except JudgeSpecError as error:
        return bad_input(sys.stderr, invalid_judge_file(error))
    except (ImportError, ValueError) as error:  # a chat model string its provider cannot serve
        return bad_input(sys.stderr, model_problem(str(spec.model), error, named_by_file=True))
    sys.stdout.write(f"{path}: a valid judge file with {len(spec.criteria)} criteria\n")
    for where, _, reference in code_references(spec):
        sys.stdout.write(f"  {where} names code {reference!r} (runs only with --allow-code)\n")
    return EXIT_OK
