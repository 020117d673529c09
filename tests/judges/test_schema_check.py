"""Tool arguments against their schemas: the jsonschema library's answers, under bounds a hostile schema cannot escape."""

from __future__ import annotations

import re
import time
from typing import Any

import jsonschema
import pytest

from langchain_jev import JevInputError, JevJudgeInput, ToolCall
from langchain_jev.judges._checks.schema import (
    MAX_SCHEMA_DEPTH,
    MAX_SCHEMA_NODES,
    arguments_problems,
    read_tool_schemas,
    schema_problems,
    validate,
)
from langchain_jev.spec import load_spec
from langchain_jev.spec._builtins import ToolArgumentsValid, compile_builtin

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
        "call 1 (weather): days: 30 is greater than the maximum of 14",
        "call 2 (weather): 'city' is a required property",
        "call 2 (weather): additional properties are not allowed ('town')",
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
        "call 1 (search): 'query' is a required property",
        "call 1 (search): limit: '2' is not of type 'integer'",
    ]


# ---------------------------------------------------------------- what a hand-written validator got wrong


@pytest.mark.parametrize(
    ("schema", "instance", "valid"),
    [
        ({"multipleOf": 2}, 3000000001, False),  # a relative tolerance called this a multiple
        ({"multipleOf": 2}, 3000000002, True),
        ({"multipleOf": 7}, 2**64 + 1, False),
        ({"multipleOf": 7}, 123456789012, False),
        ({"multipleOf": 7}, 7 * 10**30, True),
        ({"maxLength": 2.0}, "abc", False),  # a decimal bound was ignored
        ({"minLength": 2.0}, "a", False),
        ({"maxItems": 1.0}, [1, 2], False),
        ({"minItems": 2.0}, [1], False),
        ({"maxProperties": 1.0}, {"a": 1, "b": 2}, False),
        ({"minProperties": 1.0}, {}, False),
        ({"$ref": "#foo", "$defs": {"a": {"$anchor": "foo", "type": "string"}}}, 1, False),
        ({"$ref": "#foo", "$defs": {"a": {"$anchor": "foo", "type": "string"}}}, "x", True),
        ({"$ref": "#/$defs/a%25b", "$defs": {"a%b": {"type": "string"}}}, 1, False),
        ({"$ref": "#/$defs/a~1b", "$defs": {"a/b": {"type": "string"}}}, 1, False),
        ({"$ref": "#/$defs/with%20space", "$defs": {"with space": {"type": "integer"}}}, 1, True),
        ({"type": "object", "patternProperties": {"^x_": {"type": "integer"}}}, {"x_a": "s"}, False),
        ({"properties": {"a": {}}, "unevaluatedProperties": False}, {"a": 1, "b": 2}, False),
        ({"if": {"required": ["a"]}, "then": {"required": ["b"]}}, {"a": 1}, False),
        ({"type": "string", "format": "email"}, "not an email", True),  # format is an annotation in 2020-12
        ({"uniqueItems": True}, [1, 1.0], False),
        ({"uniqueItems": True}, [1, True], True),
        ({"uniqueItems": True}, [{"a": [1]}, {"a": [1.0]}], False),
    ],
)
def test_cases_beyond_the_suite_agree_with_jsonschema(schema: dict[str, Any], instance: Any, valid: bool) -> None:
    assert schema_problems(schema) == []
    assert (validate(instance, schema) == []) is valid
    assert jsonschema.Draft202012Validator(schema).is_valid(instance) is valid


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"minLength": "3"}, "minLength: '3' is not of type 'integer'"),
        ({"maximum": "3"}, "maximum: '3' is not of type 'number'"),
        ({"required": "a"}, "required: 'a' is not of type 'array'"),
        ({"minLength": -1}, "minLength: -1 is less than the minimum of 0"),
        ({"type": "text"}, "type: 'text' is not valid under any of the given schemas"),
        ({"pattern": "("}, "pattern: '(' is not a 'regex'"),
        ({"properties": {"q": {"maxItems": 1.5}}}, "properties.q.maxItems: 1.5 is not of type 'integer'"),
        ({"$schema": "http://json-schema.org/draft-04/schema#"}, "$schema: 'http://json-schema.org/draft-04/schema#' is not supported"),
        ({"$schema": "https://example.com/my-meta"}, "$schema: 'https://example.com/my-meta' is not supported"),
    ],
)
def test_a_malformed_schema_is_refused_naming_the_place(schema: dict[str, Any], problem: str) -> None:
    assert schema_problems(schema)[0].startswith(problem)
    with pytest.raises(JevInputError, match=r"^tools\.t: " + re.escape(problem)):
        read_tool_schemas({"t": schema}, "tools")


