"""JSON values compared as JSON: ``1`` equals ``1.0``, ``true`` is not ``1``, key order aside."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

__all__ = ["canonical_json", "json_same"]


def canonical_json(value: Any) -> Hashable:
    """A hashable form under which JSON-equal values are equal (``1`` is ``1.0``, not ``true``).

    Example:
        >>> canonical_json({"a": [1, 2.0]}) == canonical_json({"a": [1.0, 2]})
        True
        >>> canonical_json(True) == canonical_json(1)
        False

    """
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, (int, float)):
        number = int(value) if isinstance(value, float) and value.is_integer() else value
        return ("number", number)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, Mapping):
        return ("object", frozenset((str(k), canonical_json(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return ("array", tuple(canonical_json(item) for item in value))
    return ("other", repr(value))


def json_same(left: Any, right: Any) -> bool:
    """Whether two JSON values are equal as JSON.

    Example:
        >>> json_same({"n": 1}, {"n": 1.0}), json_same([True], [1])
        (True, False)

    """
    return canonical_json(left) == canonical_json(right)
