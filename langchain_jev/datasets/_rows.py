"""Dataset rows to judge inputs: the one way both engines turn a row into what is judged.

`judge_row` is the function both engines call on every row, whatever read it:
this package's JSONL, JSON and CSV readers (the local engine, and the Ray
engine's read task), Ray Data's readers (Parquet, or any Dataset a user
builds), pandas or Arrow. It makes the row plain (`plain_row`), keys it
(`row_key`) and maps it (`map_row`), so one file gives one state, one key and
one record on either engine.

A plain row holds JSON values only, and the same rules for absent values hold
for every reader: a key whose value is null, NaN or pandas' NA (what Arrow and
pandas put in a column for a row that lacks it: the columns Ray adds when it
unifies the schemas of rows) is as if it were missing, at every depth of
objects; an absent element of an array is null; an empty CSV cell is absent.
Arrow and pandas values are made plain (NumPy numbers and arrays, dates and
times as ISO 8601 text, decimals as numbers, UTF-8 bytes as text). A number
that is not finite (``Infinity``, ``1e999``) cannot be judged: the row is
refused, naming its place.

Pure functions: a row and a `FieldMap` go in; a `JevJudgeInput` or a problem
naming the field comes out.
"""

from __future__ import annotations

import datetime
import decimal
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_jev._errors import JevInputError
from langchain_jev._input import (
    ANSWER_FIELD,
    CONTEXT_FIELD,
    EXPECTED_FIELD,
    FIELD_ALIASES,
    QUESTION_FIELD,
    TOOL_CALLS_FIELD,
    JevJudgeInput,
)
from langchain_jev.datasets._readers.rows import MAX_ROW_DEPTH, row_problem, too_deep

__all__ = ["FieldMap", "MappedRow", "judge_row", "map_row", "plain_row", "row_key", "source_key"]

_DEFAULTS: dict[str, tuple[str, ...]] = {
    # the short name first (as the results and messages name it), the state name, then the aliases
    **{name: (aliases[0], name, *aliases[1:]) for name, aliases in FIELD_ALIASES.items()},
    TOOL_CALLS_FIELD: (TOOL_CALLS_FIELD,),
}


@dataclass(frozen=True)
class FieldMap:
    """Which row columns hold each part of the judge input.

    Each part is looked up under its column names in order (by default the short
    name, the state name, then the other names of `FIELD_ALIASES`: ``question``,
    ``user_question``, ``input``, ``query``). Every other
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
    key: str = ""
    """The row's content key (`row_key` of its plain form); set by `judge_row`."""


def judge_row(
    row: Mapping[str, Any],
    fields: FieldMap,
    required: Sequence[str] = (ANSWER_FIELD,),
    *,
    from_csv: bool = False,
) -> MappedRow:
    """Turn a raw row of any reader into the judge's input and its key: what both engines judge.

    Example:
        >>> nan = float("nan")
        >>> from_jsonl = judge_row({"id": 1, "answer": "Hi"}, FieldMap())
        >>> from_arrow = judge_row({"id": 1, "answer": "Hi", "context": None, "score": nan}, FieldMap())
        >>> from_arrow.input.to_state() == from_jsonl.input.to_state(), from_arrow.key == from_jsonl.key
        (True, True)
        >>> judge_row({"answer": "Hi", "cost": float("inf")}, FieldMap()).problem
        'holds a number that is not finite at cost'

    """
    plain, problem = plain_row(row, from_csv=from_csv)
    if plain is None:
        row_id = row.get(fields.id_field) if fields.id_field else None
        return MappedRow(None, row_id if _is_plain_id(row_id) else None, problem, source_key(row))
    return replace(map_row(plain, fields, required, from_csv=from_csv), key=row_key(plain))


def source_key(row: Mapping[str, Any], *, from_csv: bool = False) -> str:
    """The content key of a raw row of any reader, as `judge_row` gives it.

    Example:
        >>> source_key({"answer": "Hi", "context": None}) == source_key({"answer": "Hi"})
        True

    """
    plain, _ = plain_row(row, from_csv=from_csv)
    return row_key(plain if plain is not None else row)


