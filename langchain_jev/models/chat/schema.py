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
_REASONING = {"type": "string"}
_NUMBER = {"type": "number"}


def level_key(level: int) -> str:
    """The key of a score level in the reply (JSON keys are strings): ``"0"``, ``"1"``..."""
    return str(level)


def _object(properties: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(properties),
        "additionalProperties": False,
    }


def _question_schema(question: Question) -> dict[str, Any]:
    if isinstance(question, Choice):
        keys = list(question.criteria)
    elif isinstance(question, Score):
        keys = [level_key(level) for level in range(len(question.criteria))]
    else:
        return _object({"reasoning": _REASONING, YES_KEY: _NUMBER})
    return _object({"reasoning": _REASONING, PROBABILITY_KEY: _object(dict.fromkeys(keys, _NUMBER))})


def response_schema(questions: Mapping[str, Question]) -> dict[str, Any]:
    """A JSON schema with one required property per question, keyed by question name.

    A noul's answer has ``reasoning`` and ``yes_probability``; a choice's or a score's
    has ``reasoning`` and ``probabilities`` with one number per label or level (levels
    keyed ``"0"``, ``"1"``...). Every object is closed (``additionalProperties: false``)
    and lists all its properties as required, as strict structured-output modes demand.
    The fields are described by the ``<response>`` section of the prompt, not here, since
    the schema is sent with every request. Ranges are checked when the reply is read, not
    in the schema, since strict modes reject numeric bounds on some providers.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> schema = response_schema({"polite": Noul(instructions="Is it polite?")})
        >>> schema["title"], schema["required"]
        ('judgement', ['polite'])
        >>> schema["properties"]["polite"]["required"]
        ['reasoning', 'yes_probability']

    """
    body = _object({name: _question_schema(question) for name, question in questions.items()})
    return {"title": SCHEMA_TITLE, **body}
