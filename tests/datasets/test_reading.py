"""The one reader of files: a regular file, or a refusal at once naming what the path is; every line bounded.

What is refused is what was opened (the path is looked at, opened without blocking,
and looked at again), so a FIFO never blocks the open and a symlink to a device is
refused as the device. `bounded_lines` yields every line of at most its bound, whole,
and refuses the first longer one by its number, holding no more than the bound of it.
"""

from __future__ import annotations

import io
import os
import socket
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from langchain_jev.datasets._readers import DatasetError, count_rows, detect_format, read_rows
from langchain_jev.datasets._reading import (
    TooLargeError,
    bounded_lines,
    check_regular,
    open_regular,
    read_bounded,
)

posix = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, sockets and devices are POSIX")


@pytest.fixture
def not_files(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    sock = tmp_path / "s"
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(sock))
    link = tmp_path / "zero"
    link.symlink_to("/dev/zero")
    return {"a character device": Path("/dev/zero"), "a FIFO (a named pipe)": fifo, "a folder": tmp_path,
            "a socket": sock, "link": link}  # fmt: skip


@posix
def test_only_a_regular_file_is_opened(not_files: dict[str, Path]) -> None:
    for kind, path in not_files.items():
        said = "a character device" if kind == "link" else kind
        for attempt in (open_regular, check_regular):
            with pytest.raises(OSError) as raised:
                attempt(path)
            assert raised.value.strerror == f"{said}, not a regular file" and raised.value.filename == str(path)


@posix
def test_every_dataset_reader_refuses_them_too(not_files: dict[str, Path]) -> None:
    for path in not_files.values():
        for read in (lambda p: list(read_rows(p, "jsonl")), lambda p: count_rows(p, "jsonl"),
                     lambda p: list(read_rows(p, "csv")), detect_format):  # fmt: skip
            with pytest.raises(DatasetError, match=r"cannot read .*, not a regular file"):
                read(path)


def test_a_missing_file_may_be_allowed_to_be_missing(tmp_path: Path) -> None:
    check_regular(tmp_path / "not-yet.jsonl", missing_ok=True)
    with pytest.raises(FileNotFoundError):
        check_regular(tmp_path / "not-yet.jsonl")
    with pytest.raises(FileNotFoundError):
        open_regular(tmp_path / "not-yet.jsonl")


def test_a_file_past_its_bound_is_refused_before_it_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "judge.yaml"
    path.write_bytes(b"x" * 101)
    assert read_bounded(path, 101) == b"x" * 101
    with pytest.raises(TooLargeError, match="larger than 100 bytes"):
        read_bounded(path, 100)


LINES = st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=12)


@given(LINES, st.integers(min_value=1, max_value=50), st.booleans())
def test_lines_within_the_bound_come_whole_and_the_first_longer_one_is_refused(
    lines: list[bytes], limit: int, last_newline: bool
) -> None:
    text = b"\n".join(lines) + (b"\n" if last_newline and lines else b"")
    *ended, rest = text.split(b"\n")
    expected = [line + b"\n" for line in ended] + ([rest] if rest else [])
    too_long = next((n for n, line in enumerate(expected, 1) if len(line.rstrip(b"\n")) > limit), None)
    got: list[bytes] = []
    if too_long is None:
        got = list(bounded_lines(io.BytesIO(text), limit))
        assert got == expected
        return
    with pytest.raises(TooLargeError, match=f"line {too_long} is longer than"):
        got.extend(bounded_lines(io.BytesIO(text), limit))  # extended line by line until the refusal
    assert got == expected[: too_long - 1]
