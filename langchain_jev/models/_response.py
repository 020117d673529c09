"""The response type our decision models return, and a strict reader of raw answers.

Raw answers are JSON as a server sent it. They are read strictly: a value of
the wrong JSON type (``true`` or ``"0.9"`` where a number belongs) or a level key
that is not written the one canonical way (``"03"`` for level 3) is that answer's
problem, never coerced into something the model did not say.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.decisions import (
    Answer,
    BoxAnswer,
    ChoiceAnswer,
    ClassifierResponse,
    NoulAnswer,
    ScoreAnswer,
)
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

__all__ = ["DecisionResponse", "JuryPanel", "read_answers", "strict_problem", "with_answers"]

_ANSWER = TypeAdapter(Answer)
_ANSWERS = TypeAdapter(dict[str, Answer])
_READ = frozenset({NoulAnswer, ChoiceAnswer, ScoreAnswer, BoxAnswer})
"""The answer types: an answer of one of them has been read already."""


class DecisionResponse(ClassifierResponse):
    """A `ClassifierResponse` that also keeps what a judge needs to explain itself.

    Decision models of this package return it; a judge reads ``unreadable`` to
    report an answer that came back malformed as that one criterion's ERROR,
    and ``reasoning`` to show why a model answered as it did.

    Example:
        >>> from langchain_core.decisions import NoulAnswer
        >>> response = DecisionResponse(
        ...     model="jev-latest",
        ...     answers={"polite": NoulAnswer(type="noul", noul=0.9)},
        ...     unreadable={"tone": "answers.tone.noul: Input should be less than or equal to 1"},
        ... )
        >>> sorted(response.unreadable)
        ['tone']

    """

    unreadable: dict[str, str] = Field(default_factory=dict)
    """Answers that came back but could not be read, by question name, with the reason."""

    reasoning: dict[str, str] = Field(default_factory=dict)
    """The model's reasoning per question, where it gives one."""

    strategy: str | None = None
    """How the answers were obtained, where a model has several ways (e.g. ``"logprobs"``)."""

    cache_hit: bool = False
    """True when the response was served from a cache without a request."""

    panel: JuryPanel | None = None
    """Every member's own response, when a jury answered (see `JuryPanel`); else None."""


class JuryPanel(BaseModel):
    """Who said what on a jury: each member's own response, and the members that failed.

    A `langchain_jev.models.JuryDecisionModel` puts it on its response; a judge
    reads it to decide each criterion by every member as well (see
    `langchain_jev._outcomes.review_panel`), and a report reads it to show the votes.
    It is kept through a cache, like the rest of the response.

    Example:
        >>> from langchain_core.decisions import NoulAnswer
        >>> yes, no = NoulAnswer(type="noul", noul=0.9), NoulAnswer(type="noul", noul=0.2)
        >>> panel = JuryPanel(combine="mean", disagreement=0.34, members={
        ...     "jev": DecisionResponse(model="jev-latest", answers={"polite": yes}),
        ...     "gpt": DecisionResponse(model="gpt-4o-mini", answers={"polite": no}),
        ... }, failed={"claude": "TimeoutError: no answer within 10.00 s"})
        >>> {name: answer.noul for name, answer in panel.answers_to("polite").items()}
        {'jev': 0.9, 'gpt': 0.2}

    """

    combine: str
    """How the members' answers were combined: ``"mean"``, ``"vote"`` or ``"max"``."""
    disagreement: float | None = None
    """The largest share of members that may find against the jury before a finding is
    INCONCLUSIVE; None when disagreement never makes it so."""
    members: dict[str, DecisionResponse] = Field(default_factory=dict)
    """The response of every member that answered, by member name, as it came."""
    failed: dict[str, str] = Field(default_factory=dict)
    """The members that gave no response, by name, with the error."""
    short_of_quorum: list[str] = Field(default_factory=list)
    """The questions fewer members than the quorum answered readably: the jury gives them no
    answer, and a judge reports each as an ERROR that keeps its verdict from passing (a member
    that could not answer never lends its silence to a pass)."""

    def is_complete(self, questions: Iterable[str]) -> bool:
        """True when no member failed and every member answered every one of ``questions`` readably."""
        names = list(questions)
        return not self.failed and all(
            not response.unreadable and all(name in response.answers for name in names)
            for response in self.members.values()
        )

    def answers_to(self, question: str) -> dict[str, Answer]:
        """Every member's readable answer to ``question``, by member name."""
        return {
            name: response.answers[question]
            for name, response in self.members.items()
            if question in response.answers and question not in response.unreadable
        }


DecisionResponse.model_rebuild()


