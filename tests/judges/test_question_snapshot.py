"""The prebuilt judges' questions and thresholds, against a checked-in snapshot: a rubric change is a reviewed change.

After changing a judge file on purpose, rewrite the snapshot and review its diff:

    JEV_UPDATE_SNAPSHOT=1 python -m pytest tests/judges/test_question_snapshot.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from langchain_jev.judges import judge_names, prebuilt_judge
from tests.fakes import JevWire

SNAPSHOT = Path(__file__).with_name("questions.snapshot.json")


def _rubrics() -> dict[str, Any]:
    rubrics: dict[str, Any] = {}
    for name in judge_names():
        judge = prebuilt_judge(name, JevWire({}).model())
        entries: dict[str, Any] = {}
        for criterion in judge.criteria:
            entry: dict[str, Any] = {"kind": criterion.kind}
            if criterion.question is not None:
                entry["question"] = criterion.question.model_dump(mode="json", exclude_none=True)
            if criterion.kind in ("noul", "score"):
                entry["minimum"] = criterion.minimum
            if criterion.kind == "choice":
                entry["accepted"] = sorted(criterion.accepted)
            if criterion.kind == "check":
                entry["defect"] = criterion.defect
            entry["conditional"] = criterion.condition is not None
            entries[criterion.name] = entry
        rubrics[name] = {
            "min_confidence": judge.min_confidence,
            "fail_fast": judge.fail_fast,
            "criteria": entries,
        }
    return rubrics


def test_the_questions_match_the_reviewed_snapshot() -> None:
    current = json.dumps(_rubrics(), indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("JEV_UPDATE_SNAPSHOT"):
        SNAPSHOT.write_text(current, encoding="utf-8")
    assert SNAPSHOT.read_text(encoding="utf-8") == current, (
        "a prebuilt judge's questions or thresholds changed: review the change, then rewrite "
        "the snapshot with JEV_UPDATE_SNAPSHOT=1 (see this module's docstring)"
    )