@pytest.mark.parametrize(
    ("number", "step", "valid"),
    [(19.99, 0.01, True), (0.3, 0.1, True), (1.15, 0.05, True), (10.01, 0.02, False), (1e308, 0.123456789, False),
     (12391239123, 1e-8, True), (7.5, 2.5, True), (2**70, 0.5, True)],
)
def test_multiple_of_is_exact_on_the_decimals_json_writes(number: float, step: float, valid: bool) -> None:
    assert (validate(number, {"multipleOf": step}) == []) is valid


def test_draft_7_is_checked_as_draft_7_when_the_schema_says_so() -> None:
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "integer"}], "additionalItems": False}
    assert validate([1], draft7) == [] and validate([1, 2], draft7) != []
    assert schema_problems({**draft7, "items": 3}) != []
    assert schema_problems({"items": [{"type": "integer"}]}) != []  # draft 2020-12: items is one schema
    assert validate({"a": 1}, {"$schema": "http://json-schema.org/draft-07/schema", "dependencies": {"a": ["b"]}}) != []


def test_the_judge_file_form_refuses_a_malformed_schema_when_loaded() -> None:
    with pytest.raises(Exception, match=r"criteria\[0\]\.check\.tool_arguments_valid\.schemas: schemas\.s: minLength: '3'"):
        load_spec({"criteria": [{"kind": "check", "name": "a", "check": {"tool_arguments_valid": {"schemas": {"s": {"minLength": "3"}}}}, "defect": "d"}]})


def test_schemas_from_the_state_or_inline() -> None:
    state_check = compile_builtin(ToolArgumentsValid())
    good = JevJudgeInput(answer="ok", tool_calls=[{"name": "weather", "arguments": {"city": "Cork"}}], fields={"tool_schemas": {"weather": WEATHER}})
    assert state_check(good) is True
    with pytest.raises(JevInputError, match="needs the state field 'tool_schemas'"):
        state_check(JevJudgeInput(answer="ok"))
    inline = compile_builtin(ToolArgumentsValid(schemas={"weather": WEATHER}))
    assert inline(JevJudgeInput(answer="ok", tool_calls=[{"name": "weather", "arguments": {}}])) is False
    malformed = JevJudgeInput(answer="ok", tool_calls=[], fields={"tool_schemas": {"weather": {"required": "city"}}})
    with pytest.raises(JevInputError, match=r"tool_schemas\.weather: required: 'city' is not of type 'array'"):
        state_check(malformed)


# ---------------------------------------------------------------- a hostile schema stays harmless


