"""Mapping dataset rows to judge inputs: which column is the question, the answer, and so on.

Pure functions: a row (a JSON object, or a CSV record of strings) and a
`FieldMap` go in; a `JevJudgeInput` or a problem naming the missing field comes out.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_jev.datasets.readers import row_problem, too_deep
from langchain_jev.errors import JevInputError
from langchain_jev.input import (
    ANSWER_FIELD,
    CONTEXT_FIELD,
    EXPECTED_FIELD,
    QUESTION_FIELD,
    TOOL_CALLS_FIELD,
    JevJudgeInput,
)

__all__ = ["FieldMap", "MappedRow", "map_row", "row_key"]

_DEFAULTS: dict[str, tuple[str, ...]] = {
    QUESTION_FIELD: ("question", QUESTION_FIELD),
    ANSWER_FIELD: ("answer", ANSWER_FIELD),
    EXPECTED_FIELD: ("expected", EXPECTED_FIELD),
    CONTEXT_FIELD: ("context", CONTEXT_FIELD),
    TOOL_CALLS_FIELD: (TOOL_CALLS_FIELD,),
}


@dataclass(frozen=True)
class FieldMap:
    """Which row columns hold each part of the judge input.

    Each part is looked up under its column names in order (by default the short
    name, then the state name: ``question`` then ``user_question``). Every other
    column becomes a state field of its own name, except ``id`` (kept to name the
    row in the results) and the ``ignored`` columns.

    Example:
        >>> FieldMap.of(question="prompt").columns("user_question")
        ('prompt',)

    """

    names: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: dict(_DEFAULTS))
    id_field: str | None = "id"
    ignored: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        *,
        question: str | None = None,
        answer: str | None = None,
        expected: str | None = None,
        context: str | None = None,
        tool_calls: str | None = None,
        id_field: str | None = "id",
        ignored: Sequence[str] = (),
    ) -> FieldMap:
        """A map with the given column names in place of the defaults."""
        names = dict(_DEFAULTS)
        for state_name, column in (
            (QUESTION_FIELD, question),
            (ANSWER_FIELD, answer),
            (EXPECTED_FIELD, expected),
            (CONTEXT_FIELD, context),
            (TOOL_CALLS_FIELD, tool_calls),
        ):
            if column is not None:
                names[state_name] = (column,)
        return cls(names, id_field or None, frozenset(ignored))

    def columns(self, state_name: str) -> tuple[str, ...]:
        """The columns read for a state field (its own name for fields outside the map)."""
        return self.names.get(state_name, (state_name,))

    def to_dict(self) -> dict[str, Any]:
        """The map as a JSON-ready dict (for a worker process).

        Example:
            >>> fields = FieldMap.of(answer="response", ignored=["notes"])
            >>> FieldMap.from_dict(fields.to_dict()) == fields
            True

        """
        return {
            "names": {name: list(columns) for name, columns in self.names.items()},
            "id_field": self.id_field,
            "ignored": sorted(self.ignored),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FieldMap:
        """The map `to_dict` described."""
        names = {str(k): tuple(v) for k, v in dict(data["names"]).items()}
        return cls(names, data.get("id_field"), frozenset(data.get("ignored") or ()))


@dataclass(frozen=True)
class MappedRow:
    """A row turned into a judge input, or the problem that kept it from being one."""

    input: JevJudgeInput | None
    row_id: Any = None
    problem: str | None = None


def map_row(
    row: Mapping[str, Any],
    fields: FieldMap,
    required: Sequence[str] = (ANSWER_FIELD,),
    *,
    from_csv: bool = False,
) -> MappedRow:
    """Map one row to a judge input; a missing required field or a bad shape is a problem.

    CSV cells are text: there, ``context`` may be a JSON array or one document,
    ``tool_calls`` is JSON, and other cells holding JSON literals (``true``,
    ``3``, ``[...]``) are read as such; a cell whose JSON nests deeper than rows may
    is a problem.

    Example:
        >>> mapped = map_row({"id": 7, "question": "Hi?", "answer": "Hello", "lang": "en"}, FieldMap())
        >>> mapped.row_id, mapped.input.to_state()
        (7, {'user_question': 'Hi?', 'assistant_answer': 'Hello', 'lang': 'en'})
        >>> map_row({"question": "Hi?"}, FieldMap()).problem
        "missing 'answer' (or 'assistant_answer'), which the judge needs"

    """
    taken: set[str] = set()
    parts: dict[str, Any] = {}
    for state_name in _DEFAULTS:
        for column in fields.columns(state_name):
            if column in row:
                taken.add(column)
                if row[column] is not None:
                    parts[state_name] = row[column]
                break
    row_id = row.get(fields.id_field) if fields.id_field else None
    skip = taken | fields.ignored | ({fields.id_field} if fields.id_field else set())
    extra = {k: v for k, v in row.items() if k not in skip}
    if from_csv:
        try:
            parts, extra = _from_text(parts), {k: _cell(v) for k, v in extra.items()}
        except RecursionError:  # a cell of JSON nested past Python's own limit
            return MappedRow(None, row_id, f"a cell {too_deep()}")
        problem = row_problem({**parts, **extra})
        if problem is not None:
            return MappedRow(None, row_id, f"a cell {problem}")
    missing = [name for name in required if name not in parts and extra.get(name) is None]
    if missing:
        return MappedRow(None, row_id, _missing(missing, fields))
    try:
        data = JevJudgeInput(
            question=_text(parts, QUESTION_FIELD, fields),
            answer=_text(parts, ANSWER_FIELD, fields),
            expected=parts.get(EXPECTED_FIELD),
            context=parts.get(CONTEXT_FIELD),
            tool_calls=_calls(parts.get(TOOL_CALLS_FIELD), fields),
            fields=extra,
        )
    except JevInputError as error:
        return MappedRow(None, row_id, str(error))
    return MappedRow(data, row_id)


def row_key(row: Mapping[str, Any] | None) -> str:
    """A short content hash of a row (canonical JSON), to tell a row from an edited one.

    Example:
        >>> row_key({"b": 1, "a": 2}) == row_key({"a": 2, "b": 1})
        True

    """
    text = json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _missing(names: Sequence[str], fields: FieldMap) -> str:
    described = []
    for name in names:
        columns = fields.columns(name)
        text = repr(columns[0])
        if len(columns) > 1:
            text += " (or " + ", ".join(repr(c) for c in columns[1:]) + ")"
        described.append(text)
    return f"missing {', '.join(described)}, which the judge needs"


def _text(parts: Mapping[str, Any], state_name: str, fields: FieldMap) -> str | None:
    value = parts.get(state_name)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise JevInputError(
        f"{fields.columns(state_name)[0]!r} must be text, got {type(value).__name__}"
    )


def _calls(value: Any, fields: FieldMap) -> Any:
    if value is None or isinstance(value, list):
        return value
    raise JevInputError(
        f"{fields.columns(TOOL_CALLS_FIELD)[0]!r} must be an array of "
        f"{{name, arguments, result}}, got {type(value).__name__}"
    )


def _from_text(parts: dict[str, Any]) -> dict[str, Any]:
    out = dict(parts)
    context = out.get(CONTEXT_FIELD)
    if isinstance(context, str) and context.lstrip().startswith("["):
        out[CONTEXT_FIELD] = _json_or(context, context)
    calls = out.get(TOOL_CALLS_FIELD)
    if isinstance(calls, str):
        out[TOOL_CALLS_FIELD] = _json_or(calls, calls)
    expected = out.get(EXPECTED_FIELD)
    if isinstance(expected, str) and expected.lstrip()[:1] in ("{", "["):
        out[EXPECTED_FIELD] = _json_or(expected, expected)
    return out


def _cell(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text in ("true", "false", "null") or text[:1] in ("[", "{") or _numeric(text):
        return _json_or(text, value)
    return value


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text[:1].isdigit() or text[:1] == "-"


def _json_or(text: str, fallback: Any) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return fallback
