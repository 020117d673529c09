"""A dataset is never written over: every output is checked against every input by file identity.

Outputs (``--out``, ``--html``, ``--cache``, ``--write-judge``, ``--json``) are
compared with the inputs (``DATA``, ``--judge``, ``--results``, ``RESULTS``) and
with each other by device and inode, so a symlink, a hard link, ``./x`` and
``dir/../x`` are all caught; the refusal names both and writes nothing. The
one-writer lock and ``--resume`` follow a symlink to the real file and keep
the link.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from langchain_jev.testing.server import JevServer
from tests.cli.helpers import (
    WEATHER_DATA,
    WEATHER_JUDGE,
    judge_args,
    numbered_rows,
    read_header,
    read_results,
    run_cli,
    start_cli,
    weather_answers,
    write_jsonl,
)

pytestmark = pytest.mark.slow  # subprocesses and servers: `-m "not slow"` leaves them out


def _same(path: Path) -> Path:
    return path


def _hard_link(path: Path) -> Path:
    other = path.with_name("hard-" + path.name)
    os.link(path, other)
    return other


def _symlink(path: Path) -> Path:
    other = path.with_name("link-" + path.name)
    other.symlink_to(path)
    return other


def _dotdot(path: Path) -> Path:
    (path.parent / "sub").mkdir(exist_ok=True)
    return path.parent / "sub" / ".." / path.name


NAMES: dict[str, Callable[[Path], Path]] = {"same": _same, "hard link": _hard_link, "symlink": _symlink, "dir/..": _dotdot}


def _refused(done: subprocess.CompletedProcess[str], *named: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("langchain-jev: error: "), lines
    for text in named:
        assert text in lines[0], (text, lines[0])
    return lines[0]


@pytest.mark.parametrize("option", ["--out", "--html", "--cache"])
@pytest.mark.parametrize("name", NAMES, ids=list(NAMES))
def test_an_output_that_is_the_dataset_is_refused_and_the_dataset_kept(tmp_path: Path, option: str, name: str) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", numbered_rows(4))
    before = data.read_bytes()
    target = NAMES[name](data)
    extra = [] if option == "--out" else ["--out", str(tmp_path / "results.jsonl")]
    with JevServer(weather_answers) as server:
        done = run_cli(*judge_args(data, server.base_url, option, target, *extra, "--quiet"))
        assert server.request_count == 0  # refused before anything is judged
    _refused(done, f"{option} {target}", f"DATA {data}")
    assert data.read_bytes() == before
    assert not (tmp_path / "results.jsonl").exists()


@pytest.mark.parametrize(
    ("first", "second"), [("--out", "--html"), ("--cache", "--out"), ("--html", "--cache")]
)
def test_two_outputs_that_are_one_file_are_refused(tmp_path: Path, first: str, second: str) -> None:
    out = tmp_path / "out.jsonl"
    results = [] if "--out" in (first, second) else ["--out", str(tmp_path / "results.jsonl")]
    with JevServer(weather_answers) as server:
        done = run_cli(*judge_args(WEATHER_DATA, server.base_url, first, out, second, _dotdot(out), *results))
    _refused(done, f"{first} {out}", second, "are the same file")
    assert not out.exists()


def test_an_output_that_is_the_judge_file_is_refused(tmp_path: Path) -> None:
    judge = tmp_path / "judge.yaml"
    judge.write_bytes(WEATHER_JUDGE.read_bytes())
    with JevServer(weather_answers) as server:
        done = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--out", _hard_link(judge), judge=judge))
    _refused(done, "--out", f"--judge {judge}")
    assert judge.read_bytes() == WEATHER_JUDGE.read_bytes()


def _results(tmp_path: Path) -> Path:
    out = tmp_path / "results.jsonl"
    with JevServer(weather_answers) as server:
        done = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--out", out, "--quiet"))
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize("option", ["--out", "--html"])
def test_rejudge_never_writes_over_the_results_it_reads(tmp_path: Path, option: str) -> None:
    results = _results(tmp_path)
    before = results.read_bytes()
    done = run_cli("rejudge", results, "--judge", WEATHER_JUDGE, option, _symlink(results))
    _refused(done, option, f"RESULTS {results}")
    assert results.read_bytes() == before


@pytest.mark.parametrize(
    ("option", "victim"), [("--write-judge", "judge"), ("--json", "data"), ("--html", "results")]
)
def test_calibrate_never_writes_over_what_it_reads(tmp_path: Path, option: str, victim: str) -> None:
    data = tmp_path / "labelled.jsonl"
    data.write_bytes((WEATHER_DATA.parent / "weather_labelled.jsonl").read_bytes())
    judge = tmp_path / "judge.yaml"
    judge.write_bytes(WEATHER_JUDGE.read_bytes())
    results = tmp_path / "results.jsonl"
    with JevServer(weather_answers) as server:
        assert run_cli(*judge_args(data, server.base_url, "--out", results, "--quiet")).returncode == 0
        files = {"judge": judge, "data": data, "results": results}
        before = {name: path.read_bytes() for name, path in files.items()}
        done = run_cli(
            "calibrate", data, "--judge", judge, "--label", "human", "--results", results,
            "--base-url", server.base_url, option, _hard_link(files[victim]),
        )  # fmt: skip
        assert server.request_count == 8  # the first run's; calibrate asked nothing
    _refused(done, option, str(files[victim]))
    assert {name: path.read_bytes() for name, path in files.items()} == before


# ----------------------------------------------------------------------------- the lock and --resume


def _wait_for_lines(process: subprocess.Popen[str], out: Path, count: int) -> None:
    deadline = time.monotonic() + 90  # a hang guard: the condition is the file's content
    while not out.exists() or out.read_text(encoding="utf-8").count("\n") < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the run wrote too few lines"
        time.sleep(0.02)


@pytest.mark.parametrize("name", ["symlink", "hard link", "dir/.."])
def test_a_second_run_through_another_name_of_the_results_file_is_refused(tmp_path: Path, name: str) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(40))
    real = tmp_path / "real.jsonl"
    release, answered = threading.Event(), itertools.count()

    def held(state: Any, questions: Any) -> Any:
        """The first row is answered; the others wait until the second and third runs were refused."""
        if next(answered) >= 1:
            release.wait(120)  # a hang guard: the test releases them
        return weather_answers(state, questions)

    with JevServer(held) as server:
        first = start_cli(
            *judge_args(data, server.base_url, "--out", real, "--concurrency", "1", "--workers", "1", "--timeout", "300")
        )
        try:
            _wait_for_lines(first, real, 2)  # the header and a row
            other = NAMES[name](real)
            second = run_cli(*judge_args(data, server.base_url, "--out", other, "--quiet"))
            resumed = run_cli(*judge_args(data, server.base_url, "--out", other, "--resume", "--quiet"))
            still_running = first.poll() is None
            release.set()
            _, stderr = first.communicate(timeout=90)
        finally:
            first.kill()
            first.wait()
    assert still_running, "the first run ended before the second started: the test proves nothing"
    assert first.returncode == 0, stderr
    for refused in (second, resumed):
        _refused(refused, f"{other} is being written by another run")
    lines = real.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 41 and read_header(real)  # one writer: the header and each row once
    assert sorted(r["row"] for r in read_results(real)) == list(range(1, 41))


def test_resume_through_a_symlink_finishes_the_real_file_and_keeps_the_link(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(60))
    real = tmp_path / "real.jsonl"
    link = _symlink(real)
    with JevServer(weather_answers) as server:
        assert run_cli(*judge_args(data, server.base_url, "--out", link, "--quiet")).returncode == 0
        header, *rows = real.read_text(encoding="utf-8").splitlines()
        real.write_text("\n".join([header, *rows[:10]]) + "\n", encoding="utf-8")  # as a stopped run left it
        real.chmod(0o640)
        server.reset()
        done = run_cli(*judge_args(data, server.base_url, "--out", link, "--resume", "--quiet"))
        assert server.request_count == 50
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert sorted(r["row"] for r in read_results(real)) == list(range(1, 61))
    assert real.stat().st_mode & 0o777 == 0o640  # rewritten with its permissions
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".") and "resume" in p.name]