def test_a_remote_reference_is_never_fetched_and_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import urllib.request

    def no_network(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the check tried to fetch a reference")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    for ref in ("https://example.com/schema.json", "http://127.0.0.1:9/x.json#/a", "other.json"):
        with pytest.raises(JevInputError, match=r"cannot be resolved inside it \(nothing is fetched\)"):
            validate({"a": 1}, {"$ref": ref})
    with pytest.raises(JevInputError, match=r"reference '#/\$defs/missing' cannot be resolved"):
        validate({"a": 1}, {"$ref": "#/$defs/missing"})
    # the published metaschemas are known without fetching
    assert validate({"type": "string"}, {"$ref": "https://json-schema.org/draft/2020-12/schema"}) == []
    assert validate({"type": 3}, {"$ref": "https://json-schema.org/draft/2020-12/schema"}) != []


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"type": "string", "pattern": "^(a|a)+$"}, "a" * 40 + "!"),
        ({"type": "string", "pattern": "^(a|aa)+$"}, "a" * 40 + "!"),
        ({"type": "object", "patternProperties": {"^(a|a)+$": {}}}, {"a" * 40 + "!": 1}),
        ({"type": "object", "patternProperties": {"^(a|a)+$": {}}, "additionalProperties": False}, {"a" * 40 + "!": 1}),
        ({"patternProperties": {"^(a|a)+$": {}}, "unevaluatedProperties": False}, {"a" * 40 + "!": 1}),
        ({"propertyNames": {"pattern": "^(a|a)+$"}}, {"a" * 40 + "!": 1}),
    ],
    ids=["pattern", "nested-plus", "patternProperties", "additionalProperties", "unevaluatedProperties", "propertyNames"],
)
def test_a_backtracking_pattern_is_stopped_within_the_bound(schema: dict[str, Any], instance: Any) -> None:
    assert schema_problems(schema) == []
    started = time.monotonic()
    with pytest.raises(JevInputError, match=r"took longer than its bound of 0\.2 s"):
        validate(instance, schema, timeout=0.2)
    assert time.monotonic() - started < 30  # a hang guard only; with `re` this never returns


def test_the_bound_is_shared_by_every_call_of_a_check() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string", "pattern": "^(a|a)+$"}}}
    calls = [ToolCall("s", {"q": "a" * 40 + "!"})] * 50
    check = compile_builtin(ToolArgumentsValid(schemas={"s": schema}, timeout=0.2))
    started = time.monotonic()
    with pytest.raises(JevInputError, match=r"^call 1 \(s\): the tool_arguments_valid check took longer than its bound of 0\.2 s"):
        check(JevJudgeInput(answer="a", tool_calls=calls))
    assert time.monotonic() - started < 30


def test_a_schema_of_nested_alternatives_runs_out_of_steps_not_time() -> None:
    deep: dict[str, Any] = {"type": "integer"}
    for _ in range(40):  # 2**40 branches to try
        deep = {"anyOf": [deep, deep]}
    with pytest.raises(JevInputError, match="needs more than 2000 steps"):
        validate("x", {"anyOf": [deep, {"type": "string"}]}, timeout=600, max_steps=2000)
    with pytest.raises(JevInputError, match="needs more than 2000 steps"):
        validate("x", {"not": deep}, timeout=600, max_steps=2000)  # never swallowed by `not`
    with pytest.raises(JevInputError, match=r"took longer than its bound of 0\.2 s"):
        validate("x", {"not": deep}, timeout=0.2)


def test_a_schema_too_large_or_too_deep_is_refused() -> None:
    wide = {"enum": list(range(MAX_SCHEMA_NODES + 1))}
    assert schema_problems(wide) == [f"the schema holds more than {MAX_SCHEMA_NODES} values, too many to check"]
    deep: dict[str, Any] = {}
    for _ in range(MAX_SCHEMA_DEPTH + 1):
        deep = {"not": deep}
    assert schema_problems(deep) == [f"the schema nests more than {MAX_SCHEMA_DEPTH} levels deep, too deep to check"]


def test_recursive_schemas_and_deep_arguments_end_with_an_error_not_a_crash() -> None:
    schema = {"$ref": "#/$defs/n", "$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}}}
    node: dict[str, Any] = {}
    deep = node
    for _ in range(2000):
        node["next"] = {}
        node = node["next"]
    with pytest.raises(JevInputError, match=r"nest too deeply to be checked|needs more than"):
        validate(deep, schema)
    assert validate({"next": {"next": {}}}, schema, timeout=600) == []  # no time bound at stake here
    with pytest.raises(JevInputError):
        validate("x", {"$ref": "#"})  # a reference to itself, without end


def test_a_long_array_of_objects_is_checked_for_unique_items_in_linear_time() -> None:
    items = [{"id": i, "tags": [i, str(i)]} for i in range(5_000)]
    assert validate(items, {"uniqueItems": True}, timeout=600) == []
    assert validate([*items, {"tags": [5, "5"], "id": 5.0}], {"uniqueItems": True}, timeout=600) != []
