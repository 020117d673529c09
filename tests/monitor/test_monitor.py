"""A monitor pass over a project of traced runs, with the real ``langsmith.Client`` on a fake LangSmith API."""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
from pathlib import Path

import pytest

from langchain_jev import JevConfigurationError, JevJudge
from langchain_jev.models import JevDecisionModel
from langchain_jev.monitor import MonitorLine, amonitor, feedback_id, judge_fingerprint, monitor
from langchain_jev.testing.server import JevServer
from tests.support.fake_langsmith import FakeProject, fake_project
from tests.support.monitoring import (
    KEYS,
    LANGSMITH_KEY,
    T0,
    UNTIL,
    add_runs,
    client_for,
    criteria,
    day_pass,
    feedback_by_run,
    scripted_judge,
)


@pytest.fixture
def project() -> FakeProject:
    with fake_project() as served:
        yield served


def test_a_pass_over_500_runs_writes_one_feedback_per_criterion_and_run_and_the_verdict(
    project: FakeProject, tmp_path: Path
) -> None:
    ids = add_runs(project, 500)
    judge = scripted_judge()
    summary = day_pass(project, judge, cursor=tmp_path)
    assert (summary.read, summary.judged, summary.failed, summary.unmappable) == (500, 500, 0, 0)
    by_run = feedback_by_run(project)
    assert sorted(by_run) == sorted(ids)
    assert all(sorted(keys) == sorted(KEYS) for keys in by_run.values())
    assert len(project.feedback_posts()) == 1500 == summary.feedback_written  # nothing sent twice
    fingerprint = judge_fingerprint(judge)
    for body in project.feedback.values():
        assert body["id"] == str(feedback_id(fingerprint, body["run_id"], body["key"]))
        assert body["session_id"] == project.project_id  # the project, which LangSmith may require
        assert body["extend_trace_retention"] is False  # retention is not extended by default
        assert body["start_time"]
        assert body["feedback_source"]["type"] == "model"
    polite = next(b for b in project.feedback.values() if b["key"] == "polite")
    assert (polite["score"], polite["value"]) == (1.0, "PASSED (0.90)")


def test_runs_are_read_with_query_v2_over_the_whole_window_never_list_runs(project: FakeProject) -> None:
    add_runs(project, 250, start=T0 - datetime.timedelta(days=30), step=3600.0)  # a month-old backfill
    monitor(
        scripted_judge(),
        project="prod-chat",
        since="2025-12-01",
        until=UNTIL,
        client=client_for(project),
        cursor=None,
    )
    queries = project.queries()
    assert queries and all(
        q["min_start_time"].startswith("2025-12-01") for q in queries
    )  # not query_v2's one day
    assert all(q["max_start_time"] for q in queries)
    assert {"INPUTS", "OUTPUTS"} <= set(queries[-1]["selects"])  # the second step asks for them
    assert queries[0]["is_root"] is True and "INPUTS" not in queries[0]["selects"]
    assert not [r for r in project.requests if r.path.startswith("/runs")]  # the deprecated list_runs
    assert len(feedback_by_run(project)) == 250


def test_a_second_pass_and_an_overlapping_backfill_write_nothing(
    project: FakeProject, tmp_path: Path
) -> None:
    add_runs(project, 120)
    judge, client = scripted_judge(), client_for(project)
    first = monitor(
        judge,
        project="prod-chat",
        since=T0,
        until=T0 + datetime.timedelta(minutes=60),
        client=client,
        cursor=tmp_path,
    )
    assert first.judged == 60
    posts = len(project.feedback_posts())
    again = monitor(
        judge,
        project="prod-chat",
        since=T0,
        until=T0 + datetime.timedelta(minutes=60),
        client=client,
        cursor=tmp_path,
    )
    assert (again.judged, again.already, len(project.feedback_posts())) == (0, 60, posts)
    overlap = monitor(
        judge,
        project="prod-chat",
        since=T0 + datetime.timedelta(minutes=30),
        until=UNTIL,
        client=client,
        cursor=tmp_path,
    )
    assert (overlap.judged, overlap.already) == (60, 30)  # only the runs not judged yet
    assert len(project.feedback_posts()) == posts + 60 * len(KEYS)
    assert len(project.feedback) == 120 * len(KEYS)


def test_without_since_a_pass_starts_where_the_cursor_stopped(project: FakeProject, tmp_path: Path) -> None:
    now = datetime.datetime.now(datetime.UTC)
    add_runs(project, 30, start=now - datetime.timedelta(hours=2))
    judge, client = scripted_judge(), client_for(project)
    assert monitor(judge, project="prod-chat", client=client, cursor=tmp_path).judged == 30
    resumed = monitor(judge, project="prod-chat", client=client, cursor=tmp_path)
    assert resumed.judged == 0
    assert project.queries()[-1]["min_start_time"] > project.queries()[0]["min_start_time"]