def plain_row(row: Mapping[str, Any], *, from_csv: bool = False) -> tuple[dict[str, Any] | None, str | None]:
    """The row as plain JSON values, absent values left out; or None and why it cannot be.

    See the module docstring for the rules (the same for every reader).

    Example:
        >>> import datetime
        >>> plain_row({"answer": "Hi", "meta": {"lang": "en", "tone": None}, "at": datetime.date(2026, 1, 2)})
        ({'answer': 'Hi', 'meta': {'lang': 'en'}, 'at': '2026-01-02'}, None)
        >>> plain_row({"answer": "Hi", "notes": ""}, from_csv=True)
        ({'answer': 'Hi'}, None)

    """
    try:
        plain = _plain_object(row, "", 1)
    except _NotPlain as error:
        return None, str(error)
    if from_csv:
        plain = {key: value for key, value in plain.items() if value != ""}
    return plain, None


class _NotPlain(Exception):
    """A value of a row that no judge can read (its message is the row's problem)."""


def _absent(value: Any) -> bool:
    """Null, NaN, or pandas' NA and NaT: a value that says the row has none."""
    if value is None:
        return True
    if isinstance(value, float):
        return value != value
    kind = type(value).__name__
    return kind in ("NAType", "NaTType") or (kind.startswith("float") and value != value)


def _plain_object(value: Mapping[Any, Any], where: str, depth: int) -> dict[str, Any]:
    if depth > MAX_ROW_DEPTH:
        raise _NotPlain(too_deep())
    plain: dict[str, Any] = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise _NotPlain(f"has a key that is not text ({type(key).__name__}){_at(where)}")
        if _absent(item):
            continue
        plain[key] = _plain(item, f"{where}.{key}" if where else key, depth + 1)
    return plain


def _plain(value: Any, where: str, depth: int) -> Any:
    if isinstance(value, str) or value is True or value is False:
        return value
    if isinstance(value, int):
        return value if type(value) is int else int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _NotPlain(f"holds a number that is not finite at {where}")
        return value if type(value) is float else float(value)  # NumPy's float64 is a float
    if isinstance(value, Mapping):
        return _plain_object(value, where, depth)
    if isinstance(value, (list, tuple)):
        if depth > MAX_ROW_DEPTH:
            raise _NotPlain(too_deep())
        return [
            None if _absent(item) else _plain(item, f"{where}[{index}]", depth + 1)
            for index, item in enumerate(value)
        ]
    return _plain(_converted(value, where), where, depth)


def _converted(value: Any, where: str) -> Any:
    """A value of Arrow, pandas or NumPy as its plain JSON value."""
    tolist = getattr(value, "tolist", None)  # NumPy arrays and numbers
    if callable(tolist) and type(value).__module__.startswith("numpy"):
        return tolist()
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()  # a pandas Timestamp is a datetime too
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise _NotPlain(f"holds a number that is not finite at {where}")
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise _NotPlain(f"holds bytes that are not UTF-8 text at {where}") from None
    raise _NotPlain(f"holds a {type(value).__name__}, which has no JSON form, at {where}")


def _at(where: str) -> str:
    return f" at {where}" if where else ""


def _is_plain_id(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


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
        "missing 'answer' (or 'assistant_answer', 'output', 'response', ...), which the judge needs"

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
        if problem is None:  # a cell of JSON holds values as a row does: the same rules apply
            plain_parts, problem = plain_row(parts)
            plain_extra, problem = plain_row(extra) if problem is None else (None, problem)
        if problem is not None:
            return MappedRow(None, row_id, f"a cell {problem}")
        parts, extra = plain_parts or {}, plain_extra or {}
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
            more = ", ..." if len(columns) > 4 else ""
            text += " (or " + ", ".join(repr(c) for c in columns[1:4]) + more + ")"
        described.append(text)
    return f"missing {', '.join(described)}, which the judge needs"


def _text(parts: Mapping[str, Any], state_name: str, fields: FieldMap) -> str | None:
    value = parts.get(state_name)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise JevInputError(f"{fields.columns(state_name)[0]!r} must be text, got {type(value).__name__}")


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
