"""Which file a path names, so that no command writes over a file it reads or writes twice.

A command names its files by role: the files it reads (``DATA``, ``--judge``,
``--results``) and those it writes (``--out``, ``--html``, ``--write-judge``,
``--json``, ``--cache``). `clash` compares them all by file identity before
anything is written: an existing file by its device and inode (so a symlink,
a hard link, ``./x`` and ``dir/../x`` are all the same file), a file still to
be made by its resolved path. An output that is an input, or two outputs that
are one file, are refused with a message naming both. ``-`` (stdout) and
files that are not regular files (``/dev/null``, a pipe) are never compared:
writing to them destroys nothing.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["FileRole", "clash", "file_identity", "real_path"]


@dataclass(frozen=True)
class FileRole:
    """A file a command reads or writes, under the option (or argument) that names it.

    Example:
        >>> FileRole("--out", "results.jsonl").describe()
        '--out results.jsonl'

    """

    option: str
    """How the command line names it: ``DATA``, ``--out``, ``--cache``..."""
    path: str | os.PathLike[str] | None
    """The path given (None: the option was not given)."""

    def describe(self) -> str:
        """The option and the path as the user wrote them."""
        return f"{self.option} {os.fspath(self.path) if self.path is not None else ''}".rstrip()


def real_path(path: str | os.PathLike[str]) -> str:
    """The path with every symlink and ``..`` resolved: the file that is really read or written.

    Example:
        >>> import os, tempfile
        >>> folder = os.path.realpath(tempfile.mkdtemp())
        >>> os.symlink(os.path.join(folder, "real.jsonl"), os.path.join(folder, "link.jsonl"))
        >>> real_path(os.path.join(folder, "sub", "..", "link.jsonl")) == os.path.join(folder, "real.jsonl")
        True

    """
    return os.path.realpath(os.fspath(path))


def file_identity(path: str | os.PathLike[str]) -> tuple[str, object] | None:
    """What makes two paths one file: its device and inode, or (not there yet) its resolved path.

    None for stdout (``-``) and for files that are not regular files (devices, pipes, folders).

    Example:
        >>> file_identity("-") is None, file_identity("/dev/null") is None
        (True, True)
        >>> file_identity("not/there/yet.jsonl")[0]
        'path'

    """
    text = os.fspath(path)
    if text == "-" or not text:
        return None
    try:
        info = os.stat(text)
    except OSError:
        return ("path", real_path(text))
    if not stat.S_ISREG(info.st_mode):
        return None
    return ("inode", (info.st_dev, info.st_ino))


def clash(inputs: Sequence[FileRole], outputs: Sequence[FileRole]) -> str | None:
    """Why these outputs cannot be written (one is an input, or two are one file), or None.

    Example:
        >>> import os, tempfile
        >>> folder = tempfile.mkdtemp()
        >>> data = os.path.join(folder, "d.jsonl")
        >>> _ = open(data, "w").write("{}")
        >>> os.link(data, os.path.join(folder, "same.jsonl"))
        >>> message = clash([FileRole("DATA", data)], [FileRole("--out", os.path.join(folder, "same.jsonl"))])
        >>> for part in message.replace(folder + os.sep, "").split("; "):
        ...     print(part)
        --out same.jsonl is the same file as DATA d.jsonl: writing it would destroy what is read
        give --out another path
        >>> clash([FileRole("DATA", data)], [FileRole("--out", "-"), FileRole("--html", None)]) is None
        True

    """
    read = [(role, file_identity(role.path)) for role in inputs if role.path is not None]
    written: list[tuple[FileRole, tuple[str, object]]] = []
    for role in outputs:
        if role.path is None:
            continue
        identity = file_identity(role.path)
        if identity is None:
            continue
        for source, known in read:
            if known == identity:
                return (
                    f"{role.describe()} is the same file as {source.describe()}: writing it would "
                    f"destroy what is read; give {role.option} another path"
                )
        for other, known in written:
            if known == identity:
                return (
                    f"{other.describe()} and {role.describe()} are the same file: each output needs "
                    "a path of its own"
                )
        written.append((role, identity))
    return None