def test_without_a_cursor_a_rerun_judges_again_but_feedback_ids_keep_each_once(project: FakeProject) -> None:
    add_runs(project, 20)
    judge, client = scripted_judge(), client_for(project)
    monitor(judge, project="prod-chat", since=T0, until=UNTIL, client=client, cursor=None)
    again = monitor(judge, project="prod-chat", since=T0, until=UNTIL, client=client, cursor=None)
    assert (again.feedback_written, again.feedback_existing) == (0, 60)
    assert len(project.feedback) == 60


def test_an_unmappable_run_gets_one_line_is_skipped_and_counted(project: FakeProject, tmp_path: Path) -> None:
    add_runs(project, 5)
    odd = project.add_run(start=T0 + datetime.timedelta(seconds=30), inputs={"q": 1}, outputs={})
    lines: list[MonitorLine] = []
    summary = day_pass(project, cursor=tmp_path, on_line=lines.append)
    assert (summary.unmappable, summary.judged) == (1, 5)
    assert [(line.kind, line.subject) for line in lines] == [("skipped", odd)]
    assert "\n" not in lines[0].text and "answer" in lines[0].text
    assert odd not in feedback_by_run(project)
    assert day_pass(project, cursor=tmp_path).unmappable == 0  # skipped once, not every pass


