"""``langchain-jev monitor``: a pass from the command line, a kill and a Ctrl-C mid-way, a dry run."""

from __future__ import annotations

import collections
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from langchain_jev.datasets._exit_codes import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK
from langchain_jev.testing.server import JevServer
from tests.cli.helpers import run_cli, start_cli
from tests.support.fake_langsmith import FakeProject, fake_project
from tests.support.monitoring import KEYS, LANGSMITH_KEY, T0, UNTIL, add_runs, feedback_by_run

JUDGE = """\
criteria:
  - {name: polite, kind: noul, instructions: "Is `assistant_answer` polite?", minimum: 0.7}
  - name: helpful
    kind: score
    instructions: How well does `assistant_answer` address `user_question`?
    levels: ["Not at all", "Partly", "Mostly", "Fully"]
    minimum: 2
"""
WINDOW = ["--since", T0.isoformat(), "--until", UNTIL.isoformat()]


@pytest.fixture
def project() -> Iterator[FakeProject]:
    with fake_project() as served:
        yield served


@pytest.fixture
def judge_file(tmp_path: Path) -> Path:
    path = tmp_path / "judge.yaml"
    path.write_text(JUDGE, encoding="utf-8")
    return path


def env(project: FakeProject, state: Path) -> dict[str, str]:
    return {
        "LANGSMITH_API_KEY": LANGSMITH_KEY,
        "LANGSMITH_ENDPOINT": project.url,
        "LANGCHAIN_JEV_STATE_DIR": str(state),
    }


def args(judge: Path, server: JevServer, *extra: str) -> list[str]:
    return ["monitor", "--project", "prod-chat", "--judge", str(judge), "--base-url", server.base_url,
            "--max-retries", "0", *WINDOW, *extra]  # fmt: skip


def test_a_pass_writes_each_feedback_and_a_second_writes_none(
    project: FakeProject, judge_file: Path, tmp_path: Path
) -> None:
    add_runs(project, 60)
    with JevServer({"polite": 0.9, "helpful": 2.6}) as server:
        first = run_cli(*args(judge_file, server), **env(project, tmp_path / "state"))
        assert first.returncode == EXIT_OK, first.stderr
        assert "60 runs judged" in first.stdout and "feedback written: 180" in first.stdout
        second = run_cli(*args(judge_file, server), **env(project, tmp_path / "state"))
        assert second.returncode == EXIT_OK, second.stderr
        assert "0 runs judged; 60 already judged" in second.stdout
        assert server.request_count == 60
    assert len(project.feedback_posts()) == 180 == len(project.feedback)
    assert LANGSMITH_KEY not in first.stdout + first.stderr + second.stdout + second.stderr


def _wait_for_feedback(project: FakeProject, count: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while len(project.feedback) < count:
        assert time.monotonic() < deadline, "the monitor wrote too little"
        time.sleep(0.02)


def test_a_pass_killed_mid_way_and_resumed_writes_each_feedback_exactly_once(
    project: FakeProject, judge_file: Path, tmp_path: Path
) -> None:
    ids = add_runs(project, 500)
    with JevServer({"polite": 0.9, "helpful": 2.6}, delay=0.01) as server:
        process = start_cli(
            *args(judge_file, server, "--concurrency", "4"), **env(project, tmp_path / "state")
        )
        try:
            _wait_for_feedback(project, 300)
        finally:
            process.send_signal(signal.SIGKILL)
            process.communicate(timeout=60)
        written_before = len(project.feedback)
        assert 300 <= written_before < 1500
        resumed = run_cli(*args(judge_file, server, "--concurrency", "4"), **env(project, tmp_path / "state"))
        assert resumed.returncode == EXIT_OK, resumed.stderr
        judged = server.request_count
    by_run = feedback_by_run(project)
    assert sorted(by_run) == sorted(ids) and all(sorted(keys) == sorted(KEYS) for keys in by_run.values())
    posted = collections.Counter(r.json()["id"] for r in project.feedback_posts() if r.status == 200)
    assert set(posted.values()) == {1} and len(posted) == 1500  # each written exactly once
    again = [r for r in project.feedback_posts() if r.status == 409]
    assert len(again) <= 4 * len(KEYS)  # at most the runs in flight when killed are sent again
    assert judged <= 500 + 4  # and only they are judged twice


def test_ctrl_c_leaves_the_cursor_at_the_last_run_fully_written(
    project: FakeProject, judge_file: Path, tmp_path: Path
) -> None:
    add_runs(project, 400)
    with JevServer({"polite": 0.9, "helpful": 2.6}, delay=0.01) as server:
        process = start_cli(
            *args(judge_file, server, "--concurrency", "4"), **env(project, tmp_path / "state")
        )
        try:
            _wait_for_feedback(project, 240)
        finally:
            process.send_signal(signal.SIGINT)
            _, stderr = process.communicate(timeout=60)
        assert process.returncode == EXIT_INTERRUPTED, stderr
        assert len(project.feedback) < 1200
        resumed = run_cli(*args(judge_file, server, "--concurrency", "4"), **env(project, tmp_path / "state"))
        assert resumed.returncode == EXIT_OK, resumed.stderr
    assert len(project.feedback) == 1200
    assert not [r for r in project.feedback_posts() if r.status == 409]  # nothing written was sent again


def test_a_dry_run_prints_the_feedback_it_would_write_and_writes_nothing(
    project: FakeProject, judge_file: Path, tmp_path: Path
) -> None:
    add_runs(project, 3)
    with JevServer({"polite": 0.9, "helpful": 2.6}) as server:
        done = run_cli(*args(judge_file, server, "--dry-run"), **env(project, tmp_path / "state"))
    assert done.returncode == EXIT_OK, done.stderr
    assert done.stdout.count("would write on run") == 3 and "polite=PASSED (0.90)" in done.stdout
    assert "feedback would be written (dry run): 9" in done.stdout
    assert not project.feedback_posts() and not (tmp_path / "state").exists()


def test_an_unknown_project_and_a_bad_time_are_bad_input(
    project: FakeProject, judge_file: Path, tmp_path: Path
) -> None:
    with JevServer({"polite": 0.9, "helpful": 2.6}) as server:
        unknown = run_cli(
            *[a if a != "prod-chat" else "nope" for a in args(judge_file, server)], **env(project, tmp_path)
        )
        bad_time = run_cli(
            "monitor",
            "--project",
            "prod-chat",
            "--judge",
            str(judge_file),
            "--base-url",
            server.base_url,
            "--since",
            "last tuesday",
            **env(project, tmp_path),
        )
    assert unknown.returncode == EXIT_BAD_INPUT and "no LangSmith project named 'nope'" in unknown.stderr
    assert bad_time.returncode == EXIT_BAD_INPUT and "'last tuesday' is not a time" in bad_time.stderr
