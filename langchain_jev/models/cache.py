"""A response cache for decision models: ask once, answer again from disk or memory.

`CachedDecisionModel` wraps any `BaseDecisionModel`. Its key is the SHA-256 of
the inner model's identity (its kind, name, endpoint and the settings that shape
its answers, see `model_identity`) with the canonical JSON of the state and the
questions, so the same request to the same model at the same endpoint is sent
once, and a model served elsewhere is asked again. Two stores come with it:
`SQLiteCache` (one file, shared by threads, event loops and processes) and
`InMemoryCache`; anything with the four methods of `DecisionCache` works too.

Only complete answers are kept: a response with an unreadable answer, without
an answer to a question that was asked, or with an answer of another type than
its question is returned as it is but never stored, so a passing glitch is
asked again next time instead of being frozen into the cache. Errors are never
stored either; they propagate as they would without the cache.

A `SQLiteCache` keeps to its own files: it stamps the databases it creates
(SQLite ``application_id`` and ``user_version``) and refuses, without changing
anything, a database it did not create.

Example:
    >>> from langchain_core.decisions import Noul
    >>> from langchain_jev import JevCriterion, JevJudge
    >>> from langchain_jev.models.cache import CachedDecisionModel, InMemoryCache
    >>> from langchain_jev.testing import ScriptedDecisionModel
    >>> inner = ScriptedDecisionModel({"polite": 0.9})
    >>> judge = JevJudge(
    ...     [JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)],
    ...     model=CachedDecisionModel(inner, InMemoryCache()),
    ... )
    >>> first = judge.judge("Hi?", "Hello! How can I help?")
    >>> second = judge.judge("Hi?", "Hello! How can I help?")
    >>> inner.calls, second.response.cache_hit
    (1, True)

"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from langchain_core.decisions import (
    BaseDecisionModel,
    ClassifierRequest,
    ClassifierResponse,
    Question,
    State,
)
from langchain_core.messages import BaseMessage, convert_to_openai_messages
from langchain_core.runnables import Runnable, RunnableConfig
from langsmith.run_helpers import get_current_run_tree
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from langchain_jev.errors import JevConfigurationError
from langchain_jev.models.response import DecisionResponse

__all__ = [
    "CACHE_HIT_TAG",
    "CACHE_METADATA_KEY",
    "DEFAULT_FILE_ENTRIES",
    "DEFAULT_MEMORY_ENTRIES",
    "CachedDecisionModel",
    "DecisionCache",
    "InMemoryCache",
    "SQLiteCache",
    "cache_key",
    "is_cacheable",
    "model_identity",
]

logger = logging.getLogger(__name__)

CACHE_METADATA_KEY = "jev_cache"
"""Run metadata key set on a cached model's run: ``"hit"``, ``"miss"`` or ``"bypass"``."""

CACHE_HIT_TAG = "jev-cache-hit"
"""Tag put on the run of a request that was answered from the cache."""

_KEY_VERSION = 2

APPLICATION_ID = 0x4A455643
"""The SQLite ``application_id`` of a langchain-jev cache (the bytes ``JEVC``)."""

SCHEMA_VERSION = 1
"""The SQLite ``user_version`` of the cache's table layout."""

_TABLE = "jev_responses"
_WAL_LIMIT = 64 * 2**20
"""Bytes SQLite truncates the write-ahead log to after a checkpoint."""
_ENDPOINT_ATTRIBUTES = (
    "base_url",
    "openai_api_base",
    "anthropic_api_url",
    "api_base",
    "api_url",
    "azure_endpoint",
    "endpoint",
    "endpoint_url",
)
_OWN_TABLES: tuple[list[str], ...] = ([], [_TABLE], [_TABLE, f"sqlite_autoindex_{_TABLE}_1"])
"""What a database holds before this package stamps it: nothing, or an unstamped cache of ours."""
_SETTINGS = ("strategy", "system_message", "top_logprobs", "combine", "disagreement", "quorum")
"""Settings that shape a model's answers: a chat model's strategy and prompt, a jury's combining."""


