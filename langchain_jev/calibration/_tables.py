"""The calibration's tables: the per-criterion figures as text, and where judge and people disagree."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_jev.calibration._figures import answer_of
from langchain_jev.calibration._metrics import Confusion
from langchain_jev.calibration._sweep import pass_probability, predictions
from langchain_jev.datasets._redecide import redecide
from langchain_jev.datasets._tally import text_columns

if TYPE_CHECKING:
    from langchain_jev.calibration._measure import Calibration

__all__ = [
    "Disagreement",
    "MemberFigures",
    "calibration_table",
    "disagreements",
    "member_groups",
    "members_table",
]


@dataclass(frozen=True)
class Disagreement:
    """A row where the judge and the label disagree, on one criterion or on the overall verdict.

    Example:
        >>> item = Disagreement({"row": 3}, "polite", False, True, probability=0.9, confidence=0.9)
        >>> item.kind
        'false pass'

    """

    record: Mapping[str, Any]
    criterion: str | None
    """The criterion, or None for the overall verdict against the overall label."""
    label: bool
    """What people said: True passes."""
    judged: bool
    """What the judge said: True passes (the finding does not block the verdict)."""
    probability: float | None
    """The judge's pass probability (for the overall verdict: of its least sure finding)."""
    confidence: float | None
    """How sure the judge was of what it said: the probability on its side."""

    @property
    def kind(self) -> str:
        """``false pass`` (the judge passed what people fail) or ``false fail``."""
        return "false pass" if self.judged else "false fail"


def disagreements(calibration: Calibration) -> list[Disagreement]:
    """Every labelled row where the judge's decision differs from the label, most confident first.

    Each criterion is decided at the calibration's current thresholds; the overall
    verdict is decided again from the stored answers. Ties keep row order.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> from langchain_jev.calibration import calibrate
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = JevJudge([JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.5)],
        ...     model=ScriptedDecisionModel({"polite": lambda state, q: float(state["assistant_answer"])}))
        >>> rows = [{"answer": p, "ok": False} for p in ("0.9", "0.6", "0.2")]
        >>> found = disagreements(calibrate(judge, rows, "ok"))  # the overall label stands in for polite's
        >>> [(d.record["row"], d.criterion, d.confidence) for d in found]
        [(1, 'polite', 0.9), (1, None, 0.9), (2, 'polite', 0.6), (2, None, 0.6)]

    """
    judge = calibration.judge
    found: list[tuple[float, int, Disagreement]] = []
    for position, row in enumerate(calibration.rows):
        record = row.record
        if "error" in record:
            continue
        sides: list[float] = []
        blocking: list[float] = []
        for criterion in judge.criteria:
            if not criterion.is_question:
                continue
            answer = answer_of(record, criterion)
            if answer is None:
                continue
            probability = pass_probability(criterion, answer)
            judged = predictions(
                criterion,
                [answer],
                judge.min_confidence,
                judge.fail_on_inconclusive,
                judge.fail_on_error,
                panels=[row.panel],
            )[0]
            sides.append(probability)
            if not judged:
                blocking.append(1.0 - probability)
            label = row.labels.get(criterion.name)
            if label is None or label == judged:
                continue
            confidence = probability if judged else 1.0 - probability
            item = Disagreement(record, criterion.name, label, judged, probability, confidence)
            found.append((confidence, position, item))
        if row.overall is None:
            continue
        try:
            passed = redecide(judge, record).passed
        except Exception:  # a record that cannot be decided again has no overall disagreement to show
            continue
        if passed == row.overall:
            continue
        least: float | None
        sure: float | None
        if passed:
            least = min(sides) if sides else None
            sure = least
        else:
            sure = max(blocking) if blocking else None
            least = None if sure is None else 1.0 - sure
        item = Disagreement(record, None, row.overall, passed, least, sure)
        found.append((-1.0 if sure is None else sure, position, item))
    found.sort(key=lambda entry: (-entry[0], entry[1]))
    return [item for _, _, item in found]


