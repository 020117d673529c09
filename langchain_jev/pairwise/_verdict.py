"""The pairwise verdict: for each criterion, which answer is better, decided from both orders.

Pure: `decide_preference` reads the two answers a criterion got (the pair shown
A first, then B first) and returns a `PairwiseFinding`. A preference stands only
when both orders give it; a preference that flips with the order is position
bias, and a preference in one order with "equally good" in the other is a lean
the model does not hold: both are INCONCLUSIVE, never a winner. When a jury
compared, `review_preference` decides by every member's own preference as well
(a jury's ``disagreement=`` bound holds here as it does for a judge's findings).

Two answers that are the same text are equally good on every criterion, whatever
a model's position bias: `same_answers` says so (the texts compared after
`normal_answer`: Unicode NFC, and every run of whitespace one space, the ends
trimmed; case, punctuation and every other character still count), and
`same_answers_verdict` is their verdict, a TIE on each criterion, decided without
asking the model.
"""

from __future__ import annotations

import dataclasses
import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from langchain_core.decisions import ChoiceAnswer, ClassifierResponse

from langchain_jev._feedback import number
from langchain_jev._verdict import named

__all__ = [
    "FIRST",
    "LABELS",
    "SECOND",
    "TIE",
    "PairwiseFinding",
    "PairwiseVerdict",
    "Preference",
    "decide_preference",
    "normal_answer",
    "review_preference",
    "same_answers",
    "same_answers_verdict",
]

FIRST = "answer_1"
"""The label of the answer shown first."""
SECOND = "answer_2"
"""The label of the answer shown second."""
TIE = "equally_good"
"""The label for two answers that meet a criterion equally well."""
LABELS: tuple[str, ...] = (FIRST, SECOND, TIE)
"""The options of every pairwise question, in order."""


class Preference(StrEnum):
    """How one criterion of a comparison landed.

    ============  ==============================================================
    A             answer A is better, in both orders
    B             answer B is better, in both orders
    TIE           equally good, in both orders
    INCONCLUSIVE  the orders disagree (position bias, or a lean in one order only)
    ERROR         an order got no readable answer
    ============  ==============================================================

    Example:
        >>> Preference("A").score_of("A"), Preference.TIE.score_of("B"), Preference.INCONCLUSIVE.score_of("A")
        (1.0, 0.5, None)

    """

    A = "A"
    B = "B"
    TIE = "TIE"
    INCONCLUSIVE = "INCONCLUSIVE"
    ERROR = "ERROR"

    @property
    def decided(self) -> bool:
        """True for A, B and TIE."""
        return self in (Preference.A, Preference.B, Preference.TIE)

    def score_of(self, side: str) -> float | None:
        """The score of answer ``side`` (``"A"`` or ``"B"``): 1 if it won, 0 if it lost, 0.5 each for a tie.

        None when undecided (INCONCLUSIVE or ERROR): no score rather than a guessed tie.
        """
        if self is Preference.TIE:
            return 0.5
        if self in (Preference.A, Preference.B):
            return 1.0 if self.value == side else 0.0
        return None


# In the first order answer_1 is A; in the second (swapped) order answer_1 is B.
_READINGS: tuple[Mapping[str, Preference], Mapping[str, Preference]] = (
    {FIRST: Preference.A, SECOND: Preference.B, TIE: Preference.TIE},
    {FIRST: Preference.B, SECOND: Preference.A, TIE: Preference.TIE},
)


