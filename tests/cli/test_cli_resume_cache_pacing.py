"""Resuming an interrupted run, answering a rerun from the cache, and pacing requests."""

from __future__ import annotations

import json
import sys
import time
import uuid
from pathlib import Path

import pytest

from langchain_jev.testing.server import Fault, JevServer
from tests.cli.helpers import (
    WEATHER_DATA,
    WORKERS,
    judge_args,
    marked_processes,
    numbered_rows,
    read_results,
    run_cli,
    start_cli,
    wait_for_no_processes,
    weather_answers,
    worker_pids,
    write_jsonl,
)

pytestmark = pytest.mark.slow  # subprocesses, servers or large loads: `-m "not slow"` leaves them out


def _complete_lines(path: Path) -> list[str]:
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    return text.splitlines()[: text.count("\n")]


@WORKERS
def test_resume_after_a_kill_neither_repeats_nor_loses_a_row(tmp_path: Path, workers: str) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(60))
    out = tmp_path / "results.jsonl"
    marker = uuid.uuid4().hex
    with JevServer(weather_answers, delay=0.1) as server:
        process = start_cli(
            *judge_args(data, server.base_url, "--out", out, "--concurrency", "2", "--workers", workers),
            JEV_TEST_RUN=marker,
        )
        try:
            deadline = time.monotonic() + 90
            while len(_complete_lines(out)) < 11:  # the header and ten rows
                assert process.poll() is None, process.communicate()
                assert time.monotonic() < deadline, "the run wrote too few lines"
                time.sleep(0.02)
            if sys.platform == "linux":
                assert process.pid in marked_processes(marker)
                assert len(worker_pids(process.pid, marker)) == (2 if workers == "2" else 0)
            process.kill()
        finally:
            process.wait()
        if sys.platform == "linux":  # killed with the command, its worker processes are gone too
            assert wait_for_no_processes(marker) == {}
        header, *kept = _complete_lines(out)  # the header records the judge; the rows follow
        assert json.loads(header)["langchain_jev"] == "results"
        assert 10 <= len(kept) < 60
        # a kill in the middle of a write leaves the last line cut short
        with open(out, "a", encoding="utf-8") as handle:
            handle.write('{"row": 60, "line": 60, "key": "0123')
        server.reset()
        resumed = run_cli(
            *judge_args(data, server.base_url, "--out", out, "--resume", "--concurrency", "8", "--workers", workers)
        )
    assert resumed.returncode == 0, resumed.stderr
    records = read_results(out)
    assert sorted(r["row"] for r in records) == list(range(1, 61))
    assert server.request_count == 60 - len(kept)
    assert sorted(int(m[1:]) for m in server.markers()) == sorted(
        set(range(1, 61)) - {r["row"] for r in records[: len(kept)]}
    )
    assert f"resuming: {len(kept)} row(s) already judged" in resumed.stderr
    assert "cut short" in resumed.stderr
    # the report covers the whole dataset, the rows of both runs
    assert "60 rows: 45 passed, 15 failed, pass rate 75.0%" in resumed.stdout


def test_resume_judges_again_the_rows_that_could_not_be_judged(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(10))
    out = tmp_path / "results.jsonl"

    def flaky(request):  # type: ignore[no-untyped-def]
        marker = request.state.get("marker") if isinstance(request.state, dict) else None
        return Fault(status=503) if marker in ("m3", "m7") else None

    with JevServer(weather_answers, faults=flaky) as server:
        first = run_cli(*judge_args(data, server.base_url, "--out", out, "--quiet"))
        assert first.returncode == 3
        assert sorted(r["row"] for r in read_results(out) if "error" in r) == [3, 7]
        server.faults = None
        server.reset()
        second = run_cli(*judge_args(data, server.base_url, "--out", out, "--resume", "--quiet"))
    assert second.returncode == 0, second.stderr
    records = read_results(out)
    assert sorted(r["row"] for r in records) == list(range(1, 11))
    assert not [r for r in records if "error" in r]
    assert sorted(server.markers()) == ["m3", "m7"]
    assert "2 row(s) that could not be judged are judged again" in second.stderr


def test_resume_refuses_data_that_changed(tmp_path: Path) -> None:
    rows = numbered_rows(5)
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    out = tmp_path / "results.jsonl"
    with JevServer(weather_answers) as server:
        assert run_cli(*judge_args(data, server.base_url, "--out", out, "--quiet")).returncode == 0
        rows[1]["answer"] = "Something else entirely."
        write_jsonl(data, rows)
        again = run_cli(*judge_args(data, server.base_url, "--out", out, "--resume", "--quiet"))
    assert again.returncode == 2
    assert "row 2 is not the row recorded in" in again.stderr
    assert len(read_results(out)) == 5


def test_resume_needs_a_results_file(tmp_path: Path) -> None:
    done = run_cli("judge", WEATHER_DATA, "--judge", "examples/weather_judge.yaml", "--resume")
    assert done.returncode == 2
    assert "--resume needs --out PATH" in done.stderr


@WORKERS
def test_a_second_run_with_the_cache_makes_no_request(tmp_path: Path, workers: str) -> None:
    cache = tmp_path / "answers.sqlite"
    first_out, second_out = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    with JevServer(weather_answers) as server:
        first = run_cli(
            *judge_args(WEATHER_DATA, server.base_url, "--cache", cache, "--out", first_out, "--workers", workers)
        )
        assert first.returncode == 0, first.stderr
        assert server.request_count == 8
        server.reset()
        second = run_cli(
            *judge_args(WEATHER_DATA, server.base_url, "--cache", cache, "--out", second_out, "--workers", workers)
        )
        assert second.returncode == 0, second.stderr
        assert server.request_count == 0
    before = {r["id"]: r["summary"] for r in read_results(first_out)}
    after = {r["id"]: r["summary"] for r in read_results(second_out)}
    assert after == before
    assert all(r.get("cache_hit") is True for r in read_results(second_out))
    assert "(8 answered from the cache)" in second.stdout


@WORKERS
def test_rate_limit_spaces_the_requests(tmp_path: Path, workers: str) -> None:
    rate, count = 10.0, 25
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(count))
    with JevServer(weather_answers) as server:
        done = run_cli(
            *judge_args(
                data, server.base_url, "--rate-limit", str(rate), "--concurrency", "8", "--quiet", "--workers", workers
            )
        )
        times = server.times()
    assert done.returncode == 0, done.stderr
    assert len(times) == count
    # With 8 rows in flight (over all workers) and an instant server, only the limiter spaces them out.
    # It grants a token only when one is due, never ahead, so requests leave 1 / rate apart; each then
    # reaches the server a little later, longer on a busy machine (a process not scheduled, a connection
    # still opening), and one that arrives late sits closer to the next. So the rate is checked where a
    # late request cannot decide it: over the whole run, and in the median of the windows of 5 requests.
    # Without the limiter all 25 arrive within a fraction of a second, failing both.
    span = times[-1] - times[0]
    assert span >= 0.7 * (count - 1) / rate, span
    windows = sorted(times[i + 5] - times[i] for i in range(count - 5))
    assert windows[len(windows) // 2] >= 0.7 * 5 / rate, windows
