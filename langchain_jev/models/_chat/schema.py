"""The JSON schema of a structured reply, built for exactly the questions asked.

The reply is one flat object: for each question, in order, its reasoning (a string
under `reasoning_keys`) and then its answer under its own name: a noul's probability
of yes, or a choice's or score's probability per label or level. A flat object costs
half the schema tokens of one object per question, and is still closed and fully
required, as strict structured-output modes demand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.decisions import Choice, Question, Score

__all__ = [
    "PROBABILITY_KEY",
    "REASONING_SUFFIX",
    "SCHEMA_TITLE",
    "YES_KEY",
    "level_key",
    "reasoning_keys",
    "response_schema",
]

SCHEMA_TITLE = "judgement"
"""The schema's title; providers use it as the name of the structured output (or tool)."""
REASONING_SUFFIX = "_reasoning"
"""A question's reasoning is keyed by its name and this suffix (see `reasoning_keys`)."""
YES_KEY = "yes_probability"
"""A noul answer's field in a reply written one object per question (read, not asked for)."""
PROBABILITY_KEY = "probabilities"
"""A choice or score answer's field in a reply written one object per question (read, not asked for)."""
_TEXT = {"type": "string"}
_NUMBER = {"type": "number"}


def level_key(level: int) -> str:
    """The key of a score level in the reply (JSON keys are strings): ``"0"``, ``"1"``..."""
    return str(level)


def reasoning_keys(names: Iterable[str]) -> dict[str, str]:
    """The key of each question's reasoning: its name and ``_reasoning``, numbered when that is taken.

    A key never names a question, nor another question's reasoning, so the reply stays
    one flat object whatever the names.

    Example:
        >>> reasoning_keys(["polite", "brief"])
        {'polite': 'polite_reasoning', 'brief': 'brief_reasoning'}
        >>> reasoning_keys(["a", "a_reasoning"])
        {'a': 'a_reasoning_2', 'a_reasoning': 'a_reasoning_reasoning'}

    """
    ordered = list(names)
    taken = set(ordered)
    keys: dict[str, str] = {}
    for name in ordered:
        key, number = name + REASONING_SUFFIX, 1
        while key in taken:
            number += 1
            key = f"{name}{REASONING_SUFFIX}_{number}"
        taken.add(key)
        keys[name] = key
    return keys


def _object(properties: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(properties),
        "additionalProperties": False,
    }


def _answer_schema(question: Question) -> dict[str, Any]:
    if isinstance(question, Choice):
        return _object(dict.fromkeys(question.criteria, _NUMBER))
    if isinstance(question, Score):
        return _object(dict.fromkeys((level_key(level) for level in range(len(question.criteria))), _NUMBER))
    return _NUMBER


def response_schema(questions: Mapping[str, Question]) -> dict[str, Any]:
    """A JSON schema of one flat object: each question's reasoning, then its answer, in order.

    A noul's answer is the probability of yes; a choice's or a score's an object with
    one number per label or level (levels keyed ``"0"``, ``"1"``...). Every object is
    closed (``additionalProperties: false``) and lists all its properties as required,
    as strict structured-output modes demand. The fields are described by the
    ``<response>`` section of the prompt, not here, since the schema is sent with every
    request. Ranges are checked when the reply is read, not in the schema, since strict
    modes reject numeric bounds on some providers.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> schema = response_schema({"polite": Noul(instructions="Is it polite?")})
        >>> schema["title"], schema["required"]
        ('judgement', ['polite_reasoning', 'polite'])
        >>> schema["properties"]["polite"]
        {'type': 'number'}

    """
    keys = reasoning_keys(questions)
    properties: dict[str, Any] = {}
    for name, question in questions.items():
        properties[keys[name]] = _TEXT
        properties[name] = _answer_schema(question)
    return {"title": SCHEMA_TITLE, **_object(properties)}
