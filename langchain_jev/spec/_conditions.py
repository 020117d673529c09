"""The condition language of judge files: predicates on the judge input, written as data.

A condition is a mapping with exactly one form:

========================================  ==================================================
form                                      true when
========================================  ==================================================
``{present: FIELD}``                      the state field is there and not null
``{empty: FIELD}``                        the field is absent, null, blank, ``[]`` or ``{}``
``{field: FIELD, equals: VALUE}``         the field equals the JSON value (``true`` is not ``1``)
``{tool_called: NAME}``                   a tool call named NAME was made
``{tool_not_called: NAME}``               no tool call named NAME was made
``{answer_equals_expected: true}``        ``assistant_answer`` equals ``expected_output``
``{answer_is_json: true}``                ``assistant_answer`` parses as JSON
``{trajectory_match: {...}}``             ``tool_calls`` match a reference (built in)
``{tool_arguments_valid: {...}}``         tool arguments fit their schemas (built in)
``{no_repeated_tool_calls: {...}}``       no repeated or looping tool calls (built in)
``{no_sensitive_data: {...}}``            no secret or personal data found (built in)
``{json_match: {...}}``                   JSON answer matches the expected, key by key (built in)
``{string_similarity: {...}}``            answer similar enough to the expected (built in)
``{code_parses: {...}}``                  the answer's code parses (built in)
``{code_type_checks: {...}}``             the answer's code type-checks (built in)
``{call: "package.module:function"}``     ``function(JevJudgeInput)`` returns True (opt-in)
``{all: [COND, ...]}``                    every condition holds
``{any: [COND, ...]}``                    at least one condition holds
``{not: COND}``                           the condition does not hold
========================================  ==================================================

FIELD names a state field: one of the fixed names (``user_question``,
``assistant_answer``, ``expected_output``, ``supporting_context``, ``tool_calls``)
or any other field of the state. Empty context and tool-call lists are not in
the state, so ``{present: supporting_context}`` means "there is context".

The built-in checks take their parameters as a mapping (``{}`` for the
defaults); `langchain_jev.spec._builtins` describes them.

Validating a condition never imports anything; ``call`` is imported when the
judge is built, and only when the user opted in (see `langchain_jev.spec._code`).
"""

from __future__ import annotations

import importlib
import json
import math
import types
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from langchain_jev._criteria import Predicate
from langchain_jev._input import ANSWER_FIELD, EXPECTED_FIELD, JevJudgeInput
from langchain_jev.spec._builtins import (
    BUILTIN_FORMS,
    CodeParses,
    CodeTypeChecks,
    JsonMatch,
    NoRepeatedToolCalls,
    NoSensitiveData,
    StringSimilarity,
    ToolArgumentsValid,
    TrajectoryMatch,
    builtin_fields,
    compile_builtin,
)

__all__ = ["ConditionSpec", "Resolve", "compile_condition", "condition_fields", "import_callable"]


def schema_description(schema: dict[str, Any], model: type[Any]) -> None:
    """Describe a spec model in the JSON Schema by its docstring's first paragraph alone."""
    doc = (model.__doc__ or "").strip()
    if doc:
        schema["description"] = " ".join(doc.split("\n\n", 1)[0].split())


FORMS = (
    "present",
    "empty",
    "field",
    "tool_called",
    "tool_not_called",
    "answer_equals_expected",
    "answer_is_json",
    "trajectory_match",
    "tool_arguments_valid",
    "no_repeated_tool_calls",
    "no_sensitive_data",
    "json_match",
    "string_similarity",
    "code_parses",
    "code_type_checks",
    "call",
    "all",
    "any",
    "not",
)
"""The keys that start a condition form (``equals`` goes with ``field``)."""


