"""Deciding: pure functions from a criterion and an answer to an outcome.

Nothing here does I/O. A noul passes at ``noul >= minimum`` and is never
INCONCLUSIVE. A score passes when at least half of its probability sits on
levels at or above the minimum; a choice when at least half sits on accepted
labels. The share on the verdict's side is its confidence; below
``min_confidence`` the finding is INCONCLUSIVE. Without probabilities, the
score's value or the selected label decides.

An answer that contradicts itself is that finding's ERROR, never a guess: a
score more than half a level away from the expected level of its own
probabilities, a label chosen that its probabilities give nothing, or
probabilities whose sum overflows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from langchain_core.decisions import ChoiceAnswer, NoulAnswer, ScoreAnswer

from langchain_jev import _feedback as feedback
from langchain_jev._criteria import JevCriterion
from langchain_jev._verdict import Outcome

__all__ = [
    "Decision",
    "DecisionFields",
    "decide",
    "decide_check",
    "decision_fields",
    "dependency_detail",
    "review_panel",
    "support_share",
]

_EPSILON = 1e-9
_ANSWER_TYPES: dict[str, type] = {"noul": NoulAnswer, "score": ScoreAnswer, "choice": ChoiceAnswer}


class Decision(NamedTuple):
    """The outcome of one criterion with its detail sentence (or its wording) and confidence."""

    outcome: Outcome
    detail: str | Callable[[], str]
    confidence: float | None = None

    @property
    def text(self) -> str:
        """The detail sentence."""
        return self.detail if isinstance(self.detail, str) else self.detail()


DecisionFields = tuple[Outcome, str | Callable[[], str], float | None]
"""A `Decision` as a plain tuple: outcome, detail (or its wording), confidence."""


def _decision(fields: DecisionFields) -> Decision:
    """``Decision(*fields)`` without the named tuple's keyword handling (the hot path)."""
    return _new(Decision, fields)


class _Wording(tuple[Any, ...]):
    """A detail worded when read: ``(function, *arguments)``, called as ``function(*arguments)``.

    What ``functools.partial`` does, as one tuple: a verdict makes one per criterion, and
    a partial is three objects for the garbage collector to track (itself, its arguments,
    its keywords), this is one.
    """

    __slots__ = ()

    def __call__(self) -> str:
        text: str = self[0](*self[1:])
        return text


_new = tuple.__new__


def _wording(function: Callable[..., str], *arguments: Any) -> _Wording:
    return _new(_Wording, (function, *arguments))


class _Unreadable(Exception):
    """An answer that cannot be decided on; the message says why."""


def decide_check(criterion: JevCriterion, result: Any) -> Decision:
    """Decide a code check from its predicate's result."""
    if bool(result):
        return Decision(Outcome.PASSED, _wording(feedback.check_passed, criterion))
    return Decision(Outcome.FAILED, _wording(feedback.check_failed, criterion))


def decide(
    criterion: JevCriterion,
    answer: Any,
    min_confidence: float,
    problem: str | None = None,
) -> Decision:
    """Decide a question criterion from the model's answer.

    ``problem`` is the decision model's own reason why an answer it received could
    not be read; it makes the finding ERROR, as does a missing or unusable answer.

    Example:
        >>> from langchain_core.decisions import Score, ScoreAnswer
        >>> rubric = Score(instructions="How helpful?", criteria=["0", "1", "2", "3"])
        >>> c = JevCriterion.score("helpfulness", rubric, 2)
        >>> probs = {0: 0.0, 1: 0.07, 2: 0.52, 3: 0.41}
        >>> a = ScoreAnswer(type="score", score=2.34, legend={}, probabilities=probs, confidence=0.51)
        >>> d = decide(c, a, 0.6)
        >>> d.outcome.value, round(d.confidence, 2)
        ('PASSED', 0.93)

    """
    try:
        if problem is None and type(answer) is NoulAnswer and criterion.kind == "noul":
            return _decide_noul(criterion, answer)  # the common case, first
        if problem is not None:
            raise _Unreadable(problem)
        if answer is None:
            raise _Unreadable("the model returned no answer for this question")
        expected = _ANSWER_TYPES[criterion.kind]
        if not isinstance(answer, expected):
            got = getattr(answer, "type", type(answer).__name__)
            raise _Unreadable(f"expected a {criterion.kind} answer, got {got!r}")
        if isinstance(answer, NoulAnswer):
            return _decide_noul(criterion, answer)
        if isinstance(answer, ScoreAnswer):
            return _decide_score(criterion, answer, min_confidence)
        if isinstance(answer, ChoiceAnswer):
            return _decide_choice(criterion, answer, min_confidence)
        raise _Unreadable(f"expected a {criterion.kind} answer")
    except _Unreadable as error:
        return Decision(Outcome.ERROR, feedback.unreadable(criterion, str(error)))


