"""The verdict: one finding per criterion, the raw response, and the feedback."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar, cast

from langchain_core.decisions import Answer, ChoiceAnswer, ClassifierResponse, NoulAnswer, ScoreAnswer
from langchain_core.messages import BaseMessage, message_to_dict

if TYPE_CHECKING:
    from langchain_jev._criteria import JevCriterion

__all__ = ["JevFinding", "JevVerdict", "Outcome"]


class Outcome(StrEnum):
    """How a criterion landed. Only FAILED blocks a verdict (and a jury's ERROR for want of its quorum).

    ===============  ==========================================================
    PASSED           the criterion was met
    FAILED           the criterion was not met (blocks)
    INCONCLUSIVE     too little probability supported the verdict
    ERROR            the model returned no answer, or one that cannot be read
    NOT_APPLICABLE   not asked, or its dependency was not met
    ===============  ==========================================================

    Example:
        >>> Outcome("FAILED") is Outcome.FAILED, str(Outcome.NOT_APPLICABLE)
        (True, 'NOT_APPLICABLE')

    """

    PASSED = "PASSED"
    FAILED = "FAILED"
    INCONCLUSIVE = "INCONCLUSIVE"
    ERROR = "ERROR"
    NOT_APPLICABLE = "NOT_APPLICABLE"


class _FindingFields(NamedTuple):
    criterion: JevCriterion
    answer: Answer | None
    outcome: Outcome
    detail: str | Callable[[], str]
    confidence: float | None = None
    reasoning: str | None = None
    decided: Outcome | None = None


class JevFinding(_FindingFields):
    """How one criterion landed, with the answer it was decided on.

    A finding is an immutable record: ``criterion``, ``answer`` (None for a check or
    a question not asked), ``outcome``, ``detail`` (one sentence, ready to hand back
    to a model), ``confidence`` (share of the probability on the side of the
    decision, where one was computed), ``reasoning`` (the decision model's own, when
    it gives one) and ``decided`` (the outcome before ``fail_on_*`` turned it into
    FAILED). ``detail`` may be given as text or as a function that words it, called
    when read: most details of a passing verdict are never read.

    Example:
        >>> from langchain_jev import JevCriterion, JevFinding, Outcome
        >>> check = JevCriterion.check("short", lambda d: False, "too long")
        >>> finding = JevFinding(check, None, Outcome.FAILED, "short: too long")
        >>> finding.is_failure, finding.detail
        (True, 'short: too long')

    """

    __slots__ = ()

    @property
    def detail(self) -> str:
        """One sentence, ready to hand back to a model."""
        detail = cast("str | Callable[[], str]", tuple.__getitem__(self, 3))
        return detail if isinstance(detail, str) else detail()

    def replace(self, **changes: Any) -> JevFinding:
        """A copy with some fields changed."""
        return self._replace(**changes)

    def _key(self) -> tuple[Any, ...]:
        return (
            self.criterion,
            self.answer,
            self.outcome,
            self.detail,
            self.confidence,
            self.reasoning,
            self.decided,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, JevFinding):
            return NotImplemented
        return self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        return hash((self.criterion.name, self.outcome, self.detail))

    def __repr__(self) -> str:
        return f"JevFinding({self.name!r}, {self.outcome.value}, {self.detail!r})"

    @property
    def name(self) -> str:
        """The criterion's name."""
        return self.criterion.name

    @property
    def is_failure(self) -> bool:
        """True when the finding blocks the verdict (FAILED)."""
        return self.outcome is Outcome.FAILED

    @property
    def label(self) -> str | None:
        """The chosen label of a choice answer, else None."""
        return self.answer.choice if isinstance(self.answer, ChoiceAnswer) else None

    @property
    def value(self) -> float | None:
        """The score of a score answer or the probability of yes of a noul, else None."""
        if isinstance(self.answer, ScoreAnswer):
            return self.answer.score
        if isinstance(self.answer, NoulAnswer):
            return self.answer.noul
        return None

    def to_dict(self) -> dict[str, Any]:
        """Return the finding as plain JSON-ready data."""
        data: dict[str, Any] = {
            "name": self.name,
            "kind": self.criterion.kind,
            "outcome": self.outcome.value,
            "detail": self.detail,
        }
        for key in ("confidence", "label", "value", "reasoning"):
            item = getattr(self, key)
            if item is not None:
                data[key] = item
        return data


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_F = TypeVar("_F", bound=_Named)


def named(findings: Sequence[_F], name: str, where: str) -> _F:
    """The finding of ``findings`` called ``name``, as a verdict or a comparison finds it.

    Raises:
        KeyError: none has that name (the message says where it was looked for).

    """
    for finding in findings:
        if finding.name == name:
            return finding
    raise KeyError(f"no criterion named {name!r} in this {where}")


@dataclass(frozen=True)
class JevVerdict:
    """The judge's verdict: whether everything passed, one finding per criterion.

    ``response`` is the decision model's untouched response (usage and request id
    included), or None when no question was asked.

    Example:
        >>> from langchain_jev import JevCriterion, JevFinding, JevVerdict, Outcome
        >>> check = JevCriterion.check("short", lambda d: True, "too long")
        >>> verdict = JevVerdict(True, (JevFinding(check, None, Outcome.PASSED, "short: ok"),), None, "")
        >>> verdict.summary()
        'passed=true [short=PASSED]'

    """

    passed: bool
    """True when no finding is FAILED."""
    findings: tuple[JevFinding, ...]
    """One finding per criterion, in declaration order."""
    response: ClassifierResponse | None
    """The decision model's response, or None when no question was asked."""
    feedback: str
    """Feedback synthesised from the blocking findings ("" when it passed)."""

    def _having(self, outcome: Outcome) -> list[JevFinding]:
        return [finding for finding in self.findings if finding.outcome is outcome]

    def failures(self) -> list[JevFinding]:
        """The findings that block the verdict."""
        return self._having(Outcome.FAILED)

    def inconclusive(self) -> list[JevFinding]:
        """The undecided findings (not turned into failures)."""
        return self._having(Outcome.INCONCLUSIVE)

    def errors(self) -> list[JevFinding]:
        """The findings the model gave no readable answer for (not turned into failures)."""
        return self._having(Outcome.ERROR)

    def not_applicable(self) -> list[JevFinding]:
        """The findings not asked, or whose dependency was not met."""
        return self._having(Outcome.NOT_APPLICABLE)

    def finding(self, name: str) -> JevFinding:
        """The finding of the criterion called ``name``.

        Raises:
            KeyError: no criterion has that name.

        """
        return named(self.findings, name, "verdict")

    def summary(self) -> str:
        """One line: ``passed=false [helpfulness=PASSED, is_plausible=FAILED]``."""
        body = ", ".join(f"{f.name}={f.outcome.value}" for f in self.findings)
        return f"passed={'true' if self.passed else 'false'} [{body}]"

    def to_dict(self) -> dict[str, Any]:
        """Return the verdict as plain JSON-ready data."""
        return {
            "passed": self.passed,
            "summary": self.summary(),
            "feedback": self.feedback,
            "findings": [finding.to_dict() for finding in self.findings],
        }


def plain(record: Any, *names: str, **renamed: str) -> dict[str, Any]:
    """A record's fields and properties as plain JSON-ready data: the one converter behind ``to_dict``.

    ``names`` (default: every dataclass field, in order) keep their names; each of
    ``renamed`` is ``key="attribute"``. Values go through `plain_value`.

    Example:
        >>> from langchain_jev.calibration import Confusion
        >>> plain(Confusion(3, 1, 0, 4), "true_pass", "accuracy", fails="true_fail")
        {'true_pass': 3, 'accuracy': 0.875, 'fails': 4}

    """
    if not names and not renamed:
        names = tuple(field.name for field in dataclasses.fields(record))
    pairs = [(name, name) for name in names] + list(renamed.items())
    return {key: plain_value(getattr(record, attribute)) for key, attribute in pairs}


def plain_value(value: Any) -> Any:
    """``value`` as JSON-ready data; records and messages become mappings, tuples lists.

    A record goes by its ``to_dict``, a message by LangChain's ``message_to_dict``, a
    tuple or list item by item; anything else stays as it is.

    Example:
        >>> plain_value((0.1, 0.9)), plain_value(None)
        ([0.1, 0.9], None)

    """
    if isinstance(value, BaseMessage):
        return message_to_dict(value)
    if isinstance(value, (tuple, list)):
        return [plain_value(item) for item in value]
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else value
