"""Where a monitor keeps its cursors: one small JSON file per project, judge, mode and filter.

`FileCursorStore` writes each cursor whole (a temporary file renamed over the
old one), so a monitor killed at any moment leaves the last
cursor it saved, never half of one. `CursorKey` names what a cursor belongs to.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from langchain_jev.monitor._cursor import Cursor

__all__ = ["STATE_DIR_ENV", "CursorKey", "CursorStore", "FileCursorStore", "default_cursor_dir"]

STATE_DIR_ENV = "LANGCHAIN_JEV_STATE_DIR"
"""The environment variable naming the folder cursors are kept in (else ``$XDG_STATE_HOME``)."""


@dataclass(frozen=True, slots=True)
class CursorKey:
    """What a cursor belongs to: a project, a judge (its fingerprint), runs or threads, a filter."""

    project: str
    fingerprint: str
    mode: str = "runs"
    filter: str | None = None

    @property
    def file_name(self) -> str:
        """The cursor's file name: readable, and unique to the key."""
        text = json.dumps([self.project, self.fingerprint, self.mode, self.filter])
        digest = hashlib.sha256(text.encode()).hexdigest()[:24]
        readable = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in self.project)[:48]
        return f"{readable}.{self.mode}.{digest}.json"


@runtime_checkable
class CursorStore(Protocol):
    """Loads and saves cursors by key (`FileCursorStore`, or your own: a database row, a bucket)."""

    def load(self, key: CursorKey) -> Cursor | None:
        """The cursor saved under ``key``, or None when there is none."""
        ...

    def save(self, key: CursorKey, cursor: Cursor) -> None:
        """Keep ``cursor`` under ``key``, replacing the one there (whole, or not at all)."""
        ...


def default_cursor_dir() -> Path:
    """Where cursors are kept: under ``$LANGCHAIN_JEV_STATE_DIR``, else ``$XDG_STATE_HOME/langchain-jev``.

    Without either, ``~/.local/state/langchain-jev/monitor``.

    Example:
        >>> default_cursor_dir().name
        'monitor'

    """
    named = os.environ.get(STATE_DIR_ENV)
    if named:
        return Path(named).expanduser() / "monitor"
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state).expanduser() / "langchain-jev" / "monitor"


class FileCursorStore:
    """Cursors as JSON files in ``directory`` (made when first saved; see the module documentation).

    Example:
        >>> import tempfile, datetime
        >>> from langchain_jev.monitor import Cursor, CursorKey, FileCursorStore
        >>> store = FileCursorStore(tempfile.mkdtemp())
        >>> key = CursorKey("prod-chat", "sha256:ab")
        >>> store.load(key) is None
        True
        >>> moment = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
        >>> store.save(key, Cursor(written={"r1": moment}))
        >>> store.load(key).written == {"r1": moment}
        True

    """

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cursor_dir()

    def path(self, key: CursorKey) -> Path:
        """The file holding ``key``'s cursor."""
        return self.directory / key.file_name

    def load(self, key: CursorKey) -> Cursor | None:
        """The saved cursor, or None.

        Raises:
            ValueError: the file is not a cursor (the message names the file); it is left as it is.

        """
        path = self.path(key)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            return Cursor.from_json(json.loads(text))
        except ValueError as error:
            raise ValueError(
                f"the monitor cursor {path} is unreadable ({error}); move it away to start over"
            ) from None

    def save(self, key: CursorKey, cursor: Cursor) -> None:
        """Write the cursor whole: a temporary file beside it, renamed over it (a kill leaves one)."""
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".cursor-", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(cursor.to_json(), out, separators=(",", ":"))
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def __repr__(self) -> str:
        return f"FileCursorStore({str(self.directory)!r})"
