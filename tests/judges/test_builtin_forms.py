"""The built-in checks as judge-file conditions: no code reference, named errors, required fields."""

from __future__ import annotations

from typing import Any

import pytest

from langchain_jev import JudgeSpecError, Outcome
from langchain_jev.spec import judge_schema, load_judge, load_spec
from langchain_jev.testing import ScriptedDecisionModel

ASK = {"kind": "noul", "name": "ok", "instructions": "Is `assistant_answer` fine?", "minimum": 0.5}


def _check(condition: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"criteria": [{"kind": "check", "name": "c", "check": condition, "defect": "broken", **more}, ASK]}


@pytest.mark.parametrize(
    ("condition", "fields"),
    [
        ({"trajectory_match": {}}, ["assistant_answer", "reference_tool_calls"]),
        ({"trajectory_match": {"reference": "gold_calls", "mode": "subset"}}, ["assistant_answer", "gold_calls"]),
        ({"tool_arguments_valid": {}}, ["assistant_answer", "tool_schemas"]),
        ({"tool_arguments_valid": {"schemas": {"s": {"type": "object"}}}}, ["assistant_answer"]),
        ({"no_repeated_tool_calls": {}}, ["assistant_answer"]),
        ({"no_sensitive_data": {"field": "notes"}}, ["assistant_answer", "notes"]),
    ],
)
def test_each_built_in_check_declares_the_fields_it_needs(condition: dict[str, Any], fields: list[str]) -> None:
    assert load_spec(_check(condition)).required_fields() == fields


@pytest.mark.parametrize(
    ("condition", "where", "message"),
    [
        ({"trajectory_match": {"mode": "loose"}}, "criteria[0].check.trajectory_match.mode", "must be 'strict', 'unordered', 'subset' or 'superset'"),
        ({"trajectory_match": {"per_tool": {"s": "fuzzy"}}}, "criteria[0].check.trajectory_match.per_tool.s", ""),
        ({"no_repeated_tool_calls": {"max_identical": 0}}, "criteria[0].check.no_repeated_tool_calls.max_identical", "greater than or equal to 1"),
        ({"no_sensitive_data": {"kinds": ["ssn"]}}, "criteria[0].check.no_sensitive_data.kinds[0]", "must be 'secret', 'card_number', 'email' or 'phone'"),
        ({"no_sensitive_data": {"allowed": []}}, "criteria[0].check.no_sensitive_data.allowed", "did you mean 'allow'?"),
        ({"no_sensitive_data": True}, "criteria[0].check.no_sensitive_data", "must be a mapping"),
    ],
)
def test_a_bad_parameter_is_named_by_its_place(condition: dict[str, Any], where: str, message: str) -> None:
    with pytest.raises(JudgeSpecError) as error:
        load_spec(_check(condition))
    assert any(line.startswith(where) and message in line for line in error.value.messages()), error.value.messages()


def test_the_schema_of_judge_files_describes_the_built_in_checks() -> None:
    condition = judge_schema()["$defs"]["ConditionSpec"]["properties"]
    for form in ("trajectory_match", "tool_arguments_valid", "no_repeated_tool_calls", "no_sensitive_data"):
        assert form in condition


def test_a_check_in_a_judge_file_can_apply_only_when_it_settles_the_case() -> None:
    spec = _check({"answer_equals_expected": True}, applies_when={"answer_equals_expected": True})
    judge = load_judge(spec, model=ScriptedDecisionModel({"ok": 0.9}))
    settled = judge.judge({"assistant_answer": "42", "expected_output": "42"})
    other = judge.judge({"assistant_answer": "forty-two", "expected_output": "42"})
    assert settled.finding("c").outcome is Outcome.PASSED
    assert other.finding("c").outcome is Outcome.NOT_APPLICABLE and other.passed