@dataclass(frozen=True)
class PairwiseFinding:
    """Which answer one criterion prefers, with what each order said.

    Example:
        >>> both = (Preference.A, Preference.A)
        >>> finding = PairwiseFinding("helpful", Preference.A, both, None, "helpful: A is better")
        >>> finding.to_dict()["preference"], finding.consistent
        ('A', True)

    """

    name: str
    """The criterion's name."""
    preference: Preference
    """The outcome of the comparison."""
    orders: tuple[Preference | None, Preference | None]
    """What the criterion chose with A shown first, then with B shown first (None: no readable answer)."""
    probabilities: Mapping[str, float] | None
    """The mean of both orders' distributions over ``A``, ``B`` and ``TIE``, where both gave one."""
    detail: str
    """One sentence saying what was found."""
    reasoning: str | None = None
    """The decision model's reasoning, where it gives one (both orders)."""
    members: Mapping[str, Preference] | None = None
    """When a jury compared: each member's own preference, by member name (who said what)."""

    @property
    def consistent(self) -> bool:
        """True when both orders chose the same."""
        return self.orders[0] is not None and self.orders[0] is self.orders[1]

    def to_dict(self) -> dict[str, Any]:
        """The finding as JSON-ready data."""
        data: dict[str, Any] = {
            "name": self.name,
            "preference": self.preference.value,
            "orders": [o.value if o is not None else None for o in self.orders],
            "detail": self.detail,
        }
        if self.probabilities is not None:
            data["probabilities"] = dict(self.probabilities)
        if self.reasoning:
            data["reasoning"] = self.reasoning
        if self.members is not None:
            data["members"] = {name: preference.value for name, preference in self.members.items()}
        return data


@dataclass(frozen=True)
class PairwiseVerdict:
    """A comparison of two answers to one input: one finding per criterion.

    ``response`` is the decision model's one response (both orders of every
    criterion were asked in it).

    Example:
        >>> a = PairwiseFinding("helpful", Preference.A, (Preference.A, Preference.A), None, "")
        >>> b = PairwiseFinding("concise", Preference.B, (Preference.B, Preference.B), None, "")
        >>> verdict = PairwiseVerdict((a, b), None)
        >>> verdict.tally(), verdict.preferred
        ({'A': 1, 'B': 1, 'TIE': 0, 'INCONCLUSIVE': 0, 'ERROR': 0}, <Preference.TIE: 'TIE'>)

    """

    findings: tuple[PairwiseFinding, ...]
    """One finding per criterion, in order."""
    response: ClassifierResponse | None
    """The decision model's response."""

    def finding(self, name: str) -> PairwiseFinding:
        """The finding of the criterion called ``name``.

        Raises:
            KeyError: no criterion has that name.

        """
        return named(self.findings, name, "comparison")

    def tally(self) -> dict[str, int]:
        """How many criteria landed each way."""
        counts = dict.fromkeys((p.value for p in Preference), 0)
        for finding in self.findings:
            counts[finding.preference.value] += 1
        return counts

    @property
    def preferred(self) -> Preference:
        """The answer more criteria prefer (TIE when as many prefer each); INCONCLUSIVE when none decided."""
        counts = self.tally()
        if not any(counts[p.value] for p in (Preference.A, Preference.B, Preference.TIE)):
            return Preference.INCONCLUSIVE
        if counts["A"] == counts["B"]:
            return Preference.TIE
        return Preference.A if counts["A"] > counts["B"] else Preference.B

    def summary(self) -> str:
        """One line: ``preferred=A [helpful=A, concise=INCONCLUSIVE]``."""
        body = ", ".join(f"{f.name}={f.preference.value}" for f in self.findings)
        return f"preferred={self.preferred.value} [{body}]"

    def to_dict(self) -> dict[str, Any]:
        """The verdict as JSON-ready data (what a results file keeps per row)."""
        return {
            "preferred": self.preferred.value,
            "summary": self.summary(),
            "findings": [finding.to_dict() for finding in self.findings],
        }


def normal_answer(text: str) -> str:
    r"""An answer as two answers are compared for sameness: NFC, each run of whitespace one space, trimmed.

    Example:
        >>> normal_answer("  Rain\tfrom 9am.\n\nTake an umbrella. ")
        'Rain from 9am. Take an umbrella.'
        >>> normal_answer("caf\u0065\u0301") == normal_answer("caf\u00e9")
        True

    """
    return " ".join(unicodedata.normalize("NFC", text).split())


