"""Tool-call arguments checked against the tool's JSON Schema, with the `jsonschema` library.

Tool schemas are the JSON Schemas of their arguments, as LangChain, OpenAI and
Anthropic describe tools. They are checked by `jsonschema` (the validator users
already trust, which passes the official JSON-Schema-Test-Suite): the whole of
draft 2020-12, or draft 7 when the schema's ``$schema`` says so; ``format`` is
an annotation, as draft 2020-12 has it, and ``multipleOf`` is decided exactly on
the decimal a number is written as (``19.99`` is a multiple of ``0.01``, which
float division denies). A schema is data from a row, so it is
treated as hostile:

- it is checked against its metaschema first, and a malformed schema
  (``{"minLength": "3"}``, ``{"required": "a"}``, a pattern that does not compile)
  is refused with a message naming the place, never ignored;
- its size (`MAX_SCHEMA_NODES` values) and nesting (`MAX_SCHEMA_DEPTH`) are bounded;
- a ``$ref`` resolves only inside the schema (and to the published metaschemas):
  nothing is ever fetched, and an unresolvable reference is refused;
- ``pattern`` and ``patternProperties`` (also as ``additionalProperties`` and
  ``unevaluatedProperties`` read them) match with the `regex` package under the
  check's time bound (`langchain_jev.judges._checks.bounded`), and the check as a
  whole is bounded in keyword applications (`MAX_STEPS`) and in time: past a
  bound the check raises, so it is never decided as valid.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import jsonschema
import referencing
import referencing.exceptions
import regex
from jsonschema import validators
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator

from langchain_jev._errors import JevInputError
from langchain_jev._input import ToolCall
from langchain_jev.judges._checks.bounded import DEFAULT_TIMEOUT, Deadline, compile_pattern, search
from langchain_jev.judges._checks.json_values import canonical_json

__all__ = [
    "DRAFTS",
    "MAX_SCHEMA_DEPTH",
    "MAX_SCHEMA_NODES",
    "MAX_STEPS",
    "arguments_problems",
    "read_tool_schemas",
    "schema_problems",
    "validate",
]

MAX_SCHEMA_NODES = 20_000
"""Values (objects, arrays, strings, numbers...) one tool's schema may hold."""
MAX_SCHEMA_DEPTH = 64
"""How deeply a schema's objects and arrays may nest."""
MAX_STEPS = 100_000
"""Keyword applications one schema check may make (nested ``anyOf``\\ s are exponential); the time
bound usually ends such a check first, this one ends it the same way on any machine."""

_BASES: dict[str, type[Validator]] = {
    "https://json-schema.org/draft/2020-12/schema": jsonschema.Draft202012Validator,
    "http://json-schema.org/draft-07/schema": jsonschema.Draft7Validator,
}
DRAFTS: tuple[str, ...] = tuple(_BASES)
"""The ``$schema`` URIs accepted (a trailing ``#`` aside); a schema without one is draft 2020-12."""


def read_tool_schemas(value: Any, where: str) -> dict[str, Any]:
    """Tool name -> the JSON Schema of its arguments, from any usual description of tools.

    Takes a mapping of tool name to schema, or a list of tool descriptions: OpenAI's
    ``{"type": "function", "function": {"name", "parameters"}}``, ``{"name",
    "parameters"}``, or Anthropic's ``{"name", "input_schema"}``.

    Raises:
        JevInputError: the value is none of these, or a schema is malformed, too
            large or of an unsupported draft; the message says where (``where``
            names the source).

    Example:
        >>> read_tool_schemas([{"type": "function", "function": {"name": "search",
        ...     "parameters": {"type": "object", "required": ["q"]}}}], "tools")
        {'search': {'type': 'object', 'required': ['q']}}

    """
    found: dict[str, Any] = {}
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
        if not isinstance(name, str) or not isinstance(schema, (Mapping, bool)):
            raise JevInputError(f"{spot} must be a JSON Schema (an object or a boolean)")
        problems = schema_problems(schema)
        if problems:
            raise JevInputError(f"{spot}: {problems[0]}")
        found[name] = schema
    return found


