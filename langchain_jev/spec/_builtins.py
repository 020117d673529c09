"""The built-in checks of judge files: conditions the package decides by code, no opt-in needed.

==========================================  =====================================================
form                                        true when
==========================================  =====================================================
``{trajectory_match: {mode: strict}}``      ``tool_calls`` match the reference calls (``mode``:
                                            strict, unordered, subset, superset; ``arguments``:
                                            exact, ignore, subset, superset; ``per_tool``: a
                                            mode, key paths, or ``{mode, keys, ignore}``;
                                            ``reference``: the field, ``reference_tool_calls``,
                                            calls or trajectory messages)
``{tool_arguments_valid: {}}``              every call's arguments fit its tool's JSON Schema
                                            (``schemas`` inline, or ``schemas_field``, by default
                                            ``tool_schemas``; ``unknown_tools``: fail or ignore)
``{no_repeated_tool_calls: {}}``            no call repeated with the same arguments more than
                                            ``max_identical`` (1) times, no tool called more than
                                            ``max_consecutive`` (3) times in a row
``{no_sensitive_data: {kinds: [email]}}``   no secret, card number, email or phone number (the
                                            ``kinds`` given; all by default) in ``field``
                                            (``assistant_answer``), ``allow`` aside
``{json_match: {rules: {id: ignore}}}``     the JSON answer has the expected output's values on
                                            every key ruled ``exact`` (``default``: exact)
``{string_similarity: {minimum: 0.8}}``     the answer is that similar to the expected output
                                            (``metric``: levenshtein, indel, jaro_winkler,
                                            token_set)
``{code_parses: {language: python}}``       the answer's code parses (python or json)
``{code_type_checks: {tool: mypy}}``        the answer's Python passes mypy or pyright (the
                                            ``code`` extra)
==========================================  =====================================================

See `langchain_jev.judges._checks` for what each decides, exactly.
"""

from __future__ import annotations

import json
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from langchain_jev._criteria import Predicate
from langchain_jev._errors import JevInputError
from langchain_jev._input import ANSWER_FIELD, EXPECTED_FIELD, JevJudgeInput
from langchain_jev.judges._checks.bounded import DEFAULT_TIMEOUT
from langchain_jev.judges._checks.json_keys import KeyRule, json_keys_match
from langchain_jev.judges._checks.schema import arguments_problems, read_tool_schemas
from langchain_jev.judges._checks.sensitive import (
    PHONE_REGIONS,
    SUPPORTED_REGIONS,
    SensitiveKind,
    find_sensitive,
)
from langchain_jev.judges._checks.similarity import Metric, similarity
from langchain_jev.judges._checks.static_code import (
    Language,
    TypeChecker,
    parses,
    require_type_checker,
    type_checks,
)
from langchain_jev.judges._checks.tool_calls import (
    ArgumentsMode,
    read_calls,
    repeated_calls,
    trajectory_matches,
)

__all__ = [
    "BUILTIN_FORMS",
    "ArgumentsMatch",
    "CodeParses",
    "CodeTypeChecks",
    "JsonMatch",
    "StringSimilarity",
    "NoRepeatedToolCalls",
    "NoSensitiveData",
    "ToolArgumentsValid",
    "TrajectoryMatch",
    "builtin_fields",
    "compile_builtin",
]

REFERENCE_FIELD = "reference_tool_calls"
"""The state field holding the reference trajectory, unless ``reference`` names another."""
SCHEMAS_FIELD = "tool_schemas"
"""The state field holding the tools' schemas, unless they are given inline."""


def _describe(schema: dict[str, Any], model: type[Any]) -> None:
    doc = (model.__doc__ or "").strip()
    if doc:
        schema["description"] = " ".join(doc.split("\n\n", 1)[0].split())


class _Builtin(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra=_describe)