def decision_fields(
    criterion: JevCriterion,
    answer: Any,
    min_confidence: float,
    problem: str | None = None,
) -> DecisionFields:
    """`decide` as a plain ``(outcome, detail, confidence)`` tuple: the same decision, for a verdict's loop.

    A noul answered with a probability between 0 and 1, nearly every answer of a large
    judge, is decided without `decide`'s other checks and without building a named
    tuple; every other answer goes through `decide`.

    Example:
        >>> from langchain_core.decisions import Noul, NoulAnswer
        >>> polite = JevCriterion.noul("polite", Noul(instructions="Is it polite?"), 0.7)
        >>> answer = NoulAnswer(type="noul", noul=0.4)
        >>> outcome, detail, confidence = decision_fields(polite, answer, 0.6)
        >>> outcome.value, round(confidence, 2)
        ('FAILED', 0.6)
        >>> detail() == decide(polite, answer, 0.6).text
        True

    """
    if problem is None and type(answer) is NoulAnswer and criterion.kind == "noul":
        probability = answer.noul
        if type(probability) is float and 0.0 <= probability <= 1.0:
            return _noul(criterion, probability)
    return decide(criterion, answer, min_confidence, problem)


def review_panel(
    criterion: JevCriterion,
    decision: Decision,
    answers: Mapping[str, Any],
    *,
    vote: bool = False,
    disagreement: float | None = None,
    short_of_quorum: bool = False,
) -> Decision:
    """Decide a criterion a jury answered: by every member as well as by the combined answer.

    ``decision`` is the combined answer's decision, ``answers`` each member's own
    answer (by member name). Each member's answer is decided as one model's would be
    (without a confidence bar; an unreadable one is left out). With ``vote`` the
    majority of the members decides (an even split is INCONCLUSIVE); otherwise the
    combined decision stands. Either way, when more than ``disagreement`` of the
    members that decided find against the outcome, it is INCONCLUSIVE: the members
    disagree about whether the criterion passes. An ERROR, or a combined decision
    that is INCONCLUSIVE, stays as it is; an ERROR because fewer members than the
    quorum answered (``short_of_quorum``) says what each member that did answer found.

    Example:
        >>> from langchain_core.decisions import Noul, NoulAnswer
        >>> polite = JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.7)
        >>> members = {n: NoulAnswer(type="noul", noul=p) for n, p in [("a", 0.9), ("b", 0.8), ("c", 0.1)]}
        >>> combined = decide(polite, NoulAnswer(type="noul", noul=0.6), 0.6)
        >>> review_panel(polite, combined, members, vote=True).outcome.value
        'PASSED'
        >>> review_panel(polite, combined, members, vote=True, disagreement=0.25).outcome.value
        'INCONCLUSIVE'

    """
    if decision.outcome is Outcome.ERROR and short_of_quorum:
        found = [(name, own.text) for name, own in _own_decisions(criterion, answers)]
        return Decision(Outcome.ERROR, _wording(feedback.jury_short, criterion, decision.text, found))
    if decision.outcome is Outcome.ERROR or (decision.outcome is Outcome.INCONCLUSIVE and not vote):
        return decision
    met: list[str] = []
    unmet: list[str] = []
    details: dict[str, str] = {}
    for name, own in _own_decisions(criterion, answers):
        (met if own.outcome is Outcome.PASSED else unmet).append(name)
        details[name] = own.text
    counted = len(met) + len(unmet)
    if not counted:
        return decision
    if vote:
        if len(met) == len(unmet):
            wording = _wording(feedback.jury_split, criterion, met, unmet, None)
            return Decision(Outcome.INCONCLUSIVE, wording, 0.5)
        passed = len(met) > len(unmet)
        side = met if passed else unmet
        votes = [(name, details[name]) for name in side]
        wording = _wording(feedback.jury_vote, criterion, passed, votes, counted)
        decision = Decision(Outcome.PASSED if passed else Outcome.FAILED, wording, len(side) / counted)
    dissent = len(unmet if decision.outcome is Outcome.PASSED else met) / counted
    if disagreement is not None and dissent > disagreement + _EPSILON:
        wording = _wording(feedback.jury_split, criterion, met, unmet, disagreement)
        return Decision(Outcome.INCONCLUSIVE, wording, 1.0 - dissent)
    return decision