# --------------------------------------------------------------------------- keys


def cache_key(
    model: str,
    state: Any,
    questions: Mapping[str, Any],
    namespace: str = "",
    identity: Mapping[str, Any] | None = None,
) -> str:
    """Return the cache key of a request: a SHA-256 hex digest.

    The digest covers the model name, the model's ``identity`` (see
    `model_identity`: its kind, endpoint and answer-shaping settings), the optional
    namespace and the canonical JSON (sorted keys, no spaces) of the state and the
    questions. LangChain messages count by their role and content, as they are
    sent; questions by their JSON form.

    Raises:
        TypeError: a value in the state has no JSON form (its path is named).
        ValueError: a number in the state is not finite.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> q = {"polite": Noul(instructions="Is it polite?")}
        >>> one = cache_key("jev-latest", {"a": 1, "b": 2}, q)
        >>> one == cache_key("jev-latest", {"b": 2, "a": 1}, q)
        True
        >>> cache_key("jev-latest", "Hi", q) == cache_key("jev-other", "Hi", q)
        False

    """
    document = {
        "version": _KEY_VERSION,
        "model": model,
        "identity": dict(identity or {}),
        "namespace": namespace,
        "state": _canonical(state, "state"),
        "questions": {
            str(name): _canonical(question, f"questions.{name}") for name, question in questions.items()
        },
    }
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _canonical(value: Any, path: str) -> Any:
    """Return the JSON form of a value, with messages as role/content objects."""
    if isinstance(value, BaseMessage):
        return _canonical(convert_to_openai_messages(value), path)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, Mapping):
        result: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{path}: object keys must be strings, got {key!r}")
            result[key] = _canonical(item, f"{path}.{key}")
        return result
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
        if value and all(isinstance(item, BaseMessage) for item in value):
            return _canonical(convert_to_openai_messages(list(value)), path)
        return [_canonical(item, f"{path}[{index}]") for index, item in enumerate(value)]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise TypeError(f"{path}: {type(value).__name__} has no JSON form")


def model_identity(model: Any) -> dict[str, Any]:
    """What tells one decision model's answers from another's, for the cache key.

    Wrappers that do not change answers (pacing) are looked through. The identity
    holds the model's class, its name, its endpoint (``base_url`` of a Jev model or
    of a langchain-typesafe classifier, the base URL of a chat model) and the
    settings that shape a chat model's answers; and, under ``parts``, the identity
    of every model it is made of (the classifier an adapter wraps, the models of a
    jury or of any other wrapper, another cache's model), so a model asked at
    another endpoint, however deep, is asked again. Secrets never take part.

    Example:
        >>> from langchain_jev.models.jev import JevDecisionModel
        >>> one = model_identity(JevDecisionModel(api_key="k", base_url="http://a.test"))
        >>> other = model_identity(JevDecisionModel(api_key="k", base_url="http://b.test"))
        >>> one["endpoint"], one == other
        ('http://a.test', False)

    """
    return _identity(model, 0)


_PARTS_DEPTH = 8
"""How deeply models made of models are followed (deeper parts count by class alone)."""
_NOT_PARTS = frozenset({"inner", "chat_model", "cache", "client", "async_client"})
"""Fields that are looked through or read apart, not listed among the parts."""