def calibration_table(calibration: Calibration) -> str:
    """The per-criterion figures as two text tables, each under a line saying what it measures.

    The first says how well each pass probability ranks the labelled rows (``n``, the share
    people pass, AUROC, Brier score, ECE); the second how the decisions at the current
    thresholds agree with the labels (accuracy, Cohen's kappa and its 95% interval, the
    false-pass and false-fail rates). The overall verdict closes each. Split in two, each
    stays within 88 columns for criterion names up to 30 characters.
    """
    ranking: list[tuple[str, ...]] = [("criterion", "kind", "n", "base", "AUROC", "Brier", "ECE")]
    agreement: list[tuple[str, ...]] = [
        ("criterion", "thresh.", "acc.", "kappa", "95% CI", "f-pass", "f-fail")
    ]
    for c in calibration.criteria:
        conf = c.confusion
        ranking.append((c.name, c.kind, str(c.n), _f(conf.base_rate), _f(c.auroc), _f(c.brier), _f(c.ece)))
        agreement.append((c.name, f"{c.threshold:g}", *_agreement(conf, c.kappa_interval)))
    if calibration.overall is not None:
        conf = calibration.overall.confusion
        ranking.append(("overall", "verdict", str(conf.n), _f(conf.base_rate), "", "", ""))
        agreement.append(("overall", "", *_agreement(conf, calibration.overall.kappa_interval)))
    return (
        "how each pass probability ranks the labelled rows:\n"
        + text_columns(ranking)
        + "\n\nagreement with the labels at the current thresholds:\n"
        + text_columns(agreement, left=(0,))
    )


def _agreement(conf: Confusion, interval: tuple[float, float] | None) -> tuple[str, ...]:
    """Accuracy, kappa, kappa's interval (``-`` without one), false-pass and false-fail rates."""
    shown = f"[{interval[0]:.2f}, {interval[1]:.2f}]" if interval else "-"
    return (_f(conf.accuracy), _f(conf.kappa), shown, _f(conf.false_pass_rate), _f(conf.false_fail_rate))


@dataclass(frozen=True)
class MemberFigures:
    """One line of the members table: who decided, on what, and how it met the labels.

    Example:
        >>> from langchain_jev.calibration import Confusion
        >>> MemberFigures("polite", "jury", Confusion(3, 1, 0, 4), auroc=0.9).confusion.accuracy
        0.875

    """

    name: str
    """The criterion's name, or ``overall`` for the overall verdict."""
    who: str
    """``jury``, or the member's name."""
    confusion: Confusion
    auroc: float | None = None
    brier: float | None = None
    overall: bool = False
    """The overall verdict's line (no probability, so no AUROC or Brier)."""


def member_groups(calibration: Calibration) -> list[list[MemberFigures]]:
    """Per criterion, then for the overall verdict: the jury's figures first, then each member's.

    A member without an overall agreement is left out of that group. Empty when no jury answered.
    """
    if not calibration.members:
        return []
    groups = []
    for index, jury in enumerate(calibration.criteria):
        sides = [("jury", jury), *((m.name, m.criteria[index]) for m in calibration.members)]
        groups.append([MemberFigures(c.name, who, c.confusion, c.auroc, c.brier) for who, c in sides])
    if calibration.overall is not None:
        overall = [("jury", calibration.overall), *((m.name, m.overall) for m in calibration.members)]
        groups.append(
            [MemberFigures("overall", who, a.confusion, overall=True) for who, a in overall if a is not None]
        )
    return groups


def members_table(calibration: Calibration) -> str:
    """Each jury member's agreement with the labels beside the jury's, per criterion and overall.

    Empty when no jury answered. Each member is decided as the judge's only model, at
    the same thresholds, on the rows it answered.
    """
    groups = member_groups(calibration)
    if not groups:
        return ""
    headers = ("criterion", "model", "n", "AUROC", "Brier", "acc.", "kappa", "f-pass", "f-fail")
    rows: list[tuple[str, ...]] = [headers]
    for group in groups:
        for place, line in enumerate(group):
            conf = line.confusion
            rows.append(
                (
                    "" if place else line.name,
                    line.who,
                    str(conf.n),
                    "" if line.overall else _f(line.auroc),
                    "" if line.overall else _f(line.brier),
                    _f(conf.accuracy),
                    _f(conf.kappa),
                    _f(conf.false_pass_rate),
                    _f(conf.false_fail_rate),
                )
            )
    return text_columns(rows)


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