def _own_decisions(criterion: JevCriterion, answers: Mapping[str, Any]) -> list[tuple[str, Decision]]:
    """Each member's own decision of the criterion that decided it (PASSED or FAILED), by name."""
    decided = [(name, decide(criterion, answer, 0.0)) for name, answer in answers.items()]
    return [(name, own) for name, own in decided if own.outcome in (Outcome.PASSED, Outcome.FAILED)]


def support_share(probabilities: Mapping[Any, float], passing: set[Any]) -> float:
    """The share of probability on the passing keys, over the total (renormalised).

    Example:
        >>> round(support_share({0: 0.0, 1: 0.07, 2: 0.52, 3: 0.41}, {2, 3}), 2)
        0.93

    """
    total = math.fsum(probabilities.values())
    return math.fsum(p for key, p in probabilities.items() if key in passing) / total


def dependency_detail(criterion: JevCriterion, outcome: Outcome, label: str | None) -> str | None:
    """Why ``criterion``'s dependency is not met, given the dependency's decided outcome.

    Returns None when the dependency is met. An undecided dependency (INCONCLUSIVE,
    ERROR, NOT_APPLICABLE) is never met.
    """
    dependency = criterion.depends_on
    if dependency is None:
        return None
    if outcome not in (Outcome.PASSED, Outcome.FAILED):
        return feedback.dependency_unmet(criterion, dependency.name, outcome.value)
    if dependency.labels is None:
        if outcome is Outcome.PASSED:
            return None
        return feedback.dependency_unmet(criterion, dependency.name, outcome.value)
    if label in dependency.labels:
        return None
    return feedback.dependency_unmet(criterion, dependency.name, f'"{label}"')


def _decide_noul(criterion: JevCriterion, answer: NoulAnswer) -> Decision:
    probability = answer.noul
    if type(probability) is not float or not 0.0 <= probability <= 1.0:  # the rare path
        probability = _probability(probability, "noul")
        if probability > 1.0 + _EPSILON:
            raise _Unreadable(f"noul must be between 0 and 1, got {answer.noul!r}")
    return _decision(_noul(criterion, probability))


def _noul(criterion: JevCriterion, probability: float) -> DecisionFields:
    """The decision of a noul whose probability of yes has been read: passed at the minimum or above."""
    if probability >= (criterion.minimum or 0.0) - _EPSILON:
        return (Outcome.PASSED, _new(_Wording, (feedback.noul_passed, criterion, probability)), probability)
    return (Outcome.FAILED, _new(_Wording, (feedback.noul_failed, criterion, probability)), 1.0 - probability)


