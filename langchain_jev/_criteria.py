"""Criteria: a typed question with its own pass condition, or a code check."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from langchain_core.decisions import Choice, Noul, Score
from pydantic_core import PydanticSerializationError, to_json

from langchain_jev._errors import JevConfigurationError
from langchain_jev._input import JevJudgeInput, unicode_fault

__all__ = ["CriterionKind", "Dependency", "JevCriterion", "Predicate"]

CriterionKind = Literal["noul", "score", "choice", "check"]
"""The four kinds of criterion."""

Predicate = Callable[[JevJudgeInput], bool]
"""A plain Python predicate on the judge input."""


@dataclass(frozen=True)
class Dependency:
    """A criterion's dependency on an earlier criterion's outcome.

    ``labels`` is set for ``when_chosen`` (the labels that must be chosen) and
    None for ``when_passed`` (the criterion must have passed).
    """

    name: str
    """The name of the criterion depended on."""
    labels: frozenset[str] | None = None
    """Labels of ``when_chosen``; None for ``when_passed``."""


@dataclass(frozen=True, eq=False)
class JevCriterion:
    """One criterion of a judge: a typed question with its pass condition, or a check.

    Build criteria with the class methods; they are immutable, and the modifiers
    (`applies_when`, `when_chosen`, `when_passed`) return new criteria.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> grounded = JevCriterion.noul(
        ...     "is_grounded",
        ...     Noul(instructions="Is `assistant_answer` supported by `supporting_context`?"),
        ...     0.7,
        ... ).applies_when(lambda data: bool(data.context))
        >>> grounded.kind, grounded.minimum
        ('noul', 0.7)

    """

    name: str
    """Unique name; also the question's name in the request."""
    kind: CriterionKind
    """What the criterion is: a noul, score or choice question, or a check."""
    question: Noul | Score | Choice | None = None
    """The question asked (None for a check)."""
    minimum: float | None = None
    """Noul: probability of yes to reach. Score: rubric level to reach."""
    accepted: frozenset[str] = frozenset()
    """Choice: the labels that pass."""
    predicate: Predicate | None = None
    """Check: the predicate that must return True."""
    defect: str | None = None
    """Check: what to report when the predicate returns False."""
    condition: Predicate | None = None
    """Question asked only when this returns True (see `applies_when`)."""
    depends_on: Dependency | None = None
    """Dependency on an earlier criterion (see `when_chosen`, `when_passed`)."""

    @classmethod
    def noul(cls, name: str, question: Noul, minimum: float) -> JevCriterion:
        """A yes/no question that passes when the probability of yes reaches ``minimum``.

        Example:
            >>> from langchain_core.decisions import Noul
            >>> JevCriterion.noul("polite", Noul(instructions="Is it polite?"), 0.7).minimum
            0.7

        """
        check_name(name)
        _check_type(name, question, Noul, "Noul")
        low_high = _finite(name, minimum)
        if not 0.0 <= low_high <= 1.0:
            raise JevConfigurationError(
                f"criterion {name!r}: minimum must be between 0 and 1, got {minimum!r}"
            )
        return cls(name=name, kind="noul", question=question, minimum=low_high)

    @classmethod
    def score(cls, name: str, question: Score, minimum: float) -> JevCriterion:
        """A rubric question that passes when its probability sits on levels >= ``minimum``.

        Levels are numbered from 0 in the order of ``question.criteria``.

        Example:
            >>> from langchain_core.decisions import Score
            >>> rubric = Score(instructions="How helpful?", criteria=["No", "Somewhat", "Very"])
            >>> JevCriterion.score("helpfulness", rubric, 2).minimum
            2.0

        """
        check_name(name)
        _check_type(name, question, Score, "Score")
        value = _finite(name, minimum)
        top = len(question.criteria) - 1
        if not 0.0 <= value <= top:
            raise JevConfigurationError(
                f"criterion {name!r}: minimum must be a level of the rubric, "
                f"between 0 and {top}, got {minimum!r}"
            )
        return cls(name=name, kind="score", question=question, minimum=value)

    @classmethod
    def choice(cls, name: str, question: Choice, accepted: Iterable[str]) -> JevCriterion:
        """A labelled question that passes when its probability sits on ``accepted`` labels.

        Example:
            >>> from langchain_core.decisions import Choice
            >>> mode = Choice(instructions="How?", criteria={"answered": None, "asked": None})
            >>> sorted(JevCriterion.choice("mode", mode, ["answered"]).accepted)
            ['answered']

        """
        check_name(name)
        _check_type(name, question, Choice, "Choice")
        if isinstance(accepted, str):
            accepted = [accepted]
        labels = frozenset(accepted)
        if not labels:
            raise JevConfigurationError(f"criterion {name!r}: accepted needs at least one label")
        unknown = sorted(label for label in labels if label not in question.criteria)
        if unknown:
            raise JevConfigurationError(
                f"criterion {name!r}: accepted label(s) {_quoted(unknown)} are not options "
                f"of the choice (options: {_quoted(question.criteria)})"
            )
        return cls(name=name, kind="choice", question=question, accepted=labels)

    @classmethod
    def check(cls, name: str, predicate: Predicate, defect: str) -> JevCriterion:
        """A code check: passes when ``predicate(input)`` returns True, else reports ``defect``.

        Checks run locally before the request and never reach the model.

        Example:
            >>> searched = JevCriterion.check(
            ...     "searched", lambda data: bool(data.tool_calls), "did not search"
            ... )
            >>> searched.kind
            'check'

        """
        check_name(name)
        if not callable(predicate):
            raise JevConfigurationError(f"criterion {name!r}: predicate must be callable")
        if not isinstance(defect, str) or not defect.strip():
            raise JevConfigurationError(f"criterion {name!r}: defect must be a non-empty string")
        return cls(name=name, kind="check", predicate=predicate, defect=defect)

    @property
    def levels(self) -> list[Any]:
        """The rubric levels of a score criterion, from level 0 (empty for other kinds)."""
        return list(self.question.criteria) if isinstance(self.question, Score) else []

    @property
    def options(self) -> list[str]:
        """The labels of a choice criterion (empty for other kinds)."""
        return list(self.question.criteria) if isinstance(self.question, Choice) else []

    @property
    def is_question(self) -> bool:
        """True for a noul, score or choice criterion."""
        return self.kind != "check"

    def applies_when(self, predicate: Predicate) -> JevCriterion:
        """Return a copy decided only when ``predicate(input)`` is True; otherwise NOT_APPLICABLE.

        A question that does not apply is not sent; a check that does not apply is
        not run, so a check can settle only the inputs it can settle (an answer
        equal to the expected output, say) and leave the rest to a question.

        Example:
            >>> from langchain_core.decisions import Noul
            >>> c = JevCriterion.noul("g", Noul(instructions="Grounded?"), 0.7)
            >>> c.applies_when(lambda data: bool(data.context)).condition is not None
            True

        """
        if not callable(predicate):
            raise JevConfigurationError(f"criterion {self.name!r}: applies_when needs a callable")
        return replace(self, condition=predicate)

    def when_chosen(self, name: str, *labels: str) -> JevCriterion:
        """Return a copy that applies only when choice ``name`` selected one of ``labels``.

        Example:
            >>> from langchain_core.decisions import Noul
            >>> c = JevCriterion.noul("has_details", Noul(instructions="Detailed?"), 0.7)
            >>> c.when_chosen("mode", "answered").depends_on.name
            'mode'

        """
        if not labels:
            raise JevConfigurationError(
                f"criterion {self.name!r}: when_chosen({name!r}) needs at least one label"
            )
        return replace(self, depends_on=Dependency(name, frozenset(labels)))

    def when_passed(self, name: str) -> JevCriterion:
        """Return a copy that applies only when criterion ``name`` passed.

        Example:
            >>> from langchain_core.decisions import Noul
            >>> c = JevCriterion.noul("cites", Noul(instructions="Cites sources?"), 0.5)
            >>> c.when_passed("is_grounded").depends_on.labels is None
            True

        """
        return replace(self, depends_on=Dependency(name, None))

    def __repr__(self) -> str:
        parts = [f"{self.kind} {self.name!r}"]
        if self.kind in ("noul", "score"):
            parts.append(f"minimum={self.minimum:g}")
        if self.kind == "choice":
            parts.append(f"accepted={sorted(self.accepted)}")
        if self.condition is not None:
            parts.append("applies_when=...")
        if self.depends_on is not None:
            dep = self.depends_on
            parts.append(
                f"when_passed={dep.name!r}"
                if dep.labels is None
                else f"when_chosen={dep.name!r}:{sorted(dep.labels)}"
            )
        return f"JevCriterion({', '.join(parts)})"


