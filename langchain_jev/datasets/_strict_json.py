"""Strict JSON for every file the commands write: no ``NaN``, no ``Infinity``.

Python's `json` writes non-finite numbers as ``NaN`` and ``Infinity``, which
JSON does not have: other tools (``jq``, JavaScript, Arrow) refuse such a line.
`dumps` writes them as ``null`` instead; where one came from a model's answer,
that answer's finding is an ERROR already (an answer must hold finite
numbers), so nothing that decided a verdict is lost.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["dumps", "finite"]


def finite(value: Any) -> Any:
    """``value`` with every non-finite number (at any depth) replaced by None.

    Example:
        >>> finite({"score": float("nan"), "levels": [1.0, float("inf")], "name": "ok"})
        {'score': None, 'levels': [1.0, None], 'name': 'ok'}

    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(item) for item in value]
    return value


def dumps(value: Any, *, default: Callable[[Any], Any] | None = str, **options: Any) -> str:
    """``json.dumps`` that never writes ``NaN`` or ``Infinity`` (they become ``null``).

    Example:
        >>> dumps({"p": float("nan"), "q": 0.5})
        '{"p": null, "q": 0.5}'

    """
    try:
        return json.dumps(value, allow_nan=False, default=default, **options)
    except ValueError:  # a non-finite number somewhere: the rare case pays for the walk
        return json.dumps(finite(value), allow_nan=False, default=default, **options)