def same_answers(a: str, b: str) -> bool:
    r"""True when two answers are the same text but for whitespace (see `normal_answer`).

    Example:
        >>> same_answers("Yes, from 9am.", "Yes,  from 9am.\n"), same_answers("Yes.", "yes.")
        (True, False)

    """
    return a == b or normal_answer(a) == normal_answer(b)


def same_answers_verdict(names: Sequence[str]) -> PairwiseVerdict:
    """The verdict of two answers that are the same text: equally good on every criterion, no model asked.

    Swapping two equal answers changes nothing, so each order is "equally good" by
    construction; the verdict has no response (no request was made).

    Example:
        >>> verdict = same_answers_verdict(["helpful", "concise"])
        >>> verdict.summary(), verdict.response is None
        ('preferred=TIE [helpful=TIE, concise=TIE]', True)
        >>> print(verdict.findings[0].detail)
        helpful: equally good: the answers are the same text (whitespace aside); the model was not asked

    """
    both = (Preference.TIE, Preference.TIE)
    even = {Preference.A.value: 0.0, Preference.B.value: 0.0, Preference.TIE.value: 1.0}
    findings = tuple(
        PairwiseFinding(name, Preference.TIE, both, dict(even), _SAME.format(name=name)) for name in names
    )
    return PairwiseVerdict(findings, None)


_SAME = "{name}: equally good: the answers are the same text (whitespace aside); the model was not asked"


def decide_preference(
    name: str,
    answers: Sequence[Any],
    problems: Sequence[str | None] = (None, None),
    reasoning: str | None = None,
) -> PairwiseFinding:
    """Decide one criterion from its two answers: A shown first, then B shown first.

    Each answer is a ``ChoiceAnswer`` over `LABELS` (anything else, or a
    ``problems`` entry, is that order's ERROR).

    Example:
        >>> from langchain_core.decisions import ChoiceAnswer
        >>> def chose(label):
        ...     return ChoiceAnswer(type="choice", choice=label, probabilities={}, confidence=1.0)
        >>> decide_preference("helpful", [chose("answer_1"), chose("answer_2")]).preference.value
        'A'
        >>> print(decide_preference("helpful", [chose("answer_1"), chose("answer_1")]).detail)
        helpful: undecided: the answer shown first wins in both orders (position bias)

    """
    orders: list[Preference | None] = []
    distributions: list[dict[Preference, float] | None] = []
    errors: list[str] = []
    for index, (answer, problem) in enumerate(zip(answers, problems, strict=True)):
        order = "A first" if index == 0 else "B first"
        if problem is None and not (isinstance(answer, ChoiceAnswer) and answer.choice in LABELS):
            problem = "no answer" if answer is None else f"not a choice of {', '.join(LABELS)}"
        if problem is not None:
            orders.append(None)
            distributions.append(None)
            errors.append(f"{order}: {problem}")
            continue
        reading = _READINGS[index]
        orders.append(reading[answer.choice])
        distributions.append(_distribution(answer.probabilities, reading))
    pair = (orders[0], orders[1])
    probabilities = _mean(distributions)
    if errors:
        detail = f"{name}: could not be compared: {'; '.join(errors)}"
        return PairwiseFinding(name, Preference.ERROR, pair, probabilities, detail, reasoning)
    first, second = pair
    assert first is not None
    assert second is not None
    if first is second:
        return PairwiseFinding(name, first, pair, probabilities, _agreed(name, first), reasoning)
    if {first, second} == {Preference.A, Preference.B}:
        shown = "first" if first is Preference.A else "second"
        detail = f"{name}: undecided: the answer shown {shown} wins in both orders (position bias)"
    else:
        lean = first if first is not Preference.TIE else second
        which = "A first" if lean is first else "B first"
        detail = (
            f"{name}: undecided: {lean.value} is better with {which}, "
            "and they are equally good in the other order"
        )
    return PairwiseFinding(name, Preference.INCONCLUSIVE, pair, probabilities, detail, reasoning)


