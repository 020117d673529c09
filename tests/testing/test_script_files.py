"""The scripted server's ``--answers`` file is read by the one bounded reader.

A FIFO, a device or a folder is refused at once (it used to block, or read until
memory ran out), and so is a file over the bound, naming the file.
"""

from __future__ import annotations

import concurrent.futures
import os
from pathlib import Path

import pytest

from langchain_jev.testing.server import MAX_SCRIPT_BYTES, load_script


def _load(source: str) -> str:
    """The refusal of ``load_script`` (run in a thread, so a read that blocks fails the test, not the suite)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        future = pool.submit(load_script, source)
        with pytest.raises(ValueError, match="--answers") as refused:
            future.result(timeout=60)  # a hang guard only
    return str(refused.value)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "answers.json"
    os.mkfifo(fifo)
    assert str(fifo) in _load(str(fifo))


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_is_refused() -> None:
    assert "/dev/zero" in _load("/dev/zero")


def test_a_folder_is_refused(tmp_path: Path) -> None:
    assert str(tmp_path) in _load(str(tmp_path))


def test_a_file_over_the_bound_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "answers.json"
    big.write_text('{"polite": 0.9, "pad": "' + "x" * MAX_SCRIPT_BYTES + '"}', encoding="utf-8")
    assert str(big) in _load(str(big))


def test_a_script_file_within_the_bound_is_read(tmp_path: Path) -> None:
    path = tmp_path / "answers.json"
    path.write_text('{"polite": 0.2}', encoding="utf-8")
    assert load_script(str(path)) == {"polite": 0.2}