_ATTRIBUTES = {"all": "all_", "any": "any_", "not": "not_"}
"""The attribute of each form whose key is a Python keyword."""
_NAMED = ("present", "empty", "field", "tool_called", "tool_not_called")
"""The forms whose argument names a state field or a tool: a blank name names nothing."""
_ARGUMENTS = {
    "present": "a state field name",
    "empty": "a state field name",
    "field": "a state field name",
    "tool_called": "a tool name",
    "tool_not_called": "a tool name",
    "answer_equals_expected": "true",
    "answer_is_json": "true",
    "call": "an import path `package.module:function`",
    "all": "a list of conditions",
    "any": "a list of conditions",
    "not": "a condition",
    **dict.fromkeys(BUILTIN_FORMS, "a mapping of its parameters ({} for the defaults)"),
}
"""What each form takes, for the message refusing anything else."""


class ConditionSpec(BaseModel):
    """One condition of a judge file; exactly one form is given.

    Example:
        >>> spec = ConditionSpec.model_validate({"present": "supporting_context"})
        >>> compile_condition(spec)(JevJudgeInput(answer="a", context=["doc"]))
        True

    """

    model_config = ConfigDict(
        extra="forbid", strict=True, populate_by_name=True, json_schema_extra=schema_description
    )

    present: str | None = Field(default=None, description="True when this state field is there and not null.")
    empty: str | None = Field(
        default=None, description="True when this state field is absent, null, blank, [] or {}."
    )
    field: str | None = Field(default=None, description="The state field compared with `equals`.")
    equals: JsonValue = Field(
        default=None, description="With `field`: true when the field equals this JSON value."
    )
    tool_called: str | None = Field(default=None, description="True when a tool of this name was called.")
    tool_not_called: str | None = Field(
        default=None, description="True when no tool of this name was called."
    )
    answer_equals_expected: Literal[True] | None = Field(
        default=None,
        description=(
            "True when `assistant_answer` equals `expected_output`: as text (surrounding "
            "whitespace ignored) when the expected output is a string, else as parsed JSON."
        ),
    )
    answer_is_json: Literal[True] | None = Field(
        default=None, description="True when `assistant_answer` parses as JSON."
    )
    trajectory_match: TrajectoryMatch | None = Field(
        default=None, description="True when `tool_calls` match the reference calls (built in)."
    )
    tool_arguments_valid: ToolArgumentsValid | None = Field(
        default=None, description="True when every tool call's arguments fit its schema (built in)."
    )
    no_repeated_tool_calls: NoRepeatedToolCalls | None = Field(
        default=None, description="True when no tool call repeats or loops (built in)."
    )
    no_sensitive_data: NoSensitiveData | None = Field(
        default=None, description="True when no secret or personal data is found (built in)."
    )
    json_match: JsonMatch | None = Field(
        default=None, description="True when a JSON answer matches the expected output key by key (built in)."
    )
    string_similarity: StringSimilarity | None = Field(
        default=None, description="True when the answer is similar enough to the expected output (built in)."
    )
    code_parses: CodeParses | None = Field(
        default=None, description="True when the answer's code parses (built in)."
    )
    code_type_checks: CodeTypeChecks | None = Field(
        default=None, description="True when the answer's Python code passes a type checker (built in)."
    )
    call: str | None = Field(
        default=None,
        description="Import path `package.module:function` of a predicate taking a JevJudgeInput.",
        pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$",
    )
    all_: list[ConditionSpec] | None = Field(
        default=None, alias="all", min_length=1, description="True when every condition holds."
    )
    any_: list[ConditionSpec] | None = Field(
        default=None, alias="any", min_length=1, description="True when at least one condition holds."
    )
    not_: ConditionSpec | None = Field(
        default=None, alias="not", description="True when the condition does not hold."
    )

    @model_validator(mode="after")
    def _one_form(self) -> ConditionSpec:
        given = [self._key(name) for name in self.model_fields_set if name != "equals"]
        if "equals" in self.model_fields_set and "field" not in given:
            raise ValueError("`equals` needs `field`: {field: NAME, equals: VALUE}")
        if "field" in given and "equals" not in self.model_fields_set:
            raise ValueError("`field` needs `equals`: {field: NAME, equals: VALUE}")
        if len(given) != 1:
            what = f"got {', '.join(sorted(given))}" if given else "got none"
            raise ValueError(f"a condition takes exactly one of {', '.join(FORMS)}; {what}")
        form = given[0]
        value = getattr(self, _ATTRIBUTES.get(form, form))
        if value is None:  # given as null: no form reads null as its argument
            raise ValueError(f"`{form}` needs {_ARGUMENTS[form]}, got null")
        if form in _NAMED and not value.strip():
            raise ValueError(f"`{form}` needs {_ARGUMENTS[form]}, got {value!r}")
        return self

    @staticmethod
    def _key(name: str) -> str:
        return name.rstrip("_")

    @property
    def form(self) -> str:
        """The form this condition uses (``present``, ``all``, ...)."""
        return next(self._key(n) for n in self.model_fields_set if n != "equals")