def _timeout(what: str) -> Any:
    """A built-in's ``timeout`` option: seconds, above 0 and at most 600, that ``what`` may take."""
    return Field(
        default=DEFAULT_TIMEOUT,
        gt=0,
        le=600,
        description=f"Seconds the {what} may take on one input; past them it raises, never passes.",
    )


class ArgumentsMatch(_Builtin):
    """A tool's own arguments rule: key paths left out, then some keys alone or a mode.

    Example:
        >>> ArgumentsMatch(ignore=["request_id", "time.end"], mode="superset").mode
        'superset'

    """

    mode: ArgumentsMode = Field(default="exact", description="How the arguments left are compared.")
    keys: list[str] | None = Field(
        default=None, min_length=1, description="Key paths (dotted) that alone must be equal."
    )
    ignore: list[str] = Field(
        default_factory=list, description="Key paths (dotted) left out of both calls' arguments first."
    )


class TrajectoryMatch(_Builtin):
    """The agent's ``tool_calls`` match a reference trajectory (agentevals' four modes).

    Example:
        >>> check = compile_builtin(TrajectoryMatch(mode="superset"))
        >>> check(JevJudgeInput(answer="a", tool_calls=[{"name": "search"}, {"name": "fetch"}],
        ...                     fields={"reference_tool_calls": [{"name": "search"}]}))
        True

    """

    mode: Literal["strict", "unordered", "subset", "superset"] = Field(
        default="strict",
        description=(
            "strict: same calls, same order; unordered: same calls, any order; subset: no call "
            "beyond the reference; superset: at least the reference's calls."
        ),
    )
    arguments: ArgumentsMode = Field(
        default="exact", description="How the arguments of two calls of one tool are compared."
    )
    per_tool: dict[str, ArgumentsMode | list[str] | ArgumentsMatch] = Field(
        default_factory=dict,
        description=(
            "A tool's own arguments rule: a mode, the key paths (dotted) that alone must be equal, "
            "or {mode, keys, ignore}."
        ),
    )
    reference: str = Field(
        default=REFERENCE_FIELD, min_length=1, description="The state field of the reference calls."
    )


class ToolArgumentsValid(_Builtin):
    """Every tool call's arguments fit the JSON Schema of its tool.

    Example:
        >>> check = compile_builtin(ToolArgumentsValid(schemas={"search": {"required": ["q"]}}))
        >>> check(JevJudgeInput(answer="a", tool_calls=[{"name": "search", "arguments": {}}]))
        False

    """

    schemas: JsonValue = Field(
        default=None,
        description="The tools' argument schemas: name -> JSON Schema, or a list of tool definitions.",
    )
    schemas_field: str | None = Field(
        default=None,
        min_length=1,
        description=f"The state field holding the schemas when not inline (default {SCHEMAS_FIELD}).",
    )
    unknown_tools: Literal["fail", "ignore"] = Field(
        default="fail", description="What a call to a tool without a schema means."
    )
    timeout: float = _timeout("check")

    @field_validator("schemas")
    @classmethod
    def _checkable(cls, value: JsonValue) -> JsonValue:
        if value is not None:
            try:
                read_tool_schemas(value, "schemas")
            except JevInputError as error:
                raise ValueError(str(error)) from None
        return value

    @property
    def source_field(self) -> str | None:
        """The state field the schemas come from, or None when they are inline."""
        if self.schemas is not None:
            return None
        return self.schemas_field or SCHEMAS_FIELD


class NoRepeatedToolCalls(_Builtin):
    """No tool call is repeated with the same arguments, and no tool loops.

    Example:
        >>> again = {"name": "search", "arguments": {"q": "x"}}
        >>> compile_builtin(NoRepeatedToolCalls())(JevJudgeInput(answer="a", tool_calls=[again, again]))
        False

    """

    max_identical: int = Field(
        default=1, ge=1, description="Times one call (same tool, same arguments) may be made."
    )
    max_consecutive: int = Field(default=3, ge=1, description="Times one tool may be called back to back.")


