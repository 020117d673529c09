r"""The one reader of every file the package reads: regular files only, every line and every file bounded.

- `open_regular`: a file opened to read, or a refusal within a moment. A device
  (``/dev/zero``), a FIFO, a socket or a folder is refused with what it is, also
  behind a symlink: the path is looked at first, then opened without blocking
  (a FIFO that appeared meanwhile does not hang the open) and looked at again,
  so what is read is what was checked.
- `check_regular`: the same test without opening (for a file a command reads later).
- `read_bounded`: a whole file of at most a given size (a judge file), refused past it.
- `bounded_lines`: the lines of an open file, each refused past a given size
  (`MAX_LINE_BYTES` for results files), never held whole beyond it.

Every refusal is an `OSError` whose ``strerror`` says what is wrong in words
(``a FIFO (a named pipe), not a regular file``), so each caller's ``cannot read
PATH: ...`` names the file and the reason in one line. Datasets, results files
(and the datasets their headers name), judge files, and the judge file
``--write-judge`` rewrites are all read through here.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from typing import BinaryIO

__all__ = [
    "MAX_LINE_BYTES",
    "TooLargeError",
    "bounded_lines",
    "check_regular",
    "open_regular",
    "read_bounded",
    "size_words",
]

MAX_LINE_BYTES = 64 << 20
"""The longest line of a results file read (64 MiB), its header included: far above any record written."""

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (a named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class TooLargeError(OSError):
    """A file, or one line of it, larger than the reader's bound (``strerror`` says which and the bound)."""


def size_words(size: int) -> str:
    """A size in bytes as a reader's bound is said.

    Example:
        >>> size_words(64 << 20), size_words(1 << 20), size_words(1000)
        ('64 MiB', '1 MiB', '1000 bytes')

    """
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} bytes"


def _refusal(path: str, mode: int) -> OSError | None:
    if stat.S_ISREG(mode):
        return None
    kind = next((word for test, word in _KINDS if test(mode)), "not a file")
    code = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
    return OSError(code, f"{kind}, not a regular file", path)


def check_regular(path: str | os.PathLike[str], *, missing_ok: bool = False) -> None:
    """Raise unless ``path`` is a regular file (or, with ``missing_ok``, is not there at all).

    Raises:
        OSError: the file is missing, cannot be looked at, or is not a regular file.

    Example:
        >>> check_regular("/dev/zero")
        Traceback (most recent call last):
        ...
        OSError: [Errno 22] a character device, not a regular file: '/dev/zero'

    """
    text = os.fspath(path)
    try:
        info = os.stat(text)
    except FileNotFoundError:
        if missing_ok and not os.path.lexists(text):
            return
        raise
    refused = _refusal(text, info.st_mode)
    if refused is not None:
        raise refused


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    r"""Open a regular file to read (binary, buffered), refusing anything else at once.

    Raises:
        OSError: the file cannot be opened, or is not a regular file (see the module docstring).

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile(delete=False) as f:
        ...     _ = f.write(b"one\ntwo\n")
        >>> with open_regular(f.name) as handle:
        ...     handle.read()
        b'one\ntwo\n'

    """
    text = os.fspath(path)
    check_regular(text)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    descriptor = os.open(text, flags | getattr(os, "O_BINARY", 0))
    try:
        refused = _refusal(text, os.fstat(descriptor).st_mode)  # what was opened, not what was there
        if refused is not None:
            raise refused
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The whole of a regular file of at most ``limit`` bytes; a larger one is refused before it is read.

    Raises:
        TooLargeError: the file holds more than ``limit`` bytes.
        OSError: the file cannot be opened, or is not a regular file.

    """
    with open_regular(path) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        said = f"larger than {size_words(limit)}, the most it may hold"
        raise TooLargeError(errno.EFBIG, said, os.fspath(path))
    return data


def bounded_lines(handle: BinaryIO, limit: int = MAX_LINE_BYTES, *, name: str = "") -> Iterator[bytes]:
    r"""The lines of ``handle`` (with their line ends), each at most ``limit`` bytes besides its ``\n``.

    A longer line is refused as soon as ``limit + 1`` bytes of it are read: no more is held.

    Raises:
        TooLargeError: a line is longer than ``limit`` (its number is said).

    Example:
        >>> import io
        >>> list(bounded_lines(io.BytesIO(b"a\nbb\n"), 2))
        [b'a\n', b'bb\n']
        >>> list(bounded_lines(io.BytesIO(b"a\nbbb\n"), 2))
        Traceback (most recent call last):
        ...
        langchain_jev.datasets._reading.TooLargeError: [Errno 27] line 2 is longer than 2 bytes, ...

    """
    number = 0
    while line := handle.readline(limit + 1):
        number += 1
        if len(line) > limit and not (len(line) == limit + 1 and line.endswith(b"\n")):
            said = f"line {number} is longer than {size_words(limit)}, the most a line may hold"
            raise TooLargeError(errno.EFBIG, said, *((name,) if name else ()))
        yield line
