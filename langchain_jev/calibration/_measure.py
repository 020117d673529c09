"""A judge measured against human labels: `build_calibration` and the `Calibration` it returns.

For each question criterion its agreement with people (`CriterionCalibration`),
the overall verdict's agreement with an overall label, a threshold sweep, and,
over repeated requests, how stable the answers are. `Calibration.suggest` picks
thresholds for an objective (`langchain_jev.calibration._suggest`) and
`Calibration.write_judge` writes them into a copy of the judge file, changing
nothing else. Every figure is in `Calibration.to_dict`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_jev._errors import CalibrationError
from langchain_jev._judge import JevJudge
from langchain_jev.calibration._figures import (
    Agreement,
    CriterionCalibration,
    Stability,
    calibrate_criterion,
    overall_agreement,
    stability,
)
from langchain_jev.calibration._labels import LabelledRecord
from langchain_jev.calibration._panel import MemberCalibration, member_calibrations
from langchain_jev.calibration._suggest import Suggestion, calibrated_judge, suggest
from langchain_jev.calibration._tables import Disagreement, calibration_table, disagreements, members_table

__all__ = ["Calibration", "build_calibration"]


class Calibration:
    """A judge measured against human labels (see the module docstring); made by `calibrate`.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = JevJudge([JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.9)],
        ...     model=ScriptedDecisionModel({"polite": lambda state, q: float(state["assistant_answer"])}))
        >>> rows = [{"answer": "0.8", "ok": True}, {"answer": "0.3", "ok": False}]
        >>> from langchain_jev.calibration import calibrate
        >>> calibration = calibrate(judge, rows, "ok")
        >>> calibration.criterion("polite").confusion.accuracy, calibration.suggest().minimums
        (0.5, {'polite': 0.8})
        >>> print(calibration.table().splitlines()[1])  # doctest: +NORMALIZE_WHITESPACE
        criterion kind n base AUROC Brier ECE

    """

    def __init__(
        self,
        judge: JevJudge,
        rows: Sequence[LabelledRecord],
        criteria: Sequence[CriterionCalibration],
        overall: Agreement | None,
        stability: Sequence[Stability] = (),
        repeats: int = 1,
        *,
        seed: int = 0,
        rounds: int = 1000,
    ) -> None:
        self.judge = judge
        """The judge calibrated."""
        self.rows = list(rows)
        """The labelled records."""
        self.criteria = list(criteria)
        """One calibration per question criterion, in declaration order."""
        self.overall = overall
        """The overall verdict against the overall label (None without one)."""
        self.stability = list(stability)
        """Per criterion, with ``repeat`` above 1 (else empty)."""
        self.repeats = repeats
        """Requests per row (``repeat``)."""
        self.members: list[MemberCalibration] = []
        """When a jury answered: each member's agreement with the same labels, as the judge's only model."""
        self.seed = seed
        self.rounds = rounds

    def suggest(
        self,
        target: str = "kappa",
        *,
        max_false_pass: float | None = None,
        max_false_fail: float | None = None,
    ) -> Suggestion:
        """Thresholds that best meet the objective, criterion by criterion (see `suggest.suggest`)."""
        return suggest(self, target, max_false_pass=max_false_pass, max_false_fail=max_false_fail)

    def calibrated_judge(self, suggestion: Suggestion) -> JevJudge:
        """The judge with the suggested thresholds (its model refuses requests: it decides stored answers)."""
        return calibrated_judge(self, suggestion)

    def table(self) -> str:
        """The per-criterion figures as a text table."""
        return calibration_table(self)

    def disagreements(self) -> list[Disagreement]:
        """The rows where the judge and the labels disagree, most confident first."""
        return disagreements(self)

    def criterion(self, name: str) -> CriterionCalibration:
        """The calibration of the criterion called ``name``."""
        for item in self.criteria:
            if item.name == name:
                return item
        raise KeyError(f"no calibrated criterion named {name!r}")

    def agreement(self, judge: JevJudge) -> Agreement | None:
        """The overall verdict of ``judge`` (deciding the stored answers) against the overall label."""
        return overall_agreement(judge, self.rows, seed=self.seed, rounds=self.rounds)

    def members_table(self) -> str:
        """Each jury member's agreement with the labels beside the jury's, as text ("" without a jury)."""
        return members_table(self)

    def write_judge(
        self,
        source: str | Any,
        destination: str | Any,
        suggestion: Suggestion | None = None,
        **objective: Any,
    ) -> str:
        """Write ``source`` (a judge file) to ``destination`` with the suggested thresholds; return the diff.

        Only the thresholds that move change: comments, order, quoting and everything
        else stay as they were. ``objective`` is passed to `suggest` when no suggestion is given.
        """
        from langchain_jev.calibration._rewrite import write_thresholds

        chosen = suggestion if suggestion is not None else self.suggest(**objective)
        moved = {name: new for name, _, new in chosen.changes()}
        min_confidence = moved.pop("min_confidence", None)
        return write_thresholds(source, destination, moved, min_confidence)

    def to_dict(self, suggestion: Suggestion | None = None) -> dict[str, Any]:
        """Every figure, as plain data (what ``--json`` writes)."""
        return {
            "rows": len(self.rows),
            "repeats": self.repeats,
            "min_confidence": self.judge.min_confidence,
            "bootstrap": {"rounds": self.rounds, "seed": self.seed, "level": 0.95},
            "criteria": [c.to_dict() for c in self.criteria],
            "overall": self.overall.to_dict() if self.overall else None,
            "stability": [s.to_dict() for s in self.stability],
            "members": [m.to_dict() for m in self.members],
            "suggestion": suggestion.to_dict() if suggestion else None,
        }


def build_calibration(
    judge: JevJudge,
    rows: Sequence[LabelledRecord],
    *,
    repeats: Sequence[Sequence[Mapping[str, Any]]] = (),
    seed: int = 0,
    rounds: int = 1000,
) -> Calibration:
    """The calibration of ``judge`` on labelled records (``repeats``: each repeat's records, row-aligned).

    Raises:
        CalibrationError: no row carries a label.

    """
    if not any(row.overall is not None or row.labels for row in rows):
        raise CalibrationError("no row carries a label: nothing to calibrate against")
    criteria = [
        calibrate_criterion(judge, criterion, rows, seed=seed, rounds=rounds)
        for criterion in judge.criteria
        if criterion.is_question
    ]
    calibration = Calibration(judge, rows, criteria, None, (), max(1, len(repeats)), seed=seed, rounds=rounds)
    calibration.overall = calibration.agreement(judge)
    calibration.members = member_calibrations(judge, rows, seed=seed, rounds=rounds)
    if len(repeats) > 1:
        calibration.stability = stability(judge, repeats)
    return calibration
