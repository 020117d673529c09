"""The JSON schema of a structured reply, built for exactly the questions asked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.decisions import Choice, Question, Score

__all__ = ["PROBABILITY_KEY", "SCHEMA_TITLE", "YES_KEY", "level_key", "response_schema"]

SCHEMA_TITLE = "judgement"
"""The schema's title; providers use it as the name of the structured output (or tool)."""
YES_KEY = "yes_probability"
"""A noul answer's field: the probability from 0 to 1 that the answer is yes."""
PROBABILITY_KEY = "probabilities"
"""A choice or score answer's field: the probability of each label or level."""
_REASONING = {"type": "string", "description": "Short reasoning, written before the probabilities."}


def level_key(level: int) -> str:
    """The key of a score level in the reply (JSON keys are strings): ``"0"``, ``"1"``..."""
    return str(level)


def _object(properties: Mapping[str, Any], description: str | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    if description is not None:
        schema["description"] = description
    schema["properties"] = dict(properties)
    schema["required"] = list(properties)
    schema["additionalProperties"] = False
    return schema


def _question_schema(name: str, question: Question) -> dict[str, Any]:
    if isinstance(question, (Choice, Score)):
        keys = (
            list(question.criteria)
            if isinstance(question, Choice)
            else [level_key(level) for level in range(len(question.criteria))]
        )
        what = "label" if isinstance(question, Choice) else "level"
        distribution = _object(
            {key: {"type": "number"} for key in keys},
            f"The probability from 0 to 1 of each {what}; they sum to 1.",
        )
        properties: dict[str, Any] = {"reasoning": _REASONING, PROBABILITY_KEY: distribution}
    else:
        yes = {"type": "number", "description": "The probability from 0 to 1 that the answer is yes."}
        properties = {"reasoning": _REASONING, YES_KEY: yes}
    return _object(properties, f'The answer to the {question.type} question "{name}".')


def response_schema(questions: Mapping[str, Question]) -> dict[str, Any]:
    """A JSON schema with one required property per question, keyed by question name.

    A noul's answer has ``reasoning`` and ``yes_probability``; a choice's or a score's
    has ``reasoning`` and ``probabilities`` with one number per label or level (levels
    keyed ``"0"``, ``"1"``...). Every object is closed (``additionalProperties: false``)
    and lists all its properties as required, as strict structured-output modes demand.
    Ranges are checked when the reply is read, not in the schema, since strict modes
    reject numeric bounds on some providers.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> schema = response_schema({"polite": Noul(instructions="Is it polite?")})
        >>> schema["title"], schema["required"]
        ('judgement', ['polite'])
        >>> schema["properties"]["polite"]["required"]
        ['reasoning', 'yes_probability']

    """
    return {
        "title": SCHEMA_TITLE,
        **_object(
            {name: _question_schema(name, question) for name, question in questions.items()},
            "Answers to the questions of the rubric, keyed by question name.",
        ),
    }
