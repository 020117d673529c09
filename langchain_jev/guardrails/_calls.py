"""The calls the guarded model released: the only ones the tools' door runs without judging them.

- `canonical_call`: a tool call as one exact string, every key of it (name,
  arguments, id, type, and any key a caller adds), keys sorted, every leaf
  tagged with its type as JSON keeps it (``1``, ``1.0`` and ``true`` are three
  calls; a list and a tuple are one array; arguments given as a string of JSON
  are a string, not the object it spells), strings compared code point by code
  point (no Unicode normalisation: the tool receives the code points, so two
  spellings are two calls);
- `thread_of`: the conversation a run belongs to, its LangGraph thread id (every
  run without one counts as one conversation of its own, ``""``);
- `ReleasedCalls`: where the model's door records each call of a reply it
  released, keyed by the thread and the canonical call, in the store of a rail's
  ledger (out of reach of anyone who writes the thread); the tools' door
  `claims <ReleasedCalls.claim>` a call before it runs, and a claim succeeds once.

Nothing read from a graph state or a ``Send`` payload names a release: a call
is released in a thread only by the door's own record, made when it released the reply.

- `ReleasedResponses`: in the same store, the response ids of the replies the
  door released, by thread. A builder may send a message's response id as
  ``previous_response_id`` (langchain-openai with ``use_previous_response_id``),
  and the provider then reads the conversation it stored under it: the door lets
  the model read by reference only a response it released in this thread, any
  number of times (a claim does not spend it).

Example:
    >>> from langchain_jev.models import InMemoryCache
    >>> calls = ReleasedCalls(InMemoryCache(), namespace="battery-1")
    >>> call = {"name": "lookup", "args": {"q": "rain", "n": 1}, "id": "call_1", "type": "tool_call"}
    >>> calls.grant("thread-1", [call])
    >>> calls.claim("thread-2", call), calls.claim("thread-1", {**call, "args": {"q": "rain", "n": 1.0}})
    (False, False)
    >>> calls.claim("thread-1", dict(reversed(call.items()))), calls.claim("thread-1", call)
    (True, False)

"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config

from langchain_jev.models._cache import DecisionCache

__all__ = ["MAX_CALL_DEPTH", "ReleasedCalls", "ReleasedResponses", "canonical_call", "thread_of"]

MAX_CALL_DEPTH = 200
"""How deeply a call's arguments may nest to be matched; a deeper call is never released (it is judged)."""

_PREFIX = "jev-calls/1:"
_RESPONSES_PREFIX = "jev-responses/1:"
_RELEASED: dict[str, Any] = {"released": True}
_SPENT: dict[str, Any] = {"released": True, "spent": True}
_TAKEN_IN_PROCESS = 100_000


class _TooDeep(Exception):
    pass


def _tagged(value: Any, depth: int) -> Any:
    """``value`` as JSON whose every leaf says its type (see the module docs)."""
    if depth > MAX_CALL_DEPTH:
        raise _TooDeep
    if value is None:
        return ["null"]
    if isinstance(value, bool):
        return ["bool", value]
    if isinstance(value, int):
        return ["int", str(int(value))]
    if isinstance(value, float):
        return ["float", float(value).hex()]
    if isinstance(value, str):
        return ["str", str.__str__(value)]
    if isinstance(value, Mapping):
        items = [(_tagged(key, depth + 1), _tagged(item, depth + 1)) for key, item in value.items()]
        items.sort(key=lambda pair: json.dumps(pair[0], ensure_ascii=True))
        return ["object", [list(pair) for pair in items]]
    if isinstance(value, (list, tuple)):
        return ["array", [_tagged(item, depth + 1) for item in value]]
    return ["other", f"{type(value).__module__}.{type(value).__qualname__}", repr(value)]


def canonical_call(call: Mapping[str, Any]) -> str | None:
    """The exact form of a tool call (see the module docs); None when it nests past `MAX_CALL_DEPTH`.

    Example:
        >>> one = canonical_call({"name": "f", "args": {"a": 1, "b": "x"}, "id": "1"})
        >>> one == canonical_call({"id": "1", "args": {"b": "x", "a": 1}, "name": "f"})
        True
        >>> one == canonical_call({"name": "f", "args": {"a": True, "b": "x"}, "id": "1"})
        False

    """
    try:
        return json.dumps(_tagged(call, 0), ensure_ascii=True, separators=(",", ":"))
    except (_TooDeep, RecursionError):
        return None


def thread_of(config: RunnableConfig | None = None) -> str:
    """The conversation of a run: its thread id (``""`` without one); None: the running config's.

    Example:
        >>> thread_of({"configurable": {"thread_id": "t-1"}}), thread_of({})
        ('str:t-1', '')

    """
    thread = (ensure_config(config).get("configurable") or {}).get("thread_id")
    return "" if thread is None else f"{type(thread).__name__}:{thread}"


