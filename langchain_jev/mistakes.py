"""Silent mistakes a judge can catch in what it is given: pure functions that find them, and the warning.

Two mistakes run without an error and judge the wrong thing:

- instructions that name (in backticks) a field the state does not carry, such
  as `` `answer` `` where the state field is ``assistant_answer``;
- a mapping passed to ``judge()`` with dataset-style keys (``question``,
  ``answer``, ``output``, ...; `FIELD_ALIASES`) and none of the state fields: the
  mapping is sent as the state as is, so the model sees no ``assistant_answer``.

`unknown_fields` and `dataset_style_keys` find them (pure); `JevJudge` warns once
per judge and mistake with `JevFieldWarning`, naming the field and the state
field meant.

Example:
    >>> unknown_fields("Is `answer` polite?", {"user_question": "Hi", "assistant_answer": "Yo"})
    {'answer': 'assistant_answer'}
    >>> dataset_style_keys({"question": "Hi?", "answer": "Hello"})
    {'question': 'user_question', 'answer': 'assistant_answer'}

"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from typing import Any

from langchain_jev.input import (
    ANSWER_FIELD,
    CONTEXT_FIELD,
    EXPECTED_FIELD,
    FIELD_ALIASES,
    QUESTION_FIELD,
    TOOL_CALLS_FIELD,
)

__all__ = [
    "JevFieldWarning",
    "dataset_style_keys",
    "describe_dataset_keys",
    "describe_unknown",
    "unknown_fields",
]

STATE_FIELDS = (QUESTION_FIELD, ANSWER_FIELD, EXPECTED_FIELD, CONTEXT_FIELD, TOOL_CALLS_FIELD)
_MEANT: dict[str, str] = {alias: name for name, aliases in FIELD_ALIASES.items() for alias in aliases}
_DATASET_NAMES = frozenset(
    {"question", "query", "answer", "output", "response", "expected", "reference", "context"}
)
"""The dataset-style names a judge's instructions are taken to mean a state field by (`FIELD_ALIASES`)."""
_NAMED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]{0,63})`")  # an identifier in backticks (bounded: linear)
_MAX_TEXT = 20_000
_MAX_DEPTH = 4


class JevFieldWarning(UserWarning):
    """A judge was given, or asks about, a field that is not in the state it sends."""


def _keys(value: Any, depth: int = 0) -> Iterator[str]:
    """Every key of a state, nested mappings' included (to a bounded depth)."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, Mapping):
        for key, inner in value.items():
            yield str(key)
            yield from _keys(inner, depth + 1)
    elif isinstance(value, (list, tuple)):
        for inner in value[:50]:
            yield from _keys(inner, depth + 1)


def unknown_fields(instructions: Any, state: Mapping[str, Any]) -> dict[str, str]:
    """The fields ``instructions`` names in backticks that ``state`` lacks -> the state field meant.

    Only names that look like a mistake count: a dataset-style name of a state
    field (``answer``, ``question``, ``output``, ...), or a near miss of a key the
    state has (``assistant_answr``). A state field the state lacks is not one (it
    may be absent: no context, no tool calls), nor are other backticked words
    (literal values, code).

    Example:
        >>> unknown_fields("Does `assistant_answr` cite `supporting_context`?", {"assistant_answer": "x"})
        {'assistant_answr': 'assistant_answer'}
        >>> unknown_fields("Is it `yes` or `no`?", {"assistant_answer": "x"})
        {}

    """
    if not isinstance(instructions, str):
        return {}
    missing = [name for name in _NAMED.findall(instructions[:_MAX_TEXT]) if name not in state]
    if not missing:  # the common case, kept cheap: every name is a top-level field
        return {}
    present = set(_keys(state))
    found: dict[str, str] = {}
    for name in missing:
        if name in present or name in found or name in STATE_FIELDS:  # a state field may be absent
            continue
        close = difflib.get_close_matches(name, sorted(present), n=1, cutoff=0.8)
        if name in _DATASET_NAMES:
            found[name] = _MEANT[name]
        elif close:
            found[name] = close[0]
    return found


def dataset_style_keys(state: Mapping[str, Any]) -> dict[str, str]:
    """Dataset-style keys of a mapping that carries none of the state fields -> the state field meant.

    Example:
        >>> dataset_style_keys({"input": "Hi?", "output": "Hello", "lang": "en"})
        {'input': 'user_question', 'output': 'assistant_answer'}
        >>> dataset_style_keys({"user_question": "Hi?", "answer": "Hello"})  # it uses the state's names
        {}

    """
    if any(name in state for name in STATE_FIELDS):
        return {}
    return {str(key): _MEANT[key] for key in state if isinstance(key, str) and key in _MEANT}


def describe_unknown(criterion: str, found: Mapping[str, str]) -> str:
    """The warning for a criterion whose instructions name fields the state lacks."""
    parts = [f"`{name}` (did you mean `{meant}`?)" for name, meant in found.items()]
    return (
        f"criterion {criterion!r}: its instructions name {', '.join(parts)}, which the state sent to "
        "the model does not carry; the model reads the state's fields by name"
    )


def describe_dataset_keys(found: Mapping[str, str]) -> str:
    """The warning for a mapping with dataset-style keys and no state field."""
    pairs = ", ".join(f"{key!r} -> {meant!r}" for key, meant in found.items())
    return (
        f"judge() got a mapping with dataset-style keys and none of the state fields ({pairs}): a "
        "mapping is sent as the state as it is; use the state fields' names, or "
        "judge(question, answer) / JevJudgeInput(question=..., answer=...)"
    )
