"""Wording of judge-file errors: every problem names its place, like ``criteria[2].minimum``.

Pure functions: pydantic's validation errors and the engine's configuration
errors go in, located one-line messages come out.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from langchain_jev._errors import JevConfigurationError, JudgeSpecError

__all__ = [
    "MODEL_MAPPING_TAG",
    "MODEL_NAME_TAG",
    "JudgeSpecError",
    "Problem",
    "engine_problem",
    "format_location",
    "pydantic_problems",
]

Problem = tuple[str, str]
"""A located problem: (location such as ``criteria[2].minimum``, message)."""

KINDS = ("noul", "score", "choice", "check")
_QUESTION_ONLY = ("when_chosen", "when_passed")

_TYPE_WORDS = {
    "string_type": "must be a string",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "int_type": "must be a whole number",
    "bool_type": "must be true or false",
    "list_type": "must be a list",
    "dict_type": "must be a mapping",
    "model_type": "must be a mapping",
    "model_attributes_type": "must be a mapping",
    "finite_number": "must be a finite number",
    "missing": "is required",
    "string_too_short": "must not be empty",
    "string_pattern_mismatch": "must be an import path like package.module:function",
}


def format_location(loc: Iterable[str | int]) -> str:
    """Render a location path: ``("criteria", 2, "minimum")`` -> ``criteria[2].minimum``.

    Example:
        >>> format_location(["criteria", 0, "check", "all", 1, "present"])
        'criteria[0].check.all[1].present'

    """
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def pydantic_problems(error: ValidationError, known_keys: Iterable[str] = ()) -> list[Problem]:
    """Translate pydantic's errors on a judge file into located problems.

    ``known_keys`` are the keys a file may use anywhere, to suggest one for a misspelt key.
    """
    keys = sorted(set(known_keys))
    problems: list[Problem] = []
    for detail in error.errors(include_url=False):
        problem = _problem(detail, keys)
        if problem not in problems:
            problems.append(problem)
    return problems


def _problem(detail: ErrorDetails, keys: Sequence[str]) -> Problem:
    loc = _strip_tags(list(detail["loc"]))
    kind = detail["type"]
    ctx: dict[str, Any] = dict(detail.get("ctx") or {})
    if kind == "union_tag_not_found":
        return format_location([*loc, "kind"]), f"is required: one of {_choices(KINDS)}"
    if kind == "union_tag_invalid":
        return (
            format_location([*loc, "kind"]),
            f"must be one of {_choices(KINDS)}, got {ctx.get('tag')!r}",
        )
    if kind == "extra_forbidden":
        name = str(loc[-1]) if loc else "?"
        if "check" in detail["loc"][2:3] and name in _QUESTION_ONLY:
            return format_location(loc), (
                "is for questions; a check decides itself (put the condition in `check`)"
            )
        if name in keys:
            return format_location(loc), "is not allowed here"
        close = difflib.get_close_matches(name, keys, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return format_location(loc), f"is not a known key{hint}"
    if kind in ("value_error", "assertion_error"):
        message = str(ctx.get("error") or detail["msg"])
        return format_location(loc), re.sub(r"^(Value|Assertion) error, ", "", message)
    if kind == "literal_error":
        expected = str(ctx.get("expected")).replace("True", "true")
        return format_location(loc), f"must be {expected}, got {_short(detail['input'])}"
    if kind == "too_short":
        least = ctx.get("min_length", 1)
        return format_location(loc), f"needs at least {least} item{'s' if least != 1 else ''}"
    if kind in _TYPE_WORDS:
        words = _TYPE_WORDS[kind]
        if kind != "missing":
            words += f", got {_short(detail['input'])}"
        return format_location(loc), words
    message = detail["msg"]
    return format_location(loc), message[:1].lower() + message[1:]


MODEL_NAME_TAG = "model-name"
"""The tag of a model given as a ``provider:model`` string (dropped from error locations)."""
MODEL_MAPPING_TAG = "model-mapping"
"""The tag of a model given as a mapping: a jury, or a named jury member (dropped too)."""


def _strip_tags(loc: list[str | int]) -> list[str | int]:
    """Drop the discriminator tags pydantic puts in locations (after ``criteria[i]``, in ``model``)."""
    out: list[str | int] = []
    for index, part in enumerate(loc):
        after_item = index >= 2 and loc[index - 2] == "criteria" and isinstance(loc[index - 1], int)
        if (after_item and part in KINDS) or part in (MODEL_NAME_TAG, MODEL_MAPPING_TAG):
            continue
        out.append(part)
    return out


def engine_problem(
    error: JevConfigurationError, names: Sequence[str], dependency_keys: Sequence[str | None]
) -> Problem:
    """Locate an engine configuration error by the criterion it names.

    ``names`` are the criteria names in file order; ``dependency_keys`` give, per
    criterion, the file key of its dependency (``when_chosen``/``when_passed``) or None.

    Example:
        >>> err = JevConfigurationError("criterion 'ok': minimum must be between 0 and 1, got 1.5")
        >>> engine_problem(err, ["ok"], [None])
        ('criteria[0].minimum', 'must be between 0 and 1, got 1.5')

    """
    message = str(error)
    if message.startswith("min_confidence "):
        return "min_confidence", message.removeprefix("min_confidence ")
    if message.startswith("a judge needs at least one question"):
        return "criteria", message
    match = re.match(r"criterion '((?:[^'\\]|\\.)*)'(:?) ?(.*)$", message, re.S)
    if match is None:
        return "", message
    name, colon, rest = match.groups()
    index = _index_of(name, names, last="declared twice" in rest)
    base: list[str | int] = ["criteria", index] if index is not None else ["criteria"]
    if not colon:
        if rest.startswith("is declared twice"):
            return format_location([*base, "name"]), f"{name!r} is declared twice"
        if rest.startswith("depends on") and index is not None:
            key = dependency_keys[index] or "when_passed"
            return format_location([*base, key]), rest
        return format_location(base), rest
    for key in ("minimum", "accepted", "defect", "applies_when", "when_chosen", "when_passed"):
        if rest.startswith(key + " "):
            return format_location([*base, key]), rest.removeprefix(key + " ")
        if rest.startswith(key):
            return format_location([*base, key]), rest
    return format_location(base), rest


def _index_of(name: str, names: Sequence[str], *, last: bool) -> int | None:
    found = [i for i, n in enumerate(names) if n == name]
    if not found:
        return None
    return found[-1] if last else found[0]


def _choices(values: Iterable[str]) -> str:
    return ", ".join(repr(v) for v in values)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
