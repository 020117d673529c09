"""The records of a results file made: a judged row's (`verdict_record`), a failed row's, and their lines.

- `record_head`: the fields that name a row (``row``, ``line``, ``key``, ``id``);
- `verdict_record`: the one place a judged row's record is made, each asked question's finding
  with its raw answer (`langchain_jev.datasets._results.answers`), its question's fingerprint
  (`question_fingerprint`) and why an answer was unreadable;
- `error_record`: a row that could not be judged, never a pass;
- `response_fields`: what a record keeps of the response (model, request id, cache hit, panel);
- `record_line`: a record as its strict, valid UTF-8 JSON line, known keys redacted.

Pure. The record format is drawn in `langchain_jev.datasets.results`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.decisions import ClassifierResponse

from langchain_jev._verdict import JevVerdict, Outcome
from langchain_jev.datasets import _strict_json as strict_json
from langchain_jev.datasets._results.answers import answer_data, panel_data
from langchain_jev.models._response import JuryPanel
from langchain_jev.models._secrets import contains_secret, redact, redact_data

if TYPE_CHECKING:
    from langchain_jev._criteria import JevCriterion

__all__ = [
    "error_record",
    "question_fingerprint",
    "record_head",
    "record_line",
    "response_fields",
    "verdict_record",
]


def record_head(row: int | None, line: int | None, key: str, row_id: Any) -> dict[str, Any]:
    """The fields that name a row in its record: ``row``, ``line``, ``key`` and ``id``.

    ``row`` and ``line`` are left out when None (rows read by Ray Data have no line
    in a file), ``id`` when the row has none.

    Example:
        >>> record_head(2, 3, "abc", None), record_head(None, None, "abc", 7)
        ({'row': 2, 'line': 3, 'key': 'abc'}, {'key': 'abc', 'id': 7})

    """
    record: dict[str, Any] = {} if row is None else {"row": row}
    if line is not None:
        record["line"] = line
    record["key"] = key
    if row_id is not None:
        record["id"] = row_id
    return record


def verdict_record(
    row: int | None, line: int | None, key: str, row_id: Any, verdict: JevVerdict
) -> dict[str, Any]:
    """The result record of a judged row.

    Example:
        >>> from langchain_jev import JevCriterion, JevFinding, JevVerdict, Outcome
        >>> check = JevCriterion.check("short", lambda d: True, "too long")
        >>> verdict = JevVerdict(True, (JevFinding(check, None, Outcome.PASSED, "short: ok"),), None, "")
        >>> record = verdict_record(1, 1, "abc", "r1", verdict)
        >>> record["passed"], record["findings"][0]["outcome"]
        (True, 'PASSED')

    A question's finding also keeps its raw answer, the question's fingerprint and,
    when the answer came back unreadable, why (see `langchain_jev.datasets.results`).

    """
    record = record_head(row, line, key, row_id)
    record.update(verdict.to_dict())
    response = verdict.response
    if response is not None:
        unreadable: Mapping[str, str] = getattr(response, "unreadable", None) or {}
        for finding, data in zip(verdict.findings, record["findings"], strict=True):
            criterion = finding.criterion
            if criterion.question is None:
                continue
            stored = answer_data(finding.answer)
            problem = unreadable.get(criterion.name)
            if stored is None and problem is None and finding.outcome is Outcome.NOT_APPLICABLE:
                continue  # not asked
            data["question"] = question_fingerprint(criterion)
            if stored is not None:
                data["answer"] = stored
            if problem is not None:
                data["unreadable"] = problem
    if response is not None:
        record.update(response_fields(response))
    return record


_FINGERPRINTS: dict[int, tuple[Any, str]] = {}


def question_fingerprint(criterion: JevCriterion) -> str:
    """A short hash of what a criterion asks (its question's text, levels or options; not its threshold).

    Two criteria with the same fingerprint ask the same question, so an answer
    stored for one can be decided again for the other.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
        >>> strict = JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.9)
        >>> lenient = JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.5)
        >>> other = JevCriterion.noul("polite", Noul(instructions="Courteous?"), 0.5)
        >>> question_fingerprint(strict) == question_fingerprint(lenient) != question_fingerprint(other)
        True

    """
    question = criterion.question
    cached = _FINGERPRINTS.get(id(question))
    if cached is not None and cached[0] is question:
        return cached[1]
    dumped = question.model_dump(mode="json") if question is not None else None
    text = json.dumps([criterion.kind, dumped], sort_keys=True, ensure_ascii=False, default=str)
    fingerprint = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    if len(_FINGERPRINTS) > 4096:
        _FINGERPRINTS.clear()
    _FINGERPRINTS[id(question)] = (question, fingerprint)
    return fingerprint


def response_fields(response: ClassifierResponse) -> dict[str, Any]:
    """What a record keeps of the response that answered it: ``model``, ``request_id``, ``cache_hit``.

    A jury's response adds ``panel``: who said what (`panel_data`). A judge's result
    records and a comparison's head-to-head records keep the same fields.

    Example:
        >>> from langchain_jev.models import DecisionResponse
        >>> response_fields(DecisionResponse(model="jev-latest", answers={}, cache_hit=True))
        {'model': 'jev-latest', 'cache_hit': True}

    """
    fields: dict[str, Any] = {"model": response.model}
    if response.request_id is not None:
        fields["request_id"] = response.request_id
    if getattr(response, "cache_hit", False):
        fields["cache_hit"] = True
    panel = getattr(response, "panel", None)
    if isinstance(panel, JuryPanel):
        fields["panel"] = panel_data(panel)
    return fields


def error_record(
    row: int | None, line: int | None, key: str, row_id: Any, error: BaseException
) -> dict[str, Any]:
    """The record of a row that could not be judged: never a pass (known keys redacted).

    Example:
        >>> error_record(2, 3, "abc", None, ConnectionError("refused"))["error"]
        'ConnectionError: refused'

    """
    record = record_head(row, line, key, row_id)
    record["passed"] = False
    record["error"] = redact(f"{type(error).__name__}: {error}".strip())  # no echoed key
    return record


def record_line(record: Mapping[str, Any]) -> str:
    r"""A record as its line of the results file (JSON, without the newline), known keys redacted.

    Text UTF-8 cannot hold (a lone surrogate, from a ``\ud800`` escape in a
    dataset) is written as a JSON escape, and a number that is not finite (an
    unreadable answer's ``NaN``) as ``null``, so every line is strict, valid
    UTF-8 JSON.

    Example:
        >>> record_line({"row": 1, "passed": True, "summary": "très bien"})
        '{"row": 1, "passed": true, "summary": "très bien"}'
        >>> record_line({"row": 2, "id": "\ud800", "value": float("nan")})
        '{"row": 2, "id": "\\ud800", "value": null}'

    Every known key is redacted from every field (one a server echoed into a
    model name, a request id, a label or a finding's detail).

    """
    line = strict_json.dumps(record, ensure_ascii=False)
    if contains_secret(line):  # as written, so what ``default=str`` made of an object is searched too
        record = redact_data(json.loads(line))
        line = strict_json.dumps(record, ensure_ascii=False)
    if not line.isascii():
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:
            return strict_json.dumps(record, ensure_ascii=True)
    return line
