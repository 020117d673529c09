"""The monitor's pure decisions: ids, the sample, the fingerprint, the cursor's arithmetic, the window."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest

from langchain_jev import JevConfigurationError, JevJudge
from langchain_jev.monitor import (
    Cursor,
    CursorKey,
    FileCursorStore,
    RunRef,
    Window,
    feedback_id,
    judge_fingerprint,
    sampled,
)
from langchain_jev.monitor._cursor import advance
from langchain_jev.monitor._limits import DEFAULT_RETRY_AFTER, RateGate, retry_after
from langchain_jev.monitor._window import SETTLE, window_of
from langchain_jev.testing import ScriptedDecisionModel
from tests.support.monitoring import criteria, scripted_judge

ROOT = Path(__file__).resolve().parents[2]
T = [datetime.datetime(2026, 1, 1, h, tzinfo=datetime.UTC) for h in range(12)]


def test_sampling_picks_the_same_runs_in_two_processes() -> None:
    ids = [str(uuid.UUID(int=i * 7919 + 13)) for i in range(2000)]
    code = (
        "import json, sys\nfrom langchain_jev.monitor import sampled\n"
        "ids = json.load(sys.stdin)\nprint(json.dumps([i for i in ids if sampled(i, 0.1)]))\n"
    )
    picks = []
    for seed in ("1", "2"):  # another hash seed, as another machine would have
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", code],
            input=json.dumps(ids),
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=120,
        )
        picks.append(json.loads(done.stdout))
    assert picks[0] == picks[1] == [i for i in ids if sampled(i, 0.1)]
    assert 150 < len(picks[0]) < 250


def test_a_higher_rate_keeps_every_run_a_lower_rate_kept() -> None:
    ids = [str(uuid.uuid4()) for _ in range(500)]
    assert {i for i in ids if sampled(i, 0.1)} <= {i for i in ids if sampled(i, 0.3)}
    assert all(sampled(i, 1.0) for i in ids) and not any(sampled(i, 0.0) for i in ids)
    with pytest.raises(JevConfigurationError, match="sample"):
        sampled(ids[0], 2.0)


def test_feedback_ids_are_uuid5_of_judge_run_and_key() -> None:
    run = uuid.uuid4()
    same = {feedback_id("sha256:a", run, "polite"), feedback_id("sha256:a", str(run).upper(), "polite")}
    assert len(same) == 1 and next(iter(same)).version == 5
    assert (
        len(
            {
                feedback_id("sha256:a", run, "x"),
                feedback_id("sha256:b", run, "x"),
                feedback_id("sha256:a", uuid.uuid4(), "x"),
            }
        )
        == 3
    )


def test_the_fingerprint_follows_what_decides_a_verdict() -> None:
    assert judge_fingerprint(scripted_judge()) == judge_fingerprint(scripted_judge())
    assert judge_fingerprint(scripted_judge()) == judge_fingerprint(
        scripted_judge(polite=0.1)
    )  # answers are not the judge
    stricter = JevJudge(criteria(), model=ScriptedDecisionModel({}), min_confidence=0.9)
    assert judge_fingerprint(stricter) != judge_fingerprint(scripted_judge())
    with pytest.raises(JevConfigurationError, match="JevJudge"):
        judge_fingerprint("judge.yaml")  # type: ignore[arg-type]


def test_the_cursor_covers_up_to_the_first_run_not_finished_and_keeps_the_rest_by_id() -> None:
    refs = [RunRef(f"r{i}", T[i]) for i in range(1, 6)]
    window = Window(T[0], T[8])
    cursor = advance(Cursor(), window, refs, {"r1", "r2", "r4"})
    assert cursor.covered == ((T[0], T[3]),) and set(cursor.written) == {"r4"}
    assert [cursor.finished(r) for r in refs] == [True, True, False, True, False]
    assert cursor.resume_at == T[3]
    done = advance(cursor, Window(T[3], T[8]), refs[2:], {"r3", "r5"})
    assert done.covered == ((T[0], T[8]),) and done.written == {}  # merged; the ids it covers dropped
    assert Cursor.from_json(json.loads(json.dumps(done.to_json()))) == done


def test_runs_that_share_a_start_time_with_the_first_open_run_are_kept_by_id() -> None:
    refs = [RunRef("a", T[2]), RunRef("b", T[2]), RunRef("c", T[3])]
    cursor = advance(Cursor(), Window(T[0], T[5]), refs, {"a", "c"})
    assert cursor.covered == ((T[0], T[2]),)
    assert [cursor.finished(r) for r in refs] == [True, False, True]


def test_a_backfill_of_an_older_window_does_not_move_where_the_live_cursor_resumes() -> None:
    live = advance(Cursor(), Window(T[6], T[9]), [], set())
    backfilled = advance(live, Window(T[1], T[3]), [RunRef("old", T[2])], {"old"})
    assert backfilled.covered == ((T[1], T[3]), (T[6], T[9])) and backfilled.resume_at == T[9]
    assert not backfilled.finished(RunRef("gap", T[4]))


def test_the_cursor_file_is_replaced_whole_and_a_broken_one_is_named(tmp_path: Path) -> None:
    store = FileCursorStore(tmp_path)
    key = CursorKey("prod/chat", "sha256:ab")
    store.save(key, advance(Cursor(), Window(T[0], T[1]), [], set()))
    assert store.load(key) is not None and [p.name for p in tmp_path.iterdir()] == [key.file_name]
    assert CursorKey("prod/chat", "sha256:ab", filter="eq(name, 'x')").file_name != key.file_name
    store.path(key).write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=str(store.path(key))):
        store.load(key)


def test_the_window_passes_both_ends_and_settles_before_now() -> None:
    now = T[11]
    assert window_of("2h", None, None, now) == Window(T[9], now - SETTLE)
    assert window_of(None, None, Cursor(covered=((T[2], T[5]),)), now) == Window(T[5], now - SETTLE)
    assert window_of("2026-01-01T03:00:00Z", "2026-01-01T04:00:00Z", None, now) == Window(T[3], T[4])
    with pytest.raises(JevConfigurationError, match="since"):
        window_of("2026-01-01T05:00:00Z", "2026-01-01T04:00:00Z", None, now)


def test_retry_after_reads_the_429_and_a_gate_holds_every_worker() -> None:
    request = httpx.Request("POST", "http://x/feedback")
    limited = httpx.HTTPStatusError(
        "429", request=request, response=httpx.Response(429, headers={"Retry-After": "3"}, request=request)
    )
    assert retry_after(limited) == 3.0
    bare = httpx.HTTPStatusError("429", request=request, response=httpx.Response(429, request=request))
    assert retry_after(bare) == DEFAULT_RETRY_AFTER
    assert (
        retry_after(
            httpx.HTTPStatusError("500", request=request, response=httpx.Response(500, request=request))
        )
        is None
    )
    gate = RateGate()
    gate.close(at=100.0, seconds=3.0)
    gate.close(at=101.0, seconds=1.0)  # a shorter pause does not cut the longer one
    assert (gate.wait_at(101.0), gate.wait_at(103.0)) == (2.0, 0.0)


def test_the_monitor_face_exports_a_pinned_set() -> None:
    import langchain_jev.monitor as face

    assert face.__all__ == [
        "DEFAULT_CONCURRENCY", "DEFAULT_CURSOR", "DEFAULT_IDLE", "MONITOR_NAMESPACE", "SETTLE", "Cursor",
        "CursorKey", "CursorStore", "FileCursorStore", "MonitorLine", "MonitorSummary", "RunRef", "Window",
        "amonitor", "default_cursor_dir", "feedback_id", "judge_fingerprint", "monitor", "sampled",
    ]  # fmt: skip
