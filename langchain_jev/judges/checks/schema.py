"""Tool-call arguments checked against the tool's JSON Schema, by code.

Tool schemas are the JSON Schemas of their arguments, as LangChain, OpenAI and
Anthropic describe tools. This module validates the keywords such schemas use
(``type``, ``properties``, ``required``, ``additionalProperties``, ``items``,
``enum``, ``const``, ``anyOf``/``oneOf``/``allOf``/``not``, the number, string,
array and object bounds, ``pattern`` and local ``$ref``), ignores annotations
(``title``, ``description``, ``default``, ``format``, ...) and refuses any other
keyword rather than pass arguments it cannot check.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_jev.errors import JevInputError
from langchain_jev.input import ToolCall

__all__ = ["arguments_problems", "read_tool_schemas", "schema_problems", "validate"]

_ANNOTATIONS = frozenset(
    {
        "$schema", "$id", "$comment", "$anchor", "title", "description", "default", "examples",
        "format", "deprecated", "readOnly", "writeOnly", "contentMediaType", "contentEncoding",
        "$defs", "definitions",
    }
)
_CHECKED = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const",
        "anyOf", "oneOf", "allOf", "not", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "minItems",
        "maxItems", "uniqueItems", "minProperties", "maxProperties", "$ref",
    }
)
_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
_MAX_DEPTH = 64
_MAX_STEPS = 20_000


def read_tool_schemas(value: Any, where: str) -> dict[str, Mapping[str, Any]]:
    """Tool name -> the JSON Schema of its arguments, from any usual description of tools.

    Takes a mapping of tool name to schema, or a list of tool descriptions: OpenAI's
    ``{"type": "function", "function": {"name", "parameters"}}``, ``{"name",
    "parameters"}``, or Anthropic's ``{"name", "input_schema"}``.

    Raises:
        JevInputError: the value is none of these, or a schema uses a keyword that
            cannot be checked; the message says where (``where`` names the source).

    Example:
        >>> read_tool_schemas([{"type": "function", "function": {"name": "search",
        ...     "parameters": {"type": "object", "required": ["q"]}}}], "tools")
        {'search': {'type': 'object', 'required': ['q']}}

    """
    found: dict[str, Mapping[str, Any]] = {}
    if isinstance(value, Mapping):
        items = [(name, schema, f"{where}.{name}") for name, schema in value.items()]
    elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        items = []
        for index, tool in enumerate(value):
            spot = f"{where}[{index}]"
            if not isinstance(tool, Mapping):
                raise JevInputError(f"{spot} must describe a tool, got {type(tool).__name__}")
            if isinstance(tool.get("function"), Mapping):
                tool = tool["function"]
            name = tool.get("name")
            schema: Any = next((tool[k] for k in ("parameters", "input_schema") if k in tool), {})
            if not isinstance(name, str):
                raise JevInputError(f"{spot} must have a string 'name'")
            items.append((name, schema, spot))
    else:
        raise JevInputError(
            f"{where} must map tool names to schemas or list tools, got {type(value).__name__}"
        )
    for name, schema, spot in items:
        if not isinstance(name, str) or not isinstance(schema, Mapping):
            raise JevInputError(f"{spot} must be a JSON Schema object")
        problems = schema_problems(schema)
        if problems:
            raise JevInputError(f"{spot}: {problems[0]}")
        found[name] = schema
    return found


def schema_problems(schema: Any, path: str = "") -> list[str]:
    """Why a schema cannot be checked here (unknown keywords, bad shapes); empty when it can.

    Example:
        >>> schema_problems({"type": "object", "patternProperties": {}})
        ['patternProperties: this keyword cannot be checked here']

    """
    if isinstance(schema, bool):
        return []
    if not isinstance(schema, Mapping):
        return [f"{path or 'schema'}: a schema must be an object or a boolean"]
    problems: list[str] = []
    for key, value in schema.items():
        here = f"{path}.{key}" if path else str(key)
        if key in _ANNOTATIONS:
            if key in ("$defs", "definitions") and isinstance(value, Mapping):
                for name, inner in value.items():
                    problems.extend(schema_problems(inner, f"{here}.{name}"))
            continue
        if key not in _CHECKED:
            problems.append(f"{here}: this keyword cannot be checked here")
        elif key == "type":
            names = [value] if isinstance(value, str) else value
            if not isinstance(names, list) or any(n not in _TYPES for n in names):
                problems.append(f"{here}: unknown type {value!r}")
        elif key == "properties" and isinstance(value, Mapping):
            for name, inner in value.items():
                problems.extend(schema_problems(inner, f"{here}.{name}"))
        elif key in ("items", "additionalProperties", "not"):
            problems.extend(schema_problems(value, here))
        elif key in ("anyOf", "oneOf", "allOf"):
            if not isinstance(value, list) or not value:
                problems.append(f"{here}: must be a non-empty list of schemas")
            else:
                for index, inner in enumerate(value):
                    problems.extend(schema_problems(inner, f"{here}[{index}]"))
        elif key == "$ref" and not (isinstance(value, str) and value.startswith("#")):
            problems.append(f"{here}: only local references (#/...) can be followed")
        elif key == "pattern":
            try:
                re.compile(value)
            except (re.error, TypeError) as error:
                problems.append(f"{here}: not a regular expression ({error})")
    return problems


def validate(instance: Any, schema: Any) -> list[str]:
    """Where ``instance`` breaks ``schema``: one line per problem, empty when it is valid.

    Nesting and the work one check may take are bounded (a schema of nested
    ``anyOf``s would otherwise take exponential time): past them the arguments
    are reported as too deep or too complex to check, never as valid.

    Example:
        >>> validate({"q": 3}, {"type": "object", "properties": {"q": {"type": "string"}},
        ...                     "required": ["q", "n"]})
        ["missing required 'n'", 'q: expected string, got integer']

    """
    budget = [_MAX_STEPS]
    problems = _check(instance, schema, schema, "", 0, budget)
    if budget[0] < 0:  # said even where a `not` or an anyOf branch swallowed it: never valid
        problems = [p for p in problems if not p.endswith("too complex to check")]
        problems.append("arguments: too complex to check")
    return problems


def _check(instance: Any, schema: Any, root: Any, path: str, depth: int, budget: list[int]) -> list[str]:
    budget[0] -= 1
    if budget[0] < 0:
        return [f"{path or 'arguments'}: too complex to check"]
    if depth > _MAX_DEPTH:
        return [f"{path or 'arguments'}: nested too deep to check"]
    if schema is True:
        return []
    if schema is False:
        return [f"{path or 'arguments'}: no value is allowed here"]
    if not isinstance(schema, Mapping):
        return [f"{path or 'arguments'}: the schema is not an object"]
    problems: list[str] = []
    here = path or "arguments"
    prefix = f"{path}: " if path else ""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = _resolve(root, ref)
        if target is None:
            return [f"{here}: cannot resolve {ref!r}"]
        problems.extend(_check(instance, target, root, path, depth + 1, budget))
    if "type" in schema:
        names = [schema["type"]] if isinstance(schema["type"], str) else list(schema["type"])
        if not any(_is_type(instance, name) for name in names):
            return [*problems, f"{prefix}expected {' or '.join(names)}, got {_type_name(instance)}"]
    from langchain_jev.spec.conditions import json_equal

    if "enum" in schema and not any(json_equal(instance, option) for option in schema["enum"]):
        problems.append(f"{prefix}{_short(instance)} is not one of {_short(schema['enum'])}")
    if "const" in schema and not json_equal(instance, schema["const"]):
        problems.append(f"{prefix}must be {_short(schema['const'])}")
    for inner in schema.get("allOf") or ():
        problems.extend(_check(instance, inner, root, path, depth + 1, budget))
    if "anyOf" in schema and not any(
        not _check(instance, inner, root, path, depth + 1, budget) for inner in schema["anyOf"]
    ):
        problems.append(f"{prefix}matches none of anyOf")
    if "oneOf" in schema:
        branches = schema["oneOf"]
        matching = sum(1 for inner in branches if not _check(instance, inner, root, path, depth + 1, budget))
        if matching != 1:
            problems.append(f"{prefix}matches {matching} of oneOf, needs exactly 1")
    if "not" in schema and not _check(instance, schema["not"], root, path, depth + 1, budget):
        problems.append(f"{prefix}matches a schema it must not")
    if _is_type(instance, "number"):
        problems.extend(_number_problems(instance, schema, prefix))
    elif isinstance(instance, str):
        problems.extend(_string_problems(instance, schema, prefix))
    elif isinstance(instance, (list, tuple)):
        problems.extend(_array_problems(instance, schema, root, path, depth, budget))
    elif isinstance(instance, Mapping):
        problems.extend(_object_problems(instance, schema, root, path, depth, budget))
    return problems


def arguments_problems(
    calls: Sequence[ToolCall], schemas: Mapping[str, Any], *, unknown_tools: str = "fail"
) -> list[str]:
    """Every problem with the arguments of ``calls`` against their tools' ``schemas``.

    A call to a tool with no schema is a problem unless ``unknown_tools`` is ``"ignore"``.

    Example:
        >>> schemas = {"search": {"type": "object", "properties": {"q": {"type": "string"}}}}
        >>> arguments_problems([ToolCall("search", {"q": 1}), ToolCall("book", {})], schemas)
        ['call 1 (search): q: expected string, got integer', 'call 2 (book): no such tool']

    """
    problems: list[str] = []
    for index, call in enumerate(calls, start=1):
        schema = schemas.get(call.name)
        if schema is None:
            if unknown_tools != "ignore":
                problems.append(f"call {index} ({call.name}): no such tool")
            continue
        problems.extend(f"call {index} ({call.name}): {p}" for p in validate(call.arguments, schema))
    return problems


def _number_problems(value: float, schema: Mapping[str, Any], prefix: str) -> list[str]:
    problems = []
    for key, below, equal_fails in (
        ("minimum", True, False),
        ("maximum", False, False),
        ("exclusiveMinimum", True, True),
        ("exclusiveMaximum", False, True),
    ):
        bound: Any = schema.get(key)
        if not _is_type(bound, "number"):
            continue
        fails = (value < bound if below else value > bound) or (equal_fails and value == bound)
        if fails:
            problems.append(f"{prefix}{_short(value)} breaks {key} {_short(bound)}")
    step: Any = schema.get("multipleOf")
    if _is_type(step, "number") and step > 0:
        quotient = value / step
        if not math.isfinite(quotient) or not math.isclose(quotient, round(quotient), abs_tol=1e-9):
            problems.append(f"{prefix}{_short(value)} is not a multiple of {_short(step)}")
    return problems


def _string_problems(value: str, schema: Mapping[str, Any], prefix: str) -> list[str]:
    problems = []
    if isinstance(schema.get("minLength"), int) and len(value) < schema["minLength"]:
        problems.append(f"{prefix}shorter than {schema['minLength']} characters")
    if isinstance(schema.get("maxLength"), int) and len(value) > schema["maxLength"]:
        problems.append(f"{prefix}longer than {schema['maxLength']} characters")
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and re.search(pattern, value) is None:
        problems.append(f"{prefix}does not match the pattern {pattern!r}")
    return problems


def _array_problems(
    value: Sequence[Any], schema: Mapping[str, Any], root: Any, path: str, depth: int, budget: list[int]
) -> list[str]:
    problems = []
    prefix = f"{path}: " if path else ""
    if isinstance(schema.get("minItems"), int) and len(value) < schema["minItems"]:
        problems.append(f"{prefix}fewer than {schema['minItems']} items")
    if isinstance(schema.get("maxItems"), int) and len(value) > schema["maxItems"]:
        problems.append(f"{prefix}more than {schema['maxItems']} items")
    if schema.get("uniqueItems") is True:
        from langchain_jev.spec.conditions import json_equal

        if any(json_equal(a, b) for i, a in enumerate(value) for b in value[i + 1 :]):
            problems.append(f"{prefix}items are not unique")
    if "items" in schema:
        for index, item in enumerate(value):
            problems.extend(_check(item, schema["items"], root, f"{path}[{index}]", depth + 1, budget))
    return problems


def _object_problems(
    value: Mapping[str, Any], schema: Mapping[str, Any], root: Any, path: str, depth: int, budget: list[int]
) -> list[str]:
    problems = []
    prefix = f"{path}: " if path else ""
    for name in schema.get("required") or ():
        if name not in value:
            problems.append(f"{prefix}missing required {name!r}")
    if isinstance(schema.get("minProperties"), int) and len(value) < schema["minProperties"]:
        problems.append(f"{prefix}fewer than {schema['minProperties']} properties")
    if isinstance(schema.get("maxProperties"), int) and len(value) > schema["maxProperties"]:
        problems.append(f"{prefix}more than {schema['maxProperties']} properties")
    properties = schema.get("properties") or {}
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        where = f"{path}.{name}" if path else str(name)
        if name in properties:
            problems.extend(_check(item, properties[name], root, where, depth + 1, budget))
        elif extra is False:
            problems.append(f"{prefix}unexpected argument {name!r}")
        elif isinstance(extra, Mapping):
            problems.extend(_check(item, extra, root, where, depth + 1, budget))
    return problems


def _resolve(root: Any, ref: str) -> Any:
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _is_type(value: Any, name: str) -> bool:
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, (list, tuple))
    if name == "object":
        return isinstance(value, Mapping)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if name == "integer":
        return isinstance(value, int) or (math.isfinite(value) and value.is_integer())
    return name == "number"


def _type_name(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is_type(value, name):
            return name
    return type(value).__name__


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
