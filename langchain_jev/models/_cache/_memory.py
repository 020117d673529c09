"""`InMemoryCache`: a bounded, thread-safe store in this process's memory."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from langchain_jev._errors import JevConfigurationError
from langchain_jev.models._cache._protocol import _dumps, _loads

__all__ = ["DEFAULT_MEMORY_ENTRIES", "InMemoryCache"]

DEFAULT_MEMORY_ENTRIES = 10_000
"""The default bound of an `InMemoryCache`: some 5 MiB of answers, for a process that runs for weeks."""


class InMemoryCache:
    """A thread-safe cache in this process's memory, bounded.

    Values are kept as JSON text, so what a caller does with a returned value never
    changes what is stored. It keeps at most ``max_entries`` entries
    (`DEFAULT_MEMORY_ENTRIES`, 10,000, by default: about 5 MiB of answers, so a
    process that runs for weeks keeps what it asked most recently and no more); the
    least recently used entry is dropped first. ``max_entries=None`` keeps every
    entry, for a process that ends.

    Example:
        >>> cache = InMemoryCache(max_entries=2)
        >>> cache.put("k", {"model": "m", "answers": {}})
        >>> cache.get("k")["model"], cache.get("unknown")
        ('m', None)

    """

    def __init__(self, *, max_entries: int | None = DEFAULT_MEMORY_ENTRIES) -> None:
        if max_entries is not None and (
            isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1
        ):
            raise JevConfigurationError(f"max_entries must be a positive integer, got {max_entries!r}")
        self.max_entries = max_entries
        self._entries: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> dict[str, Any] | None:
        """Return the value stored under ``key``, or None."""
        with self._lock:
            text = self._entries.get(key)
            if text is None:
                return None
            self._entries.move_to_end(key)
        return _loads(text)

    def put(self, key: str, value: Mapping[str, Any]) -> None:
        """Store ``value`` under ``key``."""
        text = _dumps(value)
        with self._lock:
            self._entries[key] = text
            self._entries.move_to_end(key)
            while self.max_entries is not None and len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    async def aget(self, key: str) -> dict[str, Any] | None:
        """Asynchronous `get` (a dictionary look-up; it does not wait)."""
        return self.get(key)

    async def aput(self, key: str, value: Mapping[str, Any]) -> None:
        """Asynchronous `put` (a dictionary write; it does not wait)."""
        self.put(key, value)

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __repr__(self) -> str:
        return f"InMemoryCache(entries={len(self)}, max_entries={self.max_entries})"