class NoSensitiveData(_Builtin):
    """No secret, card number, email address or phone number in a state field.

    Example:
        >>> check = compile_builtin(NoSensitiveData(kinds=["email"]))
        >>> check(JevJudgeInput(answer="Write to ada@example.org"))
        False

    """

    kinds: list[SensitiveKind] = Field(
        default_factory=lambda: list(get_args(SensitiveKind)),
        min_length=1,
        description="What to look for.",
    )
    field: str = Field(default=ANSWER_FIELD, min_length=1, description="The state field scanned.")
    allow: list[str] = Field(
        default_factory=list,
        description="Matches let through: an exact text, or a domain such as @example.com.",
    )
    regions: list[str] = Field(
        default_factory=lambda: list(PHONE_REGIONS),
        description="Countries (ISO 3166 codes) whose national phone formats count; international always do.",
    )
    timeout: float = _timeout("scan")

    @field_validator("regions")
    @classmethod
    def _known_regions(cls, value: list[str]) -> list[str]:
        unknown = [region for region in value if region not in SUPPORTED_REGIONS]
        if unknown:
            raise ValueError(f"{', '.join(map(repr, unknown))}: not a region phone numbers are known for")
        return value


class JsonMatch(_Builtin):
    """A JSON answer has the expected output's values, key by key (exact keys by code).

    Example:
        >>> check = compile_builtin(JsonMatch(rules={"summary": "question"}))
        >>> answer = '{"id": 7, "summary": "short"}'
        >>> check(JevJudgeInput(answer=answer, expected={"id": 7, "summary": "brief"}))
        True

    """

    rules: dict[str, KeyRule] = Field(
        default_factory=dict,
        description="Key (dotted for nested keys) -> exact, question (left to a question) or ignore.",
    )
    default: KeyRule = Field(default="exact", description="The rule of the expected output's other keys.")
    field: str = Field(default=ANSWER_FIELD, min_length=1, description="The state field of the JSON answer.")
    expected: str = Field(default=EXPECTED_FIELD, min_length=1, description="The state field compared with.")


class StringSimilarity(_Builtin):
    """A text is at least ``minimum`` similar to the expected output (string distance, by code).

    Example:
        >>> check = compile_builtin(StringSimilarity(minimum=0.8))
        >>> check(JevJudgeInput(answer="Paris, France", expected="Paris, france.")), check(JevJudgeInput(
        ...     answer="Lyon", expected="Paris"))
        (True, False)

    """

    minimum: float = Field(ge=0, le=1, description="The similarity needed, from 0 to 1.")
    metric: Metric = Field(default="levenshtein", description="How similarity is measured.")
    normalize: bool = Field(default=True, description="Fold case and runs of whitespace first.")
    field: str = Field(default=ANSWER_FIELD, min_length=1, description="The state field compared.")
    expected: str = Field(default=EXPECTED_FIELD, min_length=1, description="The state field compared with.")


class CodeParses(_Builtin):
    r"""The code in a state field parses (Python or JSON; fenced blocks when there are any).

    Example:
        >>> compile_builtin(CodeParses())(JevJudgeInput(answer="```python\ndef f(:\n```"))
        False

    """

    language: Language = Field(default="python", description="The language the code is in.")
    field: str = Field(default=ANSWER_FIELD, min_length=1, description="The state field holding the code.")


class CodeTypeChecks(_Builtin):
    """The Python code in a state field passes a type checker (mypy or pyright, installed apart)."""

    tool: TypeChecker = Field(default="mypy", description="The type checker.")
    field: str = Field(default=ANSWER_FIELD, min_length=1, description="The state field holding the code.")
    timeout: float = Field(default=60.0, gt=0, le=600, description="Seconds the type checker may take.")


Builtin = (
    TrajectoryMatch
    | ToolArgumentsValid
    | NoRepeatedToolCalls
    | NoSensitiveData
    | JsonMatch
    | StringSimilarity
    | CodeParses
    | CodeTypeChecks
)

