"""The one writer of whole outputs: the new content complete, or the previous file (or none), never a part.

Properties over any previous content (or none), any new content and any point at
which writing fails: a failure leaves the output as it was and nothing beside it; a
success leaves exactly the new content. The output's permissions are kept, a
symlinked output keeps its link and gets its target written, and a device is
written directly. The failures here are raised in the middle of the writing
(``OSError(ENOSPC)`` after part of the content); a real full disk, by a file size
limit, is in `tests.calibration.test_write_judge_whole` and `tests.cli.test_cli_outputs_whole`.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from langchain_jev.datasets._writing import atomic_output, write_atomic

CONTENT = st.binary(max_size=3000)


def write_then_fail(target: Path, part: bytes, pieces: int, error: BaseException) -> None:
    """Write ``part`` to the output in ``pieces``, as a writer writes it, then fail with ``error``."""
    with atomic_output(target) as out:
        size = max(1, len(part) // pieces)
        for start in range(0, len(part), size):
            out.write(part[start : start + size])
        out.flush()
        raise error


@given(st.one_of(st.none(), CONTENT), CONTENT, st.integers(min_value=0, max_value=3000), st.integers(1, 5))
def test_a_write_that_fails_part_way_leaves_the_previous_file_or_none(
    previous: bytes | None, new: bytes, cut: int, pieces: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "out.json"
        if previous is not None:
            target.write_bytes(previous)
        full = OSError(errno.ENOSPC, "No space left on device")
        with pytest.raises(OSError, match="No space left"):
            write_then_fail(target, new[:cut], pieces, full)
        assert sorted(os.listdir(folder)) == ([] if previous is None else ["out.json"])
        if previous is not None:
            assert target.read_bytes() == previous


@given(st.one_of(st.none(), CONTENT), CONTENT)
def test_a_write_that_succeeds_leaves_exactly_the_new_content(previous: bytes | None, new: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "out.json"
        if previous is not None:
            target.write_bytes(previous)
        write_atomic(target, new)
        assert target.read_bytes() == new
        assert os.listdir(folder) == ["out.json"]


def test_an_interrupt_leaves_the_previous_file(tmp_path: Path) -> None:
    target = tmp_path / "page.html"
    target.write_text("<p>before</p>", encoding="utf-8")
    with pytest.raises(KeyboardInterrupt):
        write_then_fail(target, b"<p>aft", 1, KeyboardInterrupt())
    assert target.read_text(encoding="utf-8") == "<p>before</p>"
    assert os.listdir(tmp_path) == ["page.html"]


@pytest.mark.skipif(not hasattr(os, "fchmod"), reason="POSIX permissions")
def test_the_output_keeps_its_permissions_and_a_new_one_takes_the_umask(tmp_path: Path) -> None:
    kept = tmp_path / "kept.json"
    kept.write_text("{}", encoding="utf-8")
    kept.chmod(0o640)
    write_atomic(kept, "[]")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    mask = os.umask(0o022)
    os.umask(mask)
    new = tmp_path / "new.json"
    write_atomic(new, "[]")
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~mask


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_a_symlinked_output_keeps_its_link_and_its_target_is_written(tmp_path: Path) -> None:
    real = tmp_path / "real" / "figures.json"
    real.parent.mkdir()
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "figures.json"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new"
    assert os.listdir(tmp_path / "real") == ["figures.json"]  # the temporary file was beside the target


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_a_device_is_written_directly(tmp_path: Path) -> None:
    write_atomic("/dev/null", "anything")  # nothing to replace: written as it is
    assert os.path.exists("/dev/null") and not stat.S_ISREG(os.stat("/dev/null").st_mode)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_device_says_so() -> None:
    with pytest.raises(OSError) as raised:
        write_atomic("/dev/full", "x" * 10000)
    assert raised.value.errno == errno.ENOSPC


def test_a_folder_that_cannot_take_the_file_fails_before_anything_is_replaced(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_atomic(tmp_path / "missing" / "out.json", "{}")
    assert os.listdir(tmp_path) == []