class _Taken:
    """The calls claimed in this process (bounded): two claims of one call at once cannot both succeed."""

    def __init__(self, size: int) -> None:
        self._keys: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def begin(self, key: str) -> bool:
        with self._lock:
            if key in self._keys:
                return False
            self._keys[key] = None
            if len(self._keys) > self._size:
                self._keys.popitem(last=False)
            return True

    def forget(self, key: str) -> None:
        with self._lock:
            self._keys.pop(key, None)


_TAKEN = _Taken(_TAKEN_IN_PROCESS)


class ReleasedCalls:
    """The tool calls a door released, by thread, each to run once without being judged.

    Args:
        store: the store of a rail's ledger (any `DecisionCache`; a `SQLiteCache`
            shares the record between processes).
        namespace: the rail's ledger namespace (its battery's fingerprint and mode),
            so only a door with the same battery counts.

    """

    def __init__(self, store: DecisionCache, *, namespace: str) -> None:
        self.store = store
        self.namespace = namespace

    def key(self, thread: str, call: Mapping[str, Any]) -> str | None:
        """The store key of ``call`` released in ``thread`` (None for a call with no exact form)."""
        canonical = canonical_call(call)
        if canonical is None:
            return None
        text = json.dumps([self.namespace, thread, canonical], ensure_ascii=True)
        return _PREFIX + hashlib.sha256(text.encode("ascii")).hexdigest()

    def _keys(self, thread: str, calls: Iterable[Mapping[str, Any]]) -> list[str]:
        keys = [self.key(thread, call) for call in calls]
        return [key for key in keys if key is not None]

    def grant(self, thread: str, calls: Iterable[Mapping[str, Any]]) -> None:
        """Record ``calls`` (of a reply the door released in ``thread``) as the door's, each to run once."""
        for key in self._keys(thread, calls):
            self.store.put(key, _RELEASED)
            _TAKEN.forget(key)

    async def agrant(self, thread: str, calls: Iterable[Mapping[str, Any]]) -> None:
        """Asynchronous `grant`."""
        for key in self._keys(thread, calls):
            await self.store.aput(key, _RELEASED)
            _TAKEN.forget(key)

    def claim(self, thread: str, call: Mapping[str, Any]) -> bool:
        """Take ``call`` for its one run: True when the door released it in ``thread`` and it has not run."""
        key = self.key(thread, call)
        if key is None or not _TAKEN.begin(key):
            return False
        try:
            if not _unspent(self.store.get(key)):
                _TAKEN.forget(key)
                return False
            self.store.put(key, _SPENT)
        except BaseException:
            _TAKEN.forget(key)
            raise
        return True

    async def aclaim(self, thread: str, call: Mapping[str, Any]) -> bool:
        """Asynchronous `claim`."""
        key = self.key(thread, call)
        if key is None or not _TAKEN.begin(key):
            return False
        try:
            if not _unspent(await self.store.aget(key)):
                _TAKEN.forget(key)
                return False
            await self.store.aput(key, _SPENT)
        except BaseException:
            _TAKEN.forget(key)
            raise
        return True

    def __repr__(self) -> str:
        return f"ReleasedCalls(store={self.store!r})"


def _unspent(entry: Mapping[str, Any] | None) -> bool:
    return entry is not None and entry.get("released") is True and not entry.get("spent")


class ReleasedResponses(ReleasedCalls):
    """The response ids of the replies a door released, by thread: the stored responses the model may read.

    `grant` records ``{"id": <response id>}`` entries; `claim` tells whether one
    was released in the thread, and does not spend it (a conversation goes on
    from its last reply again after a retry, an edit or an interrupt). Only a
    plain, non-empty string is an id: anything else is never released.

    Example:
        >>> from langchain_jev.models import InMemoryCache
        >>> responses = ReleasedResponses(InMemoryCache(), namespace="battery-1")
        >>> responses.grant("thread-1", [{"id": "resp_1"}])
        >>> responses.claim("thread-1", {"id": "resp_1"}), responses.claim("thread-1", {"id": "resp_1"})
        (True, True)
        >>> responses.claim("thread-2", {"id": "resp_1"}), responses.claim("thread-1", {"id": "resp_2"})
        (False, False)

    """

    def key(self, thread: str, call: Mapping[str, Any]) -> str | None:
        """The store key of the response ``call["id"]`` released in ``thread`` (None: not a plain id)."""
        response = call.get("id")
        if type(response) is not str or not response:
            return None
        text = json.dumps([self.namespace, thread, response], ensure_ascii=True)
        return _RESPONSES_PREFIX + hashlib.sha256(text.encode("ascii")).hexdigest()

    def claim(self, thread: str, call: Mapping[str, Any]) -> bool:
        """True when the door released the response ``call["id"]`` in ``thread`` (never spent)."""
        key = self.key(thread, call)
        return key is not None and _released(self.store.get(key))

    async def aclaim(self, thread: str, call: Mapping[str, Any]) -> bool:
        """Asynchronous `claim`."""
        key = self.key(thread, call)
        return key is not None and _released(await self.store.aget(key))

    def __repr__(self) -> str:
        return f"ReleasedResponses(store={self.store!r})"


def _released(entry: Mapping[str, Any] | None) -> bool:
    return entry is not None and entry.get("released") is True
