"""The official JSON-Schema-Test-Suite (required tests, draft 2020-12 and draft 7) through the schema check.

Every case agrees with the suite, except the cases that need a schema from the
suite's ``remotes`` folder: the check never fetches a reference, so those are
refused (a `JevInputError` naming the reference), never decided. They are
listed by file and group below, and the test fails if any other case is
refused, or if a listed case stops being refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from langchain_jev import JevInputError
from langchain_jev.judges._checks.schema import schema_problems, validate

SUITE = Path(__file__).resolve().parent / "json_schema_suite"
DRAFT7 = "http://json-schema.org/draft-07/schema#"

NEEDS_REMOTES: dict[str, set[str] | None] = {
    # file -> the groups that need a remote schema (None: every group of the file)
    "draft2020-12/refRemote": None,
    "draft7/refRemote": None,
    "draft2020-12/vocabulary": None,  # custom metaschemas served from remotes/
    "draft2020-12/dynamicRef": {
        "strict-tree schema, guards against misspelled properties",
        "tests for implementation dynamic anchor and reference link",
        "$ref and $dynamicAnchor are independent of order - $defs first",
        "$ref and $dynamicAnchor are independent of order - $ref first",
        "$ref to $dynamicRef finds detached $dynamicAnchor",
    },
}


def _cases() -> list[Any]:
    cases = []
    for draft in ("draft2020-12", "draft7"):
        for path in sorted((SUITE / draft).glob("*.json")):
            for group in json.loads(path.read_text(encoding="utf-8")):
                schema = group["schema"]
                if draft == "draft7" and isinstance(schema, dict) and "$schema" not in schema:
                    schema = {"$schema": DRAFT7, **schema}  # the suite's draft 7 files say so by folder
                for test in group["tests"]:
                    name = f"{draft}/{path.stem}"
                    remote = NEEDS_REMOTES.get(name, set())
                    needs_remote = remote is None or group["description"] in remote
                    cases.append(pytest.param(
                        schema, test["data"], test["valid"], needs_remote,
                        id=f"{name}: {group['description']}: {test['description']}",
                    ))
    return cases


CASES = _cases()


def _decide(schema: Any, data: Any) -> bool:
    problems = schema_problems(schema)
    if problems:
        raise JevInputError(problems[0])
    return validate(data, schema) == []


@pytest.mark.parametrize(("schema", "data", "valid", "needs_remote"), CASES)
def test_the_official_suite(schema: Any, data: Any, valid: bool, needs_remote: bool) -> None:
    if needs_remote:
        with pytest.raises(JevInputError, match=r"cannot be resolved inside it \(nothing is fetched\)|is not supported"):
            _decide(schema, data)
    else:
        assert _decide(schema, data) is valid


def test_the_suite_is_all_there_and_the_remote_list_is_short() -> None:
    assert len(CASES) == 2226
    remote = sum(1 for case in CASES if case.values[3])
    assert remote == 72  # every one refers to remotes/, which is never fetched
