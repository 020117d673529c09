"""The questions and the state of a comparison: each criterion asked in both orders, in one request.

Pure. The state holds the shared input (the question, the expected output, the
documents, the conversation) and the pair twice: ``comparison_1`` shows A as
``answer_1``, ``comparison_2`` shows B as ``answer_1``. Every criterion becomes
two `Choice` questions, identical but for the comparison they read, so the
swapped question is one more question, not one more request.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.decisions import Choice, Noul, Score

from langchain_jev._criteria import JevCriterion, check_name
from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev._feedback import text
from langchain_jev._input import ANSWER_FIELD, JevJudgeInput
from langchain_jev.pairwise._verdict import FIRST, LABELS, SECOND, TIE

__all__ = [
    "COMPARISONS",
    "PairwiseCriterion",
    "comparison_state",
    "engine_criteria",
    "pairwise_criteria",
    "pairwise_questions",
    "question_names",
]

COMPARISONS: tuple[str, str] = ("comparison_1", "comparison_2")
"""The state fields holding the pair: A shown first, then B shown first."""

_SUFFIXES = ("__1", "__2")


@dataclass(frozen=True)
class PairwiseCriterion:
    """One criterion two answers are compared on: a name and what "better" means.

    Example:
        >>> PairwiseCriterion("helpful", "Which answer helps the user more?").name
        'helpful'

    """

    name: str
    """Unique name; the question names are ``<name>__1`` and ``<name>__2``."""
    criterion: Any
    """What the answers are compared on: text, or structured JSON."""

    @classmethod
    def of(cls, criterion: JevCriterion) -> PairwiseCriterion:
        """The comparison on a judge's question: asked of each answer, the better one meets it more fully.

        Raises:
            JevConfigurationError: the criterion is a code check (it compares nothing).

        Example:
            >>> from langchain_core.decisions import Noul
            >>> polite = JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)
            >>> print(PairwiseCriterion.of(polite).criterion)  # doctest: +NORMALIZE_WHITESPACE
            Ask of each answer (as `assistant_answer`): Is `assistant_answer` polite?
            The better answer is the one for which the answer is more clearly yes.

        """
        question = criterion.question
        asked = "Ask of each answer (as `assistant_answer`): "
        if isinstance(question, Noul):
            meaning = ""
            if question.criteria is not None:
                said = [
                    f"{word} means: {text(value)}"
                    for word, value in (("yes", question.criteria.true), ("no", question.criteria.false))
                    if value is not None
                ]
                meaning = f" ({'; '.join(said)})" if said else ""
            return cls(
                criterion.name,
                f"{asked}{text(question.instructions)}{meaning} "
                "The better answer is the one for which the answer is more clearly yes.",
            )
        if isinstance(question, Score):
            levels = "; ".join(f"{level}: {text(value)}" for level, value in enumerate(question.criteria))
            return cls(
                criterion.name,
                f"{asked}{text(question.instructions)} Levels, lowest first: {levels}. "
                "The better answer is the one that rates higher.",
            )
        if isinstance(question, Choice):
            options = "; ".join(
                f"{label}" + (f": {text(value)}" if value is not None else "")
                for label, value in question.criteria.items()
            )
            accepted = ", ".join(sorted(criterion.accepted))
            return cls(
                criterion.name,
                f"{asked}{text(question.instructions)} Options: {options}. The better answer is the one "
                f"that fits an accepted option ({accepted}) more clearly.",
            )
        raise JevConfigurationError(
            f"criterion {criterion.name!r} is a code check: a pairwise judge compares answers "
            "with questions (leave the check out)"
        )


def pairwise_criteria(criteria: Any) -> tuple[PairwiseCriterion, ...]:
    """Read what a pairwise judge is given: criteria, a mapping of name to what "better" means, or both.

    Accepts `PairwiseCriterion` and `JevCriterion` items (a check is refused), a
    mapping ``{name: text or JSON}``, or ``(name, text)`` pairs.

    Raises:
        JevConfigurationError: nothing to compare on, a name given twice or that
            clashes with another's question names, or an item of another type.

    Example:
        >>> [c.name for c in pairwise_criteria({"helpful": "Which helps more?", "concise": "Shorter?"})]
        ['helpful', 'concise']

    """
    if isinstance(criteria, Mapping):
        items: Iterable[Any] = [PairwiseCriterion(name, value) for name, value in criteria.items()]
    elif isinstance(criteria, (str, bytes)) or not isinstance(criteria, Iterable):
        raise JevConfigurationError(
            "a pairwise judge takes criteria (JevCriterion or PairwiseCriterion), or a mapping of "
            f"name to what makes an answer better; got {type(criteria).__name__}"
        )
    else:
        items = criteria
    built: list[PairwiseCriterion] = []
    for index, item in enumerate(items):
        if isinstance(item, JevCriterion):
            item = PairwiseCriterion.of(item)
        elif isinstance(item, tuple) and len(item) == 2:
            item = PairwiseCriterion(*item)
        if not isinstance(item, PairwiseCriterion):
            raise JevConfigurationError(
                f"pairwise criteria[{index}] must be a JevCriterion, a PairwiseCriterion or a "
                f"(name, criterion) pair, got {type(item).__name__}"
            )
        _check(item)
        built.append(item)
    if not built:
        raise JevConfigurationError("a pairwise judge needs at least one criterion to compare on")
    taken: dict[str, str] = {}
    for item in built:
        for name in (item.name, *question_names(item.name)):
            if name in taken:
                raise JevConfigurationError(
                    f"pairwise criterion {item.name!r} clashes with {taken[name]!r}: "
                    f"both use the name {name!r}"
                )
            taken[name] = item.name
    return tuple(built)


def question_names(name: str) -> tuple[str, str]:
    """The names of a criterion's two questions: A shown first, then B shown first.

    Example:
        >>> question_names("helpful")
        ('helpful__1', 'helpful__2')

    """
    return (name + _SUFFIXES[0], name + _SUFFIXES[1])


def pairwise_questions(criteria: Iterable[PairwiseCriterion]) -> dict[str, Choice]:
    """Every question of a comparison: two per criterion, in order.

    Example:
        >>> questions = pairwise_questions([PairwiseCriterion("helpful", "Which helps more?")])
        >>> list(questions), list(questions["helpful__2"].criteria)
        (['helpful__1', 'helpful__2'], ['answer_1', 'answer_2', 'equally_good'])

    """
    questions: dict[str, Choice] = {}
    for criterion in criteria:
        for name, field in zip(question_names(criterion.name), COMPARISONS, strict=True):
            questions[name] = _question(criterion, field)
    return questions


def engine_criteria(criteria: Iterable[PairwiseCriterion]) -> list[JevCriterion]:
    """The criteria of the judge that asks a comparison's questions: a choice per question.

    Every label is accepted: the engine only asks, strictly reads and traces; the
    preference is decided from the two answers (`langchain_jev.pairwise._verdict`).

    Example:
        >>> [c.name for c in engine_criteria([PairwiseCriterion("helpful", "Which helps more?")])]
        ['helpful__1', 'helpful__2']

    """
    questions = pairwise_questions(criteria)
    return [JevCriterion.choice(name, question, LABELS) for name, question in questions.items()]


def comparison_state(
    shared: JevJudgeInput | Mapping[str, Any], answer_a: Any, answer_b: Any
) -> dict[str, Any]:
    """The state of one comparison: the shared input, and the pair in both orders.

    Raises:
        JevInputError: an answer is not text, or the shared input carries an answer.

    Example:
        >>> state = comparison_state({"user_question": "Capital of France?"}, "Paris.", "Lyon.")
        >>> state["comparison_1"], state["comparison_2"]
        ({'answer_1': 'Paris.', 'answer_2': 'Lyon.'}, {'answer_1': 'Lyon.', 'answer_2': 'Paris.'})

    """
    for which, answer in (("A", answer_a), ("B", answer_b)):
        if not isinstance(answer, str):
            raise JevInputError(f"answer {which} must be text, got {type(answer).__name__}")
    state = dict(shared.to_state() if isinstance(shared, JevJudgeInput) else shared)
    if state.pop(ANSWER_FIELD, None) is not None:
        raise JevInputError(
            f"the shared input of a comparison has no {ANSWER_FIELD!r}: the two answers are given apart"
        )
    for field in COMPARISONS:
        if field in state:
            raise JevInputError(
                f"the shared input of a comparison must not carry {field!r}; it holds the pair"
            )
    state[COMPARISONS[0]] = {FIRST: answer_a, SECOND: answer_b}
    state[COMPARISONS[1]] = {FIRST: answer_b, SECOND: answer_a}
    return state


def _question(criterion: PairwiseCriterion, field: str) -> Choice:
    return Choice(
        instructions=(
            f"`{field}` holds two answers, `{FIRST}` and `{SECOND}`, each written to answer `user_question` "
            "(read the other fields, such as `expected_output` and `supporting_context`, where given). "
            "Judge both on the criterion below and say which meets it better, or that they meet it "
            f"equally well. Criterion: {text(criterion.criterion)}"
        ),
        criteria={
            FIRST: f"`{field}.{FIRST}` meets the criterion better",
            SECOND: f"`{field}.{SECOND}` meets the criterion better",
            TIE: "both meet it equally well, or equally badly",
        },
    )


def _check(item: PairwiseCriterion) -> None:
    name = item.name
    check_name(name, "pairwise criterion", why="")
    value = item.criterion
    if isinstance(value, str):
        if not value.strip():
            raise JevConfigurationError(f"pairwise criterion {name!r}: what makes an answer better is empty")
    elif not isinstance(value, (dict, list)):
        raise JevConfigurationError(
            f"pairwise criterion {name!r}: what makes an answer better must be text or JSON, "
            f"got {type(value).__name__}"
        )
