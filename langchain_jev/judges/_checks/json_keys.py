"""A JSON answer against the expected JSON, key by key: exact by code, by a question, or ignored.

The keys are the expected output's (top level, or dotted paths to nested keys
named in the rules). A key ruled ``exact`` must be present in the answer with a
JSON-equal value (``1`` equals ``1.0``, ``true`` is not ``1``); ``question`` and
``ignore`` keys are left out of the code's comparison (a question criterion
asks about a ``question`` key; nothing looks at an ``ignore`` key).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, get_args

from langchain_jev.judges._checks.json_values import json_same

__all__ = ["KEY_RULES", "KeyRule", "exact_keys", "json_keys_match", "parse_json"]

KeyRule = Literal["exact", "question", "ignore"]
"""How one key of the expected JSON is judged."""
KEY_RULES: tuple[str, ...] = get_args(KeyRule)
"""The key rules."""

_MISSING = object()


def parse_json(value: Any) -> Any:
    """An answer as JSON: a string is parsed (None when it is not JSON), anything else is taken as it is.

    Example:
        >>> parse_json('{"a": 1}'), parse_json("not json")
        ({'a': 1}, None)

    """
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value, parse_constant=_reject)
    except (ValueError, RecursionError):
        return None


def exact_keys(expected: Any, rules: Mapping[str, KeyRule], default: KeyRule = "exact") -> list[str]:
    """The keys (and dotted paths) of ``expected`` compared exactly by code.

    Example:
        >>> exact_keys({"id": 7, "name": "Ada", "bio": "..."}, {"bio": "question", "id": "ignore"})
        ['name']

    """
    if not isinstance(expected, Mapping):
        return []
    named = [key for key, rule in rules.items() if rule == "exact"]
    ruled_tops = {key.split(".", 1)[0] for key in rules}
    if default != "exact":
        return named
    rest = [key for key in expected if key not in rules and key not in ruled_tops]
    return [*named, *rest]


def json_keys_match(
    answer: Any, expected: Any, rules: Mapping[str, KeyRule], default: KeyRule = "exact"
) -> bool:
    """Whether every ``exact`` key of ``expected`` has a JSON-equal value in ``answer`` (parsed if text).

    Example:
        >>> answer = '{"name": "Ada", "bio": "math"}'
        >>> json_keys_match(answer, {"name": "Ada", "bio": "maths"}, {"bio": "question"})
        True
        >>> json_keys_match('{"name": "Ada"}', {"name": "Ada Lovelace"}, {})
        False

    """
    parsed = parse_json(answer)
    if not isinstance(expected, Mapping):
        return json_same(parsed, expected) if default == "exact" else parsed is not None
    if not isinstance(parsed, Mapping):
        return False
    for key in exact_keys(expected, rules, default):
        mine, theirs = _dig(parsed, key), _dig(expected, key)
        if mine is _MISSING or theirs is _MISSING or not json_same(mine, theirs):
            return False
    return True


def _dig(value: Any, path: str) -> Any:
    if isinstance(value, Mapping) and path in value:
        return value[path]
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _reject(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")
