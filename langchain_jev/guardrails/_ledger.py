"""The ledger: which conversations a battery has judged, by content, kept out of the graph's reach.

A rail at the model's door judges what the model is about to receive. So that
each message is judged once, the ledger remembers the conversations judged, as
a **chain hash**: the hash of the first message, then of that hash with the
second, and so on, over every field of a message that reaches a provider (its
role, content, name, tool calls, tool call id and every other field; never its
id). The longest prefix of a conversation whose chain hash is in the ledger was
judged; only what follows it is new. Anything edited in place (a reused id),
moved, given another role or put before a judged message changes the chain from
there on, and is judged again, wherever it sits in the conversation.

The ledger is not in the graph state, so nobody who can write the thread
(``update_state``, a ``Command``, a client of a LangGraph server) can write it:
it lives in a store of the process (`InMemoryCache`, bounded) or in a
`SQLiteCache` file that several processes share, under a namespace of the
battery's fingerprint and the rail's mode, so another battery, another decision
model or shadow judgements never count as this one's.

Example:
    >>> from langchain_core.messages import AIMessage, HumanMessage
    >>> ledger = Ledger(namespace="battery-1")
    >>> turn = [HumanMessage("hi", id="1"), AIMessage("hello")]
    >>> ledger.record(turn)
    >>> ledger.judged_prefix([*turn, HumanMessage("and now?")])
    2
    >>> ledger.judged_prefix([HumanMessage("hi, and how do I...", id="1"), *turn[1:]])
    0

"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage

from langchain_jev.models._cache import DecisionCache, InMemoryCache

__all__ = ["Ledger", "chain_hashes", "message_digest"]

_OWN_ENTRIES = 200_000

_PREFIX = "jev-ledger/1:"
_NOT_HASHED = frozenset({"id", "artifact"})
_JUDGED: dict[str, Any] = {"judged": True}


def message_digest(message: BaseMessage) -> str:
    """The SHA-256 of every field of ``message`` but its id (what a provider may read of it).

    Example:
        >>> from langchain_core.messages import HumanMessage
        >>> message_digest(HumanMessage("hi", id="a")) == message_digest(HumanMessage("hi", id="b"))
        True
        >>> message_digest(HumanMessage("hi")) == message_digest(HumanMessage("hi", name="x"))
        False

    """
    fields = {key: value for key, value in vars(message).items() if key not in _NOT_HASHED}
    encoded = json.dumps(fields, sort_keys=True, ensure_ascii=True, default=repr, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("ascii")).hexdigest()


def chain_hashes(namespace: str, messages: Sequence[BaseMessage]) -> list[str]:
    """The chain hash of each prefix of ``messages`` (the i-th covers the first i + 1), in ``namespace``."""
    hashes: list[str] = []
    link = hashlib.sha256(f"{_PREFIX}{namespace}".encode()).hexdigest()
    for message in messages:
        link = hashlib.sha256(f"{link}:{message_digest(message)}".encode("ascii")).hexdigest()
        hashes.append(link)
    return hashes


class Ledger:
    """The conversations judged under one namespace (a battery's fingerprint and the rail's mode).

    Args:
        store: where the chain hashes are kept: any `DecisionCache` (a
            `SQLiteCache` to share the ledger between processes, bounded by its
            ``max_entries`` and ``max_age``: a prefix it dropped is judged again);
            None for one in this process's memory, bounded (200,000 prefixes).
        namespace: what the judgements are of (the battery's fingerprint and the mode).

    """

    def __init__(self, store: DecisionCache | None = None, *, namespace: str) -> None:
        self.store: DecisionCache = store if store is not None else InMemoryCache(max_entries=_OWN_ENTRIES)
        self.namespace = namespace

    def within(self, namespace: str) -> Ledger:
        """The same store under another namespace."""
        return Ledger(self.store, namespace=namespace)

    def hashes(self, messages: Sequence[BaseMessage]) -> list[str]:
        """The chain hashes of ``messages`` in this ledger's namespace."""
        return chain_hashes(self.namespace, messages)

    def judged_prefix(self, messages: Sequence[BaseMessage]) -> int:
        """How many of the first ``messages`` were judged together (0 when none were)."""
        hashes = self.hashes(messages)
        for index in range(len(messages) - 1, -1, -1):
            if self.store.get(_PREFIX + hashes[index]) is not None:
                return index + 1
        return 0

    async def ajudged_prefix(self, messages: Sequence[BaseMessage]) -> int:
        """Asynchronous `judged_prefix`."""
        hashes = self.hashes(messages)
        for index in range(len(messages) - 1, -1, -1):
            if await self.store.aget(_PREFIX + hashes[index]) is not None:
                return index + 1
        return 0

    def record(self, messages: Sequence[BaseMessage], start: int = 0) -> None:
        """Remember every prefix of ``messages`` longer than ``start`` as judged."""
        for link in self.hashes(messages)[start:]:
            self.store.put(_PREFIX + link, _JUDGED)

    async def arecord(self, messages: Sequence[BaseMessage], start: int = 0) -> None:
        """Asynchronous `record`."""
        for link in self.hashes(messages)[start:]:
            await self.store.aput(_PREFIX + link, _JUDGED)

    def __repr__(self) -> str:
        return f"Ledger(store={self.store!r})"