Resolve = Callable[[str], Predicate]
"""Turns the import path of a ``call`` condition into its predicate."""


def compile_condition(spec: ConditionSpec, resolve: Resolve | None = None) -> Predicate:
    """Turn a condition into a predicate on the judge input.

    ``resolve`` turns a ``call`` path into its predicate (default: import it);
    checking a file without importing its code passes a stand-in.

    Raises:
        ValueError: a ``call`` path cannot be imported or is not callable (the
            message gives the path and the reason).

    Example:
        >>> when = ConditionSpec.model_validate({"not": {"tool_called": "search"}})
        >>> compile_condition(when)(JevJudgeInput(answer="a"))
        True

    """
    form = spec.form
    if form == "present":
        name = _text(spec.present)
        return lambda data: data.field(name) is not None
    if form == "empty":
        name = _text(spec.empty)
        return lambda data: _is_empty(data.field(name))
    if form == "field":
        name, wanted = _text(spec.field), spec.equals
        return lambda data: json_equal(data.field(name), wanted)
    if form == "tool_called":
        tool = _text(spec.tool_called)
        return lambda data: any(call.name == tool for call in data.tool_calls)
    if form == "tool_not_called":
        tool = _text(spec.tool_not_called)
        return lambda data: all(call.name != tool for call in data.tool_calls)
    if form == "answer_equals_expected":
        return answer_equals_expected
    if form == "answer_is_json":
        return answer_is_json
    if form in BUILTIN_FORMS:
        return compile_builtin(getattr(spec, form))
    if form == "call":
        return (resolve or import_callable)(_text(spec.call))
    if form == "all":
        parts = [compile_condition(item, resolve) for item in spec.all_ or ()]
        return lambda data: all(part(data) for part in parts)
    if form == "any":
        parts = [compile_condition(item, resolve) for item in spec.any_ or ()]
        return lambda data: any(part(data) for part in parts)
    inner = compile_condition(spec.not_, resolve)  # type: ignore[arg-type]
    return lambda data: not inner(data)


def condition_fields(spec: ConditionSpec) -> set[str]:
    """State fields a condition cannot be decided without (for input validation).

    Only the comparison with the expected output needs a field to be there; the
    other forms read absence as an answer ("no context", "not required").

    Example:
        >>> sorted(condition_fields(ConditionSpec.model_validate({"answer_equals_expected": True})))
        ['assistant_answer', 'expected_output']

    """
    form = spec.form
    if form == "answer_equals_expected":
        return {ANSWER_FIELD, EXPECTED_FIELD}
    if form == "answer_is_json":
        return {ANSWER_FIELD}
    if form in BUILTIN_FORMS:
        return builtin_fields(getattr(spec, form))
    if form in ("all", "any"):
        return set().union(*(condition_fields(item) for item in (spec.all_ or spec.any_ or ())))
    if form == "not":
        return condition_fields(spec.not_)  # type: ignore[arg-type]
    return set()