def review_preference(
    finding: PairwiseFinding,
    members: Mapping[str, PairwiseFinding],
    *,
    vote: bool = False,
    disagreement: float | None = None,
) -> PairwiseFinding:
    """Decide a criterion a jury compared: by each member's own preference as well as by the combined answers.

    ``finding`` is decided from the jury's combined answers, ``members`` from each
    member's own two answers (by member name). With ``vote`` the preference most
    members hold decides (a tie at the top is INCONCLUSIVE); otherwise the combined
    preference stands. Either way, when more than ``disagreement`` of the members that
    hold a preference (A, B or TIE: one undecided in its own two orders is left out)
    prefer otherwise, it is INCONCLUSIVE: the jury is split. An ERROR, or a combined
    preference that is INCONCLUSIVE, stays as it is. The result names every member's
    preference (`PairwiseFinding.members`).

    Example:
        >>> def held(p):
        ...     return PairwiseFinding("helpful", p, (p, p), None, "")
        >>> jury = held(Preference.A)
        >>> members = {"a": held(Preference.A), "b": held(Preference.A), "c": held(Preference.B)}
        >>> review_preference(jury, members, disagreement=0.34).preference.value
        'A'
        >>> review_preference(jury, members, disagreement=0.0).detail.split(" dissent: ")[1]
        'A better for a, b; B better for c'

    """
    said = {name: member.preference for name, member in members.items()}
    reviewed = dataclasses.replace(finding, members=said)
    if finding.preference is Preference.ERROR or (finding.preference is Preference.INCONCLUSIVE and not vote):
        return reviewed
    held = {name: preference for name, preference in said.items() if preference.decided}
    if not held:
        return reviewed
    preference: Preference = finding.preference
    if vote:
        counts = {p: sum(1 for h in held.values() if h is p) for p in _PHRASES}
        leaders = [p for p, count in counts.items() if count == max(counts.values())]
        if len(leaders) > 1:
            split = _split(finding.name, held)
            return dataclasses.replace(reviewed, preference=Preference.INCONCLUSIVE, detail=split)
        preference = leaders[0]
        if preference is not finding.preference:
            agreed = _agreed(finding.name, preference)
            reviewed = dataclasses.replace(reviewed, preference=preference, detail=agreed)
    dissent = sum(1 for h in held.values() if h is not preference) / len(held)
    if disagreement is not None and dissent > disagreement + _EPSILON:
        detail = _split(finding.name, held, disagreement)
        return dataclasses.replace(reviewed, preference=Preference.INCONCLUSIVE, detail=detail)
    return reviewed


def _split(name: str, held: Mapping[str, Preference], bound: float | None = None) -> str:
    limit = "evenly" if bound is None else f"beyond the {number(bound)} of members that may dissent"
    said = [
        f"{_PHRASES[p]} for {', '.join(n for n, h in held.items() if h is p)}"
        for p in _PHRASES
        if p in held.values()
    ]
    return f"{name}: undecided, the jury is split {limit}: {'; '.join(said)}"


_PHRASES = {Preference.A: "A better", Preference.B: "B better", Preference.TIE: "equally good"}
_EPSILON = 1e-9


def _agreed(name: str, preference: Preference) -> str:
    if preference is Preference.TIE:
        return f"{name}: equally good, in both orders"
    return f"{name}: {preference.value} is better, in both orders"


def _distribution(
    raw: Mapping[str, float], reading: Mapping[str, Preference]
) -> dict[Preference, float] | None:
    values = {reading[label]: float(p) for label, p in raw.items() if label in reading}
    if not values or not all(math.isfinite(p) and p >= 0 for p in values.values()):
        return None
    total = math.fsum(values.values())
    return {key: p / total for key, p in values.items()} if total > 0 else None


def _mean(distributions: Sequence[dict[Preference, float] | None]) -> dict[str, float] | None:
    if not distributions or any(d is None for d in distributions):
        return None
    keys = (Preference.A, Preference.B, Preference.TIE)
    count = len(distributions)
    return {key.value: math.fsum((d or {}).get(key, 0.0) for d in distributions) / count for key in keys}
