"""Calibrating a judge against human labels: per-criterion figures, sweeps, suggestions, stability.

`calibrate` judges labelled rows (or takes result records that were judged
already) and returns a `Calibration`: for each criterion its agreement with
people (`CriterionCalibration`), the overall verdict's agreement with an overall
label, a threshold sweep, and, with ``repeat`` above 1, how stable the answers
are from one request to the next. `Calibration.suggest` picks thresholds for an
objective and `Calibration.write_judge` writes them into a copy of the judge
file, changing nothing else. The figures are defined in
`langchain_jev.calibration.metrics`; every one of them is in `Calibration.to_dict`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_jev.calibration.labels import read_label
from langchain_jev.calibration.metrics import (
    Confusion,
    ReliabilityBin,
    auroc,
    bootstrap_kappa,
    brier_score,
    expected_calibration_error,
    reliability_bins,
)
from langchain_jev.calibration.replay import NoRequestModel, redecide
from langchain_jev.calibration.sweep import (
    Objective,
    SweepPoint,
    blocks,
    choose,
    pass_probability,
    predictions,
    sweep,
    thresholds_of,
    with_threshold,
)
from langchain_jev.criteria import JevCriterion
from langchain_jev.datasets.results import stored_answer
from langchain_jev.errors import CalibrationError
from langchain_jev.judge import JevJudge
from langchain_jev.verdict import Outcome

__all__ = [
    "Agreement",
    "Calibration",
    "CriterionCalibration",
    "LabelledRecord",
    "Stability",
    "Suggestion",
    "build_calibration",
    "acalibrate",
    "calibrate",
    "label_records",
]


@dataclass(frozen=True)
class LabelledRecord:
    """A result record (with its stored answers) and what people said of the row."""

    record: Mapping[str, Any]
    overall: bool | None = None
    """The overall label: does the row pass as a whole (None: not labelled)."""
    labels: Mapping[str, bool] = field(default_factory=dict)
    """Per-criterion labels (the overall label stands in where a criterion has none)."""


@dataclass(frozen=True)
class Agreement:
    """The overall verdict against the overall label.

    Example:
        >>> from langchain_jev.calibration.metrics import Confusion
        >>> Agreement(Confusion(3, 1, 0, 4), None).to_dict()["accuracy"]
        0.875

    """

    confusion: Confusion
    kappa_interval: tuple[float, float] | None

    def to_dict(self) -> dict[str, Any]:
        """The figures as plain data."""
        c = self.confusion
        return {
            "n": c.n,
            "base_rate": c.base_rate,
            "pass_rate": c.pass_rate,
            "accuracy": c.accuracy,
            "kappa": c.kappa,
            "kappa_interval": list(self.kappa_interval) if self.kappa_interval else None,
            "false_pass_rate": c.false_pass_rate,
            "false_fail_rate": c.false_fail_rate,
            **c.to_dict(),
        }


@dataclass(frozen=True)
class CriterionCalibration:
    """One criterion against people: calibration of its probability, agreement at its threshold, the sweep.

    Example:
        >>> from langchain_jev.calibration.metrics import Confusion
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
        c = self.confusion
        return {
            "name": self.name,
            "kind": self.kind,
            "n": self.n,
            "unlabelled": self.unlabelled,
            "base_rate": c.base_rate,
            "auroc": self.auroc,
            "brier": self.brier,
            "ece": self.ece,
            "threshold_name": self.threshold_name,
            "threshold": self.threshold,
            "accuracy": c.accuracy,
            "kappa": c.kappa,
            "kappa_interval": list(self.kappa_interval) if self.kappa_interval else None,
            "false_pass_rate": c.false_pass_rate,
            "false_fail_rate": c.false_fail_rate,
            "pass_rate": c.pass_rate,
            **c.to_dict(),
            "reliability": [b.to_dict() for b in self.reliability],
            "sweep": [p.to_dict() for p in self.sweep],
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
        return {
            "name": self.name,
            "rows": self.rows,
            "flip_rate": self.flip_rate,
            "mean_variance": self.mean_variance,
        }


@dataclass(frozen=True)
class Suggestion:
    """Suggested thresholds for an objective, and the overall agreement before and after them.

    Example:
        >>> from langchain_jev.calibration.sweep import Objective
        >>> suggestion = Suggestion(Objective(), {"polite": 0.7}, {"polite": 0.45}, 0.6, 0.6, {}, {})
        >>> suggestion.changes()
        [('polite', 0.7, 0.45)]

    """

    objective: Objective
    current: Mapping[str, float]
    """Current minimum of each noul and score criterion."""
    minimums: Mapping[str, float]
    """Suggested minimum of each noul and score criterion that could be chosen."""
    current_min_confidence: float
    min_confidence: float | None
    """Suggested ``min_confidence`` (None: no score or choice, or none meets the objective)."""
    unmet: Mapping[str, str]
    """Criteria (or ``min_confidence``) left as they are, with why."""
    points: Mapping[str, SweepPoint]
    """The chosen sweep point of each suggestion (``min_confidence`` under that name)."""
    before: Agreement | None = None
    after: Agreement | None = None

    def changes(self) -> list[tuple[str, float, float]]:
        """``(criterion name or "min_confidence", current, suggested)`` for each threshold that moves."""
        moved = [
            (n, self.current[n], v) for n, v in self.minimums.items() if not math.isclose(v, self.current[n])
        ]
        if self.min_confidence is not None and not math.isclose(
            self.min_confidence, self.current_min_confidence
        ):
            moved.append(("min_confidence", self.current_min_confidence, self.min_confidence))
        return moved

    def to_dict(self) -> dict[str, Any]:
        """The suggestion as plain data."""
        return {
            "objective": self.objective.to_dict(),
            "minimums": dict(self.minimums),
            "current": dict(self.current),
            "min_confidence": self.min_confidence,
            "current_min_confidence": self.current_min_confidence,
            "unmet": dict(self.unmet),
            "points": {name: point.to_dict() for name, point in self.points.items()},
            "overall_before": self.before.to_dict() if self.before else None,
            "overall_after": self.after.to_dict() if self.after else None,
        }


class Calibration:
    """A judge measured against human labels (see the module docstring); made by `calibrate`.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = JevJudge([JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.9)],
        ...     model=ScriptedDecisionModel({"polite": lambda state, q: float(state["assistant_answer"])}))
        >>> rows = [{"answer": "0.8", "ok": True}, {"answer": "0.3", "ok": False}]
        >>> calibration = calibrate(judge, rows, "ok")
        >>> calibration.criterion("polite").confusion.accuracy, calibration.suggest().minimums
        (0.5, {'polite': 0.8})
        >>> print(calibration.table().splitlines()[0])  # doctest: +NORMALIZE_WHITESPACE
        criterion kind n base AUROC Brier ECE thresh. acc. kappa [95% CI] f-pass f-fail

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
        self.seed = seed
        self.rounds = rounds

    def criterion(self, name: str) -> CriterionCalibration:
        """The calibration of the criterion called ``name``."""
        for item in self.criteria:
            if item.name == name:
                return item
        raise KeyError(f"no calibrated criterion named {name!r}")

    def suggest(
        self,
        target: str = "kappa",
        *,
        max_false_pass: float | None = None,
        max_false_fail: float | None = None,
    ) -> Suggestion:
        """Thresholds that best meet the objective, criterion by criterion.

        Each noul's minimum probability and each score's minimum level is chosen on its
        own sweep (at the current ``min_confidence``); then ``min_confidence`` is chosen
        for the scores and choices together, their counts pooled.
        """
        objective = Objective(target, max_false_pass, max_false_fail)
        judge = self.judge
        by_name = {c.name: c for c in judge.criteria}
        current = {c.name: float(c.minimum or 0.0) for c in judge.criteria if c.kind in ("noul", "score")}
        minimums: dict[str, float] = {}
        unmet: dict[str, str] = {}
        points: dict[str, SweepPoint] = {}
        for item in self.criteria:
            if item.threshold_name != "minimum":
                continue
            if not item.n:
                unmet[item.name] = "no labelled row with an answer"
                continue
            point = choose(item.sweep, objective, item.threshold)
            if point is None:
                unmet[item.name] = f"no threshold meets: {objective.describe()}"
                continue
            minimums[item.name] = point.threshold
            points[item.name] = point
        min_confidence: float | None = None
        pooled = self._confidence_sweep(by_name, minimums)
        if pooled:
            point = choose(pooled, objective, judge.min_confidence)
            if point is None:
                unmet["min_confidence"] = f"no value meets: {objective.describe()}"
            else:
                min_confidence = point.threshold
                points["min_confidence"] = point
        suggestion = Suggestion(
            objective, current, minimums, judge.min_confidence, min_confidence, unmet, points
        )
        if self.overall is None:
            return suggestion
        after = self._overall(self.calibrated_judge(suggestion))
        return Suggestion(
            objective,
            current,
            minimums,
            judge.min_confidence,
            min_confidence,
            unmet,
            points,
            self.overall,
            after,
        )

    def _confidence_sweep(
        self, by_name: Mapping[str, JevCriterion], minimums: Mapping[str, float]
    ) -> list[SweepPoint]:
        judge = self.judge
        items = [c for c in self.criteria if c.kind in ("score", "choice") and c.n]
        if not items:
            return []
        prepared = []
        for item in items:
            criterion = by_name[item.name]
            if item.name in minimums:
                criterion = with_threshold(criterion, minimums[item.name])
            answers, labels = _answers_and_labels(self.rows, criterion)
            prepared.append((criterion, answers, labels))
        points = []
        from langchain_jev.calibration.sweep import MIN_CONFIDENCE_GRID

        for value in MIN_CONFIDENCE_GRID:
            total = Confusion()
            for criterion, answers, labels in prepared:
                predicted = predictions(
                    criterion, answers, value, judge.fail_on_inconclusive, judge.fail_on_error
                )
                total = total + Confusion.of(predicted, labels)
            points.append(SweepPoint(value, total))
        return points

    def calibrated_judge(self, suggestion: Suggestion) -> JevJudge:
        """The judge with the suggested thresholds (its model refuses requests: it decides stored answers)."""
        judge = self.judge
        criteria = [
            with_threshold(c, suggestion.minimums[c.name]) if c.name in suggestion.minimums else c
            for c in judge.criteria
        ]
        return JevJudge(
            criteria,
            NoRequestModel(),
            min_confidence=suggestion.min_confidence
            if suggestion.min_confidence is not None
            else judge.min_confidence,
            fail_on_inconclusive=judge.fail_on_inconclusive,
            fail_on_error=judge.fail_on_error,
            fail_fast=judge.fail_fast,
            feedback_renderer=judge.feedback_renderer,
        )

    def _overall(self, judge: JevJudge) -> Agreement | None:
        predicted: list[bool] = []
        labels: list[bool] = []
        for row in self.rows:
            if row.overall is None or "error" in row.record:
                continue
            predicted.append(redecide(judge, row.record).passed)
            labels.append(row.overall)
        if not labels:
            return None
        confusion = Confusion.of(predicted, labels)
        return Agreement(confusion, bootstrap_kappa(confusion, rounds=self.rounds, seed=self.seed))

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
        from langchain_jev.calibration.rewrite import write_thresholds

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
            "suggestion": suggestion.to_dict() if suggestion else None,
        }

    def table(self) -> str:
        """The per-criterion figures as a text table."""
        headers = (
            "criterion",
            "kind",
            "n",
            "base",
            "AUROC",
            "Brier",
            "ECE",
            "thresh.",
            "acc.",
            "kappa [95% CI]",
            "f-pass",
            "f-fail",
        )
        rows: list[tuple[str, ...]] = [headers]
        for c in self.criteria:
            conf = c.confusion
            interval = f" [{c.kappa_interval[0]:.2f}, {c.kappa_interval[1]:.2f}]" if c.kappa_interval else ""
            rows.append(
                (
                    c.name,
                    c.kind,
                    str(c.n),
                    _f(conf.base_rate),
                    _f(c.auroc),
                    _f(c.brier),
                    _f(c.ece),
                    f"{c.threshold:g}",
                    _f(conf.accuracy),
                    _f(conf.kappa) + interval,
                    _f(conf.false_pass_rate),
                    _f(conf.false_fail_rate),
                )
            )
        if self.overall is not None:
            conf = self.overall.confusion
            ki = self.overall.kappa_interval
            interval = f" [{ki[0]:.2f}, {ki[1]:.2f}]" if ki else ""
            rows.append(
                (
                    "overall",
                    "verdict",
                    str(conf.n),
                    _f(conf.base_rate),
                    "",
                    "",
                    "",
                    "",
                    _f(conf.accuracy),
                    _f(conf.kappa) + interval,
                    _f(conf.false_pass_rate),
                    _f(conf.false_fail_rate),
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(headers))]
        return "\n".join(
            "  ".join(
                cell.ljust(widths[i]) if i < 2 else cell.rjust(widths[i]) for i, cell in enumerate(r)
            ).rstrip()
            for r in rows
        )


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _answers_and_labels(
    rows: Sequence[LabelledRecord], criterion: JevCriterion
) -> tuple[list[Any], list[bool]]:
    answers: list[Any] = []
    labels: list[bool] = []
    for row in rows:
        label = row.labels.get(criterion.name)
        if label is None:
            continue
        answer = _answer_of(row.record, criterion)
        if answer is not None:
            answers.append(answer)
            labels.append(label)
    return answers, labels


def _answer_of(record: Mapping[str, Any], criterion: JevCriterion) -> Any:
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
    criteria = []
    for criterion in judge.criteria:
        if not criterion.is_question:
            continue
        answers, labels = _answers_and_labels(rows, criterion)
        unlabelled = sum(
            1
            for row in rows
            if row.labels.get(criterion.name) is None and _answer_of(row.record, criterion) is not None
        )
        probabilities = tuple(pass_probability(criterion, a) for a in answers)
        predicted = predictions(
            criterion, answers, judge.min_confidence, judge.fail_on_inconclusive, judge.fail_on_error
        )
        confusion = Confusion.of(predicted, labels)
        what, _ = thresholds_of(criterion)
        current = float(criterion.minimum or 0.0) if what == "minimum" else judge.min_confidence
        criteria.append(
            CriterionCalibration(
                criterion.name,
                criterion.kind,
                what,
                current,
                probabilities,
                tuple(labels),
                confusion,
                bootstrap_kappa(confusion, rounds=rounds, seed=seed),
                tuple(
                    sweep(
                        criterion,
                        answers,
                        labels,
                        judge.min_confidence,
                        judge.fail_on_inconclusive,
                        judge.fail_on_error,
                    )
                ),
                unlabelled,
            )
        )
    calibration = Calibration(judge, rows, criteria, None, (), max(1, len(repeats)), seed=seed, rounds=rounds)
    calibration.overall = calibration._overall(judge)
    if len(repeats) > 1:
        calibration.stability = stability(judge, repeats)
    return calibration


def stability(judge: JevJudge, repeats: Sequence[Sequence[Mapping[str, Any]]]) -> list[Stability]:
    """Flip rate and mean within-row variance of each question criterion over row-aligned repeats.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
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
            answers = [_answer_of(record, criterion) for record in group]
            if any(a is None for a in answers):
                continue
            outcomes = {
                blocks(
                    Outcome(_finding(record, criterion.name)["outcome"]),
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


def _finding(record: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    for finding in record.get("findings") or ():
        if finding.get("name") == name:
            return finding  # type: ignore[no-any-return]
    raise KeyError(name)


def label_records(
    judge: JevJudge,
    records: Sequence[Mapping[str, Any]],
    sources: Sequence[Mapping[str, Any]],
    labels: str | Mapping[str, str] | None = None,
    overall: str | None = None,
    *,
    where: Sequence[str] | None = None,
) -> list[LabelledRecord]:
    """Pair records with the labels read from their rows (``sources``, aligned with ``records``).

    ``labels`` is the overall label's field (standing in for every criterion), or a
    mapping of criterion name to its label's field; ``overall`` names the overall
    label's field when ``labels`` is a mapping. ``where`` names each row in errors.

    Raises:
        CalibrationError: a label that cannot be read (named by row and field), or an unknown criterion.

    """
    per_criterion: Mapping[str, str] = {}
    if isinstance(labels, str):
        overall = labels
    elif labels is not None:
        per_criterion = dict(labels)
    by_name = {c.name: c for c in judge.criteria}
    unknown = sorted(name for name in per_criterion if name not in by_name)
    if unknown:
        raise CalibrationError(f"labels name no criterion of the judge: {', '.join(unknown)}")
    if overall is None and not per_criterion:
        raise CalibrationError("give the field of an overall label, or of a label per criterion")
    result = []
    for index, (record, source) in enumerate(zip(records, sources, strict=True)):
        place = where[index] if where is not None else f"row {index + 1}"
        whole = read_label(source.get(overall), None, f"{place}: {overall}") if overall else None
        found: dict[str, bool] = {}
        for criterion in judge.criteria:
            if not criterion.is_question:
                continue
            column = per_criterion.get(criterion.name)
            value = read_label(source.get(column), criterion, f"{place}: {column}") if column else None
            if value is None and overall is not None:
                value = whole
            if value is not None:
                found[criterion.name] = value
        result.append(LabelledRecord(record, whole, found))
    return result


def calibrate(
    judge: JevJudge,
    rows: Iterable[Any],
    labels: str | Mapping[str, str] | None = None,
    *,
    overall: str | None = None,
    records: Sequence[Mapping[str, Any]] | None = None,
    repeat: int = 1,
    concurrency: int = 8,
    seed: int = 0,
    rounds: int = 1000,
) -> Calibration:
    """Judge labelled rows (or reuse their ``records``) and measure the judge against the labels.

    Args:
        judge: the judge to calibrate.
        rows: mappings (a dataset row: ``question``/``answer``/... columns as on the command
            line, with the label fields), or LangSmith ``Example``s (the state from their
            inputs, the labels from their reference outputs).
        labels: the field of the overall label (it stands in for every criterion), or a
            mapping of criterion name to the field of its own label.
        overall: the overall label's field, when ``labels`` is a mapping.
        records: result records of these rows judged already (from ``langchain-jev judge``,
            row-aligned): no request is made for them.
        repeat: ask the model this many times per row (a cache in front of the judge's model
            is bypassed) and report the stability of each criterion.
        concurrency: rows judged at once.
        seed: the seed of the bootstrap interval of kappa.
        rounds: the rounds of that bootstrap.

    Raises:
        CalibrationError: a label that cannot be read, a row that cannot be judged, or no label.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> model = ScriptedDecisionModel({"polite": lambda state, q: 0.9 if "please" in
        ...     state["assistant_answer"] else 0.3})
        >>> judge = JevJudge([JevCriterion.noul("polite", Noul(
        ...     instructions="Is `assistant_answer` polite?"), 0.95)], model=model)
        >>> rows = [{"question": "Door?", "answer": a, "human": h} for a, h in [
        ...     ("Close it please", True), ("Close it", False), ("please shut it", True), ("Shut it", False)]]
        >>> calibration = calibrate(judge, rows, "human")
        >>> calibration.criterion("polite").confusion.accuracy
        0.5
        >>> suggestion = calibration.suggest()
        >>> suggestion.minimums["polite"], suggestion.after.confusion.accuracy
        (0.9, 1.0)

    """
    study = _Study.of(judge, rows, labels, overall, records, repeat)
    while study.wanted:
        judging = study.judge_for_next()
        verdicts = judging.batch(list(study.inputs), {"max_concurrency": concurrency}, return_exceptions=True)
        study.add(verdicts)
    return study.finish(seed, rounds)


async def acalibrate(
    judge: JevJudge,
    rows: Iterable[Any],
    labels: str | Mapping[str, str] | None = None,
    *,
    overall: str | None = None,
    records: Sequence[Mapping[str, Any]] | None = None,
    repeat: int = 1,
    concurrency: int = 8,
    seed: int = 0,
    rounds: int = 1000,
) -> Calibration:
    """Asynchronous `calibrate`: the rows are judged on the running event loop.

    Example:
        >>> import asyncio
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = JevJudge([JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.5)],
        ...     model=ScriptedDecisionModel({"polite": lambda state, q: float(state["assistant_answer"])}))
        >>> rows = [{"answer": "0.8", "ok": True}, {"answer": "0.3", "ok": False}]
        >>> asyncio.run(acalibrate(judge, rows, "ok")).criterion("polite").confusion.accuracy
        1.0

    """
    study = _Study.of(judge, rows, labels, overall, records, repeat)
    while study.wanted:
        judging = study.judge_for_next()
        verdicts = await judging.abatch(
            list(study.inputs), {"max_concurrency": concurrency}, return_exceptions=True
        )
        study.add(verdicts)
    return study.finish(seed, rounds)


@dataclass
class _Study:
    """What `calibrate` and `acalibrate` share: the rows read, the runs so far, and the finish."""

    judge: JevJudge
    inputs: list[Any]
    sources: list[Mapping[str, Any]]
    ids: list[Any]
    labels: str | Mapping[str, str] | None
    overall: str | None
    repeat: int
    runs: list[list[dict[str, Any]]] = field(default_factory=list)

    @classmethod
    def of(
        cls,
        judge: JevJudge,
        rows: Iterable[Any],
        labels: str | Mapping[str, str] | None,
        overall: str | None,
        records: Sequence[Mapping[str, Any]] | None,
        repeat: int,
    ) -> _Study:
        if repeat < 1:
            raise CalibrationError(f"repeat must be at least 1, got {repeat}")
        items = list(rows)
        label_fields: set[str] = set()
        if isinstance(labels, str):
            label_fields.add(labels)
        elif labels is not None:
            label_fields.update(labels.values())
        if overall:
            label_fields.add(overall)
        inputs, sources, ids = _inputs(items, label_fields)
        study = cls(judge, inputs, sources, ids, labels, overall, repeat)
        if records is not None:
            if len(records) != len(items):
                raise CalibrationError(f"{len(records)} records for {len(items)} rows")
            study.runs.append([dict(r) for r in records])
        return study

    @property
    def wanted(self) -> bool:
        """True while a run of the rows is still to be judged."""
        return len(self.runs) < self.repeat

    def judge_for_next(self) -> JevJudge:
        """The judge of the next run: past any cache when the rows are asked more than once."""
        return _without_cache(self.judge) if self.repeat > 1 else self.judge

    def add(self, verdicts: Sequence[Any]) -> None:
        """The records of a run's verdicts (an exception: that row's error record)."""
        self.runs.append(_records_of(self.inputs, self.ids, verdicts))

    def finish(self, seed: int, rounds: int) -> Calibration:
        labelled = label_records(self.judge, self.runs[0], self.sources, self.labels, self.overall)
        repeats = self.runs if self.repeat > 1 else ()
        return build_calibration(self.judge, labelled, repeats=repeats, seed=seed, rounds=rounds)


def _inputs(
    items: Sequence[Any], label_fields: set[str]
) -> tuple[list[Any], list[Mapping[str, Any]], list[Any]]:
    from langchain_jev.datasets.rows import FieldMap, map_row
    from langchain_jev.input import JevJudgeInput

    fields = FieldMap.of(ignored=sorted(label_fields))
    inputs: list[Any] = []
    sources: list[Mapping[str, Any]] = []
    ids: list[Any] = []
    for index, item in enumerate(items, 1):
        if isinstance(item, Mapping):
            data: Mapping[str, Any] = item
            source: Mapping[str, Any] = item
        elif hasattr(item, "inputs") and hasattr(item, "outputs"):
            data = (
                {"id": str(item.id), **dict(item.inputs or {})}
                if getattr(item, "id", None)
                else dict(item.inputs or {})
            )
            source = {**data, **dict(item.outputs or {})}
        elif isinstance(item, JevJudgeInput):
            raise CalibrationError(
                f"row {index}: a JevJudgeInput carries no label; give a mapping or an Example"
            )
        else:
            raise CalibrationError(
                f"row {index}: expected a mapping or a LangSmith Example, got {type(item).__name__}"
            )
        mapped = map_row(data, fields, ())
        if mapped.input is None:
            raise CalibrationError(f"row {index}: {mapped.problem}")
        inputs.append(mapped.input)
        sources.append(source)
        ids.append(mapped.row_id)
    return inputs, sources, ids


def _without_cache(judge: JevJudge) -> JevJudge:
    from langchain_jev.models.cache import CachedDecisionModel

    model = judge.model
    if isinstance(model, CachedDecisionModel):
        return judge.model_copy(update={"model": model.inner})
    return judge


def _records_of(inputs: Sequence[Any], ids: Sequence[Any], verdicts: Sequence[Any]) -> list[dict[str, Any]]:
    from langchain_jev.datasets.results import error_record, verdict_record
    from langchain_jev.datasets.rows import row_key

    records = []
    for number, (data, row_id, verdict) in enumerate(zip(inputs, ids, verdicts, strict=True), 1):
        key = row_key(data.to_state())
        if isinstance(verdict, BaseException):
            records.append(error_record(number, number, key, row_id, verdict))
        else:
            records.append(verdict_record(number, number, key, row_id, verdict))
    return records
