"""Deciding stored answers again under a judge, without a single request.

A results file keeps each finding's raw answer and the fingerprint of the
question it answered (`langchain_jev.datasets.results.verdict_record`). Under another
judge file (other thresholds, ``min_confidence`` or failure policy) the same
answers decide a new verdict, exactly as a fresh run would have decided them:
the judge's own deciding code runs on the stored answers. A criterion whose
question changed, or that the stored run never asked, cannot be decided again
and is refused by name (`RedecideError`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.decisions import BaseDecisionModel, ClassifierResponse, Question

from langchain_jev import _feedback as feedback
from langchain_jev._errors import JevConfigurationError, RedecideError, ResultsError
from langchain_jev._judge import JevJudge, _Plan
from langchain_jev._verdict import JevFinding, JevVerdict, Outcome
from langchain_jev.datasets._fingerprint import judge_description
from langchain_jev.datasets._stored import StoredResults, read_results_file
from langchain_jev.datasets.results import (
    check_records,
    error_record,
    question_fingerprint,
    stored_answer,
    stored_panel,
    verdict_record,
)
from langchain_jev.models._response import DecisionResponse, JuryPanel

if TYPE_CHECKING:
    from langchain_jev.spec import JudgeSpec

__all__ = [
    "NoRequestModel",
    "changed_conditions",
    "read_to_redecide",
    "redecide",
    "redecide_record",
    "redecide_records",
    "unredecidable",
]


class NoRequestModel(BaseDecisionModel):
    """A decision model that refuses every request: the model of a judge that only decides stored answers.

    Example:
        >>> from langchain_jev.spec import load_judge
        >>> judge = load_judge({"criteria": [{"kind": "noul", "name": "polite",
        ...     "instructions": "Polite?", "minimum": 0.7}]}, model=NoRequestModel())
        >>> judge.judge("Hi", "Hello")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JevConfigurationError: this judge only decides stored answers; ...

    """

    model: str = "stored-answers"

    @property
    def _provider(self) -> str:
        return "stored"

    def _classify(self, state: Any, questions: dict[str, Question]) -> ClassifierResponse:
        raise JevConfigurationError(
            "this judge only decides stored answers; it makes no request to a decision model"
        )


def changed_conditions(stored: Mapping[str, Any], current: Mapping[str, Any]) -> dict[str, str]:
    """Criteria whose check or ``applies_when`` differs between two judge descriptions, with why.

    ``stored`` is the judge a results file's header describes, ``current`` the judge to
    decide under (both `langchain_jev.datasets._fingerprint.judge_description`). A check's
    stored outcome is of the check that ran, and a question was asked on the rows its
    condition chose: neither can be decided again under another check or condition.

    Example:
        >>> old = {"criteria": [{"name": "grounded", "kind": "noul", "applies_when": {"present": "context"}}]}
        >>> new = {"criteria": [{"name": "grounded", "kind": "noul", "applies_when": None}]}
        >>> changed_conditions(old, new)
        {'grounded': 'its applies_when changed: the stored run asked it on other rows'}

    """
    before = {str(c.get("name")): c for c in stored.get("criteria") or () if isinstance(c, Mapping)}
    problems: dict[str, str] = {}
    for criterion in current.get("criteria") or ():
        name = str(criterion.get("name"))
        old = before.get(name)
        if old is None or old.get("kind") != criterion.get("kind"):
            continue  # said by `unredecidable`
        if criterion.get("kind") == "check" and old.get("check") != criterion.get("check"):
            problems[name] = "its check changed: the stored outcome is of the check that ran"
        elif old.get("applies_when") != criterion.get("applies_when"):
            problems[name] = "its applies_when changed: the stored run asked it on other rows"
    return problems


def read_to_redecide(path: str | os.PathLike[str], spec: JudgeSpec) -> StoredResults:
    """A results file read back to decide its stored answers again under the judge file ``spec``.

    The one check both ``rejudge`` and ``calibrate --results`` make first: the file read
    once (its header checked, every line bounded), every record checked, then every
    criterion of ``spec`` whose check or ``applies_when`` differs from the stored run's
    (as the header describes it) refused by name. Which questions the stored answers
    can decide is `unredecidable`'s to say, when they are decided.

    Raises:
        ResultsError: the file cannot be read, is not a results file, or a record is
            malformed (named by its row and field).
        RedecideError: criteria whose check or condition changed, each with why.

    """
    stored = read_results_file(path)
    check_records(stored.records, path)
    described = stored.header.get("judge") if stored.header else None
    if isinstance(described, dict):
        refused = changed_conditions(described, judge_description(spec, None))
        if refused:
            raise RedecideError(refused)
    return stored


def unredecidable(judge: JevJudge, records: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """The criteria of ``judge`` that the stored answers cannot decide, with why (empty: all can).

    Example:
        >>> from langchain_jev.spec import load_judge
        >>> judge = load_judge({"criteria": [{"kind": "noul", "name": "polite",
        ...     "instructions": "Polite?", "minimum": 0.7}]}, model=NoRequestModel())
        >>> unredecidable(judge, [{"row": 1, "findings": [{"name": "polite", "kind": "noul",
        ...     "outcome": "PASSED", "question": "0000", "answer": {"type": "noul", "noul": 0.9}}]}])
        {'polite': 'its question changed since the answers were stored (its text, levels or options differ)'}

    """
    problems: dict[str, str] = {}
    fingerprints = {c.name: question_fingerprint(c) for c in judge.criteria if c.is_question}
    for record in records:
        if "error" in record:
            continue
        stored = {f.get("name"): f for f in record.get("findings") or ()}
        for criterion in judge.criteria:
            name = criterion.name
            if name in problems:
                continue
            why = _why_not(criterion.kind, fingerprints.get(name), stored.get(name), judge, criterion)
            if why is not None:
                problems[name] = why
    return problems


def _why_not(
    kind: str, fingerprint: str | None, stored: Mapping[str, Any] | None, judge: JevJudge, criterion: Any
) -> str | None:
    if stored is None:
        return "not in the results: the stored run had no such criterion"
    if stored.get("kind") != kind:
        return f"was a {stored.get('kind')} in the stored run, is a {kind} now"
    if kind == "check":
        return None
    if stored.get("question") is None:
        if stored.get("outcome") != Outcome.NOT_APPLICABLE.value:
            return (
                "the results keep no answer for it (written before answers were kept): judge the rows again"
            )
        if not judge.fail_fast and stored.get("detail") == feedback.skipped(criterion):
            return "the stored run skipped it (fail_fast) and this judge would ask it"
        return None
    if stored["question"] != fingerprint:
        return "its question changed since the answers were stored (its text, levels or options differ)"
    return None


def redecide(judge: JevJudge, record: Mapping[str, Any]) -> JevVerdict:
    """The verdict ``judge`` gives on a judged row's stored answers, without a request.

    Checks keep their stored outcome (a check does not depend on a threshold);
    every question is decided again from its stored answer, and, when a jury gave
    it, by every member's stored answer as the run did (``panel``: a split beyond the
    jury's bound is INCONCLUSIVE, a vote counts each member's own pass).

    Raises:
        RedecideError: a criterion of ``judge`` cannot be decided from this record.
        ResultsError: the record is of a row that could not be judged, or its panel cannot be read.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
        >>> from langchain_jev.datasets.results import verdict_record
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> polite = Noul(instructions="Polite?")
        >>> model = ScriptedDecisionModel({"polite": 0.8})
        >>> strict = JevJudge([JevCriterion.noul("polite", polite, 0.9)], model)
        >>> record = verdict_record(1, 1, "k", None, strict.judge("Hi", "Hello"))
        >>> lenient = JevJudge([JevCriterion.noul("polite", polite, 0.5)], NoRequestModel())
        >>> record["passed"], redecide(lenient, record).passed
        (False, True)

    """
    if "error" in record:
        raise ResultsError(f"row {record.get('row')} could not be judged: {record['error']}")
    problems = unredecidable(judge, [record])
    if problems:
        raise RedecideError(problems)
    stored = {f["name"]: f for f in record["findings"]}
    plan = _Plan(None)
    answers: dict[str, Any] = {}
    unreadable: dict[str, str] = {}
    reasoning: dict[str, str] = {}
    for criterion in judge.criteria:
        name = criterion.name
        finding = stored[name]
        if criterion.kind == "check":
            plan.known[name] = JevFinding(
                criterion, None, Outcome(finding["outcome"]), str(finding["detail"])
            )
            continue
        if isinstance(finding.get("reasoning"), str):
            reasoning[name] = finding["reasoning"]
        if finding.get("question") is None:  # not asked: its condition or dependency kept it back
            plan.known[name] = JevFinding(criterion, None, Outcome.NOT_APPLICABLE, str(finding["detail"]))
            continue
        if "answer" in finding:
            try:
                answers[name] = stored_answer(finding["answer"], criterion)
            except ValueError as error:
                unreadable[name] = str(error)
        if isinstance(finding.get("unreadable"), str):
            unreadable[name] = finding["unreadable"]
        plan.questions[name] = criterion.question  # type: ignore[assignment]
    if judge.fail_fast and any(f.outcome is Outcome.FAILED for f in plan.known.values()):
        for criterion in judge.criteria:
            if criterion.is_question and criterion.name not in plan.known:
                plan.known[criterion.name] = JevFinding(
                    criterion, None, Outcome.NOT_APPLICABLE, feedback.skipped(criterion)
                )
        plan.questions.clear()
    response = None
    if plan.questions:
        response = DecisionResponse(
            model=str(record.get("model") or "stored"),
            answers=answers,
            unreadable=unreadable,
            reasoning=reasoning,
            request_id=record.get("request_id"),
            cache_hit=record.get("cache_hit") is True,
            panel=_panel(judge, record),
        )
    return judge._verdict(plan, response)


def _panel(judge: JevJudge, record: Mapping[str, Any]) -> JuryPanel | None:
    if record.get("panel") is None:
        return None
    try:
        return stored_panel(record["panel"], {c.name: c for c in judge.criteria})
    except ValueError as error:
        raise ResultsError(f"row {record.get('row', record.get('key'))}: its jury panel: {error}") from None


def redecide_record(judge: JevJudge, record: Mapping[str, Any]) -> dict[str, Any]:
    """The result record ``judge`` would have written for this row, from its stored answers.

    A row that could not be judged keeps its error record.
    """
    row, line = record.get("row", 0), record.get("line", 0)
    key, row_id = record.get("key", ""), record.get("id")
    if "error" in record:
        redone = error_record(row, line, key, row_id, RuntimeError())
        redone["error"] = record["error"]
    else:
        redone = verdict_record(row, line, key, row_id, redecide(judge, record))
    for position in ("row", "line"):  # a row judged on Ray has none
        if position not in record:
            redone.pop(position, None)
    return redone


def redecide_records(judge: JevJudge, records: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """`redecide_record` for every record, after checking that all can be decided again.

    Raises:
        RedecideError: before any record, naming every criterion that cannot be decided again.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
        >>> polite = JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.5)
        >>> judge = JevJudge([polite], NoRequestModel())
        >>> stored = {"row": 1, "key": "k", "passed": False, "findings": [{"name": "polite", "kind": "noul",
        ...     "outcome": "FAILED", "detail": "", "question": question_fingerprint(judge.criteria[0]),
        ...     "answer": {"type": "noul", "noul": 0.6}}]}
        >>> [record["passed"] for record in redecide_records(judge, [stored])]
        [True]

    """
    items = list(records)
    problems = unredecidable(judge, items)
    if problems:
        raise RedecideError(problems)
    for record in items:
        yield redecide_record(judge, record)
