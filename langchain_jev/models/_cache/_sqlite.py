"""`SQLiteCache`: a bounded store in one SQLite file, shared by threads, event loops and processes."""

from __future__ import annotations

import asyncio
import math
import os
import sqlite3
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from langchain_jev._errors import JevConfigurationError
from langchain_jev.models._cache._protocol import _dumps, _loads

__all__ = ["APPLICATION_ID", "DEFAULT_FILE_ENTRIES", "SCHEMA_VERSION", "SQLiteCache"]

APPLICATION_ID = 0x4A455643
"""The SQLite ``application_id`` of a langchain-jev cache (the bytes ``JEVC``)."""

SCHEMA_VERSION = 1
"""The SQLite ``user_version`` of the cache's table layout."""

_TABLE = "jev_responses"
_WAL_LIMIT = 64 * 2**20
"""Bytes SQLite truncates the write-ahead log to after a checkpoint."""
_OWN_TABLES: tuple[list[str], ...] = ([], [_TABLE], [_TABLE, f"sqlite_autoindex_{_TABLE}_1"])
"""What a database holds before this package stamps it: nothing, or an unstamped cache of ours."""

DEFAULT_FILE_ENTRIES = 200_000
"""The default bound of a `SQLiteCache` (its file stops growing once it holds that many entries)."""

_SWEEP_EVERY = 256
"""A `SQLiteCache` drops its expired and surplus entries once every this many writes of a process."""


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


def _pragma(connection: sqlite3.Connection, name: str) -> int:
    row = connection.execute(f"PRAGMA {name}").fetchone()
    return int(row[0]) if row else 0