def import_callable(path: str, trusted: Callable[[str], bool] | None = None) -> Callable[..., Any]:
    """Import ``package.module:attribute`` and return it, checking that it is callable.

    With ``trusted`` (a test of module names), the module must be trusted, and so
    must the module that defines each object the dotted attribute steps through
    (its ``__module__``; a module's own name): what a trusted module merely
    imported (``os``, a builtin, an object of another package's class) is refused.

    Raises:
        ValueError: the module or attribute cannot be found, is not callable, or
            (with ``trusted``) is not defined in a trusted module.

    Example:
        >>> import_callable("json:dumps")([1])
        '[1]'
        >>> import_callable("json:JSONDecodeError.__init__", trusted=lambda name: name == "json")
        Traceback (most recent call last):
        ...
        ValueError: 'json:JSONDecodeError' is defined in 'json.decoder', which is not trusted...

    """
    module_name, _, attribute = path.partition(":")
    if trusted is not None and not trusted(module_name):
        raise ValueError(f"{path!r}: module {module_name!r} is not trusted")
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as error:
        raise ValueError(f"cannot import {path!r}: {type(error).__name__}: {error}") from None
    walked = module_name + ":"
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ValueError(f"cannot import {path!r}: module {module_name!r} has no {attribute!r}")
        target = getattr(target, part)
        walked += part
        if trusted is not None:
            home = _home(target)
            if home is None or not trusted(home):
                where = f"in {home!r}" if home else "in no module it names"
                raise ValueError(
                    f"{walked!r} is defined {where}, which is not trusted: a judge file may name only "
                    "functions and classes defined in the modules you trusted, not what they import"
                )
        walked += "."
    if not callable(target):
        raise ValueError(f"{path!r} is a {type(target).__name__}, not a function")
    return target  # type: ignore[no-any-return]


def _home(value: Any) -> str | None:
    """The module that defines ``value``: a module's own name, else its ``__module__``."""
    if isinstance(value, types.ModuleType):
        return value.__name__
    home = getattr(value, "__module__", None)
    return home if isinstance(home, str) and home else None


def answer_equals_expected(data: JevJudgeInput) -> bool:
    """True when the answer equals the expected output.

    A string expected output is compared as text, ignoring surrounding
    whitespace; any other expected output is compared with the answer parsed as JSON.

    Example:
        >>> answer_equals_expected(JevJudgeInput(answer=" 42 ", expected="42"))
        True
        >>> answer_equals_expected(JevJudgeInput(answer='{"a": 1}', expected={"a": 1}))
        True

    """
    answer, expected = data.answer, data.expected
    if answer is None or expected is None:
        return False
    if isinstance(expected, str):
        return answer.strip() == expected.strip()
    try:
        parsed = json.loads(answer)
    except ValueError:
        return False
    return json_equal(parsed, expected)


def answer_is_json(data: JevJudgeInput) -> bool:
    """True when the answer parses as JSON (NaN and Infinity do not count).

    Example:
        >>> answer_is_json(JevJudgeInput(answer='{"ok": true}')), answer_is_json(JevJudgeInput(answer="ok"))
        (True, False)

    """
    if data.answer is None:
        return False
    try:
        json.loads(data.answer, parse_constant=_reject)
    except ValueError:
        return False
    return True


def json_equal(left: Any, right: Any) -> bool:
    """Equality of JSON values: ``true`` is not ``1``, ``1`` equals ``1.0``.

    Example:
        >>> json_equal(True, 1), json_equal(1, 1.0), json_equal({"a": [1]}, {"a": [1]})
        (False, True, True)

    """
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and bool(left == right)


def _is_empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, (list, tuple, Mapping)):
        return len(value) == 0
    return isinstance(value, float) and math.isnan(value)


def _reject(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def _text(value: str | None) -> str:
    assert value is not None
    return value