def schema_problems(schema: Any) -> list[str]:
    """Why a schema cannot be checked (malformed, too large, unknown draft); empty when it can.

    Example:
        >>> schema_problems({"type": "object", "properties": {"q": {"minLength": "3"}}})
        ["properties.q.minLength: '3' is not of type 'integer'"]
        >>> schema_problems({"type": "object", "patternProperties": {"^x_": {"type": "integer"}}})
        []

    """
    if isinstance(schema, bool):
        return []
    if not isinstance(schema, Mapping):
        return [f"a schema must be an object or a boolean, got {type(schema).__name__}"]
    size = _size_problem(schema)
    if size is not None:
        return [size]
    base = _draft(schema)
    if isinstance(base, str):
        return [base]
    meta = validators.validator_for(base.META_SCHEMA)(base.META_SCHEMA, format_checker=_PATTERN_FORMAT)
    try:
        errors = sorted(meta.iter_errors(schema), key=lambda e: (list(e.absolute_path), e.message))
    except RecursionError:
        return ["the schema nests too deeply to be checked"]
    return [f"{_place(error.absolute_path, 'schema')}: {_short_message(error)}" for error in errors[:5]]


def validate(
    instance: Any,
    schema: Any,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    deadline: Deadline | None = None,
    max_steps: int = MAX_STEPS,
) -> list[str]:
    """Where ``instance`` breaks ``schema``: one line per problem, empty when it is valid.

    ``schema`` must be one `schema_problems` accepts.

    Raises:
        JevInputError: a ``$ref`` cannot be resolved inside the schema, or the check
            went past its bound (``timeout`` seconds, or ``deadline`` shared with
            other calls; ``max_steps`` keyword applications; Python's recursion
            limit): it cannot be decided, so it is never valid.

    Example:
        >>> validate({"q": 3}, {"type": "object", "properties": {"q": {"type": "string"}},
        ...                     "required": ["q", "n"]})
        ["'n' is a required property", "q: 3 is not of type 'string'"]

    """
    bound = deadline if deadline is not None else Deadline(timeout, "the tool_arguments_valid check")
    base = _draft(schema) if isinstance(schema, Mapping) else jsonschema.Draft202012Validator
    if isinstance(base, str):
        raise JevInputError(base)
    checker = _bounded(base)(schema, registry=_NOTHING_REMOTE)
    budget = _Budget(bound, max_steps)
    token = _BUDGET.set(budget)
    try:
        errors = list(checker.iter_errors(instance))
    except referencing.exceptions.Unresolvable as error:
        ref = str(getattr(error, "ref", error))
        raise JevInputError(
            f"the schema's reference {_clip(repr('#' + ref if ref.startswith('/') else ref), 80)} "
            "cannot be resolved inside it (nothing is fetched)"
        ) from None
    except RecursionError:
        raise JevInputError(
            "the arguments or the schema's references nest too deeply to be checked"
        ) from None
    finally:
        _BUDGET.reset(token)
    return [_problem(error) for error in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path])]


def arguments_problems(
    calls: Sequence[ToolCall],
    schemas: Mapping[str, Any],
    *,
    unknown_tools: str = "fail",
    timeout: float = DEFAULT_TIMEOUT,
) -> list[str]:
    """Every problem with the arguments of ``calls`` against their tools' ``schemas``.

    A call to a tool with no schema is a problem unless ``unknown_tools`` is
    ``"ignore"``. All the calls share one time bound of ``timeout`` seconds.

    Example:
        >>> schemas = {"search": {"type": "object", "properties": {"q": {"type": "string"}}}}
        >>> arguments_problems([ToolCall("search", {"q": 1}), ToolCall("book", {})], schemas)
        ["call 1 (search): q: 1 is not of type 'string'", 'call 2 (book): no such tool']

    """
    deadline = Deadline(timeout, "the tool_arguments_valid check")
    problems: list[str] = []
    for index, call in enumerate(calls, start=1):
        schema = schemas.get(call.name)
        if schema is None:
            if unknown_tools != "ignore":
                problems.append(f"call {index} ({call.name}): no such tool")
            continue
        try:
            found = validate(call.arguments, schema, deadline=deadline)
        except JevInputError as error:
            raise JevInputError(f"call {index} ({call.name}): {error}") from None
        problems.extend(f"call {index} ({call.name}): {p}" for p in found)
    return problems