def _decide_score(criterion: JevCriterion, answer: ScoreAnswer, min_confidence: float) -> Decision:
    levels = len(criterion.levels)
    minimum = criterion.minimum or 0.0
    score = answer.score
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
        raise _Unreadable(f"score must be a finite number, got {score!r}")
    if not -_EPSILON <= score <= levels - 1 + _EPSILON:
        raise _Unreadable(f"score {score!r} is outside the rubric's levels 0 to {levels - 1}")
    probabilities = _distribution(answer.probabilities, set(range(levels)), "level")
    if probabilities:
        _agrees(score, probabilities)
    support = (
        support_share(probabilities, {lvl for lvl in probabilities if lvl >= minimum - _EPSILON})
        if probabilities
        else None
    )
    return _settle(
        criterion,
        score >= minimum - _EPSILON,
        support,
        min_confidence,
        f"rated {feedback.number(score)} against {feedback.number(minimum)}",
        (feedback.score_passed, criterion, score),
        (feedback.score_failed, criterion, score),
    )


def _decide_choice(criterion: JevCriterion, answer: ChoiceAnswer, min_confidence: float) -> Decision:
    options = set(criterion.options)
    chosen = answer.choice
    if chosen not in options:
        raise _Unreadable(f'chose "{chosen}", which is not an option of the choice')
    probabilities = _distribution(answer.probabilities, options, "label")
    if probabilities and probabilities.get(chosen, 0.0) <= 0.0:
        raise _Unreadable(f'chose "{chosen}", which its own probabilities give no weight')
    support = support_share(probabilities, set(criterion.accepted)) if probabilities else None
    return _settle(
        criterion,
        chosen in criterion.accepted,
        support,
        min_confidence,
        f'chose "{chosen}"',
        (feedback.choice_passed, criterion, chosen),
        (feedback.choice_failed, criterion, chosen),
    )


def _settle(
    criterion: JevCriterion,
    passes_without_distribution: bool,
    support: float | None,
    min_confidence: float,
    what: str,
    on_pass: tuple[Any, ...],
    on_fail: tuple[Any, ...],
) -> Decision:
    """Decide from the share of probability on the passing side (or, without one, the value).

    ``on_pass`` and ``on_fail`` are a wording function and its first arguments; the support is its last.
    """
    if support is None:
        passed, confidence = passes_without_distribution, None
    else:
        passed, confidence = _side(support)
        if confidence < min_confidence - _EPSILON:
            side = "pass" if passed else "fail"
            detail = _wording(feedback.undecided, criterion, side, confidence, min_confidence, what)
            return Decision(Outcome.INCONCLUSIVE, detail, confidence)
    wording = _new(_Wording, (*(on_pass if passed else on_fail), support))
    return Decision(Outcome.PASSED if passed else Outcome.FAILED, wording, confidence)


def _side(support: float) -> tuple[bool, float]:
    passed = support >= 0.5 - _EPSILON
    return passed, support if passed else 1.0 - support


def _probability(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _Unreadable(f"{what} must be a finite number, got {value!r}")
    if value < 0:
        raise _Unreadable(f"{what} must not be negative, got {value!r}")
    return float(value)


def _distribution(raw: Any, keys: set[Any], what: str) -> dict[Any, float]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise _Unreadable(f"probabilities must be an object, got {type(raw).__name__}")
    result: dict[Any, float] = {}
    for key, value in raw.items():
        if key not in keys:
            raise _Unreadable(f"probabilities name {key!r}, which is not a {what} of the question")
        result[key] = _probability(value, f"the probability of {key!r}")
    if result:
        try:
            total = math.fsum(result.values())
        except OverflowError:
            total = math.inf
        if not math.isfinite(total):
            raise _Unreadable("probabilities overflow: their sum is not a finite number")
        if total <= 0:
            raise _Unreadable("probabilities sum to zero")
    return result


def _agrees(score: float, probabilities: Mapping[int, float]) -> None:
    """Raise when a score is more than half a level from the expected level of its distribution."""
    total = math.fsum(probabilities.values())
    expected = math.fsum(level * (p / total) for level, p in probabilities.items())
    if abs(score - expected) > 0.5 + _EPSILON:
        raise _Unreadable(
            f"score {feedback.number(score)} contradicts its own probabilities, "
            f"whose expected level is {feedback.number(expected)}"
        )