def _identity(model: Any, depth: int) -> dict[str, Any]:
    while isinstance(getattr(model, "inner", None), BaseDecisionModel) and not isinstance(
        model, CachedDecisionModel
    ):
        model = model.inner
    name = getattr(model, "model", None)
    identity: dict[str, Any] = {
        "class": f"{type(model).__module__}.{type(model).__qualname__}",
        "model": name if name is None or isinstance(name, (str, int, float, bool)) else str(name),
        "endpoint": _endpoint(model),
    }
    chat = getattr(model, "chat_model", None)
    if chat is not None:
        identity["chat_model"] = f"{type(chat).__module__}.{type(chat).__qualname__}"
        identity["endpoint"] = identity["endpoint"] or _endpoint(chat)
        for name in ("model_name", "model", "temperature"):
            value = getattr(chat, name, None)
            if value is None or isinstance(value, (str, int, float, bool)):
                identity[f"chat_{name}"] = value
    for name in _SETTINGS:
        value = getattr(model, name, None)
        if value is not None and isinstance(value, (str, int, float, bool)):
            identity[name] = value
    if isinstance(model, CachedDecisionModel):
        identity["parts"] = {"inner": _identity(model.inner, depth + 1)}
    elif depth < _PARTS_DEPTH:
        parts = {key: value for key, value in _parts(model, depth) if value is not None}
        if parts:
            identity["parts"] = parts
    return identity


def _parts(model: Any, depth: int) -> Iterator[tuple[str, Any]]:
    """The identity of each model a model holds in its fields: one, or a list or mapping of them."""
    fields = getattr(type(model), "model_fields", None)
    if not isinstance(fields, Mapping):
        return
    for key in fields:
        if key in _NOT_PARTS:
            continue
        value = getattr(model, key, None)
        if _is_model(value):
            yield key, _identity(value, depth + 1)
        elif isinstance(value, Mapping) and value and all(_is_model(item) for item in value.values()):
            yield key, {str(k): _identity(item, depth + 1) for k, item in value.items()}
        elif (
            isinstance(value, Sequence)
            and not isinstance(value, (str, bytes))
            and value
            and all(_is_model(item) for item in value)
        ):
            yield key, [_identity(item, depth + 1) for item in value]


def _is_model(value: Any) -> bool:
    """A decision model, a chat model, a classifier: anything that answers (a LangChain Runnable)."""
    return isinstance(value, (BaseDecisionModel, Runnable))


def _endpoint(obj: Any) -> str | None:
    for name in ("client", "async_client"):  # a client given to the model is where it asks
        config = getattr(getattr(obj, name, None), "_config", None)
        value = getattr(config, "base_url", None)
        if isinstance(value, str) and value:
            return value.rstrip("/")
    for name in _ENDPOINT_ATTRIBUTES:
        value = getattr(obj, name, None)
        if isinstance(value, str) and value:
            return value.rstrip("/")
        if value is not None and not isinstance(value, (bool, int, float)) and str(value).startswith("http"):
            return str(value).rstrip("/")
    for name in ("root_client", "root_async_client"):  # a provider SDK's client (langchain-openai's)
        value = getattr(getattr(obj, name, None), "base_url", None)
        if value is not None and str(value).startswith("http"):
            return str(value).rstrip("/")
    return None


def is_cacheable(response: ClassifierResponse, questions: Mapping[str, Question]) -> bool:
    """Tell whether a response is complete enough to keep.

    It is when every question asked has a readable answer of the question's own type
    and nothing came back unreadable (for a jury: from every member).

    Example:
        >>> from langchain_core.decisions import Noul, NoulAnswer
        >>> from langchain_jev import DecisionResponse
        >>> asked = {"a": Noul(instructions="?"), "b": Noul(instructions="?")}
        >>> incomplete = DecisionResponse(model="m", answers={"a": NoulAnswer(type="noul", noul=1.0)})
        >>> is_cacheable(incomplete, asked)
        False

    """
    if getattr(response, "unreadable", None):
        return False
    panel = getattr(response, "panel", None)  # a jury's: every member must have answered everything
    if panel is not None and not panel.is_complete(questions):
        return False
    for name, question in questions.items():
        answer = response.answers.get(name)
        if answer is None or getattr(answer, "type", None) != getattr(question, "type", None):
            return False
    return True


# --------------------------------------------------------------------------- stores


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


DEFAULT_MEMORY_ENTRIES = 10_000
"""The default bound of an `InMemoryCache`: some 5 MiB of answers, for a process that runs for weeks."""

DEFAULT_FILE_ENTRIES = 200_000
"""The default bound of a `SQLiteCache` (its file stops growing once it holds that many entries)."""

