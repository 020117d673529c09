"""A judge file written with new thresholds is complete or absent: a full disk never leaves a judge cut short.

``--write-judge`` used to write the judge file in place, so a full disk left it cut,
and a judge file cut at a line boundary loads as a smaller judge (1 to 3 of 43
criteria at 42 of 175 cut points). Here the disk is really full: a child process
writes under a file size limit (``RLIMIT_FSIZE``, so the kernel refuses with
``EFBIG``) set at every line boundary of the new judge file, with a previous judge
file in place and without one. What is left is always the previous file, byte for
byte, or no file, never a part; and nothing is left beside it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from langchain_jev.calibration._rewrite import replace_thresholds, write_thresholds
from langchain_jev.spec import load_spec

pytestmark = pytest.mark.skipif(sys.platform == "win32" or not hasattr(os, "fork"), reason="fork and RLIMIT_FSIZE")

ROOT = Path(__file__).resolve().parents[2]
WEATHER = ROOT / "examples" / "weather_judge.yaml"
MOVED = {"is_grounded": 0.55, "has_details": 0.45, "helpfulness": 1}


def write_under_limit(limit: int, destination: Path) -> int:
    """Run `write_thresholds` in a child whose files may grow to ``limit`` bytes; its exit code (0: written)."""
    import resource

    pid = os.fork()
    if pid == 0:  # the child: nothing but the write, then out without running the parent's clean-ups
        code = 1
        try:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
            write_thresholds(WEATHER, destination, MOVED, 0.65)
            code = 0
        except OSError:
            code = 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def boundaries(text: str) -> list[int]:
    """The byte offsets of every line boundary of ``text`` before its end (0 included)."""
    data = text.encode("utf-8")
    return [0] + [i + 1 for i, byte in enumerate(data[:-1]) if byte == ord("\n")]


@pytest.mark.parametrize("previous", [True, False], ids=["over a previous judge", "a new file"])
def test_a_full_disk_at_any_line_boundary_leaves_the_previous_judge_or_none(previous: bool, tmp_path: Path) -> None:
    new_text = replace_thresholds(WEATHER.read_text(encoding="utf-8"), MOVED, 0.65)
    destination = tmp_path / "new.yaml"
    old = b"# the judge as it was\n" + WEATHER.read_bytes()
    cuts = boundaries(new_text)
    assert len(cuts) > 20
    for limit in cuts:
        if previous:
            destination.write_bytes(old)
        elif destination.exists():
            destination.unlink()
        assert write_under_limit(limit, destination) == 3, limit  # the kernel refused: the file is too large
        if previous:
            assert destination.read_bytes() == old, limit
        else:
            assert not destination.exists(), limit
        assert sorted(os.listdir(tmp_path)) == (["new.yaml"] if previous else []), limit
    assert write_under_limit(len(new_text.encode("utf-8")), destination) == 0  # room for it all: written whole
    assert destination.read_text(encoding="utf-8") == new_text
    assert len(load_spec(destination).criteria) == len(load_spec(WEATHER).criteria)