BUILTIN_FORMS: dict[str, type[Builtin]] = {
    "trajectory_match": TrajectoryMatch,
    "tool_arguments_valid": ToolArgumentsValid,
    "no_repeated_tool_calls": NoRepeatedToolCalls,
    "no_sensitive_data": NoSensitiveData,
    "json_match": JsonMatch,
    "string_similarity": StringSimilarity,
    "code_parses": CodeParses,
    "code_type_checks": CodeTypeChecks,
}
"""Each built-in form's key, and the model of its parameters."""


def compile_builtin(spec: Builtin) -> Predicate:
    """The predicate of a built-in check.

    A state field the check needs that is missing or malformed raises a
    `JevInputError` naming it, before any request.
    """
    if isinstance(spec, TrajectoryMatch):
        rules = {
            tool: rule.model_dump(exclude_none=True) if isinstance(rule, ArgumentsMatch) else rule
            for tool, rule in spec.per_tool.items()
        }
        return lambda data: trajectory_matches(
            data.tool_calls,
            read_calls(_needed(data, spec.reference, "trajectory_match"), spec.reference),
            spec.mode,
            spec.arguments,
            rules,
        )
    if isinstance(spec, ToolArgumentsValid):
        inline = read_tool_schemas(spec.schemas, "schemas") if spec.schemas is not None else None
        source = spec.source_field

        def valid(data: JevJudgeInput) -> bool:
            if inline is not None:
                schemas = inline
            else:
                assert source is not None
                schemas = read_tool_schemas(_needed(data, source, "tool_arguments_valid"), source)
            return not arguments_problems(
                data.tool_calls, schemas, unknown_tools=spec.unknown_tools, timeout=spec.timeout
            )

        return valid
    if isinstance(spec, NoRepeatedToolCalls):
        return lambda data: not repeated_calls(data.tool_calls, spec.max_identical, spec.max_consecutive)
    if isinstance(spec, JsonMatch):
        return lambda data: json_keys_match(
            data.field(spec.field), data.field(spec.expected), spec.rules, spec.default
        )
    if isinstance(spec, StringSimilarity):
        return lambda data: (
            similarity(
                _text_of(data, spec.field),
                _text_of(data, spec.expected),
                spec.metric,
                normalize=spec.normalize,
            )
            >= spec.minimum
        )
    if isinstance(spec, CodeParses):
        return lambda data: parses(_text_of(data, spec.field), spec.language)
    if isinstance(spec, CodeTypeChecks):
        require_type_checker(spec.tool)
        return lambda data: type_checks(_text_of(data, spec.field), spec.tool, timeout=spec.timeout)
    return lambda data: (
        not find_sensitive(
            data.field(spec.field) or "", spec.kinds, spec.allow, regions=spec.regions, timeout=spec.timeout
        )
    )


def builtin_fields(spec: Builtin) -> set[str]:
    """State fields a built-in check cannot be decided without.

    Example:
        >>> sorted(builtin_fields(TrajectoryMatch()))
        ['reference_tool_calls']

    """
    if isinstance(spec, TrajectoryMatch):
        return {spec.reference}
    if isinstance(spec, ToolArgumentsValid):
        return {spec.source_field} if spec.source_field is not None else set()
    if isinstance(spec, (NoSensitiveData, CodeParses, CodeTypeChecks)):
        return {spec.field}
    if isinstance(spec, (JsonMatch, StringSimilarity)):
        return {spec.field, spec.expected}
    return set()


def _text_of(data: JevJudgeInput, name: str) -> str:
    """A state field as text: a string as it is, any other JSON value as JSON."""
    value = data.field(name)
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _needed(data: JevJudgeInput, name: str, check: str) -> Any:
    value = data.field(name)
    if value is None:
        raise JevInputError(f"the {check} check needs the state field {name!r}, and it is missing")
    return value
