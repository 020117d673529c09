"""A record read back checked: what of it cannot be read (`record_problem`), and the first such record named.

What ``rejudge`` and ``calibrate`` read of a record is checked field by field before anything
uses it, so a results file edited by hand is refused naming its row and field (`check_records`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from langchain_jev._errors import ResultsError
from langchain_jev._verdict import Outcome

__all__ = ["check_records", "record_problem"]


_KINDS = ("noul", "score", "choice", "check")
_OUTCOMES = tuple(outcome.value for outcome in Outcome)
_FINDING_FIELDS: tuple[tuple[str, type | tuple[type, ...], bool], ...] = (
    ("name", str, True),
    ("kind", str, True),
    ("outcome", str, True),
    ("detail", str, True),
    ("question", str, False),
    ("answer", dict, False),
    ("unreadable", str, False),
    ("reasoning", str, False),
)


def record_problem(record: Mapping[str, Any]) -> str | None:
    """What in a row's record cannot be read back (its field, and why), or None when it all can.

    What `rejudge` and `calibrate` read of a record is checked: ``passed``, and
    each finding's ``name``, ``kind``, ``outcome`` and ``detail`` (with ``question``,
    ``answer`` and ``unreadable`` when given); a record of a row that could not be
    judged needs only its ``error``.

    Example:
        >>> record_problem({"row": 1, "key": "k", "passed": True, "findings": [
        ...     {"name": "ok", "kind": "noul", "outcome": "MAYBE", "detail": ""}]})
        "findings[0].outcome is 'MAYBE', not one of PASSED, FAILED, INCONCLUSIVE, ERROR, NOT_APPLICABLE"
        >>> record_problem({"row": 2, "key": "k", "passed": False, "error": "TimeoutError: slow"}) is None
        True

    """
    if "error" in record:
        return None if isinstance(record["error"], str) else f"error is {_shown(record['error'])}, not text"
    if not isinstance(record.get("passed"), bool):
        return f"passed is {_shown(record.get('passed'))}, not true or false"
    findings = record.get("findings")
    if not isinstance(findings, list):
        return f"findings is {_shown(findings)}, not a list"
    for index, finding in enumerate(findings):
        where = f"findings[{index}]"
        if not isinstance(finding, dict):
            return f"{where} is {_shown(finding)}, not an object"
        for name, kind, required in _FINDING_FIELDS:
            if name not in finding:
                if required:
                    return f"{where} has no {name}"
                continue
            if not isinstance(finding[name], kind):
                return f"{where}.{name} is {_shown(finding[name])}, not {_KIND_WORDS[name]}"
        if finding["kind"] not in _KINDS:
            return f"{where}.kind is {finding['kind']!r}, not one of {', '.join(_KINDS)}"
        if finding["outcome"] not in _OUTCOMES:
            return f"{where}.outcome is {finding['outcome']!r}, not one of {', '.join(_OUTCOMES)}"
    return None


_KIND_WORDS = {"answer": "an object", **{name: "text" for name, kind, _ in _FINDING_FIELDS if kind is str}}


def check_records(records: Iterable[Mapping[str, Any]], source: str | os.PathLike[str]) -> None:
    """Raise naming the first record of ``source`` that cannot be read back, and its field.

    Raises:
        ResultsError: ``source: row N (key K): field ...``; a record judged on Ray is named by its key.

    """
    for record in records:
        problem = record_problem(record)
        if problem is not None:
            row = record.get("row")
            named = (
                f"row {row} (key {record.get('key')})"
                if isinstance(row, int)
                else f"the row of key {record.get('key')}"
            )
            raise ResultsError(
                f"{os.fspath(source)}: {named}: {problem}; is it a results file of langchain-jev?"
            )


def _shown(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."
