"""Tool arguments against their schemas: the same answers as the jsonschema library, on the keywords tool schemas use."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from langchain_jev import JevJudgeInput, ToolCall
from langchain_jev.errors import JevInputError
from langchain_jev.judges.checks.schema import (
    arguments_problems,
    read_tool_schemas,
    schema_problems,
    validate,
)
from langchain_jev.spec import load_spec
from langchain_jev.spec.builtins import ToolArgumentsValid, compile_builtin

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "units": {"enum": ["metric", "imperial"]},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2, "uniqueItems": True},
        "at": {"anyOf": [{"type": "string", "pattern": "^\\d{2}:\\d{2}$"}, {"type": "null"}]},
        "where": {"$ref": "#/$defs/Point"},
    },
    "required": ["city"],
    "additionalProperties": False,
    "$defs": {"Point": {"type": "object", "properties": {"lat": {"type": "number", "exclusiveMaximum": 90}}, "required": ["lat"]}},
}

INSTANCES: list[Any] = [
    {"city": "Dublin"},
    {"city": ""},
    {},
    {"city": 3},
    {"city": "Dublin", "days": 3},
    {"city": "Dublin", "days": 3.0},
    {"city": "Dublin", "days": 3.5},
    {"city": "Dublin", "days": True},
    {"city": "Dublin", "days": 15},
    {"city": "Dublin", "units": "kelvin"},
    {"city": "Dublin", "units": "metric"},
    {"city": "Dublin", "tags": ["a", "a"]},
    {"city": "Dublin", "tags": ["a", "b", "c"]},
    {"city": "Dublin", "tags": ["a", 1]},
    {"city": "Dublin", "at": "10:30"},
    {"city": "Dublin", "at": "half ten"},
    {"city": "Dublin", "at": None},
    {"city": "Dublin", "where": {"lat": 53.3}},
    {"city": "Dublin", "where": {"lat": 90}},
    {"city": "Dublin", "where": {}},
    {"city": "Dublin", "country": "IE"},
    ["Dublin"],
    None,
]


@pytest.mark.parametrize("instance", INSTANCES, ids=[str(i) for i in range(len(INSTANCES))])
def test_the_validator_agrees_with_jsonschema(instance: Any) -> None:
    expected = jsonschema.Draft202012Validator(WEATHER).is_valid(instance)
    assert (validate(instance, WEATHER) == []) is expected, validate(instance, WEATHER)


def test_problems_name_the_call_the_tool_and_the_argument() -> None:
    calls = [ToolCall("weather", {"city": "Dublin", "days": 30}), ToolCall("weather", {"town": "Cork"}), ToolCall("book", {})]
    assert arguments_problems(calls, {"weather": WEATHER}) == [
        "call 1 (weather): days: 30 breaks maximum 14",
        "call 2 (weather): missing required 'city'",
        "call 2 (weather): unexpected argument 'town'",
        "call 3 (book): no such tool",
    ]
    assert arguments_problems(calls[2:], {"weather": WEATHER}, unknown_tools="ignore") == []


def test_tool_definitions_of_every_usual_shape_are_read() -> None:
    params = {"type": "object", "properties": {"q": {"type": "string"}}}
    openai = [{"type": "function", "function": {"name": "search", "parameters": params}}]
    anthropic = [{"name": "search", "input_schema": params}]
    assert read_tool_schemas(openai, "t") == read_tool_schemas(anthropic, "t") == read_tool_schemas({"search": params}, "t")


def test_langchain_tools_give_schemas_the_check_reads() -> None:
    from langchain_core.tools import tool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    @tool
    def search(query: str, limit: int = 5) -> str:
        """Search the web."""
        return query

    schemas = read_tool_schemas([convert_to_openai_tool(search)], "tools")
    assert arguments_problems([ToolCall("search", {"query": "x", "limit": 2})], schemas) == []
    assert arguments_problems([ToolCall("search", {"limit": "2"})], schemas) == [
        "call 1 (search): missing required 'query'",
        "call 1 (search): limit: expected integer, got string",
    ]


def test_a_keyword_that_cannot_be_checked_is_refused_not_ignored() -> None:
    assert schema_problems({"type": "object", "patternProperties": {"^x": {}}}) == [
        "patternProperties: this keyword cannot be checked here"
    ]
    assert schema_problems({"title": "T", "description": "d", "format": "date", "default": 1}) == []
    with pytest.raises(JevInputError, match=r"tools\.search: properties\.q\.if: this keyword cannot be checked"):
        read_tool_schemas({"search": {"properties": {"q": {"if": {}}}}}, "tools")


def test_the_judge_file_form_refuses_such_a_schema_when_loaded() -> None:
    with pytest.raises(Exception, match=r"criteria\[0\]\.check\.tool_arguments_valid\.schemas: schemas\.s: contains"):
        load_spec({"criteria": [{"kind": "check", "name": "a", "check": {"tool_arguments_valid": {"schemas": {"s": {"contains": {}}}}}, "defect": "d"}]})


def test_schemas_from_the_state_or_inline() -> None:
    state_check = compile_builtin(ToolArgumentsValid())
    good = JevJudgeInput(answer="ok", tool_calls=[{"name": "weather", "arguments": {"city": "Cork"}}], fields={"tool_schemas": {"weather": WEATHER}})
    assert state_check(good) is True
    with pytest.raises(JevInputError, match="needs the state field 'tool_schemas'"):
        state_check(JevJudgeInput(answer="ok"))
    inline = compile_builtin(ToolArgumentsValid(schemas={"weather": WEATHER}))
    assert inline(JevJudgeInput(answer="ok", tool_calls=[{"name": "weather", "arguments": {}}])) is False


def test_recursive_schemas_and_deep_arguments_end_with_a_problem_not_a_crash() -> None:
    schema = {"$ref": "#/$defs/n", "$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}}}
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(200):
        node["next"] = {}
        node = node["next"]
    assert validate(deep, schema)[-1].endswith("nested too deep to check")
    assert validate({"a": 1}, {"$ref": "#/$defs/missing"}) == ["arguments: cannot resolve '#/$defs/missing'"]


def test_a_schema_of_nested_alternatives_is_too_complex_not_valid() -> None:
    deep: dict[str, Any] = {"type": "integer"}
    for _ in range(40):  # 2**40 branches to try
        deep = {"anyOf": [deep, deep]}
    assert validate("x", {"anyOf": [deep, {"type": "string"}]})[-1] == "arguments: too complex to check"
    assert validate("x", {"not": deep}) == ["arguments: too complex to check"]  # not swallowed by `not`
    looping = {"not": {"anyOf": [{"$ref": "#"}, {"$ref": "#"}]}}
    assert validate("x", looping) != []