def test_a_judge_that_cannot_reach_its_model_writes_nothing_and_is_retried_next_pass(
    project: FakeProject, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_runs(project, 8)
    monkeypatch.setenv("TYPESAFE_API_KEY", "sk-test-monitor-model-key-0123456789")
    down = JevJudge(criteria(), model=JevDecisionModel(base_url="http://127.0.0.1:9", max_retries=0))
    lines: list[MonitorLine] = []
    failed = day_pass(project, down, cursor=tmp_path, on_line=lines.append)
    assert (failed.failed, failed.feedback_written, len(project.feedback_posts())) == (8, 0, 0)
    assert {line.kind for line in lines} == {"failed"}
    assert "sk-test-monitor-model-key" not in " ".join(line.text for line in lines)
    with JevServer({"polite": 0.9, "helpful": 2.6}) as server:  # the same judge, its model reachable again
        up = JevJudge(criteria(), model=JevDecisionModel(base_url=server.base_url, max_retries=0))
        assert judge_fingerprint(up) == judge_fingerprint(down)
        retried = day_pass(project, up, cursor=tmp_path)
    assert (retried.judged, retried.already, len(project.feedback)) == (8, 0, 8 * len(KEYS))


def test_a_429_with_retry_after_pauses_every_worker_and_the_feedback_is_written_once(
    project: FakeProject,
) -> None:
    add_runs(project, 12)
    project.refuse(429, {"Retry-After": "1"})
    started = time.monotonic()
    summary = day_pass(project, concurrency=4, client=client_for(project, retries=False))
    posts = project.feedback_posts()
    refused = next(r for r in posts if r.status == 429)
    # requests already in flight when LangSmith said 429 land at once; none leaves until Retry-After is over
    assert not [r for r in posts if refused.at + 0.2 < r.at < refused.at + 0.95]
    assert [r for r in posts if r.at >= refused.at + 0.95]
    assert (summary.feedback_written, len(project.feedback)) == (36, 36)
    assert time.monotonic() - started >= 1.0


def test_the_clients_own_retries_honour_retry_after_too(project: FakeProject) -> None:
    add_runs(project, 2)
    project.refuse(429, {"Retry-After": "1"})
    day_pass(project, concurrency=1)
    posts = project.feedback_posts()
    assert posts[0].status == 429 and posts[1].at - posts[0].at >= 0.95
    assert len(project.feedback) == 6


def test_max_runs_stops_the_pass_at_the_cap_and_the_next_continues(
    project: FakeProject, tmp_path: Path
) -> None:
    add_runs(project, 250)
    judge = scripted_judge()
    capped = day_pass(project, judge, max_runs=130, concurrency=16, cursor=tmp_path)
    assert capped.stopped_at_cap and capped.judged == 130 == judge.model.calls  # type: ignore[attr-defined]
    rest = day_pass(project, judge, cursor=tmp_path)
    assert (rest.judged, rest.already) == (120, 130)
    assert len(project.feedback) == 250 * len(KEYS)


def test_a_dry_run_judges_and_says_what_it_would_write_but_writes_nothing(
    project: FakeProject, tmp_path: Path
) -> None:
    add_runs(project, 4)
    lines: list[MonitorLine] = []
    summary = day_pass(project, dry_run=True, cursor=tmp_path, on_line=lines.append)
    assert summary.judged == 4 and len([line for line in lines if line.kind == "preview"]) == 4
    assert "polite=PASSED (0.90)" in lines[0].text
    assert not project.feedback_posts() and not list(tmp_path.iterdir())  # not even the cursor


def test_sampling_keeps_the_runs_whose_hash_falls_under_the_rate(project: FakeProject) -> None:
    from langchain_jev.monitor import sampled

    ids = add_runs(project, 200)
    summary = day_pass(project, sample=0.25)
    kept = {run_id for run_id in ids if sampled(run_id, 0.25)}
    assert set(feedback_by_run(project)) == kept and summary.not_sampled == 200 - len(kept)
    assert 25 < len(kept) < 75


def test_the_langsmith_key_is_never_in_comments_logs_or_errors(
    project: FakeProject, caplog: pytest.LogCaptureFixture
) -> None:
    add_runs(project, 3)
    project.refuse(500, times=50)
    lines: list[MonitorLine] = []
    with caplog.at_level(logging.DEBUG):
        summary = day_pass(
            project, concurrency=3, client=client_for(project, retries=False), on_line=lines.append
        )
    assert summary.failed == 3
    said = caplog.text + " ".join(line.text for line in lines) + repr(summary)
    assert LANGSMITH_KEY not in said and LANGSMITH_KEY[-16:] not in said


def test_async_monitor_writes_the_same_feedback(project: FakeProject, tmp_path: Path) -> None:
    add_runs(project, 40)
    summary = asyncio.run(
        amonitor(
            scripted_judge(),
            project="prod-chat",
            since=T0,
            until=UNTIL,
            client=client_for(project),
            cursor=tmp_path,
        )
    )
    assert (summary.judged, len(project.feedback)) == (40, 40 * len(KEYS))
    again = asyncio.run(
        amonitor(
            scripted_judge(),
            project="prod-chat",
            since=T0,
            until=UNTIL,
            client=client_for(project),
            cursor=tmp_path,
        )
    )
    assert again.judged == 0


def test_threads_judge_an_idle_conversation_once_as_one_thread(project: FakeProject, tmp_path: Path) -> None:
    now = datetime.datetime.now(datetime.UTC)
    old = now - datetime.timedelta(hours=2)
    turns = [
        project.add_run(start=old + datetime.timedelta(minutes=i), thread_id="conv-1",
                        inputs={"question": f"turn {i}?"}, outputs={"answer": f"reply {i}"})
        for i in range(3)
    ]  # fmt: skip
    project.add_run(
        start=now - datetime.timedelta(minutes=3),
        thread_id="conv-2",
        inputs={"question": "still going?"},
        outputs={"answer": "yes"},
    )
    judge = scripted_judge()
    summary = monitor(
        judge,
        project="prod-chat",
        threads=True,
        since=old - datetime.timedelta(minutes=1),
        client=client_for(project),
        cursor=tmp_path,
    )
    assert (summary.judged, summary.pending) == (1, 1)
    assert set(feedback_by_run(project)) == {turns[-1]}  # written on the last turn
    state = judge.model.requests[0]["state"]  # type: ignore[attr-defined]
    assert state["user_question"] == "turn 2?" and len(state["conversation"]) == 5
    again = monitor(
        judge,
        project="prod-chat",
        threads=True,
        since=old - datetime.timedelta(minutes=1),
        client=client_for(project),
        cursor=tmp_path,
    )
    assert again.judged == 0 and len(project.feedback) == len(KEYS)


def test_bad_options_are_refused_by_name(project: FakeProject) -> None:
    for options, named in (({"sample": 1.5}, "sample"), ({"max_runs": -1}, "max_runs"), ({"concurrency": 0}, "concurrency"),
                           ({"since": "yesterday-ish"}, "since")):  # fmt: skip
        with pytest.raises(JevConfigurationError, match=named):
            monitor(scripted_judge(), project="prod-chat", client=client_for(project), cursor=None, **options)


def test_retention_is_extended_only_when_asked_and_each_write_is_still_answered(project: FakeProject) -> None:
    add_runs(project, 3)
    day_pass(project, extend_trace_retention=True)  # fmt: skip
    bodies = [post.json() for post in project.feedback_posts()]
    assert len(bodies) == 9 and all(body["extend_trace_retention"] is True for body in bodies)
    assert not any("trace_id" in body for body in bodies)  # sent one by one, not through the background queue
    assert not [r for r in project.requests if "multipart" in r.path or r.path.startswith("/runs")]
