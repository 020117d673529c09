"""The response type our decision models return, and a lenient reader of raw answers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.decisions import Answer, ClassifierResponse
from pydantic import Field, TypeAdapter, ValidationError

__all__ = ["DecisionResponse", "read_answers"]

_ANSWER = TypeAdapter(Answer)


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


def read_answers(raw: Mapping[str, Any]) -> tuple[dict[str, Answer], dict[str, str]]:
    """Validate raw answers one by one: the readable ones, and why the others are not.

    Example:
        >>> good, bad = read_answers({"a": {"type": "noul", "noul": 0.2}, "b": {"type": "noul"}})
        >>> sorted(good), sorted(bad)
        (['a'], ['b'])

    """
    answers: dict[str, Answer] = {}
    problems: dict[str, str] = {}
    for name, value in raw.items():
        try:
            answers[name] = _ANSWER.validate_python(value)
        except ValidationError as error:
            problems[name] = _first_error(name, error)
    return answers, problems


def _first_error(name: str, error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    location = ".".join(str(part) for part in first["loc"][1:] if part != "[key]")
    where = f"answers.{name}" + (f".{location}" if location else "")
    value = first.get("input")
    got = f", got {value!r}" if isinstance(value, (int, float, str)) and len(repr(value)) <= 40 else ""
    return f"{where}: {first['msg']}{got}"
