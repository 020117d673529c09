"""Functions that judge files in the tests name by import path."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_jev import JevFinding, JevJudgeInput

NOT_A_FUNCTION = {"a": 1}


def short_answer(data: JevJudgeInput) -> bool:
    """True when the answer has at most five words."""
    return len((data.answer or "").split()) <= 5


def shouting_feedback(findings: Sequence[JevFinding]) -> str:
    """Feedback in capitals, to show a renderer named by import path is used."""
    return " / ".join(f.detail.upper() for f in findings if f.is_failure)
