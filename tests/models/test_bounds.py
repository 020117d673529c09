"""Everything a long-lived process keeps has a bound, with a default for a process that runs for weeks.

Before, the default response cache kept every answer (30,000 requests, 30,000
entries), the LangSmith evaluator a record of every run it judged (for the summary
evaluator), the comparative evaluators every comparison one of them did not read,
a shared SQLite ledger (or cache) every judged prefix forever, and the scripted
server a record of every request. Each is counted here, not timed: entries,
records, rows and pages of the file. What a bound drops is asked or judged
again, never answered wrongly. ``benchmarks/soak.py`` shows the memory flat.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx2
import pytest
from langchain_core.decisions import Noul
from langchain_core.messages import AIMessage, HumanMessage
from langsmith.run_trees import RunTree

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.guardrails._ledger import Ledger
from langchain_jev.langsmith import DEFAULT_RECORDS, jev_summary_evaluator
from langchain_jev.models import CachedDecisionModel, InMemoryCache, SQLiteCache
from langchain_jev.models._cache import DEFAULT_FILE_ENTRIES, DEFAULT_MEMORY_ENTRIES
from langchain_jev.pairwise import comparative_evaluators, pairwise_judge
from langchain_jev.pairwise._langsmith import MAX_PENDING
from langchain_jev.testing import ScriptedDecisionModel
from langchain_jev.testing.server import MAX_RECORDED, JevServer

POLITE = JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)


def test_the_default_response_cache_is_bounded() -> None:
    inner = ScriptedDecisionModel({"polite": 0.9})
    cached = CachedDecisionModel(inner)  # the default store
    assert cached.cache.max_entries == DEFAULT_MEMORY_ENTRIES == 10_000
    store = InMemoryCache()
    for index in range(30_000):
        store.put(f"k{index}", {"model": "m", "answers": {}})
    assert len(store) == DEFAULT_MEMORY_ENTRIES  # before: 30,000
    assert store.get("k29999") is not None and store.get("k0") is None  # the oldest went first


def test_a_dropped_answer_is_asked_again_never_answered_wrongly() -> None:
    inner = ScriptedDecisionModel({"polite": 0.9})
    judge = JevJudge([POLITE], model=CachedDecisionModel(inner, InMemoryCache(max_entries=2)))
    for answer in ("a", "b", "c", "a"):
        assert judge.judge("Hi?", answer).passed
    assert inner.calls == 4  # "a" was dropped by "c", so asked again


def rows(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        return int(connection.execute("SELECT COUNT(*) FROM jev_responses").fetchone()[0])


def pages(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        return int(connection.execute("PRAGMA page_count").fetchone()[0])


def test_a_sqlite_cache_keeps_at_most_its_bound_and_its_file_stops_growing(tmp_path: Path) -> None:
    assert SQLiteCache(tmp_path / "default.sqlite").max_entries == DEFAULT_FILE_ENTRIES
    path = tmp_path / "cache.sqlite"
    with SQLiteCache(path, max_entries=500) as cache:
        value = {"model": "m", "answers": {"polite": {"type": "noul", "noul": 0.9}}, "padding": "x" * 200}
        for index in range(5_000):
            cache.put(f"first-{index}", value)
        cache.sweep()
        grown = pages(path)
        for index in range(20_000):
            cache.put(f"then-{index}", value)
        cache.sweep()
        assert rows(path) <= 500
        assert cache.get("then-19999") is not None and cache.get("first-0") is None
    assert pages(path) <= grown * 1.2  # before: the file grew with every entry


def test_an_entry_past_its_age_is_not_served_and_is_swept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import langchain_jev.models._cache._sqlite as cache_module

    now = [1_000_000.0]
    monkeypatch.setattr(cache_module.time, "time", lambda: now[0])
    with SQLiteCache(tmp_path / "aged.sqlite", max_age=3600) as cache:
        cache.put("old", {"model": "m", "answers": {}})
        now[0] += 3599
        assert cache.get("old") is not None
        now[0] += 2
        assert cache.get("old") is None
        cache.put("new", {"model": "m", "answers": {}})
        cache.sweep()
        assert len(cache) == 1


def test_a_shared_sqlite_ledger_is_bounded_and_judges_a_dropped_prefix_again(tmp_path: Path) -> None:
    store = SQLiteCache(tmp_path / "ledger.sqlite", max_entries=300)
    ledger = Ledger(store, namespace="battery")
    first = [HumanMessage("thread 0 says hi", id="m0"), AIMessage("hello")]
    ledger.record(first)
    for thread in range(1, 2_000):  # every judged prefix of 2,000 threads
        ledger.record([HumanMessage(f"thread {thread} says hi"), AIMessage("hello")])
    store.sweep()
    assert len(store) <= 300  # before: 4,000 rows, kept forever
    assert ledger.judged_prefix(first) == 0  # dropped: the conversation is judged again, not let through


def run_of(index: int) -> RunTree:
    run = RunTree(name="target", run_type="chain", inputs={"question": f"Question {index}?"})
    run.end(outputs={"answer": f"Answer {index}."})
    return run


def test_the_evaluator_keeps_a_bounded_number_of_records_and_its_summary_stays_right() -> None:
    model = ScriptedDecisionModel({"polite": 0.9})
    judge = JevJudge([POLITE], model=model)
    from langchain_jev.langsmith import JevRunEvaluator

    assert JevRunEvaluator(judge)._max_records == DEFAULT_RECORDS

    evaluator = JevRunEvaluator(judge, max_records=100)
    runs = [run_of(index) for index in range(1_000)]
    for run in runs:
        evaluator.evaluate_run(run)
    assert len(evaluator._records) == 100  # before: one per run, kept as long as the evaluator
    summary = {r.key: r for r in jev_summary_evaluator(evaluator)(runs, [None] * len(runs))["results"]}  # type: ignore[list-item]
    assert (
        summary["jev_pass_rate"].score == 1.0
        and summary["jev_pass_rate"].comment == "1000 of 1000 runs passed"
    )
    assert model.calls == 1_000 + 900  # the runs whose records were dropped were judged again


def test_comparisons_some_evaluators_never_read_are_not_kept_forever() -> None:
    answers = {f"{name}__{order}": "equally_good" for name in ("helpful", "short") for order in (1, 2)}
    judge = pairwise_judge(
        {"helpful": "Which helps more?", "short": "Which is shorter?"}, model=ScriptedDecisionModel(answers)
    )
    helpful, _short = comparative_evaluators(judge)  # only the first is ever called
    for index in range(MAX_PENDING + 300):
        helpful([run_of(index), run_of(index)])
    assert len(helpful._pairs) == MAX_PENDING  # before: one per comparison, for the process's life


def test_the_scripted_server_records_a_bounded_number_of_requests() -> None:
    assert MAX_RECORDED == 10_000
    body = {"state": {"marker": "m"}, "questions": {"ok": {"type": "noul", "instructions": "Ok?"}}}
    with JevServer({"ok": 0.9}, keep_bodies=False, max_requests=100) as server:
        with httpx2.Client(base_url=server.base_url, headers={"Authorization": "Bearer sk-test"}) as client:
            for index in range(300):
                body["state"] = {"marker": f"m{index}"}
                assert client.post("/v1/systemone", json=body).status_code == 200
        kept = server.requests
        assert server.request_count == 300
        assert len(kept) == 100 and kept[-1].state == {"marker": "m299"}  # the latest
        assert kept[-1].headers == {}  # a light record keeps no headers either