# ---------------------------------------------------------------- the bounds


_NOTHING_REMOTE: referencing.Registry[Any] = referencing.Registry()
"""A registry that retrieves nothing (jsonschema adds the published metaschemas to it)."""

_PATTERN_FORMAT = jsonschema.FormatChecker(formats=())


@_PATTERN_FORMAT.checks("regex", raises=(regex.error, TypeError, ValueError, OverflowError))
def _is_pattern(value: object) -> bool:
    """Patterns compile with `regex`, which is what matches them."""
    if isinstance(value, str):
        compile_pattern(value)
    return True


class _Budget:
    """Keyword applications left, and the deadline, of one check."""

    def __init__(self, deadline: Deadline, steps: int) -> None:
        self.deadline = deadline
        self.limit = self.steps = steps

    def tick(self) -> None:
        self.steps -= 1
        if self.steps < 0:
            raise JevInputError(
                f"{self.deadline.what} needs more than {self.limit} steps (a schema of nested "
                "alternatives?), so it cannot be decided"
            )
        if self.steps % 64 == 0:
            self.deadline.left()


_BUDGET: contextvars.ContextVar[_Budget] = contextvars.ContextVar("langchain_jev_schema_budget")

_Keyword = Callable[[Any, Any, Any, Any], Iterator[ValidationError] | None]