_SWEEP_EVERY = 256
"""A `SQLiteCache` drops its expired and surplus entries once every this many writes of a process."""


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


class SQLiteCache:
    """A cache in one SQLite file, safe to share between threads, event loops and processes.

    The file is opened in WAL mode, so readers never wait for a writer, and with a
    busy timeout, so writers from several processes take turns instead of failing.
    Within a process one connection is shared under a lock; each operation is one
    short statement. The async methods run it in a worker thread, so the event loop
    never waits on the disk. The parent folder is created when missing. After a
    ``fork`` the child opens its own connection.

    It is bounded: it keeps at most about ``max_entries`` entries
    (`DEFAULT_FILE_ENTRIES`, 200,000, by default), and with ``max_age`` no entry
    older than that many seconds is served. Every `_SWEEP_EVERY` writes a process
    deletes the expired entries and the oldest beyond the bound (so the table holds
    at most ``max_entries`` plus that many per writing process), and SQLite reuses
    the space: the file stops growing. A shared guardrail ledger in such a file is
    bounded the same way; a conversation whose judged prefix was dropped is judged
    again (one more request, never a message let through unjudged).

    Args:
        path: the database file (``":memory:"`` for a private in-memory database).
        timeout: seconds a write waits for another process's write to finish.
        max_entries: the most entries kept (oldest first out), or None for no bound.
        max_age: seconds an entry is served for, or None (default) for as long as it is kept.

    Raises:
        JevConfigurationError: the file cannot be opened as a cache.

    Example:
        >>> import tempfile, os
        >>> folder = tempfile.mkdtemp()
        >>> with SQLiteCache(os.path.join(folder, "jev-cache.sqlite")) as cache:
        ...     cache.put("k", {"model": "m", "answers": {}})
        ...     cache.get("k")
        {'answers': {}, 'model': 'm'}

    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        timeout: float = 30.0,
        max_entries: int | None = DEFAULT_FILE_ENTRIES,
        max_age: float | None = None,
    ) -> None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout < 0:
            raise JevConfigurationError(f"timeout must be a number of seconds >= 0, got {timeout!r}")
        if max_entries is not None and (
            isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1
        ):
            raise JevConfigurationError(
                f"max_entries must be a positive integer or None, got {max_entries!r}"
            )
        if max_age is not None and (
            isinstance(max_age, bool) or not isinstance(max_age, (int, float)) or not max_age > 0
        ):
            raise JevConfigurationError(f"max_age must be a number of seconds > 0 or None, got {max_age!r}")
        self.path = str(path)
        self.timeout = float(timeout)
        self.max_entries = max_entries
        self.max_age = None if max_age is None else float(max_age)
        self._writes = 0
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._pid = -1
        with self._lock:
            self._connect()

    # The connection is made here and only here, under the lock.
    def _connect(self) -> sqlite3.Connection:
        if self._connection is not None and self._pid == os.getpid():
            return self._connection
        # A connection inherited through fork must not be used (nor closed) by the child.
        self._connection = None
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(
                self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
            )
        except (sqlite3.Error, OSError) as error:
            raise JevConfigurationError(
                f"cannot open the response cache at {self.path!r}: {error}"
            ) from error
        try:
            connection.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            self._claim(connection)
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")
            connection.execute(f"PRAGMA journal_size_limit = {_WAL_LIMIT}")  # the WAL file is bounded too
            connection.execute(f"CREATE INDEX IF NOT EXISTS {_TABLE}_age ON {_TABLE} (created_at)")
        except (sqlite3.Error, OSError, JevConfigurationError) as error:
            connection.close()
            if isinstance(error, JevConfigurationError):
                raise
            raise JevConfigurationError(
                f"cannot open the response cache at {self.path!r}: {error}; it was left unchanged"
            ) from error
        self._connection, self._pid = connection, os.getpid()
        return connection

    def _claim(self, connection: sqlite3.Connection) -> None:
        """Stamp a new (empty) database as ours, or check that it is; never touch another's."""
        if self._is_ours(connection):
            return
        connection.execute("BEGIN IMMEDIATE")
        try:
            if not self._is_ours(connection):
                rows = connection.execute("SELECT name FROM sqlite_master ORDER BY name")
                tables = [row[0] for row in rows]
                application_id = _pragma(connection, "application_id")
                if application_id != 0 or tables not in _OWN_TABLES:
                    listed = ", ".join(sorted(tables)) or "none"
                    raise JevConfigurationError(
                        f"{self.path!r} is not a langchain-jev cache (SQLite application_id "
                        f"{application_id:#x}, tables: {listed}); it was left unchanged. "
                        "Give the cache a file of its own."
                    )
                connection.execute(
                    f"CREATE TABLE IF NOT EXISTS {_TABLE} ("
                    " key TEXT PRIMARY KEY, response TEXT NOT NULL, created_at REAL NOT NULL)"
                )
                connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise

    def _is_ours(self, connection: sqlite3.Connection) -> bool:
        if _pragma(connection, "application_id") != APPLICATION_ID:
            return False
        version = _pragma(connection, "user_version")
        if version != SCHEMA_VERSION:
            raise JevConfigurationError(
                f"{self.path!r} is a langchain-jev cache of another layout (version {version}, this "
                f"package reads {SCHEMA_VERSION}); it was left unchanged. Give the cache a new file."
            )
        return True

    def get(self, key: str) -> dict[str, Any] | None:
        """Return the value stored under ``key``, or None (also for an unreadable or expired row)."""
        since = -math.inf if self.max_age is None else time.time() - self.max_age
        with self._lock:
            row = (
                self._connect()
                .execute("SELECT response FROM jev_responses WHERE key = ? AND created_at >= ?", (key, since))
                .fetchone()
            )
        return None if row is None else _loads(row[0])

    def put(self, key: str, value: Mapping[str, Any]) -> None:
        """Store ``value`` under ``key``, replacing what was there; now and then sweep (see `sweep`)."""
        text = _dumps(value)
        with self._lock:
            connection = self._connect()
            connection.execute(
                "INSERT OR REPLACE INTO jev_responses (key, response, created_at) VALUES (?, ?, ?)",
                (key, text, time.time()),
            )
            self._writes += 1
            if self._writes % _SWEEP_EVERY == 1:
                self._sweep(connection)

    def sweep(self) -> None:
        """Delete the entries past ``max_age`` and the oldest beyond ``max_entries`` now."""
        with self._lock:
            self._sweep(self._connect())

    def _sweep(self, connection: sqlite3.Connection) -> None:
        if self.max_age is not None:
            cutoff = time.time() - self.max_age
            connection.execute("DELETE FROM jev_responses WHERE created_at < ?", (cutoff,))
        if self.max_entries is not None:
            connection.execute(
                "DELETE FROM jev_responses WHERE created_at < (SELECT created_at FROM jev_responses "
                "ORDER BY created_at DESC LIMIT 1 OFFSET ?)",
                (self.max_entries - 1,),
            )

    async def aget(self, key: str) -> dict[str, Any] | None:
        """Asynchronous `get`, run in a worker thread."""
        return await asyncio.to_thread(self.get, key)

    async def aput(self, key: str, value: Mapping[str, Any]) -> None:
        """Asynchronous `put`, run in a worker thread."""
        await asyncio.to_thread(self.put, key, dict(value))

    def clear(self) -> None:
        """Delete every entry."""
        with self._lock:
            self._connect().execute("DELETE FROM jev_responses")

    def close(self) -> None:
        """Close this process's connection; the next operation opens a new one."""
        with self._lock:
            if self._connection is not None and self._pid == os.getpid():
                self._connection.close()
            self._connection = None

    def __len__(self) -> int:
        with self._lock:
            row = self._connect().execute("SELECT COUNT(*) FROM jev_responses").fetchone()
        return int(row[0])

    def __enter__(self) -> SQLiteCache:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteCache({self.path!r}, max_entries={self.max_entries}, max_age={self.max_age})"