def validate_criteria(criteria: Iterable[JevCriterion]) -> tuple[JevCriterion, ...]:
    """Check a judge's criteria together; return them as a tuple.

    Names are unique, there is at least one question, and each dependency names
    an earlier criterion (a choice, for ``when_chosen``, with existing labels).
    """
    items = tuple(criteria)
    seen: dict[str, JevCriterion] = {}
    for index, criterion in enumerate(items):
        if not isinstance(criterion, JevCriterion):
            raise JevConfigurationError(
                f"criteria[{index}] must be a JevCriterion, got {type(criterion).__name__}"
            )
        if criterion.name in seen:
            raise JevConfigurationError(f"criterion {criterion.name!r} is declared twice")
        dep = criterion.depends_on
        if dep is not None:
            target = seen.get(dep.name)
            if target is None:
                later = any(c.name == dep.name for c in items[index + 1 :])
                where = "a later criterion" if later else "an unknown criterion"
                raise JevConfigurationError(
                    f"criterion {criterion.name!r} depends on {where} {dep.name!r}: "
                    "a dependency must be declared before its dependents"
                )
            if dep.labels is not None:
                if target.kind != "choice":
                    raise JevConfigurationError(
                        f"criterion {criterion.name!r}: when_chosen needs a choice, "
                        f"but {dep.name!r} is a {target.kind}"
                    )
                options = target.options
                unknown = sorted(label for label in dep.labels if label not in options)
                if unknown:
                    raise JevConfigurationError(
                        f"criterion {criterion.name!r}: when_chosen label(s) {_quoted(unknown)} "
                        f"are not options of {dep.name!r} (options: {_quoted(options)})"
                    )
        seen[criterion.name] = criterion
    if not any(c.is_question for c in items):
        raise JevConfigurationError(
            "a judge needs at least one question criterion (noul, score or choice); "
            "a judge of checks alone is a plain predicate"
        )
    return items


