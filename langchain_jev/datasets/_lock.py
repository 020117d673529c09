"""One writer per results file: a lock held for the whole run, beside the file.

The lock is a small file next to the results (``.results.jsonl.lock``) locked
with ``flock`` (``msvcrt.locking`` on Windows) and holding the locking
process's id, so a second run writing the same ``--out`` is refused with the
name of the file and the pid of the run that holds it. The lock is beside the
file rather than on it because ``--resume`` replaces the file (atomically)
with the records it keeps. It is named from the real file, every symlink and
``..`` resolved, so a run writing through a link and a run writing the file
itself take one lock; where the file exists already its inode is locked too,
so a run writing it under another name (a hard link) is refused as well. The
operating system drops the locks when the process ends, however it ends; a
lock file left behind by a killed run locks nothing.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from typing import IO

from langchain_jev._errors import ResultsError
from langchain_jev.datasets._paths import real_path

__all__ = ["ResultsLock", "ResultsLockedError"]


class ResultsLockedError(ResultsError):
    """Another run holds the results file (the message names it, and the holder's pid if known)."""


class ResultsLock:
    """The lock of one results file; ``acquire`` it before opening the file, ``release`` after closing it.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "results.jsonl")
        >>> first = ResultsLock(path)
        >>> first.acquire()
        >>> try:
        ...     ResultsLock(path).acquire()
        ... except ResultsLockedError as error:
        ...     print(str(error).split(" (pid")[0].endswith("is being written by another run"))
        True
        >>> first.release()
        >>> ResultsLock(path).acquire()

    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.real_path = real_path(self.path)
        """The file the results really go to (a symlink followed)."""
        directory, name = os.path.split(self.real_path)
        self.lock_path = os.path.join(directory, f".{name}.lock")
        self._handle: IO[bytes] | None = None
        self._inode: IO[bytes] | None = None
        self._created = False

    @staticmethod
    def applies_to(path: str | os.PathLike[str]) -> bool:
        """True when ``path`` is a file to lock: not ``-`` (stdout), not a device or a pipe."""
        if os.fspath(path) == "-":
            return False
        try:
            mode = os.stat(path).st_mode
        except OSError:
            return True  # not there yet: a file the run will create
        return stat.S_ISREG(mode)

    def acquire(self) -> None:
        """Take the lock, or raise.

        Raises:
            ResultsLockedError: another process holds it.
            OSError: the lock file cannot be made (an unwritable directory, say).

        """
        while True:
            handle = open(self.lock_path, "a+b")  # noqa: SIM115 - held until release()
            try:
                if not _try_lock(handle):
                    holder = _holder(handle)
                    handle.close()
                    who = f" (pid {holder})" if holder else ""
                    raise ResultsLockedError(
                        f"{self.path} is being written by another run{who}; wait for it to end, "
                        "or write to another --out"
                    )
                if _same_file(handle, self.lock_path):
                    break
            except BaseException:
                if not handle.closed:
                    handle.close()
                raise
            handle.close()  # the lock file was removed meanwhile: lock the new one
        try:
            self._inode = self._lock_inode()
        except BaseException:
            handle.close()
            raise
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n".encode())
        handle.flush()
        self._handle = handle

    def _lock_inode(self) -> IO[bytes] | None:
        """Lock the results file itself (made empty if missing): another name for it (a hard link) is refused.

        The file is made here, before anything is written, so its inode is locked from the start;
        `release` removes it again if the run never wrote to it.
        """
        if sys.platform == "win32":  # pragma: no cover - Windows locks byte ranges, and links are rare
            return None
        self._created = not os.path.lexists(self.real_path)
        handle = os.fdopen(os.open(self.real_path, os.O_RDONLY | os.O_CREAT, 0o666), "rb")
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode) or _try_lock(handle):
            return handle
        handle.close()
        raise ResultsLockedError(
            f"{self.path} is being written by another run (under another name for the same file); "
            "wait for it to end, or write to another --out"
        )

    def release(self) -> None:
        """Drop the lock and remove the lock file (nothing when not held)."""
        handle, self._handle = self._handle, None
        inode, self._inode = self._inode, None
        if inode is not None:
            if self._created:  # made by `acquire` and never written: the run left nothing behind
                with contextlib.suppress(OSError):
                    here = os.fstat(inode.fileno())
                    if here.st_size == 0 and _same_file(inode, self.real_path):
                        os.unlink(self.real_path)
            inode.close()
        if handle is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.lock_path)  # while still held: a waiting run then locks a new file
        handle.close()


def _try_lock(handle: IO[bytes]) -> bool:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder(handle: IO[bytes]) -> int | None:
    try:
        handle.seek(0)
        text = handle.read(32).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _same_file(handle: IO[bytes], path: str) -> bool:
    try:
        here, there = os.fstat(handle.fileno()), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)
