"""A single Parquet ``--out`` of a Ray run is written whole through the one atomic writer.

It is complete or absent (the previous file kept), synced before it is moved in, and
two runs writing the same output never share a temporary file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from langchain_jev.ray._run import _ParquetFile  # noqa: E402


def _batch(values: list[int]) -> object:
    return pa.table({"row": values})


def test_the_output_is_the_previous_file_until_the_run_finishes(tmp_path: Path) -> None:
    out = tmp_path / "judged.parquet"
    pq.write_table(_batch([0]), out)
    sink = _ParquetFile(str(out))
    sink.write(_batch([1, 2]), [])
    assert pq.read_table(out).to_pylist() == [{"row": 0}]
    sink.write(_batch([3]), [])
    sink.finish()
    sink.close()
    assert pq.read_table(out).to_pylist() == [{"row": 1}, {"row": 2}, {"row": 3}]
    assert os.listdir(tmp_path) == ["judged.parquet"]


def test_a_run_that_does_not_finish_leaves_the_previous_file_and_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "judged.parquet"
    pq.write_table(_batch([0]), out)
    sink = _ParquetFile(str(out))
    sink.write(_batch([1]), [])
    sink.close()
    assert pq.read_table(out).to_pylist() == [{"row": 0}]
    assert os.listdir(tmp_path) == ["judged.parquet"]


def test_the_file_is_synced_before_it_is_moved_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append("replace"), real_replace(a, b))[1])
    sink = _ParquetFile(str(tmp_path / "judged.parquet"))
    sink.write(_batch([1]), [])
    sink.finish()
    assert "replace" in events and "fsync" in events[: events.index("replace")]


def test_two_runs_writing_one_output_do_not_share_a_temporary_file(tmp_path: Path) -> None:
    out = tmp_path / "judged.parquet"
    first, second = _ParquetFile(str(out)), _ParquetFile(str(out))
    first.write(_batch([1]), [])
    second.write(_batch([2, 2]), [])
    first.finish()
    second.close()  # the second run fails: the first one's output stays whole
    assert pq.read_table(out).to_pylist() == [{"row": 1}]
    assert os.listdir(tmp_path) == ["judged.parquet"]
