"""The judge input and the state it sends under fixed names."""

from __future__ import annotations

import pytest

from langchain_jev import (
    ANSWER_FIELD,
    CONTEXT_FIELD,
    EXPECTED_FIELD,
    QUESTION_FIELD,
    TOOL_CALLS_FIELD,
    JevInputError,
    JevJudgeInput,
    ToolCall,
)


def test_field_names_are_the_specified_ones() -> None:
    assert (QUESTION_FIELD, ANSWER_FIELD, EXPECTED_FIELD, CONTEXT_FIELD, TOOL_CALLS_FIELD) == (
        "user_question",
        "assistant_answer",
        "expected_output",
        "supporting_context",
        "tool_calls",
    )


def test_question_and_answer_make_a_two_field_state() -> None:
    assert JevJudgeInput("q?", "a.").to_state() == {"user_question": "q?", "assistant_answer": "a."}


def test_full_state_uses_the_fixed_names() -> None:
    data = JevJudgeInput(
        question="Will I need an umbrella in Dublin tomorrow?",
        answer="Yes.",
        expected={"rain": True},
        context="Forecast: rain",
        tool_calls=[ToolCall("search", {"q": "Dublin"}, "rain"), {"name": "clock", "arguments": {}}],
        fields={"search_required": True},
    )
    assert data.to_state() == {
        "user_question": "Will I need an umbrella in Dublin tomorrow?",
        "assistant_answer": "Yes.",
        "expected_output": {"rain": True},
        "supporting_context": ["Forecast: rain"],
        "tool_calls": [
            {"name": "search", "arguments": {"q": "Dublin"}, "result": "rain"},
            {"name": "clock", "arguments": {}, "result": None},
        ],
        "search_required": True,
    }


def test_empty_context_and_tool_calls_are_left_out() -> None:
    state = JevJudgeInput("q", "a", context=[], tool_calls=[]).to_state()
    assert CONTEXT_FIELD not in state and TOOL_CALLS_FIELD not in state


def test_a_state_reads_back() -> None:
    state = {
        "user_question": "q",
        "assistant_answer": "a",
        "expected_output": [1, 2],
        "supporting_context": ["doc"],
        "tool_calls": [{"name": "search", "arguments": {"q": 1}, "result": "r"}],
        "search_required": False,
    }
    data = JevJudgeInput.of(state)
    assert data.to_state() == state
    assert data.tool_calls == (ToolCall("search", {"q": 1}, "r"),)
    assert data.field("search_required", bool) is False
    assert data.field("missing", str) is None
    assert data.field("user_question", str) == "q"


@pytest.mark.parametrize("state", ["text", ["a"], 3, None])
def test_a_non_object_state_is_a_clear_error(state: object) -> None:
    with pytest.raises(JevInputError, match="the state must be a JSON object"):
        JevJudgeInput.of(state)


def test_field_checks_its_type_and_names_the_field() -> None:
    data = JevJudgeInput(fields={"search_required": "yes", "count": 3, "flag": True})
    with pytest.raises(JevInputError, match="state field 'search_required' must be bool, got str"):
        data.field("search_required", bool)
    assert data.field("count", float) == 3.0
    with pytest.raises(JevInputError, match="state field 'flag' must be int, got bool"):
        data.field("flag", int)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"question": 3}, "question must be a string, got int"),
        ({"context": ["ok", 2]}, r"context\[1\] must be a string, got int"),
        ({"tool_calls": [{"arguments": {}}]}, "a tool call must be an object with a string 'name'"),
        ({"fields": {"user_question": "x"}}, "field 'user_question' is a fixed state field"),
    ],
)
def test_bad_input_names_the_field(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(JevInputError, match=message):
        JevJudgeInput(**kwargs)  # type: ignore[arg-type]


def test_bad_fixed_fields_in_a_state_are_named() -> None:
    with pytest.raises(JevInputError, match="state field 'assistant_answer' must be a string, got int"):
        JevJudgeInput.of({"assistant_answer": 42})
    with pytest.raises(JevInputError, match="state field 'tool_calls' must be an array, got str"):
        JevJudgeInput.of({"tool_calls": "search"})


def test_the_input_is_immutable() -> None:
    data = JevJudgeInput("q", "a", fields={"k": 1})
    with pytest.raises(AttributeError):
        data.answer = "b"  # type: ignore[misc]
    with pytest.raises(TypeError):
        data.fields["k"] = 2  # type: ignore[index]
