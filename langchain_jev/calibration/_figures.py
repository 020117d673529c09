"""The figures of a calibration: one criterion against people, the overall verdict, stability.

`CriterionCalibration` holds a criterion's pass probabilities and labels and
derives its figures (defined in `langchain_jev.calibration._metrics`);
`Agreement` is the overall verdict against the overall label; `stability`
measures how answers move between repeated requests. Pure: records and labels
in, figures out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_jev._criteria import JevCriterion
from langchain_jev._judge import JevJudge
from langchain_jev._verdict import Outcome, plain
from langchain_jev.calibration._labels import LabelledRecord
from langchain_jev.calibration._metrics import (
    Confusion,
    ReliabilityBin,
    auroc,
    bootstrap_kappa,
    brier_score,
    confusion_figures,
    expected_calibration_error,
    reliability_bins,
)
from langchain_jev.calibration._sweep import (
    SweepPoint,
    blocks,
    pass_probability,
    predictions,
    sweep,
    thresholds_of,
)
from langchain_jev.datasets._redecide import redecide
from langchain_jev.datasets.results import stored_answer

if TYPE_CHECKING:
    from langchain_jev.models._response import JuryPanel

__all__ = [
    "Agreement",
    "CriterionCalibration",
    "Stability",
    "answer_of",
    "answers_and_labels",
    "calibrate_criterion",
    "finding_of",
    "overall_agreement",
    "overall_confusion",
    "stability",
]


@dataclass(frozen=True)
class Agreement:
    """The overall verdict against the overall label.

    Example:
        >>> from langchain_jev.calibration import Confusion
        >>> Agreement(Confusion(3, 1, 0, 4), None).to_dict()["accuracy"]
        0.875

    """

    confusion: Confusion
    kappa_interval: tuple[float, float] | None

    def to_dict(self) -> dict[str, Any]:
        """The figures as plain data."""
        c = self.confusion
        counts = plain(c, "n", "base_rate", "pass_rate")
        return {**counts, **confusion_figures(c, kappa_interval=self.kappa_interval)}


@dataclass(frozen=True)
class CriterionCalibration:
    """One criterion against people: calibration of its probability, agreement at its threshold, the sweep.

    Example:
        >>> from langchain_jev.calibration import Confusion
        >>> item = CriterionCalibration("polite", "noul", "minimum", 0.5, (0.9, 0.2, 0.7),
        ...     (True, False, False), Confusion(1, 1, 0, 1), None, ())
        >>> item.n, item.auroc, round(item.brier, 3)
        (3, 1.0, 0.18)

    """

    name: str
    kind: str
    threshold_name: str
    """What its sweep varies: ``minimum`` (nouls, scores) or ``min_confidence`` (choices)."""
    threshold: float
    """Its current value."""
    probabilities: tuple[float, ...]
    labels: tuple[bool, ...]
    confusion: Confusion
    """At the current threshold."""
    kappa_interval: tuple[float, float] | None
    sweep: tuple[SweepPoint, ...]
    unlabelled: int = 0
    """Rows where it applied with a readable answer but no label."""

    @property
    def n(self) -> int:
        """Rows with a readable answer and a label."""
        return len(self.labels)

    @property
    def auroc(self) -> float | None:
        """AUROC of the pass probability against the labels."""
        return auroc(self.probabilities, self.labels)

    @property
    def brier(self) -> float | None:
        """Brier score of the pass probability."""
        return brier_score(self.probabilities, self.labels)

    @property
    def ece(self) -> float | None:
        """Expected calibration error over 10 bins."""
        return expected_calibration_error(self.probabilities, self.labels)

    @property
    def reliability(self) -> list[ReliabilityBin]:
        """The 10 bins of the reliability diagram."""
        return reliability_bins(self.probabilities, self.labels)

    def to_dict(self) -> dict[str, Any]:
        """Every figure, as plain data."""
        return {
            **plain(self, "name", "kind", "n", "unlabelled"),
            **plain(self.confusion, "base_rate"),
            **plain(self, "auroc", "brier", "ece", "threshold_name", "threshold"),
            **confusion_figures(self.confusion, kappa_interval=self.kappa_interval),
            **plain(self, "reliability", "sweep"),
        }


@dataclass(frozen=True)
class Stability:
    """How a criterion's answer moves when the same row is asked again (``repeat`` requests per row).

    Example:
        >>> Stability("polite", rows=10, flip_rate=0.1, mean_variance=0.002).to_dict()["flip_rate"]
        0.1

    """

    name: str
    rows: int
    """Rows answered in every repeat."""
    flip_rate: float | None
    """Share of those rows whose outcome (blocks or not) is not the same in every repeat."""
    mean_variance: float | None
    """Mean over rows of the variance (over repeats) of the pass probability."""

    def to_dict(self) -> dict[str, Any]:
        """The figures as plain data."""
        return plain(self)


def calibrate_criterion(
    judge: JevJudge,
    criterion: JevCriterion,
    rows: Sequence[LabelledRecord],
    *,
    seed: int = 0,
    rounds: int = 1000,
    with_sweep: bool = True,
) -> CriterionCalibration:
    """One question criterion of ``judge`` against the labels of ``rows``, at its current threshold.

    ``with_sweep`` adds the agreement at every threshold (`langchain_jev.calibration._sweep.sweep`).
    """
    answers, labels, panels = answers_and_labels(rows, criterion)
    unlabelled = sum(
        1
        for row in rows
        if row.labels.get(criterion.name) is None and answer_of(row.record, criterion) is not None
    )
    policy = (judge.fail_on_inconclusive, judge.fail_on_error)
    predicted = predictions(criterion, answers, judge.min_confidence, *policy, panels=panels)
    confusion = Confusion.of(predicted, labels)
    what, _ = thresholds_of(criterion)
    current = float(criterion.minimum or 0.0) if what == "minimum" else judge.min_confidence
    points = (
        sweep(criterion, answers, labels, judge.min_confidence, *policy, panels=panels) if with_sweep else []
    )
    return CriterionCalibration(
        criterion.name,
        criterion.kind,
        what,
        current,
        tuple(pass_probability(criterion, a) for a in answers),
        tuple(labels),
        confusion,
        bootstrap_kappa(confusion, rounds=rounds, seed=seed),
        tuple(points),
        unlabelled,
    )


def overall_agreement(
    judge: JevJudge, rows: Sequence[LabelledRecord], *, seed: int = 0, rounds: int = 1000
) -> Agreement | None:
    """The overall verdict of ``judge`` (deciding the stored answers) against the overall label."""
    confusion = overall_confusion(judge, rows)
    if confusion is None:
        return None
    return Agreement(confusion, bootstrap_kappa(confusion, rounds=rounds, seed=seed))


def overall_confusion(judge: JevJudge, rows: Sequence[LabelledRecord]) -> Confusion | None:
    """The counts of `overall_agreement` alone (None: no row has an overall label)."""
    predicted: list[bool] = []
    labels: list[bool] = []
    for row in rows:
        if row.overall is None or "error" in row.record:
            continue
        predicted.append(redecide(judge, row.record).passed)
        labels.append(row.overall)
    return Confusion.of(predicted, labels) if labels else None


def answers_and_labels(
    rows: Sequence[LabelledRecord], criterion: JevCriterion
) -> tuple[list[Any], list[bool], list[JuryPanel | None]]:
    """The readable answers of ``criterion`` on the labelled rows, their labels, and their juries' panels.

    Row-aligned; a panel is None where one model answered.
    """
    answers: list[Any] = []
    labels: list[bool] = []
    panels: list[JuryPanel | None] = []
    for row in rows:
        label = row.labels.get(criterion.name)
        if label is None:
            continue
        answer = answer_of(row.record, criterion)
        if answer is not None:
            answers.append(answer)
            labels.append(label)
            panels.append(row.panel)
    return answers, labels, panels


def answer_of(record: Mapping[str, Any], criterion: JevCriterion) -> Any:
    """The stored answer of ``criterion`` in ``record`` as its typed answer; None when there is none."""
    if "error" in record:
        return None
    for finding in record.get("findings") or ():
        if finding.get("name") != criterion.name:
            continue
        if finding.get("outcome") == Outcome.NOT_APPLICABLE.value or "answer" not in finding:
            return None
        try:
            return stored_answer(finding["answer"], criterion)
        except ValueError:
            return None
    return None


def stability(judge: JevJudge, repeats: Sequence[Sequence[Mapping[str, Any]]]) -> list[Stability]:
    """Flip rate and mean within-row variance of each question criterion over row-aligned repeats.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
        >>> from langchain_jev.datasets._redecide import NoRequestModel
        >>> judge = JevJudge([JevCriterion.noul("ok", Noul(instructions="Ok?"), 0.6)], NoRequestModel())
        >>> def rec(p):
        ...     return {"row": 1, "findings": [{"name": "ok", "kind": "noul",
        ...         "outcome": "PASSED" if p >= 0.6 else "FAILED", "answer": {"type": "noul", "noul": p}}]}
        >>> s = stability(judge, [[rec(0.5)], [rec(0.7)]])[0]
        >>> s.flip_rate, round(s.mean_variance, 4)
        (1.0, 0.01)

    """
    results = []
    for criterion in judge.criteria:
        if not criterion.is_question:
            continue
        flips = 0
        variances: list[float] = []
        for group in zip(*repeats, strict=True):
            answers = [answer_of(record, criterion) for record in group]
            if any(a is None for a in answers):
                continue
            outcomes = {
                blocks(
                    Outcome(finding_of(record, criterion.name)["outcome"]),
                    judge.fail_on_inconclusive,
                    judge.fail_on_error,
                )
                for record in group
            }
            flips += len(outcomes) > 1
            values = [pass_probability(criterion, a) for a in answers]
            mean = math.fsum(values) / len(values)
            variances.append(math.fsum((v - mean) ** 2 for v in values) / len(values))
        rows = len(variances)
        results.append(
            Stability(
                criterion.name,
                rows,
                flips / rows if rows else None,
                math.fsum(variances) / rows if rows else None,
            )
        )
    return results


def finding_of(record: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """The finding called ``name`` in ``record`` (KeyError when it has none)."""
    for finding in record.get("findings") or ():
        if finding.get("name") == name:
            return finding  # type: ignore[no-any-return]
    raise KeyError(name)
