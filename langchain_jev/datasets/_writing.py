"""The one writer of every whole output: complete, or the previous file (or none), never a part.

- `atomic_output`: a binary file to write an output into; only when the body
  ends without an error is it flushed, synced to disk and moved over the output
  in one ``os.replace``. Any failure (a full disk, a file size limit, a bug, an
  interrupt) removes the temporary file and leaves the output as it was.
- `write_atomic`: `atomic_output` for an output known whole (a page, a JSON document, a judge file).

The temporary file is made beside the output's real path (a symlink is followed:
its target is written and the link kept, as the results file is resumed) with a
name of its own (``.NAME.XXXXXXXX.partial``), so two writers never share one, and it
takes the permissions the output had (a new output: the defaults of the umask).
An output that exists and is not a regular file (``/dev/stdout``, ``/dev/null``,
a pipe) is written directly: there is no file to replace, and nothing to lose.
Every ``--html`` page, ``--json`` document, ``--write-judge`` file, head-to-head
``--out`` and ``rejudge --out`` is written through here; the results file of a
judge run is the one output written as it goes (`langchain_jev.datasets.results`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from typing import BinaryIO

__all__ = ["atomic_output", "write_atomic"]


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file whose content replaces ``path`` whole when the block ends without an error.

    Raises:
        OSError: the temporary file cannot be made, written, synced or moved into place
            (the output is then as it was).

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "figures.json")
        >>> with atomic_output(path) as out:
        ...     _ = out.write(b'{"kappa": 0.8}')
        >>> open(path).read()
        '{"kappa": 0.8}'
        >>> try:
        ...     with atomic_output(path) as out:
        ...         _ = out.write(b'{"kap')
        ...         raise OSError(28, "No space left on device")
        ... except OSError:
        ...     pass
        >>> open(path).read(), os.listdir(os.path.dirname(path))
        ('{"kappa": 0.8}', ['figures.json'])

    """
    target = os.path.realpath(os.fspath(path))  # a symlinked output: its target is written, the link kept
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        with open(target, "wb") as direct:  # a device or a pipe: nothing to replace
            yield direct
            direct.flush()
        return
    folder, name = os.path.split(target)
    descriptor, temporary = _temporary(folder or ".", name)
    try:
        if existing is not None and hasattr(os, "fchmod"):
            os.fchmod(descriptor, stat.S_IMODE(existing.st_mode))
        with os.fdopen(descriptor, "wb") as sink:
            descriptor = -1  # the file object owns it now
            yield sink
            sink.flush()
            os.fsync(sink.fileno())
        os.replace(temporary, target)
    except BaseException:
        if descriptor >= 0:
            os.close(descriptor)
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(folder or ".")


def write_atomic(path: str | os.PathLike[str], content: str | bytes) -> None:
    r"""Write ``content`` to ``path`` whole (`atomic_output`); text as UTF-8, a lone surrogate as its escape.

    Raises:
        OSError: the output cannot be written; it is then as it was.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "page.html")
        >>> write_atomic(path, "<p>caf\u00e9 \ud800</p>")
        >>> open(path, "rb").read()
        b'<p>caf\xc3\xa9 \\ud800</p>'

    """
    data = content.encode("utf-8", "backslashreplace") if isinstance(content, str) else content
    with atomic_output(path) as out:
        out.write(data)


def _temporary(folder: str, name: str) -> tuple[int, str]:
    """A new file beside the output, made with the umask's permissions, and its path."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    while True:
        temporary = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.partial")
        try:
            return os.open(temporary, flags, 0o666), temporary
        except FileExistsError:
            continue


def _sync_folder(folder: str) -> None:
    """Make the rename itself durable where the system allows it (best effort: the output is in place)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