def check_name(name: Any, kind: str = "criterion", why: str = ", so it cannot be sent as JSON") -> None:
    """Refuse a ``kind`` name that is not a non-empty string of valid Unicode text (``why`` ends the error).

    Example:
        >>> check_name(" ")
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JevConfigurationError: a criterion name must be a non-empty string, got ' '

    """
    if not isinstance(name, str) or not name.strip():
        raise JevConfigurationError(f"a {kind} name must be a non-empty string, got {name!r}")
    fault = unicode_fault(name)
    if fault is not None:
        raise JevConfigurationError(f"{kind} {name!r}: the name is not valid Unicode text ({fault}){why}")


def _check_type(name: str, question: Any, expected: type, label: str) -> None:
    if not isinstance(question, expected):
        raise JevConfigurationError(
            f"criterion {name!r}: expected a langchain_core.decisions.{label}, got {type(question).__name__}"
        )
    _check_sendable(name, question)


def _check_sendable(name: str, question: Any) -> None:
    try:
        to_json(question.model_dump())  # every key and text as given, as the wire must encode them
    except PydanticSerializationError as error:
        raise JevConfigurationError(
            f"criterion {name!r}: the question cannot be sent as JSON: {error}"
        ) from None


def _finite(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise JevConfigurationError(f"criterion {name!r}: minimum must be a finite number, got {value!r}")
    return float(value)


def _quoted(labels: Iterable[str]) -> str:
    return ", ".join(f'"{label}"' for label in labels)