def with_answers(answers: dict[str, Answer], **fields: Any) -> DecisionResponse:
    """A `DecisionResponse` holding answers that `read_answers` has validated: they are not validated again.

    Example:
        >>> good, _ = read_answers({"a": {"type": "noul", "noul": 0.2}})
        >>> with_answers(good, model="m").nouls["a"].noul
        0.2

    """
    response = DecisionResponse(answers={}, **fields)
    response.__dict__["answers"] = answers  # a field given at construction: set as validation would
    return response


def read_answers(raw: Mapping[str, Any]) -> tuple[dict[str, Answer], dict[str, str]]:
    """Validate raw answers: the readable ones, and why the others are not.

    An answer that is already a langchain-core answer (as `WireResponse`'s quick pass
    reads nouls and choices) is kept as it is.

    Example:
        >>> good, bad = read_answers({"a": {"type": "noul", "noul": 0.2}, "b": {"type": "noul"}})
        >>> sorted(good), sorted(bad)
        (['a'], ['b'])

    """
    pending = {name: value for name, value in raw.items() if type(value) not in _READ}
    if not pending:
        return dict(raw), {}
    answers, problems = _validated(pending)
    if len(pending) == len(raw):
        return answers, problems
    read = {name: answers.get(name, value) for name, value in raw.items() if name not in problems}
    return read, problems  # in the order answers came


def _validated(raw: Mapping[str, Any]) -> tuple[dict[str, Answer], dict[str, str]]:
    problems: dict[str, str] = {}
    for name, value in raw.items():
        problem = strict_problem(name, value)
        if problem is not None:
            problems[name] = problem
    typed = {name: value for name, value in raw.items() if name not in problems} if problems else raw
    try:  # all at once, the usual case; one by one to tell which answers are unreadable
        return _ANSWERS.validate_python(typed), problems
    except ValidationError:
        pass
    answers: dict[str, Answer] = {}
    for name, value in typed.items():
        try:
            answers[name] = _ANSWER.validate_python(value)
        except ValidationError as error:
            problems[name] = _first_error(name, error)
    return answers, problems


def strict_problem(name: str, value: Any) -> str | None:
    """What JSON typing alone finds wrong with a raw answer, or None.

    Numbers must be JSON numbers (not booleans, not strings), labels strings, and
    score levels whole numbers written canonically (``"3"``, never ``"03"`` or
    ``"3.0"``), so no two keys can name the same level.

    Example:
        >>> strict_problem("safe", {"type": "noul", "noul": True})
        'answers.safe.noul: must be a JSON number, got true'
        >>> strict_problem("help", {"type": "score", "score": 1.0, "probabilities": {"03": 1.0}})
        "answers.help.probabilities: level key '03' is not a level number written canonically"
        >>> strict_problem("safe", {"type": "noul", "noul": 0.9}) is None
        True

    """
    if type(value) is not dict and not isinstance(value, Mapping):
        return None  # the answer type reports it
    kind = value.get("type")
    if kind == "noul":  # the common case, kept short
        number = value.get("noul")
        if type(number) is float or type(number) is int or "noul" not in value:
            return None
        return f"answers.{name}.noul: must be a JSON number, got {_shown(number)}"
    numbers = _NUMBERS.get(kind) if isinstance(kind, str) else None
    if numbers is None:
        return None
    where = f"answers.{name}"
    for key in numbers:
        if key in value and not _is_number(value[key]):
            return f"{where}.{key}: must be a JSON number, got {_shown(value[key])}"
    if kind == "choice" and "choice" in value and not isinstance(value["choice"], str):
        return f"{where}.choice: must be a JSON string, got {_shown(value['choice'])}"
    probabilities = value.get("probabilities")
    if not isinstance(probabilities, Mapping):
        return None  # absent, or the answer type reports it
    score = kind == "score"
    for key, probability in probabilities.items():
        if score and not (type(key) is int or key in _LEVELS or _is_level(key)):
            return f"{where}.probabilities: level key {key!r} is not a level number written canonically"
        if not (type(probability) is float or _is_number(probability)):
            return f"{where}.probabilities.{key}: must be a JSON number, got {_shown(probability)}"
    return None


_LEVELS = frozenset(str(level) for level in range(100))
"""Level keys written canonically, known in advance (others are checked one by one)."""

_NUMBERS: dict[str, tuple[str, ...]] = {
    "score": ("score", "confidence"),
    "choice": ("confidence",),
}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_level(key: Any) -> bool:
    if type(key) is int:
        return True
    if not isinstance(key, str) or not key.isascii():
        return False
    digits = key[1:] if key.startswith("-") else key
    return digits.isdigit() and (digits == "0" or digits[0] != "0") and key != "-0"


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _first_error(name: str, error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    location = ".".join(str(part) for part in first["loc"][1:] if part != "[key]")
    where = f"answers.{name}" + (f".{location}" if location else "")
    value = first.get("input")
    got = f", got {value!r}" if isinstance(value, (int, float, str)) and len(repr(value)) <= 40 else ""
    return f"{where}: {first['msg']}{got}"
