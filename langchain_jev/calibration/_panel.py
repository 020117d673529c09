"""A jury's members against the labels, to show whether the panel agrees with people better than its models.

A results record of a jury keeps every member's answers (``panel``). `member_record`
is the record a member would have written had it been the judge's only model: each
question's answer replaced by the member's (a question it did not answer is
unreadable, as a fresh run would have it), decided again by the judge, so its
outcomes (dependencies, the failure policy) are the judge's own. A member that failed
on a row has no record for it (alone, it would have raised). `member_calibrations`
measures each member on those records exactly as the jury is measured: per
criterion at the current thresholds (AUROC, Brier score, ECE, accuracy, kappa,
false-pass and false-fail rates), and the overall verdict against the overall label.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_jev._errors import ResultsError
from langchain_jev._judge import JevJudge
from langchain_jev.calibration._figures import (
    Agreement,
    CriterionCalibration,
    calibrate_criterion,
    overall_agreement,
)
from langchain_jev.calibration._labels import LabelledRecord
from langchain_jev.datasets._redecide import redecide_record

__all__ = ["MemberCalibration", "member_calibrations", "member_names", "member_record"]


@dataclass(frozen=True)
class MemberCalibration:
    """One jury member against the labels, as if it had been the judge's only model.

    Example:
        >>> MemberCalibration("jev", rows=0).to_dict()
        {'name': 'jev', 'rows': 0, 'criteria': [], 'overall': None}

    """

    name: str
    """The member's name on the jury."""
    rows: int
    """Rows the member answered (it did not fail on them)."""
    criteria: list[CriterionCalibration] = field(default_factory=list)
    """One calibration per question criterion (without a threshold sweep), in declaration order."""
    overall: Agreement | None = None
    """Its overall verdict against the overall label (None without one)."""

    def criterion(self, name: str) -> CriterionCalibration:
        """The member's calibration of the criterion called ``name``."""
        for item in self.criteria:
            if item.name == name:
                return item
        raise KeyError(f"no calibrated criterion named {name!r}")

    def to_dict(self) -> dict[str, Any]:
        """Every figure, as plain data."""
        return {
            "name": self.name,
            "rows": self.rows,
            "criteria": [c.to_dict() for c in self.criteria],
            "overall": self.overall.to_dict() if self.overall else None,
        }


def member_names(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """The names of the jury members the records' panels name, in the order first seen.

    Example:
        >>> member_names([{"panel": {"members": {"a": {}}, "failed": {"b": "down"}}}, {"findings": []}])
        ['a', 'b']

    """
    names: dict[str, None] = {}
    for record in records:
        panel = record.get("panel")
        if not isinstance(panel, Mapping):
            continue
        for part in ("members", "failed"):
            given = panel.get(part)
            if isinstance(given, Mapping):
                names.update(dict.fromkeys(str(name) for name in given))
    return list(names)


def member_record(judge: JevJudge, record: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    """The record ``judge`` would have written had member ``name`` been its only model (None: no such record).

    None when the row could not be judged, no jury answered it, or the member failed on it.

    Raises:
        RedecideError: a criterion of ``judge`` cannot be decided from the record.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
        >>> from langchain_jev.datasets._redecide import NoRequestModel
        >>> from langchain_jev.datasets.results import question_fingerprint
        >>> judge = JevJudge([JevCriterion.noul("ok", Noul(instructions="Ok?"), 0.5)], NoRequestModel())
        >>> asked = question_fingerprint(judge.criteria[0])
        >>> record = {"row": 1, "key": "k", "passed": True, "findings": [{"name": "ok", "kind": "noul",
        ...     "outcome": "PASSED", "detail": "", "question": asked,
        ...     "answer": {"type": "noul", "noul": 0.6}}],
        ...     "panel": {"combine": "mean", "disagreement": None, "failed": {}, "members": {
        ...         "a": {"model": "a", "answers": {"ok": {"type": "noul", "noul": 0.9}}},
        ...         "b": {"model": "b", "answers": {"ok": {"type": "noul", "noul": 0.3}}}}}}
        >>> [member_record(judge, record, name)["passed"] for name in ("a", "b")]
        [True, False]

    """
    panel = record.get("panel")
    if "error" in record or not isinstance(panel, Mapping):
        return None
    members = panel.get("members")
    member = members.get(name) if isinstance(members, Mapping) else None
    if not isinstance(member, Mapping) or not isinstance(member.get("answers"), Mapping):
        return None
    answers: Mapping[str, Any] = member["answers"]
    given = member.get("unreadable")
    unreadable: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    findings = []
    for finding in record.get("findings") or ():
        if not isinstance(finding, Mapping) or finding.get("question") is None:
            findings.append(finding)  # a check, or a question that was not asked
            continue
        own = {k: v for k, v in finding.items() if k not in ("answer", "unreadable", "reasoning")}
        question = str(finding.get("name"))
        if question in answers:
            own["answer"] = answers[question]
        else:
            own["unreadable"] = str(unreadable.get(question) or f"jury member {name!r} gave no answer")
        findings.append(own)
    alone = {k: v for k, v in record.items() if k not in ("panel", "findings", "request_id", "cache_hit")}
    alone.update(findings=findings, model=str(member.get("model") or name))
    return redecide_record(judge, alone)


def member_calibrations(
    judge: JevJudge, rows: Sequence[LabelledRecord], *, seed: int = 0, rounds: int = 1000
) -> list[MemberCalibration]:
    """Each jury member of the records' panels against the same labels (empty when no jury answered).

    Raises:
        RedecideError: a criterion of ``judge`` cannot be decided from the records.
        ResultsError: a record's panel cannot be read.

    """
    result = []
    for name in member_names([row.record for row in rows]):
        own: list[LabelledRecord] = []
        for row in rows:
            try:
                record = member_record(judge, row.record, name)
            except ValueError as error:  # a malformed stored answer of the member's
                raise ResultsError(f"row {row.record.get('row')}: jury member {name!r}: {error}") from None
            if record is not None:
                own.append(LabelledRecord(record, row.overall, row.labels))
        criteria = [
            calibrate_criterion(judge, criterion, own, seed=seed, rounds=rounds, with_sweep=False)
            for criterion in judge.criteria
            if criterion.is_question
        ]
        overall = overall_agreement(judge, own, seed=seed, rounds=rounds)
        result.append(MemberCalibration(name, len(own), criteria, overall))
    return result
