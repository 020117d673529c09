"""Where a cached model keeps responses: the `DecisionCache` protocol, and the JSON text of a value."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

__all__ = ["DecisionCache"]


@runtime_checkable
class DecisionCache(Protocol):
    """Where a `CachedDecisionModel` keeps responses: JSON-ready mappings by key.

    Implement the four methods to put responses anywhere (Redis, a shared disk).
    A value is what ``DecisionResponse.model_dump(mode="json")`` gives; ``get``
    returns None when the key is unknown. The async twins must not block the event
    loop for longer than a quick local operation.

    Example:
        >>> class DictCache:
        ...     def __init__(self):
        ...         self.data = {}
        ...     def get(self, key):
        ...         return self.data.get(key)
        ...     def put(self, key, value):
        ...         self.data[key] = dict(value)
        ...     async def aget(self, key):
        ...         return self.get(key)
        ...     async def aput(self, key, value):
        ...         self.put(key, value)
        >>> isinstance(DictCache(), DecisionCache)
        True

    """

    def get(self, key: str) -> dict[str, Any] | None:
        """Return the value stored under ``key``, or None."""

    def put(self, key: str, value: Mapping[str, Any]) -> None:
        """Store ``value`` under ``key``, replacing what was there."""

    async def aget(self, key: str) -> dict[str, Any] | None:
        """Asynchronous `get`."""

    async def aput(self, key: str, value: Mapping[str, Any]) -> None:
        """Asynchronous `put`."""


def _dumps(value: Mapping[str, Any]) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _loads(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
