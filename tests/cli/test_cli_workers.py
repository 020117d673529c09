"""Rows judged in worker processes: the same results, one writer, no process left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from langchain_jev.datasets._local.pool import (
    CONCURRENCY_PER_WORKER,
    ROWS_PER_WORKER,
    WorkerSetup,
    auto_workers,
    resolve_workers,
    split_concurrency,
)
from langchain_jev.datasets._model import ModelSettings
from langchain_jev.datasets._pacing import ParentLimiter
from langchain_jev.datasets._rows import FieldMap
from langchain_jev.spec import load_spec
from langchain_jev.testing import ScriptedDecisionModel
from langchain_jev.testing.server import JevServer
from tests.cli.helpers import (
    cli_env,
    judge_args,
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

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="reads processes from /proc")


def _complete_lines(path: Path) -> int:
    return path.read_text(encoding="utf-8").count("\n") if path.exists() else 0


# ----------------------------------------------------------------------------- whole runs


# functions named by import path, which each worker imports for itself
CODE_JUDGE = {
    "feedback_renderer": "tests.cli.checks:shouting_feedback",
    "criteria": [
        {"kind": "check", "name": "short", "check": {"call": "tests.cli.checks:short_answer"}, "defect": "too long"},
        {"kind": "noul", "name": "has_details", "instructions": "Does `assistant_answer` give details?", "minimum": 0.7},
    ],
}


def test_workers_write_what_one_process_writes(tmp_path: Path) -> None:
    rows = numbered_rows(60)
    del rows[11]["answer"]  # a bad row, named by the reading process
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    spec = tmp_path / "judge.json"
    spec.write_text(json.dumps(CODE_JUDGE), encoding="utf-8")
    outs = {workers: tmp_path / f"results-{workers}.jsonl" for workers in ("1", "3")}
    marker = uuid.uuid4().hex
    with JevServer(weather_answers, delay=0.02) as server:
        runs = {
            workers: run_cli(
                *judge_args(
                    data, server.base_url, "--out", out, "--concurrency", "6", "--workers", workers,
                    "--allow-code", "tests.cli.checks", judge=spec,
                ),
                JEV_TEST_RUN=marker,
            )
            for workers, out in outs.items()
        }
    assert [run.returncode for run in runs.values()] == [2, 2], runs["3"].stderr
    one, three = ({r["row"]: r for r in read_results(out)} for out in outs.values())
    assert sorted(three) == [row for row in range(1, 61) if row != 12]
    assert three == one  # record for record (the server echoes each row's marker as its request id)
    assert three[1]["feedback"] == "SHORT: TOO LONG"  # the renderer, imported in a worker
    assert three[4]["feedback"].startswith("HAS_DETAILS: NOT MET")
    assert runs["3"].stdout == runs["1"].stdout  # the same table and summary
    assert "rows.jsonl:12: row 12: missing 'answer'" in runs["3"].stderr
    if sys.platform == "linux":
        assert wait_for_no_processes(marker) == {}


@linux_only
def test_a_worker_that_dies_stops_the_run_and_resume_finishes_it(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(40))
    out = tmp_path / "results.jsonl"
    marker = uuid.uuid4().hex
    with JevServer(weather_answers, delay=0.1) as server:
        args = judge_args(data, server.base_url, "--out", out, "--concurrency", "2", "--workers", "2")
        process = start_cli(*args, JEV_TEST_RUN=marker)
        try:
            deadline = time.monotonic() + 90
            while _complete_lines(out) < 6 or len(workers := worker_pids(process.pid, marker)) < 2:
                assert process.poll() is None, process.communicate()
                assert time.monotonic() < deadline, "the run wrote too few lines"
                time.sleep(0.02)
            os.kill(workers[0], signal.SIGKILL)
            _, stderr = process.communicate(timeout=60)
        finally:
            process.kill()
            process.wait()
        assert process.returncode == 3, stderr
        assert "stopped unexpectedly (exit code -9)" in stderr
        assert "run again with --resume to finish" in stderr
        assert wait_for_no_processes(marker) == {}
        first = read_results(out)  # every line whole: only the command writes the file
        assert 6 <= len(first) < 40
        assert len({r["row"] for r in first}) == len(first)
        server.reset()
        resumed = run_cli(*judge_args(data, server.base_url, "--out", out, "--resume", "--workers", "2"))
    assert resumed.returncode == 0, resumed.stderr
    assert sorted(r["row"] for r in read_results(out)) == list(range(1, 41))
    assert server.request_count == 40 - len(first)


@linux_only
def test_ctrl_c_stops_the_command_and_its_workers_and_resume_finishes(sigint_at_start: str, tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(40))
    out = tmp_path / "results.jsonl"
    marker = uuid.uuid4().hex
    with JevServer(weather_answers, delay=0.1) as server:
        args = judge_args(data, server.base_url, "--out", out, "--concurrency", "2", "--workers", "2")
        process = start_cli(*args, JEV_TEST_RUN=marker, start_new_session=True)
        try:
            deadline = time.monotonic() + 90
            while _complete_lines(out) < 6 or len(worker_pids(process.pid, marker)) < 2:
                assert process.poll() is None, process.communicate()
                assert time.monotonic() < deadline, "the run wrote too few lines"
                time.sleep(0.02)
            os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C sends: the whole process group
            _, stderr = process.communicate(timeout=60)
        finally:
            process.kill()
            process.wait()
        assert process.returncode == 130
        assert "interrupted (run again with --resume to finish)" in stderr
        assert "Traceback" not in stderr
        assert wait_for_no_processes(marker) == {}
        first = read_results(out)
        server.reset()
        resumed = run_cli(*judge_args(data, server.base_url, "--out", out, "--resume", "--workers", "2"))
    assert resumed.returncode == 0, resumed.stderr
    assert sorted(r["row"] for r in read_results(out)) == list(range(1, 41))
    assert server.request_count == 40 - len(first)


@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_workers_must_be_auto_or_a_positive_number(value: str) -> None:
    done = run_cli("judge", "examples/weather.jsonl", "--judge", "examples/weather_judge.yaml", "--workers", value)
    assert done.returncode == 2
    assert f"--workers: must be 'auto' or a whole number of at least 1, got '{value}'" in done.stderr


def test_help_names_the_workers_option() -> None:
    done = run_cli("judge", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "--workers N processes judging rows, each with its share of --concurrency" in text
    assert "auto (the default)" in text


# ----------------------------------------------------------------------------- choosing and sharing


@given(concurrency=st.integers(1, 500), workers=st.integers(1, 64))
def test_each_worker_gets_a_share_of_the_concurrency(concurrency: int, workers: int) -> None:
    count = resolve_workers(workers, concurrency, 10_000)
    shares = split_concurrency(concurrency, count)
    assert len(shares) == min(workers, concurrency)
    assert sum(shares) == concurrency
    assert max(shares) - min(shares) <= 1
    assert min(shares) >= 1


@given(concurrency=st.integers(1, 500), rows=st.none() | st.integers(0, 100_000), cpus=st.integers(1, 64))
def test_auto_workers_stay_within_the_cpus_and_the_work(concurrency: int, rows: int | None, cpus: int) -> None:
    count = auto_workers(concurrency, rows, cpus)
    assert 1 <= count <= cpus
    assert count == 1 or count * CONCURRENCY_PER_WORKER <= concurrency
    assert count == 1 or rows is None or count * ROWS_PER_WORKER <= rows


def test_auto_uses_workers_for_a_large_concurrent_run_only() -> None:
    assert auto_workers(64, 3200, cpus=2) == 2  # the throughput benchmark's run
    assert auto_workers(64, 1000, cpus=2) == auto_workers(64, 10_000, cpus=2) == 2  # the memory benchmark's
    assert auto_workers(32, 3200, cpus=2) == 1  # one event loop keeps up (and the default concurrency 8)
    assert auto_workers(64, 8, cpus=2) == 1  # over before a worker would have started
    assert auto_workers(64, 3200, cpus=1) == 1
    assert resolve_workers(2, 64, 0) == 1  # nothing left to judge (a finished run resumed)


def test_the_worker_setup_is_plain_data_that_rebuilds_the_same_judge() -> None:
    spec = load_spec(
        {
            "name": "everything",
            "requires": ["assistant_answer"],
            "min_confidence": 0.55,
            "fail_on_error": True,
            "feedback_renderer": "tests.cli.checks:shouting_feedback",
            "criteria": [
                {"kind": "check", "name": "short", "check": {"call": "tests.cli.checks:short_answer"}, "defect": "long"},
                {
                    "kind": "check",
                    "name": "searched",
                    "check": {"any": [{"tool_called": "search"}, {"not": {"present": "supporting_context"}}]},
                    "defect": "no search",
                },
                {
                    "kind": "noul",
                    "name": "grounded",
                    "instructions": "Grounded?",
                    "minimum": 0.7,
                    "applies_when": {"field": "lang", "equals": "en"},
                },
                {"kind": "score", "name": "helpful", "instructions": "Helpful?", "levels": ["no", "some", "yes"], "minimum": 1},
                {"kind": "choice", "name": "mode", "instructions": "Mode?", "options": ["answered", "asked"], "accepted": "answered"},
                {
                    "kind": "noul",
                    "name": "details",
                    "instructions": "Details?",
                    "minimum": 0.6,
                    "when_chosen": {"criterion": "mode", "labels": "answered"},
                },
                {"kind": "noul", "name": "polite", "instructions": "Polite?", "minimum": 0.5, "when_passed": "helpful"},
            ],
        }
    )
    settings = ModelSettings(model="jev-canary", base_url="http://127.0.0.1:9", timeout=3.0, max_retries=0, cache="c.db")
    fields = FieldMap.of(question="prompt", ignored=["notes"])
    setup = WorkerSetup.of(spec, settings, fields, spec.required_fields(), rate_limit=5.0)
    payload = json.loads(json.dumps(setup.for_worker(3)))  # what crosses to a worker is JSON
    rebuilt = load_spec(payload["spec"])
    assert rebuilt.model_dump() == spec.model_dump()
    model = ScriptedDecisionModel({"grounded": 0.9, "helpful": 2.0, "mode": "answered", "details": 0.9, "polite": 0.9})
    trusted = ["tests.cli.checks"]
    same = [rebuilt.build(model, allow_code=trusted).judge("What is up?", "All is fine.").to_dict() for _ in range(2)]
    assert same[0] == spec.build(model, allow_code=trusted).judge("What is up?", "All is fine.").to_dict() == same[1]
    assert ModelSettings.from_dict(payload["settings"]) == ModelSettings(**{**settings.to_dict(), "concurrency": 3})
    assert FieldMap.from_dict(payload["fields"]) == fields
    assert payload["required"] == spec.required_fields()
    assert payload["rate_limit"] == 5.0
    assert "sk-" not in json.dumps(payload)  # the key stays in the environment


async def test_a_workers_limiter_waits_as_long_as_the_parent_says() -> None:
    granted: list[float] = []

    replies = [0.0, 0.05, 0.0, 0.1, 0.0]  # the parent's answers: a token (0), or how long until one

    async def grant() -> float:
        granted.append(replies[len(granted)])  # asked once too often: IndexError, never a hang
        return granted[-1]

    limiter = ParentLimiter(20.0, grant)
    start = time.monotonic()
    waits = [await limiter.aacquire() for _ in range(3)]
    assert waits == [0.0, 0.05, 0.1]
    assert time.monotonic() - start >= 0.15
    with pytest.raises(RuntimeError, match="asynchronous"):
        limiter.acquire()


def test_a_script_without_a_main_guard_can_run_workers(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(12))
    out = tmp_path / "results.jsonl"
    script = tmp_path / "judge_rows.py"
    with JevServer(weather_answers) as server:
        args = [*judge_args(data, server.base_url, "--out", out, "--workers", "2", "--quiet")]
        # no `if __name__ == "__main__":` here: workers must not run this script again
        script.write_text(f"import sys\nfrom langchain_jev.cli import main\nsys.exit(main({args!r}))\n", encoding="utf-8")
        done = subprocess.run(
            [sys.executable, str(script)], env=cli_env(), capture_output=True, text=True, timeout=120, cwd=tmp_path
        )
    assert done.returncode == 0, done.stderr
    assert sorted(r["row"] for r in read_results(out)) == list(range(1, 13))
    assert done.stdout.count("12 rows: 9 passed") == 1


def test_rows_and_results_larger_than_a_pipe_can_hold_do_not_stall_the_run(tmp_path: Path) -> None:
    rows = numbered_rows(200)
    for index, row in enumerate(rows):
        row["context"] = [f"Document {index}-{part}: " + "rain and wind " * 700 for part in range(3)]  # ~30 kB a row
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    spec = tmp_path / "judge.json"
    long_defect = "the answer is not JSON; " * 1000  # ~24 kB in each result, twice (detail and feedback)
    spec.write_text(
        json.dumps(
            {
                "criteria": [
                    {"kind": "check", "name": "json", "check": {"answer_is_json": True}, "defect": long_defect},
                    {"kind": "noul", "name": "has_details", "instructions": "Details in `assistant_answer`?", "minimum": 0.5},
                ]
            }
        ),
        encoding="utf-8",
    )
    out = tmp_path / "results.jsonl"
    with JevServer(weather_answers, keep_bodies=False) as server:
        done = run_cli(
            *judge_args(data, server.base_url, "--out", out, "--concurrency", "64", "--workers", "2", "--quiet", judge=spec),
            timeout=90,
        )
    assert done.returncode == 0, done.stderr
    records = read_results(out)
    assert sorted(r["row"] for r in records) == list(range(1, 201))
    assert all(long_defect.strip() in r["feedback"] for r in records)
