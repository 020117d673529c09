"""Stopping a run: one Ctrl-C, a second writer, another judge on --resume, an unreachable server, write errors."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from langchain_jev.testing.server import JevServer
from tests.cli.helpers import (
    WORKERS,
    cli_command,
    cli_env,
    judge_args,
    numbered_rows,
    read_results,
    run_cli,
    start_cli,
    wait_for_no_processes,
    weather_answers,
    write_jsonl,
)

pytestmark = pytest.mark.slow  # subprocesses and servers: `-m "not slow"` leaves them out

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="needs Linux (/proc, /dev/full, tmpfs)")

STOP_BOUND = 10.0
"""Seconds a stopped run may take to exit: the command takes well under 2 s; the slack is for a busy machine.
A run that hangs (waits for a second Ctrl-C) never exits at all."""

JUDGE = {
    "criteria": [
        {"kind": "noul", "name": "is_grounded", "instructions": "Grounded?", "minimum": 0.7},
        {"kind": "score", "name": "helpfulness", "instructions": "Helpful?", "levels": ["no", "some", "much"], "minimum": 2},
    ]
}


def _lines(path: Path) -> int:
    return path.read_text(encoding="utf-8").count("\n") if path.exists() else 0


def _wait_for_lines(process: subprocess.Popen[str], out: Path, count: int) -> None:
    deadline = time.monotonic() + 90
    while _lines(out) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the run wrote too few lines"
        time.sleep(0.02)


def _judge_file(tmp_path: Path, spec: dict[str, object], name: str = "judge.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def _one_error_line(stderr: str) -> list[str]:
    assert "Traceback" not in stderr, stderr
    return [line for line in stderr.splitlines() if line.startswith("langchain-jev: error:")]


# ----------------------------------------------------------------------------- Ctrl-C


@linux_only
@WORKERS
def test_one_ctrl_c_ends_the_run_at_once_and_resume_finishes_every_row_once(
    sigint_at_start: str, tmp_path: Path, workers: str
) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(60))
    out = tmp_path / "results.jsonl"
    marker = uuid.uuid4().hex
    with JevServer(weather_answers, delay=0.1) as server:
        args = judge_args(data, server.base_url, "--out", out, "--concurrency", "2", "--workers", workers)
        process = start_cli(*args, JEV_TEST_RUN=marker, start_new_session=True)
        try:
            _wait_for_lines(process, out, 7)  # the header and six rows
            os.killpg(process.pid, signal.SIGINT)  # what one Ctrl-C sends: the whole process group
            sent = time.monotonic()
            try:
                _, stderr = process.communicate(timeout=STOP_BOUND)
            except subprocess.TimeoutExpired:
                pytest.fail(f"one Ctrl-C did not end the run within {STOP_BOUND} s")
            took = time.monotonic() - sent
        finally:
            process.kill()
            process.wait()
        assert process.returncode == 130, stderr
        assert "interrupted (run again with --resume to finish)" in stderr
        assert "Traceback" not in stderr
        print(f"exited {took:.2f} s after the interrupt")
        assert wait_for_no_processes(marker) == {}
        first = read_results(out)  # every line whole
        assert len({r["row"] for r in first}) == len(first) >= 6
        server.reset()
        resumed = run_cli(*judge_args(data, server.base_url, "--out", out, "--resume", "--workers", workers))
    assert resumed.returncode == 0, resumed.stderr
    rows = [r["row"] for r in read_results(out)]
    assert sorted(rows) == list(range(1, 61))  # every row exactly once
    assert server.request_count == 60 - len(first)


# ----------------------------------------------------------------------------- one writer


def test_a_second_run_writing_the_same_results_file_is_refused(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(40))
    out = tmp_path / "results.jsonl"
    # One request at a time, 2 s each: the first run needs 80 s, far more than the two refused
    # launches take on a busy machine; it is sped up once they are done.
    with JevServer(weather_answers, delay=2.0) as server:
        first = start_cli(*judge_args(data, server.base_url, "--out", out, "--concurrency", "1", "--workers", "1"))
        try:
            _wait_for_lines(first, out, 2)  # the header and a row
            second = run_cli(*judge_args(data, server.base_url, "--out", out, "--quiet"))
            resumed = run_cli(*judge_args(data, server.base_url, "--out", out, "--resume", "--quiet"))
            still_running = first.poll() is None
            server.delay = 0.0
            _, stderr = first.communicate(timeout=90)
        finally:
            first.kill()
            first.wait()
        assert still_running, "the first run ended before the second started: the test proves nothing"
        assert first.returncode == 0, stderr
        for refused in (second, resumed):
            assert refused.returncode == 2, refused.stderr
            assert f"{out} is being written by another run (pid {first.pid})" in refused.stderr
        records = read_results(out)
        assert sorted(r["row"] for r in records) == list(range(1, 41))  # nothing lost, nothing twice
        after = run_cli(*judge_args(data, server.base_url, "--out", out, "--resume", "--quiet"))
    assert after.returncode == 0, after.stderr  # the lock ends with the run
    assert "resuming: 40 row(s) already judged" in after.stderr


# ----------------------------------------------------------------------------- resume only the same judge


def test_resume_with_another_judge_is_refused_and_says_what_differs(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(8))
    out = tmp_path / "results.jsonl"
    first_judge = _judge_file(tmp_path, JUDGE)
    changed = json.loads(json.dumps(JUDGE))
    changed["criteria"][0]["name"] = "factual"  # renamed
    changed["criteria"][1]["minimum"] = 1  # a new threshold
    changed["criteria"].append({"kind": "noul", "name": "short", "instructions": "Short?", "minimum": 0.5})
    other_judge = _judge_file(tmp_path, changed, "other.json")
    with JevServer(weather_answers) as server:
        done = run_cli(*judge_args(data, server.base_url, "--out", out, "--quiet", judge=first_judge))
        assert done.returncode == 0, done.stderr
        lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
        out.write_text("".join(lines[:-3]), encoding="utf-8")  # as if interrupted
        before = out.read_bytes()
        again = run_cli(*judge_args(data, server.base_url, "--out", out, "--resume", "--quiet", judge=other_judge))
        other_model = run_cli(
            *judge_args(data, server.base_url, "--out", out, "--resume", "--quiet", "--model", "jev-canary", judge=first_judge)
        )
        after_refusals = out.read_bytes()
        server.reset()
        same = run_cli(*judge_args(data, server.base_url, "--out", out, "--resume", "--quiet", judge=first_judge))
    assert again.returncode == 2, again.stderr
    message = again.stderr
    assert f"{out} was written by another judge" in message
    assert "criterion 'is_grounded' renamed to 'factual'" in message
    assert "criterion 'helpfulness' changed: minimum 2.0 -> 1.0" in message
    assert "criterion 'short' added" in message
    assert "start a new --out" in message
    assert other_model.returncode == 2
    assert "model 'jev-latest' -> 'jev-canary'" in other_model.stderr
    assert after_refusals == before  # refused before anything was rewritten
    assert same.returncode == 0, same.stderr
    assert sorted(r["row"] for r in read_results(out)) == list(range(1, 9))
    assert server.request_count == 3


# ----------------------------------------------------------------------------- an unreachable server


@WORKERS
def test_a_run_that_cannot_connect_stops_early_and_names_the_address(tmp_path: Path, workers: str) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(200))
    out = tmp_path / "results.jsonl"
    with JevServer() as server:
        url = server.base_url  # closed when the block ends: nothing listens there
    # the default retries, as a user runs it
    args = ["judge", data, "--judge", _judge_file(tmp_path, JUDGE), "--base-url", url, "--out", out]
    done = run_cli(*args, "--workers", workers, "--concurrency", "8", timeout=60)
    assert done.returncode == 3, done.stderr
    assert f"cannot connect to {url}" in done.stderr
    assert "run again with --resume" in done.stderr
    assert "Traceback" not in done.stderr
    assert len(read_results(out)) < 40  # it gave up after the first requests, not after 200


@pytest.mark.parametrize("url", ["notaurl", "localhost:8000", "ftp://example.com", "http://"])
def test_base_url_needs_a_scheme_and_a_host(url: str) -> None:
    done = run_cli("judge", "examples/weather.jsonl", "--judge", "examples/weather_judge.yaml", "--base-url", url)
    assert done.returncode == 2
    assert f"--base-url {url!r}" in done.stderr or f"--base-url: {url!r}" in done.stderr
    assert "http://" in done.stderr


# ----------------------------------------------------------------------------- write errors


@contextlib.contextmanager
def _small_filesystem() -> Iterator[Path]:
    """A 64 kB tmpfs (needs root and a kernel that lets this process mount one), else skip."""
    if sys.platform != "linux":
        pytest.skip("a small tmpfs needs Linux")
    where = Path(tempfile.mkdtemp(prefix="jev-full-"))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)], capture_output=True)
    if mounted.returncode != 0:
        where.rmdir()
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)
        where.rmdir()


@WORKERS
def test_a_full_disk_ends_the_run_with_one_line(tmp_path: Path, workers: str) -> None:
    rows = numbered_rows(120)
    for row in rows:
        row["answer"] += " " + "and then some more rain " * 40  # ~1 kB records: the disk fills part way
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    with _small_filesystem() as small, JevServer(weather_answers) as server:
        out = small / "results.jsonl"
        done = run_cli(
            *judge_args(data, server.base_url, "--out", out, "--workers", workers, "--concurrency", "4", "--quiet"),
            timeout=STOP_BOUND * 6,
        )
        written = read_results(out) if out.stat().st_size else []
        complete = out.read_bytes().endswith(b"\n")
        free_lock = not any(p.name.endswith(".lock") for p in small.iterdir())
    assert done.returncode == 3, done.stderr
    errors = _one_error_line(done.stderr)
    assert len(errors) == 1, done.stderr
    assert f"cannot write {out}: No space left on device" in errors[0]
    assert len(written) < 120
    assert complete or written  # whatever was written is whole lines (a cut line is dropped by --resume)
    assert free_lock


@linux_only
@WORKERS
def test_a_device_that_refuses_every_write_ends_the_run_with_one_line(tmp_path: Path, workers: str) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(30))
    with JevServer(weather_answers) as server:
        done = run_cli(
            *judge_args(data, server.base_url, "--out", "/dev/full", "--workers", workers, "--quiet"),
            timeout=STOP_BOUND * 6,
        )
    assert done.returncode == 3, done.stderr
    errors = _one_error_line(done.stderr)
    assert errors == ["langchain-jev: error: cannot write /dev/full: No space left on device"], done.stderr


@linux_only
@WORKERS
def test_a_results_folder_removed_during_the_run_ends_it_with_one_line(tmp_path: Path, workers: str) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(60))
    folder = tmp_path / "out"
    folder.mkdir()
    out = folder / "results.jsonl"
    with JevServer(weather_answers, delay=0.1) as server:
        args = judge_args(data, server.base_url, "--out", out, "--concurrency", "2", "--workers", workers, "--quiet")
        process = start_cli(*args)
        try:
            _wait_for_lines(process, out, 4)
            shutil.rmtree(folder)  # the results go nowhere from now on
            _, stderr = process.communicate(timeout=STOP_BOUND * 3)
        finally:
            process.kill()
            process.wait()
    assert process.returncode == 3, stderr
    errors = _one_error_line(stderr)
    assert len(errors) == 1, stderr
    assert f"cannot write {out}: the file (or its folder) was removed or replaced during the run" in errors[0]


@WORKERS
def test_a_closed_pipe_ends_the_run_quietly(tmp_path: Path, workers: str) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(200))
    with JevServer(weather_answers) as server:
        # `langchain-jev judge ... --out - | head -1`
        process = subprocess.Popen(
            cli_command(*judge_args(data, server.base_url, "--out", "-", "--workers", workers, "--quiet")),
            env=cli_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None and process.stderr is not None
            first = process.stdout.readline()
            process.stdout.close()
            process.wait(timeout=STOP_BOUND * 3)
            stderr = process.stderr.read()
        finally:
            process.kill()
            process.wait()
    assert json.loads(first)["row"] >= 1
    assert process.returncode == 3, stderr
    assert "BrokenPipeError" not in stderr
    assert _one_error_line(stderr) == ["langchain-jev: error: cannot write the results: the reader closed the pipe"]


def test_a_report_into_a_closed_pipe_is_no_traceback(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(5))
    with JevServer(weather_answers) as server:
        # `langchain-jev judge ... | true`: the table goes to a pipe nobody reads
        reader_gone = subprocess.run(
            f"{subprocess.list2cmdline(cli_command(*judge_args(data, server.base_url, '--quiet')))} | true",
            shell=True,
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert "Traceback" not in reader_gone.stderr
    assert "BrokenPipeError" not in reader_gone.stderr