# --------------------------------------------------------------------------- the model


def _pragma(connection: sqlite3.Connection, name: str) -> int:
    row = connection.execute(f"PRAGMA {name}").fetchone()
    return int(row[0]) if row else 0


@dataclass(frozen=True)
class _Lookup:
    """What the cache said about one request, before its run starts."""

    key: str | None
    response: DecisionResponse | None

    @property
    def status(self) -> str:
        if self.key is None:
            return "bypass"
        return "hit" if self.response is not None else "miss"


class CachedDecisionModel(BaseDecisionModel):
    """Answer from a cache when the same request was answered before; ask the inner model otherwise.

    Args:
        model: the decision model to ask on a miss (anything a `JevJudge` accepts as
            ``model=``, or None for Jev from the environment).
        cache: a `DecisionCache`, or a path for a `SQLiteCache`; an `InMemoryCache` when None.
        namespace: mixed into every key; change it to keep answers of differently
            configured models with the same name apart.

    A hit makes no request and reports no token usage: the response is a
    `DecisionResponse` with ``cache_hit=True`` and ``usage=None`` (``request_id``
    stays that of the request that produced the answers). The run of this model
    carries the metadata ``jev_cache`` (``"hit"``, ``"miss"`` or ``"bypass"``) and,
    on a hit, the tag ``jev-cache-hit``. A state without a JSON form bypasses the
    cache (logged as a warning) and is asked as usual. On a miss the inner model
    answers inside this model's run (its own run is not repeated), and the response
    is stored only when `is_cacheable` says it is complete. Concurrent identical
    misses may each ask the inner model; the last answer stored wins.

    Example:
        >>> import tempfile, os
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> inner = ScriptedDecisionModel({"polite": 0.9})
        >>> path = os.path.join(tempfile.mkdtemp(), "cache.sqlite")
        >>> cached = CachedDecisionModel(inner, path)
        >>> request = {"state": "Thanks!", "questions": {"polite": Noul(instructions="Polite?")}}
        >>> [cached.invoke(request).cache_hit for _ in range(2)], inner.calls
        ([False, True], 1)

    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: BaseDecisionModel
    """The decision model asked on a miss."""
    cache: Any = Field(exclude=True)
    """Where responses are kept (a `DecisionCache`)."""
    namespace: str = ""
    """Mixed into every key."""
    model: str = ""
    """The inner model's name (reported in traces and part of every key)."""

    _identity: dict[str, Any] | None = PrivateAttr(default=None)

    def __init__(
        self,
        model: Any = None,
        cache: DecisionCache | str | os.PathLike[str] | None = None,
        *,
        namespace: str = "",
        **kwargs: Any,
    ) -> None:
        from langchain_jev.models.resolve import as_decision_model

        inner = kwargs.pop("inner", None) or as_decision_model(model)
        if cache is None:
            cache = InMemoryCache()
        elif isinstance(cache, (str, os.PathLike)):
            cache = SQLiteCache(cache)
        elif not isinstance(cache, DecisionCache):
            raise JevConfigurationError(
                "cache must be a DecisionCache (get, put, aget, aput), a path for a "
                f"SQLiteCache, or None for an InMemoryCache; got {type(cache).__name__}"
            )
        if not isinstance(namespace, str):
            raise JevConfigurationError(f"namespace must be a string, got {type(namespace).__name__}")
        super().__init__(
            inner=inner,
            cache=cache,
            namespace=namespace,
            model=inner.model,
            **kwargs,
        )

    @property
    def _provider(self) -> str:
        return self.inner._provider

    def key(self, state: State, questions: Mapping[str, Question]) -> str:
        """Return the cache key of a request to this model (see `cache_key`)."""
        if self._identity is None:
            self._identity = model_identity(self.inner)
        return cache_key(self.model, state, questions, self.namespace, self._identity)

    # ----------------------------------------------------------------- runnable API

    def invoke(
        self, input: ClassifierRequest, config: RunnableConfig | None = None, **_: Any
    ) -> ClassifierResponse:
        """Answer one request, from the cache when it can; the run says whether it did."""
        lookup = self._find(input)
        return self._call_with_config(
            partial(self._serve, lookup=lookup),
            input,
            self._cache_config(config, lookup),
            run_type="llm",
        )

    async def ainvoke(
        self, input: ClassifierRequest, config: RunnableConfig | None = None, **_: Any
    ) -> ClassifierResponse:
        """Asynchronous `invoke`; the cache is read and written without blocking the loop."""
        lookup = await self._afind(input)
        return await self._acall_with_config(
            partial(self._aserve, lookup=lookup),
            input,
            self._cache_config(config, lookup),
            run_type="llm",
        )

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        request: ClassifierRequest = {"state": state, "questions": questions}
        return self._serve(request, self._find(request))

    async def _aclassify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        request: ClassifierRequest = {"state": state, "questions": questions}
        return await self._aserve(request, await self._afind(request))

    # ----------------------------------------------------------------- steps

    def _key_of(self, request: ClassifierRequest) -> str | None:
        try:
            return self.key(request["state"], dict(request["questions"]))
        except (TypeError, ValueError) as error:
            logger.warning("request not cached: %s", error)
            return None

    def _find(self, request: ClassifierRequest) -> _Lookup:
        key = self._key_of(request)
        return self._lookup(request, key, self.cache.get(key) if key is not None else None)

    async def _afind(self, request: ClassifierRequest) -> _Lookup:
        key = self._key_of(request)
        return self._lookup(request, key, await self.cache.aget(key) if key is not None else None)

    @staticmethod
    def _lookup(request: ClassifierRequest, key: str | None, stored: dict[str, Any] | None) -> _Lookup:
        if key is None or stored is None:
            return _Lookup(key, None)
        try:
            response = DecisionResponse.model_validate(stored)
        except ValidationError:
            logger.warning("cache entry %s is unreadable; asking again", key)
            return _Lookup(key, None)
        if not is_cacheable(response, dict(request["questions"])):
            return _Lookup(key, None)
        return _Lookup(key, response.model_copy(update={"cache_hit": True, "usage": None}))

    def _cache_config(self, config: RunnableConfig | None, lookup: _Lookup) -> RunnableConfig:
        config = self._traced_config(config)
        config["metadata"] = {**config.get("metadata", {}), CACHE_METADATA_KEY: lookup.status}
        if lookup.response is not None:
            config["tags"] = [*(config.get("tags") or []), CACHE_HIT_TAG]
        return config

    def _serve(self, request: ClassifierRequest, lookup: _Lookup) -> ClassifierResponse:
        if lookup.response is not None:
            return lookup.response
        questions = dict(request["questions"])
        response = self.inner._classify(request["state"], questions)
        if lookup.key is not None and is_cacheable(response, questions):
            self.cache.put(lookup.key, response.model_dump(mode="json"))
        return _attach_usage(response)

    async def _aserve(self, request: ClassifierRequest, lookup: _Lookup) -> ClassifierResponse:
        if lookup.response is not None:
            return lookup.response
        questions = dict(request["questions"])
        response = await self.inner._aclassify(request["state"], questions)
        if lookup.key is not None and is_cacheable(response, questions):
            await self.cache.aput(lookup.key, response.model_dump(mode="json"))
        return _attach_usage(response)


def _attach_usage(response: ClassifierResponse) -> ClassifierResponse:
    """Record token usage on the current run, as decision models do; never fail for it."""
    if response.usage is None:
        return response
    try:
        run = get_current_run_tree()
        if run is not None:
            run.extra.setdefault("metadata", {})["usage_metadata"] = dict(response.usage)
    except Exception:  # tracing must never break an answer
        logger.debug("could not attach usage to the run", exc_info=True)
    return response