def _counted(keyword: _Keyword) -> _Keyword:
    @functools.wraps(keyword)
    def counted(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[ValidationError] | None:
        _BUDGET.get().tick()
        return keyword(validator, value, instance, schema)

    return counted


def _matches(pattern: str, text: str) -> bool:
    return search(pattern, text, _BUDGET.get().deadline)


_Own = Callable[[Any, Any, Any, Any], Iterator[ValidationError]]


def _applies_to(kind: str) -> Callable[[_Own], _Own]:
    """A keyword that judges instances of JSON type ``kind`` only: any other instance passes it."""

    def applies(keyword: _Own) -> _Own:
        @functools.wraps(keyword)
        def on_kind(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
            if validator.is_type(instance, kind):
                yield from keyword(validator, value, instance, schema)

        return on_kind

    return applies


def _listed(keys: Iterable[str]) -> str:
    """Keys for a message: sorted, quoted, the list clipped."""
    return _clip(", ".join(repr(each) for each in sorted(keys)), 80)


@_applies_to("string")
def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not _matches(pattern, instance):
        yield ValidationError(f"{_short(instance)} does not match {pattern!r}")


@_applies_to("object")
def _pattern_properties(
    validator: Any, patterns: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _matches(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [
        key
        for key in instance
        if key not in properties and not any(_matches(pattern, key) for pattern in patterns)
    ]


@_applies_to("object")
def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    extras = _additional(instance, schema)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        yield ValidationError(f"additional properties are not allowed ({_listed(extras)})")


@_applies_to("object")
def _unevaluated_properties(
    validator: Any, allowed: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    evaluated = _evaluated_keys(validator, instance, schema)
    failed = [
        key
        for key in instance
        if key not in evaluated and any(True for _ in validator.descend(instance[key], allowed, path=key))
    ]
    if failed:
        yield ValidationError(f"unevaluated properties are not allowed or not valid ({_listed(failed)})")


def _evaluated_keys(validator: Any, instance: Mapping[str, Any], schema: Any) -> set[str]:
    """The keys some keyword of ``schema`` evaluated (jsonschema's rule, matching patterns bounded)."""
    if validator.is_type(schema, "boolean"):
        return set()
    _BUDGET.get().tick()
    keys: set[str] = set()
    for reference in ("$ref", "$dynamicRef"):
        if reference in schema:
            resolved = validator._resolver.lookup(schema[reference])
            inner = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
            keys |= _evaluated_keys(inner, instance, resolved.contents)
    properties = schema.get("properties")
    if validator.is_type(properties, "object"):
        keys |= properties.keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if (subschema := schema.get(keyword)) is not None:
            keys |= {key for key, value in instance.items() if _valid(validator.descend(value, subschema))}
    for pattern in schema.get("patternProperties", {}):
        keys |= {key for key in instance if _matches(pattern, key)}
    for name, subschema in schema.get("dependentSchemas", {}).items():
        if name in instance:
            keys |= _evaluated_keys(validator, instance, subschema)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if _valid(validator.descend(instance, subschema)):
                keys |= _evaluated_keys(validator, instance, subschema)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys |= _evaluated_keys(validator, instance, schema["if"])
            if "then" in schema:
                keys |= _evaluated_keys(validator, instance, schema["then"])
        elif "else" in schema:
            keys |= _evaluated_keys(validator, instance, schema["else"])
    return keys


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """In linear time: JSON-equal items (``1`` and ``1.0``, not ``true``) share a canonical form."""
    if unique and validator.is_type(instance, "array"):
        seen: set[Any] = set()
        for item in instance:
            key = canonical_json(item)
            if key in seen:
                yield ValidationError("the items are not unique")
                return
            seen.add(key)


@_applies_to("number")
def _multiple_of(validator: Any, step: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """Exactly, as decimals: ``19.99`` is a multiple of ``0.01`` (not as floats); ``2**64 + 1`` not of 7."""
    try:
        failed = (_exact(instance) / _exact(step)).denominator != 1
    except (ValueError, OverflowError, ArithmeticError):  # not finite
        failed = True
    if failed:
        yield ValidationError(f"{_short(instance)} is not a multiple of {_short(step)}")


def _exact(number: float) -> Fraction:
    """The decimal a JSON number is written as (a float's shortest form), as an exact fraction."""
    return Fraction(number) if isinstance(number, int) else Fraction(Decimal(repr(number)))


def _valid(errors: Iterator[ValidationError]) -> bool:
    return next(errors, None) is None


_OWN: dict[str, _Keyword] = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "unevaluatedProperties": _unevaluated_properties,
    "uniqueItems": _unique_items,
    "multipleOf": _multiple_of,
}


@functools.cache
def _bounded(base: type[Validator]) -> type[Validator]:
    """``base`` with every keyword counted, and the keywords that match patterns bounded."""
    known: dict[str, _Keyword] = dict(base.VALIDATORS)
    keywords = {name: _counted(_OWN.get(name, keyword)) for name, keyword in known.items()}
    extended: type[Validator] = validators.extend(base, keywords)  # type: ignore[no-untyped-call]
    return extended


def _draft(schema: Mapping[str, Any]) -> type[Validator] | str:
    """The draft a schema is written in, or why it cannot be checked."""
    uri = schema.get("$schema")
    if uri is None:
        return jsonschema.Draft202012Validator
    if not isinstance(uri, str):
        return f"$schema: must be a string, got {type(uri).__name__}"
    base = _BASES.get(uri.rstrip("#"))
    if base is None:
        return (
            f"$schema: {_clip(repr(uri), 80)} is not supported: write draft 2020-12 ({DRAFTS[0]}) or draft 7"
        )
    return base


def _size_problem(schema: Any) -> str | None:
    nodes = 0
    stack: list[tuple[Any, int]] = [(schema, 0)]
    while stack:
        value, depth = stack.pop()
        nodes += 1
        if nodes > MAX_SCHEMA_NODES:
            return f"the schema holds more than {MAX_SCHEMA_NODES} values, too many to check"
        if isinstance(value, Mapping):
            children: Any = value.values()
        elif isinstance(value, (list, tuple)):
            children = value
        else:
            continue
        if depth >= MAX_SCHEMA_DEPTH:
            return f"the schema nests more than {MAX_SCHEMA_DEPTH} levels deep, too deep to check"
        stack.extend((child, depth + 1) for child in children)
    return None


def _problem(error: ValidationError) -> str:
    place = _place(error.absolute_path, "")
    return f"{place}: {_short_message(error)}" if place else _short_message(error)


def _place(path: Any, root: str) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or root


def _short_message(error: ValidationError) -> str:
    return _clip(error.message, 160)


def _short(value: Any) -> str:
    return _clip(repr(value), 40)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
