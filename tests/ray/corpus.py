"""A corpus of awkward rows, the judge that reads them, and a server whose answers depend on every state field.

The rows are what real datasets hold and what readers disagree on: missing and
extra columns, empty and null cells, nested values (of other keys from row to
row), unicode, numbers as text, text that looks like a date or a number, big
integers, a row the judge cannot read and one with a number that is not finite.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

JUDGE = {
    "requires": ["assistant_answer"],
    "criteria": [
        {"kind": "noul", "name": "polite", "instructions": "Is `assistant_answer` polite?", "minimum": 0.5},
        {
            "kind": "noul",
            "name": "grounded",
            "instructions": "Is `assistant_answer` supported by `supporting_context`?",
            "minimum": 0.5,
            "applies_when": {"present": "supporting_context"},
        },
        {
            "kind": "check",
            "name": "has_context",
            "check": {"present": "supporting_context"},
            "defect": "no context",
        },
        {
            "kind": "check",
            "name": "in_french",
            "check": {"field": "lang", "equals": "fr"},
            "defect": "not French",
        },
        {
            "kind": "score",
            "name": "helpful",
            "instructions": "How helpful is `assistant_answer`?",
            "levels": ["not at all", "somewhat", "very"],
            "minimum": 1,
        },
        {
            "kind": "choice",
            "name": "mode",
            "instructions": "How does `assistant_answer` respond?",
            "options": {"answers": "Answers", "asks": "Asks back"},
            "accepted": ["answers"],
        },
    ],
}


def awkward_rows() -> list[dict[str, Any]]:
    """Rows as JSON objects (for JSONL and JSON arrays; CSV and Parquet are written from them)."""
    nan, infinity = float("nan"), float("inf")
    return [
        {
            "id": 1,
            "question": "Will it rain?",
            "answer": "Yes, from 9am.",
            "context": ["Rain from 9am."],
            "expected": {"rain": True},
            "tool_calls": [{"name": "search", "arguments": {"q": "rain"}, "result": "9am"}],
        },
        {"id": 2, "question": "No context here?", "answer": "None needed."},  # no context key at all
        {"id": 3, "question": "Null context?", "answer": "Still fine.", "context": None},
        {"id": 4, "answer": "Empty context.", "context": ""},
        {"id": 5, "answer": "Extra columns.", "lang": "fr", "score": 3, "flag": True, "notes": None},
        {
            "id": "007",
            "answer": "42",
            "score": "3",
            "modified": "2020-01-01",
            "created_at": 1700000000,
            "big": 12345678901234567890,
            "ratio": 0.1,
        },
        {
            "id": 7,
            "answer": "Nested.",
            "meta": {"a": {"b": [1, {"c": None, "d": "x"}]}},
            "tags": ["x", None, "y"],
        },
        {"id": 8, "question": "¿Qué tal? مرحبا", "answer": "naïve — 東京 😀 \u2028 ok", "lang": "fr"},
        {"id": 9, "answer": "", "question": "An empty answer?"},
        {"id": 10, "question": "No answer at all?"},  # bad input on both engines
        {"id": 11, "answer": 3, "tool_calls": [{"name": "lookup", "arguments": {"city": "Oslo", "days": 2}}]},
        {"id": None, "answer": "No id.", "meta": {"a": {"e": True}}},
        {"id": 13, "answer": "A NaN is absent.", "score": nan},
        {"id": 14, "answer": "An infinite cost.", "cost": infinity},  # refused, named by its place
        {"id": 15, "answer": "Text that looks like JSON.", "payload": "[1, 2", "literal": "true"},
    ]


def columnar_rows() -> list[dict[str, Any]]:
    """Rows with one type per column (Parquet and pandas need it), keys and nested keys differing."""
    return [
        {"id": 1, "question": "Q1?", "answer": "A1.", "context": ["c1"], "meta": {"lang": "fr"}},
        {"id": 2, "question": "Q2?", "answer": "A2."},
        {"id": 3, "answer": "A3.", "lang": "fr", "meta": {"tone": "warm"}},
        {"id": 4, "answer": "A4.", "context": [], "score": 2.5},
        {
            "id": 5,
            "question": "Q5?",
            "answer": "A5.",
            "tool_calls": [{"name": "search", "arguments": {"q": "x"}}],
        },
        {"id": 6, "answer": "A6.", "tool_calls": [{"name": "lookup", "arguments": {"city": "Oslo"}}]},
        {"id": 7, "answer": "A7."},  # no question: not required by the judge
    ]


def write_jsonl(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    lines = [json.dumps(row, ensure_ascii=False) for row in rows]
    lines.insert(3, "")  # a blank line is not a row
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_json_array(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    path.write_text(
        "[\n" + ",\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n]\n", encoding="utf-8"
    )
    return path


def write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    """Every value a cell: text as it is, anything else as its JSON (``1e999`` for an infinity)."""
    columns: list[str] = []
    for row in rows:
        columns.extend(name for name in row if name not in columns)

    def cell(value: Any) -> str:
        if value is None:
            return ""
        if isinstance(value, str):
            return value
        if isinstance(value, float) and value != value:
            return ""
        if value == float("inf"):
            return "1e999"
        return json.dumps(value, ensure_ascii=False)

    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([cell(row.get(name)) for name in columns])
        writer.writerow([" " for _ in columns])  # a record of blank cells is not a row
    return path


def answers(state: Mapping[str, Any], questions: Mapping[str, Any]) -> dict[str, Any]:
    """Answers that depend on every field of the state, so two states that differ get other answers."""
    digest = hashlib.sha256(json.dumps(state, sort_keys=True, ensure_ascii=False).encode()).digest()
    return {
        "polite": 0.2 + 0.6 * digest[0] / 255,
        "grounded": 0.2 + 0.6 * digest[1] / 255,
        "helpful": 2.0 * digest[2] / 255,
        "mode": "answers" if digest[3] % 3 else "asks",
    }


def states(received: Sequence[Any]) -> list[str]:
    """The states a server received, each as canonical JSON, sorted: the same multiset on either engine."""
    return sorted(json.dumps(r.state, sort_keys=True, ensure_ascii=False) for r in received)
