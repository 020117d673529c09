"""The rows a report shows are read again from their dataset, mapped as the run mapped them, and checked."""

from __future__ import annotations

import json
from pathlib import Path

from langchain_jev.datasets._rows import FieldMap, row_key
from langchain_jev.datasets._states import dataset_states

ROWS = [
    {"id": "a", "prompt": "Rain?", "reply": "Yes, from 9am.", "lang": "en"},
    {"id": "b", "prompt": "Snow?", "reply": "No.", "lang": "en"},
    {"id": "c", "prompt": "Sun?", "reply": "All day.", "lang": "fr"},
]


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_rows_are_mapped_with_the_runs_columns_and_a_changed_row_is_not_shown(tmp_path: Path) -> None:
    records = [{"row": n, "key": row_key(row)} for n, row in enumerate(ROWS, 1)]
    edited = [ROWS[0], {**ROWS[1], "reply": "Yes."}, ROWS[2]]
    found = dataset_states(
        write(tmp_path / "rows.jsonl", edited),
        [records[0], records[1]],
        fields=FieldMap.of(question="prompt", answer="reply"),
    )
    assert found.states == {1: {"user_question": "Rain?", "assistant_answer": "Yes, from 9am.", "lang": "en"}}
    assert found.changed == [2] and found.problem is None


def test_rows_judged_on_ray_are_found_by_their_key(tmp_path: Path) -> None:
    records = [{"key": row_key(ROWS[2])}]
    found = dataset_states(write(tmp_path / "rows.jsonl", ROWS), records, fields=FieldMap.of(answer="reply"))
    assert list(found.states) == [row_key(ROWS[2])]
    assert found.states[row_key(ROWS[2])]["assistant_answer"] == "All day."


def test_a_dataset_that_is_gone_is_said_not_raised(tmp_path: Path) -> None:
    found = dataset_states(tmp_path / "gone.jsonl", [{"row": 1, "key": "k"}])
    assert found.states == {} and found.problem is not None and "gone.jsonl" in found.problem
