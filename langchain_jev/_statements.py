"""Plain-English judges: statements that must hold, each asked as a yes/no question.

`statement_criteria` turns statements into noul criteria; `JevJudge.from_statements`
builds a judge from them. Every statement goes in the same single request.

Criterion names: a statement without a ``name`` is named by its position,
``statement_1``, ``statement_2``... (counting from 1, over all statements), so the
names are stable for a given list and unique; a statement with a ``name`` keeps it.

The default question asks whether the statement holds of ``assistant_answer``
(with ``user_question`` and the other fields as context), and tells the model to
answer no when the statement holds only partly or when it is unclear, so a passing
statement is one the model considers clearly satisfied. ``satisfied_when`` and
``not_satisfied_when`` replace the descriptions of yes and no.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.decisions import Noul, NoulCriteria

from langchain_jev._criteria import JevCriterion
from langchain_jev._errors import JevConfigurationError, checked_number

__all__ = [
    "DEFAULT_NOT_SATISFIED_WHEN",
    "DEFAULT_SATISFIED_WHEN",
    "Statement",
    "StatementLike",
    "default_question",
    "statement_criteria",
]

DEFAULT_SATISFIED_WHEN = "The statement clearly and fully holds."
"""The default description of yes."""
DEFAULT_NOT_SATISFIED_WHEN = "The statement does not clearly hold: {text}"
"""The default description of no (``{text}`` is the statement); the feedback quotes it."""


@dataclass(frozen=True)
class Statement:
    """A statement that must hold of the answer, with optional pass and fail descriptions.

    Example:
        >>> s = Statement("The answer names its source.",
        ...               not_satisfied_when="No source is named, or the source is vague.")
        >>> s.text
        'The answer names its source.'

    """

    text: str
    """The statement, in plain English."""
    satisfied_when: str | None = None
    """When the statement counts as satisfied (replaces the default description of yes)."""
    not_satisfied_when: str | None = None
    """When it does not (replaces the default description of no)."""
    name: str | None = None
    """The criterion's name; None for ``statement_<position>``."""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise JevConfigurationError(f"a statement's text must be a non-empty string, got {self.text!r}")
        for option in ("satisfied_when", "not_satisfied_when", "name"):
            value = getattr(self, option)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise JevConfigurationError(
                    f"statement {self.text!r}: {option} must be a non-empty string or None, got {value!r}"
                )

    @classmethod
    def of(cls, value: StatementLike) -> Statement:
        """Read a statement: a `Statement`, a string, or a mapping with ``text`` and options.

        Example:
            >>> Statement.of("Is concise.").text
            'Is concise.'
            >>> Statement.of({"text": "Is concise.", "name": "concise"}).name
            'concise'

        """
        if isinstance(value, Statement):
            return value
        if isinstance(value, str):
            return cls(value)
        if isinstance(value, Mapping):
            unknown = sorted(set(value) - {"text", "satisfied_when", "not_satisfied_when", "name"})
            if unknown:
                raise JevConfigurationError(f"a statement mapping has unknown keys: {', '.join(unknown)}")
            return cls(**value)
        raise JevConfigurationError(
            f"a statement must be a string, a Statement or a mapping, got {type(value).__name__}"
        )


StatementLike = Statement | str | Mapping[str, Any]
"""What `statement_criteria` accepts for one statement."""


def default_question(statement: Statement) -> Noul:
    """The yes/no question asked for a statement unless ``question=`` replaces it.

    Example:
        >>> q = default_question(Statement("The answer is polite."))
        >>> print(q.criteria.false)
        The statement does not clearly hold: The answer is polite.

    """
    return Noul(
        instructions=(
            "Does this statement hold of `assistant_answer`, the response being judged "
            "(read it with `user_question` and any other fields of the data)? Answer yes "
            "only when the statement clearly and fully holds; answer no when it holds only "
            f"partly, does not hold, or it is unclear whether it holds.\nStatement: {statement.text}"
        ),
        criteria=NoulCriteria(
            true=statement.satisfied_when or DEFAULT_SATISFIED_WHEN,
            false=statement.not_satisfied_when or DEFAULT_NOT_SATISFIED_WHEN.format(text=statement.text),
        ),
    )


def _threshold(threshold: Any) -> float:
    message = f"threshold must be greater than 0 and at most 1, got {threshold!r}"
    return checked_number(threshold, lambda value: 0.0 < value <= 1.0, message)


def statement_criteria(
    statements: Sequence[StatementLike],
    *,
    threshold: float = 0.5,
    question: Callable[[Statement], Noul | str] | None = None,
) -> list[JevCriterion]:
    """One noul criterion per statement, passing when the probability of yes reaches ``threshold``.

    Args:
        statements: strings, `Statement` objects, or mappings with ``text`` and options.
        threshold: greater than 0 and at most 1.
        question: builds the question for a statement instead of `default_question`;
            it returns a `Noul` (or a string, used as the instructions).

    Raises:
        JevConfigurationError: no statements, a bad statement, a bad threshold, a
            ``question`` that returns something else, or two statements with one name.

    Example:
        >>> criteria = statement_criteria(["The answer is polite.", "The answer is in English."])
        >>> [(c.name, c.minimum) for c in criteria]
        [('statement_1', 0.5), ('statement_2', 0.5)]

    """
    if isinstance(statements, (str, bytes, Mapping)) or not isinstance(statements, Sequence):
        raise JevConfigurationError(
            f"statements must be a list of statements, got {type(statements).__name__}"
        )
    if not statements:
        raise JevConfigurationError("statements must hold at least one statement")
    minimum = _threshold(threshold)
    if question is not None and not callable(question):
        raise JevConfigurationError("question must be callable: statement -> Noul")
    criteria: list[JevCriterion] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(statements, start=1):
        statement = Statement.of(raw)
        name = statement.name or f"statement_{index}"
        if name in seen:
            raise JevConfigurationError(
                f"statement names must be unique: {name!r} names statements {seen[name]} and {index}"
            )
        seen[name] = index
        asked = default_question(statement) if question is None else question(statement)
        if isinstance(asked, str):
            asked = Noul(instructions=asked)
        if not isinstance(asked, Noul):
            raise JevConfigurationError(
                f"statement {index} ({name!r}): question must return a Noul or a string, "
                f"got {type(asked).__name__}"
            )
        criteria.append(JevCriterion.noul(name, asked, minimum))
    return criteria
