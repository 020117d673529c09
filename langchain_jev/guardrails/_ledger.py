"""The ledger: which conversations a battery has judged, by content, kept out of the graph's reach.

A rail at the model's door judges what the model is about to receive. So that
each message is judged once, the ledger remembers the conversations judged, as
a **chain hash**: the hash of the first message, then of that hash with the
second, and so on, over every field of a message that reaches a provider (its
role, content, name, tool calls, tool call id and every other field; never its
id), each leaf written down exactly by the walk the judge reads it by (a
Pydantic model by its fields, never by its ``repr``), so two messages the judge
reads apart never share a digest; a message holding a leaf of no known kind has
no digest, and neither it nor anything after it is ever recorded as judged.
The longest prefix of a conversation whose chain hash is in the ledger was
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

import dataclasses
import datetime
import decimal
import enum
import fractions
import functools
import hashlib
import json
import json.encoder
import operator
import pathlib
import threading
import uuid
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from langchain_jev.models._cache import DecisionCache, InMemoryCache

__all__ = ["Ledger", "chain_hashes", "message_digest"]

_OWN_ENTRIES = 200_000

_PREFIX = "jev-ledger/1:"
_NOT_HASHED = frozenset({"id", "artifact"})
_JUDGED: dict[str, Any] = {"judged": True}
_json_string = json.encoder.encode_basestring_ascii


class _Inexact(Exception):
    """A leaf the ledger cannot write down exactly: the message holding it is never recorded as judged."""


_EXACT_TEXT: tuple[type, ...] = (datetime.date, datetime.time, datetime.timedelta, uuid.UUID)
_EXACT_TEXT += (decimal.Decimal, fractions.Fraction, pathlib.PurePath, complex)
"""Leaves whose text (``str``) is all they hold, as the judge reads them: written with their type."""


def _exact(value: Any) -> Any:
    """``value`` written down exactly, every node tagged with its kind, by the walk the judge reads it by.

    The judge reads a leaf JSON does not hold by its contents (a Pydantic model by
    ``model_dump``, a dataclass by its fields, an enum by its name and value, a set by
    its items, bytes by their bytes; `langchain_jev.guardrails._values.reveal_value`):
    so is it written here, never by its ``repr`` (which may leave a field out). A leaf
    of any other type raises `_Inexact`.
    """
    if isinstance(value, str):
        return ["s", str.__str__(value)]
    if isinstance(value, bool):
        return ["b", bool(value)]
    if isinstance(value, int):
        return ["i", int.__repr__(value)]
    if isinstance(value, float):
        return ["f", float.__repr__(value)]
    if value is None:
        return ["n"]
    if isinstance(value, Mapping):
        return ["m", _sorted_items(value)]
    if isinstance(value, (list, tuple)):
        return ["l", [_exact(item) for item in value]]
    if isinstance(value, enum.Enum):
        return ["e", type(value).__qualname__, str(value), _exact(value.value)]
    if isinstance(value, BaseModel):
        return ["p", type(value).__qualname__, _exact(value.model_dump(mode="python"))]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return ["d", type(value).__qualname__, _exact(dataclasses.asdict(value))]
    if isinstance(value, (set, frozenset)):
        return ["t", sorted((_exact(item) for item in value), key=_text)]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return ["y", bytes(value).hex()]
    if isinstance(value, _EXACT_TEXT):
        return ["x", type(value).__qualname__, str(value)]
    raise _Inexact(type(value).__name__)


def _text(written: Any) -> str:
    return json.dumps(written, ensure_ascii=True, separators=(",", ":"))


def _sorted_items(mapping: Mapping[Any, Any]) -> list[list[Any]]:
    """The items of ``mapping`` written down (`_exact`) in the order of their written text.

    Two keys of a mapping are apart, and no written key is a proper prefix of another (each is
    one closed JSON array), so ordering by the written key alone orders as the whole item does;
    the item is written out for the order only when two keys write alike. A ``str`` key writes as
    ``["s",<its JSON string>]``, which orders as its JSON string does (its closing quote is its
    only bare one): that is written by the C encoder, with no walk.
    """
    if all(type(key) is str for key in mapping):
        order = sorted(mapping, key=_json_string)
        return [[["s", key], _exact(mapping[key])] for key in order]
    items = [(_text(written := _exact(key)), written, _exact(item)) for key, item in mapping.items()]
    if len({text for text, _, _ in items}) < len(items):  # two keys write alike: the whole item orders
        return sorted(([written, item] for _, written, item in items), key=_text)
    return [[written, item] for _, written, item in sorted(items, key=lambda entry: entry[0])]


def message_digest(message: BaseMessage) -> str | None:
    """The SHA-256 of every field of ``message`` but its id (what the judge reads and a provider may be sent).

    Every leaf is written down exactly (`_exact`), by the walk the judge reads it by,
    so two messages the judge reads apart never share a digest. None when a leaf
    cannot be written down exactly (an object of no known kind, a cycle): such a
    message is never recorded as judged, so it is judged every time (fail closed).

    Example:
        >>> from langchain_core.messages import HumanMessage
        >>> message_digest(HumanMessage("hi", id="a")) == message_digest(HumanMessage("hi", id="b"))
        True
        >>> message_digest(HumanMessage("hi")) == message_digest(HumanMessage("hi", name="x"))
        False
        >>> message_digest(HumanMessage("hi", additional_kwargs={"x": object()})) is None
        True

    """
    fields = {key: value for key, value in vars(message).items() if key not in _NOT_HASHED}
    extra = getattr(message, "__pydantic_extra__", None)
    if extra:
        fields = {**fields, "__pydantic_extra__": extra}
    try:
        encoded = _text(["message", type(message).__qualname__, _exact(fields)])
    except (_Inexact, RecursionError, TypeError, ValueError):
        return None
    return hashlib.sha256(encoded.encode("ascii")).hexdigest()


_MEMO_ENTRIES = 65_536
"""The most messages whose digest is remembered (`_remembered_digest`); the oldest is forgotten first."""
_LEAF_TYPES = frozenset({str, int, float, bool, type(None)})
"""Leaves that cannot change: a field that holds the same object of one of these holds the same value."""

_SNAPPED_CONTAINERS = 10_000
"""The most containers a remembered message holds: a cycle, or a larger message, is hashed every time."""
_Snapshot = tuple[tuple[Any, ...], tuple[Any, ...]]
_memo: dict[int, tuple[weakref.ref[BaseMessage], _Snapshot, str | None]] = {}
_memo_lock = threading.Lock()


class _Unsnapped(Exception):
    """A message holding a leaf that may change in place (an object, a set): its digest is not remembered."""


def _snapshot(message: BaseMessage) -> _Snapshot:
    """What ``message`` hashes: a shape (each container's type, size and place) and the leaf objects.

    Every leaf is an object that cannot change (`_LEAF_TYPES`, by exact type) and every container a
    list, tuple or dict, walked in order: the message holds what it held when a later snapshot has the
    same shape and the very same leaf objects (an edit in place, an item added, a field set, another
    class: each changes one or the other). Anything else raises `_Unsnapped`.
    """
    fields = {key: value for key, value in vars(message).items() if key not in _NOT_HASHED}
    shape: list[Any] = [type(message)]
    leaves: list[Any] = []
    stack: list[Any] = [fields, getattr(message, "__pydantic_extra__", None)]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind in _LEAF_TYPES:
            leaves.append(value)
        elif kind is dict:  # with the leaves before it, so the walk is told apart from any other
            shape.append((dict, len(value), len(leaves)))
            for key, item in value.items():
                stack += (item, key)
            if len(shape) > _SNAPPED_CONTAINERS:  # a cycle, or a message too large to remember
                raise _Unsnapped("too many containers")
        elif kind is list or kind is tuple:
            shape.append((kind, len(value), len(leaves)))
            stack.extend(value)
            if len(shape) > _SNAPPED_CONTAINERS:
                raise _Unsnapped("too many containers")
        else:
            raise _Unsnapped(kind.__name__)
    return tuple(shape), tuple(leaves)


def _same(one: _Snapshot, other: _Snapshot) -> bool:
    return one[0] == other[0] and len(one[1]) == len(other[1]) and all(map(operator.is_, one[1], other[1]))


def _remembered_digest(message: BaseMessage) -> str | None:
    """`message_digest` of ``message``, remembered while it holds the very objects it held when hashed.

    A conversation is hashed on every look-up and record of a turn, and again each turn: a
    message that holds what it held (`_snapshot`: the same shape, the same leaf objects, which
    cannot change) has the same digest, so it is hashed once. A message edited in place (a field
    set, an item of its content changed or added, its class changed) no longer matches its snapshot
    and is hashed again; one that holds a leaf that could change in place is hashed every time.
    The snapshot is taken before and after hashing, and only a message unchanged over both is
    remembered. Entries go with their message (a weak reference) and past `_MEMO_ENTRIES`.
    """
    key = id(message)
    try:
        before = _snapshot(message)
    except _Unsnapped:
        return message_digest(message)
    entry = _memo.get(key)
    if entry is not None and entry[0]() is message and _same(entry[1], before):
        return entry[2]
    digest = message_digest(message)
    try:
        after = _snapshot(message)
        ref = weakref.ref(message, functools.partial(_forget, key))
    except (_Unsnapped, TypeError):
        return digest
    if _same(before, after):
        with _memo_lock:
            _memo[key] = (ref, before, digest)
            while len(_memo) > _MEMO_ENTRIES:
                del _memo[next(iter(_memo))]
    return digest


def _forget(key: int, ref: weakref.ref[BaseMessage]) -> None:
    """Drop the entry of a message that is gone (a weak reference's callback).

    It takes no lock: the collector may call it while this thread holds `_memo_lock`. Another
    thread may put an entry under the same key between the look-up and the pop; losing that
    entry costs one hashing more, never a wrong digest.
    """
    entry = _memo.get(key)
    if entry is not None and entry[0] is ref:
        _memo.pop(key, None)


def chain_hashes(namespace: str, messages: Sequence[BaseMessage]) -> list[str | None]:
    """The chain hash of each prefix of ``messages`` (the i-th covers the first i + 1), in ``namespace``.

    None for a prefix that holds a message without a digest (`message_digest`): it is never judged.
    """
    hashes: list[str | None] = []
    link: str | None = hashlib.sha256(f"{_PREFIX}{namespace}".encode()).hexdigest()
    for message in messages:
        digest = _remembered_digest(message) if link is not None else None
        link = None if digest is None else hashlib.sha256(f"{link}:{digest}".encode("ascii")).hexdigest()
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

    def hashes(self, messages: Sequence[BaseMessage]) -> list[str | None]:
        """The chain hashes of ``messages`` in this ledger's namespace."""
        return chain_hashes(self.namespace, messages)

    def judged_prefix(self, messages: Sequence[BaseMessage]) -> int:
        """How many of the first ``messages`` were judged together (0 when none were)."""
        hashes = self.hashes(messages)
        for index in range(len(messages) - 1, -1, -1):
            link = hashes[index]
            if link is not None and self.store.get(_PREFIX + link) is not None:
                return index + 1
        return 0

    async def ajudged_prefix(self, messages: Sequence[BaseMessage]) -> int:
        """Asynchronous `judged_prefix`."""
        hashes = self.hashes(messages)
        for index in range(len(messages) - 1, -1, -1):
            link = hashes[index]
            if link is not None and await self.store.aget(_PREFIX + link) is not None:
                return index + 1
        return 0

    def record(self, messages: Sequence[BaseMessage], start: int = 0) -> None:
        """Remember every prefix of ``messages`` longer than ``start`` as judged."""
        for link in self.hashes(messages)[start:]:
            if link is None:  # a message without a digest: neither it nor any prefix after it counts
                return
            self.store.put(_PREFIX + link, _JUDGED)

    async def arecord(self, messages: Sequence[BaseMessage], start: int = 0) -> None:
        """Asynchronous `record`."""
        for link in self.hashes(messages)[start:]:
            if link is None:
                return
            await self.store.aput(_PREFIX + link, _JUDGED)

    def __repr__(self) -> str:
        return f"Ledger(store={self.store!r})"
