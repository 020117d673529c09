"""Feedback wording: pure functions from a criterion and its numbers to one sentence.

Every number is written with two decimals through Python's own formatting, which
ignores the locale, so ``0.70`` never becomes ``0,70`` and changes what a model reads.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from langchain_jev._verdict import JevFinding, Outcome

if TYPE_CHECKING:
    from langchain_jev._criteria import JevCriterion

__all__ = ["default_feedback"]


def default_feedback(findings: Sequence[JevFinding]) -> str:
    """One line per blocking (FAILED) finding: its detail. ERROR and NOT_APPLICABLE are left out.

    Example:
        >>> from langchain_jev import JevCriterion, JevFinding, Outcome
        >>> c = JevCriterion.check("json", lambda d: False, "the answer is not JSON")
        >>> default_feedback([JevFinding(c, None, Outcome.FAILED, "json: the answer is not JSON")])
        'json: the answer is not JSON'

    """
    return "\n".join(f.detail for f in findings if f.outcome is Outcome.FAILED)


def number(value: float) -> str:
    """Format a number as the feedback does: two decimals, locale-independent."""
    return f"{value:.2f}"


def text(value: Any) -> str:
    """Render rubric content (text or JSON) as one line of text."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), sort_keys=True)


def quoted(labels: Iterable[str]) -> str:
    """Quote labels: ``"a", "b"``."""
    return ", ".join(f'"{label}"' for label in labels)


def level_text(criterion: JevCriterion, level: int) -> str:
    """The rubric description of a score level, clamped to the rubric."""
    levels = criterion.levels
    return text(levels[max(0, min(level, len(levels) - 1))])


def landed_level(score: float) -> int:
    """The level a score lands on: the highest level it has reached (never rounded up)."""
    return math.floor(score + 1e-9)


def required_level(minimum: float) -> int:
    """The first whole level that reaches ``minimum``."""
    return math.ceil(minimum - 1e-9)


def score_failed(criterion: JevCriterion, score: float, support: float | None = None) -> str:
    """``helpfulness: rated "Mostly unhelpful" (1.20), needs to reach 2.00 which is "Mostly helpful"``.

    ``support`` is accepted so every wording takes the same arguments; the rated level says enough.
    """
    minimum = criterion.minimum or 0.0
    return (
        f'{criterion.name}: rated "{level_text(criterion, landed_level(score))}" '
        f"({number(score)}), needs to reach {number(minimum)} "
        f'which is "{level_text(criterion, required_level(minimum))}"'
    )


def score_passed(criterion: JevCriterion, score: float, support: float | None) -> str:
    """``helpfulness: rated "Mostly helpful" (2.34), reaches 2.00``."""
    minimum = criterion.minimum or 0.0
    tail = "" if support is None else f", {number(support)} of the probability supports it"
    return (
        f'{criterion.name}: rated "{level_text(criterion, landed_level(score))}" '
        f"({number(score)}), reaches {number(minimum)}{tail}"
    )


def noul_failed(criterion: JevCriterion, probability: float) -> str:
    """``is_plausible: "At least one value is impossible" (yes at 0.40, needs 0.70)``."""
    minimum = number(criterion.minimum or 0.0)
    question = criterion.question
    criteria = getattr(question, "criteria", None)
    when_false = getattr(criteria, "false", None)
    if when_false is not None:
        return f'{criterion.name}: "{text(when_false)}" (yes at {number(probability)}, needs {minimum})'
    instructions = text(getattr(question, "instructions", ""))
    return f'{criterion.name}: not met: "{instructions}" (yes at {number(probability)}, needs {minimum})'


def noul_passed(criterion: JevCriterion, probability: float) -> str:
    """``is_plausible: yes at 0.90, reaches 0.70``."""
    return f"{criterion.name}: yes at {number(probability)}, reaches {number(criterion.minimum or 0.0)}"


def choice_failed(criterion: JevCriterion, chosen: str, support: float | None) -> str:
    """``mode: chose "other", needs one of "answered" (0.20 of the probability there)``."""
    tail = "" if support is None else f" ({number(support)} of the probability there)"
    return f'{criterion.name}: chose "{chosen}", needs one of {quoted(sorted(criterion.accepted))}{tail}'


def choice_passed(criterion: JevCriterion, chosen: str, support: float | None) -> str:
    """``mode: chose "answered", accepted (0.90 of the probability on accepted labels)``."""
    tail = "" if support is None else f" ({number(support)} of the probability on accepted labels)"
    return f'{criterion.name}: chose "{chosen}", accepted{tail}'


def undecided(criterion: JevCriterion, side: str, support: float, minimum: float, what: str) -> str:
    """``helpfulness: undecided, rated ... only 0.55 of the probability supports a pass, below 0.60``."""
    return (
        f"{criterion.name}: undecided, {what}; only {number(support)} of the probability "
        f"supports a {side}, below the {number(minimum)} required"
    )


def jury_vote(criterion: JevCriterion, passed: bool, votes: Sequence[tuple[str, str]], of: int) -> str:
    """``correct: 2 of 3 jury members find it not met (gpt: yes at 0.40, needs 0.70; ...)``.

    ``votes`` are the winning side's members with the detail of their own decision.
    """
    side = "met" if passed else "not met"
    prefix = f"{criterion.name}: "
    reasons = "; ".join(f"{name}: {detail.removeprefix(prefix)}" for name, detail in votes)
    return f"{criterion.name}: {len(votes)} of {of} jury members find it {side} ({reasons})"


def jury_split(criterion: JevCriterion, met: Sequence[str], unmet: Sequence[str], bound: float | None) -> str:
    """``correct: undecided, the jury is split: met for jev, gpt; not met for claude, ...``."""
    limit = "evenly" if bound is None else f"beyond the {number(bound)} of members that may dissent"
    return (
        f"{criterion.name}: undecided, the jury is split {limit}: met for {', '.join(met)}; "
        f"not met for {', '.join(unmet)}"
    )


def jury_short(criterion: JevCriterion, detail: str, found: Sequence[tuple[str, str]]) -> str:
    """``polite: could not be judged: <the quorum>; the members that answered: jev: not met: ...``.

    ``detail`` is the finding's ERROR detail; ``found`` each answering member's name
    with the detail of its own decision (what it found stands in the report).
    """
    if not found:
        return detail
    prefix = f"{criterion.name}: "
    said = "; ".join(f"{name}: {text.removeprefix(prefix)}" for name, text in found)
    return f"{detail}; the members that answered: {said}"


def check_failed(criterion: JevCriterion) -> str:
    """``searched: did not search``: the check's defect."""
    return f"{criterion.name}: {criterion.defect}"


def check_passed(criterion: JevCriterion) -> str:
    """``searched: passed``."""
    return f"{criterion.name}: passed"


def unreadable(criterion: JevCriterion, reason: str) -> str:
    """``helpfulness: could not be judged: <reason>``."""
    return f"{criterion.name}: could not be judged: {reason}"


def not_asked(criterion: JevCriterion) -> str:
    """``is_grounded: does not apply``."""
    return f"{criterion.name}: does not apply"


def skipped(criterion: JevCriterion) -> str:
    """The detail of a question that ``fail_fast`` kept from the model."""
    return f"{criterion.name}: not asked, a check failed and fail_fast skipped the request"


def dependency_unmet(criterion: JevCriterion, dependency: str, found: str) -> str:
    """``has_details: does not apply, mode was "clarification_needed"``."""
    return f"{criterion.name}: does not apply, {dependency} was {found}"
