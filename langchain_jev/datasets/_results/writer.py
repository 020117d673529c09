"""The one writer of a results file as a run goes (`ResultsFile`): its header, then whole lines only.

A file, created or appended to when resuming, or ``-`` for stdout. Each batch of records is one
unbuffered write, cut back to the lines before it when it fails part way (a full disk), and a
file removed or replaced during the run fails the next write.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import sys
from collections.abc import Mapping
from typing import IO, Any, TextIO

from langchain_jev.datasets._header import header_record
from langchain_jev.datasets._results.records import record_line

__all__ = ["ResultsFile"]


class ResultsFile:
    """Where result records go: a file (created, or appended to when resuming) or ``-`` for stdout.

    A file starts with its header line (`header_record` of ``judge``), unless
    it is appended to and already has content; stdout gets records only. Each
    batch of records is written as whole lines with a single unbuffered write,
    so a kill leaves at most the last line cut short, and a write that fails
    part way (a full disk) is cut back to the lines before it. A file removed
    or replaced during the run (its folder deleted, say) fails the next write.

    Raises:
        OSError: from the constructor and the writes: the file cannot be written.

    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        append: bool = False,
        judge: Mapping[str, Any] | None = None,
        run: Mapping[str, Any] | None = None,
    ) -> None:
        self.path = os.fspath(path)
        self._stream: IO[bytes]
        self._text: TextIO | None = None
        self._regular = False
        self._end = 0
        if self.path == "-":
            sys.stdout.flush()
            buffer = getattr(sys.stdout, "buffer", None)
            if buffer is None:  # stdout replaced by a text-only stream
                self._text = sys.stdout
            self._stream = buffer if buffer is not None else io.BytesIO()
            self._owned = False
            return
        # unbuffered: each batch of lines is one write, and a write that fails part way is undone
        self._stream = open(self.path, "ab" if append else "wb", buffering=0)  # noqa: SIM115 - held until close()
        self._owned = True
        try:
            self._regular = _is_file(self._stream)
            self._end = self._stream.seek(0, os.SEEK_END) if self._regular else 0
            if self._end == 0 and self._regular:
                self.write_lines([record_line(header_record(judge, run))])
        except BaseException:
            self._stream.close()
            raise

    def write(self, record: Mapping[str, Any]) -> None:
        """Write one record as a JSON line and flush it."""
        self.write_lines([record_line(record)])

    def write_lines(self, lines: list[str]) -> None:
        """Write records already made lines by `record_line` (one write), and flush them."""
        text = "\n".join(lines) + "\n"
        if self._text is not None:
            self._text.write(text)
            self._text.flush()
            return
        data = text.encode("utf-8", "backslashreplace")  # a lone surrogate as its JSON escape
        if not self._owned:
            self._stream.write(data)
            self._stream.flush()
            return
        view = memoryview(data)
        try:
            while view:
                written = self._stream.write(view)
                view = view[written or 0 :]
        except OSError:
            if self._regular:  # leave whole lines only (a full disk takes part of a write)
                with contextlib.suppress(OSError):
                    os.ftruncate(self._stream.fileno(), self._end)
            raise
        self._end += len(data)
        if self._regular:
            self._check_in_place()

    def _check_in_place(self) -> None:
        """Raise when the file is no longer at its path (it, or its directory, was removed or replaced).

        The lines written since went to a file nobody can read: the run must not carry on as if
        they were kept.
        """
        try:
            there = os.stat(self.path)
        except OSError:
            there = None
        here = os.fstat(self._stream.fileno())
        if there is None or (there.st_dev, there.st_ino) != (here.st_dev, here.st_ino):
            raise OSError(errno.ENOENT, "the file (or its folder) was removed or replaced during the run")

    def close(self) -> None:
        """Close the file (stdout stays open)."""
        if self._owned:
            self._stream.close()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _is_file(stream: IO[bytes]) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except OSError:
        return False
