"""The response cache: keys, stores, and a judge that asks once."""

from __future__ import annotations

import asyncio
import datetime
import json
import sqlite3
import subprocess
import sys
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx2
import pytest
from langchain_core.decisions import Noul
from langchain_core.messages import AIMessage, HumanMessage
from typesafe_sdk import AsyncTypeSafeClient, RetryPolicy, TypeSafeClient

from langchain_jev import JevConfigurationError, JevJudgeInput, Outcome
from langchain_jev.models import JevDecisionModel
from langchain_jev.models._cache import (
    APPLICATION_ID,
    CACHE_HIT_TAG,
    CACHE_METADATA_KEY,
    CachedDecisionModel,
    DecisionCache,
    InMemoryCache,
    SQLiteCache,
    cache_key,
    is_cacheable,
    model_identity,
)
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import API_KEY, JevWire, RunRecorder, choice, noul, score
from tests.testing.helpers import GOOD, HELPFUL, MODE, POLITE, judge_on

QUESTIONS = {"polite": POLITE, "helpful": HELPFUL, "mode": MODE}
ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------------------- keys


def test_key_ignores_key_order_and_spelling_of_messages() -> None:
    as_messages = {"messages": [HumanMessage("Hi?"), AIMessage("Hello!")], "a": 1, "b": [1, 2]}
    as_dicts = {
        "b": [1, 2],
        "a": 1,
        "messages": [{"role": "user", "content": "Hi?"}, {"role": "assistant", "content": "Hello!"}],
    }
    assert cache_key("jev-latest", as_messages, QUESTIONS) == cache_key(
        "jev-latest", as_dicts, dict(reversed(QUESTIONS.items()))
    )
    assert len(cache_key("jev-latest", "x", QUESTIONS)) == 64


def test_key_changes_with_state_question_name_and_model() -> None:
    state = {"user_question": "Hi?", "assistant_answer": "Hello!"}
    base = cache_key("jev-latest", state, QUESTIONS)
    variants = [
        cache_key("jev-latest", {**state, "assistant_answer": "Hello."}, QUESTIONS),
        cache_key("jev-latest", {**state, "extra": None}, QUESTIONS),
        cache_key("jev-latest", state, {**QUESTIONS, "polite": Noul(instructions="Is it rude?")}),
        cache_key("jev-latest", state, {"courteous": POLITE, "helpful": HELPFUL, "mode": MODE}),
        cache_key("jev-latest", state, {"polite": POLITE}),
        cache_key("jev-2", state, QUESTIONS),
        cache_key("jev-latest", state, QUESTIONS, namespace="prompt-v2"),
        cache_key("jev-latest", {**state, "assistant_answer": ["Hello!"]}, QUESTIONS),
    ]
    assert base not in variants
    assert len(set(variants)) == len(variants)


def test_key_names_the_value_without_a_json_form() -> None:
    with pytest.raises(TypeError, match=r"state\.when: datetime has no JSON form"):
        cache_key("m", {"when": datetime.datetime(2024, 1, 1)}, QUESTIONS)


# ----------------------------------------------------------------------------- a judge asks once


def test_second_judge_run_makes_no_request_and_gives_the_same_verdict(tmp_path: Path) -> None:
    inner = ScriptedDecisionModel(GOOD, reasoning={"polite": "greets the user"})
    judge = judge_on(CachedDecisionModel(inner, SQLiteCache(tmp_path / "cache.sqlite")))

    first = judge.judge("Hi?", "Hello! How can I help?")
    second = judge.judge("Hi?", "Hello! How can I help?")

    assert inner.calls == 1
    assert first.response is not None and second.response is not None
    assert first.response.cache_hit is False
    assert second.response.cache_hit is True
    assert second.response.usage is None  # a hit costs no tokens
    assert second.to_dict() == first.to_dict()
    assert second.finding("polite").reasoning == "greets the user"

    judge.judge("Hi?", "Go away.")
    assert inner.calls == 2  # another answer is another request


def test_cache_survives_a_new_model_over_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "cache.sqlite"
    judge_on(CachedDecisionModel(ScriptedDecisionModel(GOOD), path)).judge("Hi?", "Hello!")

    silent = ScriptedDecisionModel({})  # would fail loudly if asked
    verdict = judge_on(CachedDecisionModel(silent, str(path))).judge("Hi?", "Hello!")

    assert verdict.passed
    assert silent.calls == 0


def test_jev_over_the_wire_is_asked_once(tmp_path: Path) -> None:
    wire = JevWire(
        {
            "polite": noul(0.91),
            "helpful": score({2: 0.2, 3: 0.8}, HELPFUL.criteria),
            "mode": choice("answered", {"answered": 0.9, "refused": 0.1}),
        }
    )
    judge = judge_on(CachedDecisionModel(wire.model(), tmp_path / "jev.sqlite"))

    verdicts = [judge.judge("Hi?", "Hello! How can I help?") for _ in range(3)]

    assert wire.calls == 1
    assert all(v.passed for v in verdicts)
    assert [v.response.cache_hit for v in verdicts if v.response] == [False, True, True]
    assert verdicts[2].response is not None and verdicts[2].response.request_id == "req_1"


async def test_jev_over_the_wire_is_asked_once_async(tmp_path: Path) -> None:
    wire = JevWire(
        {"polite": noul(0.91), "helpful": score({3: 1.0}, HELPFUL.criteria), "mode": choice("answered")}
    )
    judge = judge_on(CachedDecisionModel(wire.model(), tmp_path / "jev.sqlite"))

    first = await judge.ajudge("Hi?", "Hello!")
    second = await judge.ajudge("Hi?", "Hello!")

    assert wire.calls == 1
    assert first.passed and second.passed
    assert second.response is not None and second.response.cache_hit


def test_the_secret_key_is_neither_in_the_repr_nor_in_the_file(tmp_path: Path) -> None:
    wire = JevWire(
        {"polite": noul(0.9), "helpful": score({3: 1.0}, HELPFUL.criteria), "mode": choice("answered")}
    )
    path = tmp_path / "jev.sqlite"
    model = CachedDecisionModel(wire.model(), path)
    judge_on(model).judge("Hi?", "Hello!")

    assert API_KEY not in repr(model)
    assert API_KEY.encode() not in path.read_bytes()


# ----------------------------------------------------------------------------- what is not kept


def test_a_response_with_an_unreadable_answer_is_not_cached() -> None:
    broken = {**GOOD, "polite": {"type": "noul", "noul": 1.7}}
    inner = ScriptedDecisionModel([broken, GOOD, {}])
    cache = InMemoryCache()
    judge = judge_on(CachedDecisionModel(inner, cache))

    first = judge.judge("Hi?", "Hello!")
    assert len(cache) == 0
    second = judge.judge("Hi?", "Hello!")
    third = judge.judge("Hi?", "Hello!")

    assert first.finding("polite").outcome is Outcome.ERROR
    assert second.finding("polite").outcome is Outcome.PASSED
    assert third.response is not None and third.response.cache_hit
    assert inner.calls == 2


def test_a_response_missing_an_answer_is_not_cached(tmp_path: Path) -> None:
    wire = JevWire({"polite": noul(0.9), "mode": choice("answered")})  # no "helpful"
    cache = SQLiteCache(tmp_path / "c.sqlite")
    judge = judge_on(CachedDecisionModel(wire.model(), cache))

    verdicts = [judge.judge("Hi?", "Hello!") for _ in range(2)]
    assert len(cache) == 0

    assert [v.finding("helpful").outcome for v in verdicts] == [Outcome.ERROR, Outcome.ERROR]
    assert wire.calls == 2


def test_an_answer_of_the_wrong_type_is_not_cached() -> None:
    wrong = {**GOOD, "polite": {"type": "choice", "choice": "yes", "probabilities": {}, "confidence": 1.0}}
    inner = ScriptedDecisionModel([wrong, wrong])
    cache = InMemoryCache()
    judge = judge_on(CachedDecisionModel(inner, cache))

    for _ in range(2):
        assert judge.judge("Hi?", "Hello!").finding("polite").outcome is Outcome.ERROR
    assert inner.calls == 2
    assert len(cache) == 0


def test_a_failure_is_raised_and_not_cached() -> None:
    inner = ScriptedDecisionModel([{**GOOD, "mode": ConnectionError("network down")}, GOOD])
    judge = judge_on(CachedDecisionModel(inner))

    with pytest.raises(ConnectionError, match="network down"):
        judge.judge("Hi?", "Hello!")
    assert judge.judge("Hi?", "Hello!").passed
    assert inner.calls == 2


def test_is_cacheable_needs_every_asked_answer() -> None:
    inner = ScriptedDecisionModel(GOOD)
    response = inner.invoke({"state": "x", "questions": QUESTIONS})
    assert is_cacheable(response, QUESTIONS)
    assert not is_cacheable(response, {**QUESTIONS, "extra": Noul(instructions="?")})


def test_an_incomplete_entry_put_there_by_another_writer_is_not_served() -> None:
    cache = InMemoryCache()
    inner = ScriptedDecisionModel(GOOD)
    model = CachedDecisionModel(inner, cache)
    state = JevJudgeInput("Hi?", "Hello!").to_state()
    partial = {"model": "scripted", "answers": {"polite": {"type": "noul", "noul": 0.9}}}
    cache.put(model.key(state, QUESTIONS), partial)

    verdict = judge_on(model).judge("Hi?", "Hello!")

    assert verdict.passed and inner.calls == 1
    assert verdict.response is not None and not verdict.response.cache_hit


def test_an_unreadable_cache_row_is_asked_again_and_replaced(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    inner = ScriptedDecisionModel(GOOD)
    model = CachedDecisionModel(inner, path)
    state = JevJudgeInput("Hi?", "Hello!").to_state()
    key = model.key(state, QUESTIONS)
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO jev_responses VALUES (?, ?, 0)", (key, "{not json"))
    judge = judge_on(model)

    assert judge.judge("Hi?", "Hello!").passed
    assert judge.judge("Hi?", "Hello!").response.cache_hit  # type: ignore[union-attr]
    assert inner.calls == 1


def test_a_state_without_json_form_bypasses_the_cache(caplog: pytest.LogCaptureFixture) -> None:
    inner = ScriptedDecisionModel({"polite": 0.9})
    model = CachedDecisionModel(inner)
    log = RunRecorder()
    request = {"state": {"payload": object()}, "questions": {"polite": POLITE}}

    for _ in range(2):
        assert model.invoke(request, {"callbacks": [log]}).cache_hit is False  # type: ignore[arg-type]

    assert inner.calls == 2
    assert "state.payload: object has no JSON form" in caplog.text
    assert [run.extra["metadata"][CACHE_METADATA_KEY] for run in log.runs] == ["bypass", "bypass"]


# ----------------------------------------------------------------------------- the trace


def test_the_trace_says_miss_then_hit() -> None:
    inner = ScriptedDecisionModel(GOOD, model="judge-model-7")
    judge = judge_on(CachedDecisionModel(inner))
    log = RunRecorder()

    judge.judge("Hi?", "Hello!", config={"callbacks": [log]})
    judge.judge("Hi?", "Hello!", config={"callbacks": [log]})

    chains = log.of_type("chain")
    llms = log.of_type("llm")
    assert len(chains) == 2 and len(llms) == 2
    assert [run.parent_run_id for run in llms] == [chain.id for chain in chains]
    assert [run.extra["metadata"][CACHE_METADATA_KEY] for run in llms] == ["miss", "hit"]
    assert [CACHE_HIT_TAG in (run.tags or []) for run in llms] == [False, True]
    assert {run.extra["metadata"]["ls_model_name"] for run in llms} == {"judge-model-7"}
    assert {run.extra["metadata"]["ls_provider"] for run in llms} == {"scripted"}
    assert llms[1].outputs is not None


async def test_the_trace_says_hit_async() -> None:
    judge = judge_on(CachedDecisionModel(ScriptedDecisionModel(GOOD)))
    log = RunRecorder()

    await judge.ajudge("Hi?", "Hello!", config={"callbacks": [log]})
    await judge.ajudge("Hi?", "Hello!", config={"callbacks": [log]})

    statuses = [run.extra["metadata"][CACHE_METADATA_KEY] for run in log.of_type("llm")]
    assert statuses == ["miss", "hit"]


# ----------------------------------------------------------------------------- concurrency


def test_sqlite_cache_shared_by_threads(tmp_path: Path) -> None:
    inner = ScriptedDecisionModel(GOOD)
    judge = judge_on(CachedDecisionModel(inner, tmp_path / "c.sqlite"))
    answers = [f"Answer number {i}." for i in range(40)]

    with ThreadPoolExecutor(max_workers=8) as pool:
        first = list(pool.map(lambda a: judge.judge("Hi?", a), answers))
        second = list(pool.map(lambda a: judge.judge("Hi?", a), answers))

    assert inner.calls == 40
    assert all(v.passed for v in first + second)
    assert all(v.response.cache_hit for v in second)  # type: ignore[union-attr]
    assert sorted(r["state"]["assistant_answer"] for r in inner.requests) == sorted(answers)


async def test_many_concurrent_ajudge_calls_on_one_sqlite_cache(tmp_path: Path) -> None:
    inner = ScriptedDecisionModel(GOOD, delay=0.01)
    cache = SQLiteCache(tmp_path / "c.sqlite")
    judge = judge_on(CachedDecisionModel(inner, cache))
    answers = [f"Answer number {i}." for i in range(100)]

    first = await asyncio.gather(*(judge.ajudge("Hi?", a) for a in answers))
    second = await asyncio.gather(*(judge.ajudge("Hi?", a) for a in answers))

    assert inner.calls == 100
    assert len(cache) == 100
    assert all(v.passed for v in first + second)
    assert all(v.response.cache_hit for v in second)  # type: ignore[union-attr]


async def test_concurrent_identical_requests_all_succeed_and_store_one_entry(tmp_path: Path) -> None:
    cache = SQLiteCache(tmp_path / "c.sqlite")
    judge = judge_on(CachedDecisionModel(ScriptedDecisionModel(GOOD, delay=0.01), cache))

    verdicts = await asyncio.gather(*(judge.ajudge("Hi?", "Hello!") for _ in range(30)))

    assert all(v.passed for v in verdicts)
    assert len(cache) == 1


async def test_a_waiting_sqlite_write_does_not_block_the_event_loop(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    cache = SQLiteCache(path)
    other = sqlite3.connect(path, isolation_level=None)  # another writer holds the lock
    other.execute("BEGIN IMMEDIATE")
    write = asyncio.create_task(cache.aput("k", {"model": "m", "answers": {}}))

    ticks = 0
    for _ in range(5):
        await asyncio.sleep(0.01)
        ticks += 1
        assert not write.done()
    other.execute("ROLLBACK")
    await write
    other.close()

    assert ticks == 5
    assert await cache.aget("k") == {"model": "m", "answers": {}}


_WRITER = textwrap.dedent(
    """
    import sys
    from langchain_jev.models import SQLiteCache
    cache = SQLiteCache(sys.argv[1], timeout=60)
    name = sys.argv[2]
    for i in range(200):
        cache.put(f"{name}-{i}", {"model": name, "answers": {}, "i": i})
        cache.put("shared", {"model": name, "answers": {}})
        assert cache.get(f"{name}-{i}")["i"] == i
    """
)


def test_two_processes_write_one_file_at_once(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    SQLiteCache(path).close()
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path), name], cwd=ROOT, stderr=subprocess.PIPE, text=True
        )
        for name in ("left", "right")
    ]
    errors = [worker.communicate(timeout=120)[1] for worker in workers]

    assert [worker.returncode for worker in workers] == [0, 0], errors
    cache = SQLiteCache(path)
    assert len(cache) == 401
    assert cache.get("left-199") == {"model": "left", "answers": {}, "i": 199}
    assert cache.get("right-0") == {"model": "right", "answers": {}, "i": 0}
    assert cache.get("shared")["model"] in {"left", "right"}  # type: ignore[index]


_READER = textwrap.dedent(
    """
    import sys
    from langchain_jev.models import CachedDecisionModel
    from langchain_jev.testing import ScriptedDecisionModel
    from tests.testing.helpers import judge_on
    silent = ScriptedDecisionModel({})
    verdict = judge_on(CachedDecisionModel(silent, sys.argv[1])).judge("Hi?", "Hello!")
    print(verdict.summary(), verdict.response.cache_hit, silent.calls)
    """
)


def test_another_process_is_answered_from_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    judge_on(CachedDecisionModel(ScriptedDecisionModel(GOOD), path)).judge("Hi?", "Hello!")

    done = subprocess.run(
        [sys.executable, "-c", _READER, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "passed=true",
        "[polite=PASSED,",
        "helpful=PASSED,",
        "mode=PASSED]",
        "True",
        "0",
    ]


# ----------------------------------------------------------------------------- the stores


@pytest.mark.parametrize("make", [InMemoryCache, lambda: SQLiteCache(":memory:")])
async def test_stores_round_trip_and_isolate_values(make) -> None:  # type: ignore[no-untyped-def]
    cache = make()
    assert isinstance(cache, DecisionCache)
    value = {"model": "m", "answers": {"a": {"type": "noul", "noul": 0.5}}}
    cache.put("k", value)
    value["model"] = "changed"
    got = cache.get("k")
    got["model"] = "changed again"

    assert cache.get("k")["model"] == "m"
    assert await cache.aget("k") == {"model": "m", "answers": {"a": {"type": "noul", "noul": 0.5}}}
    await cache.aput("k", {"model": "n"})
    assert cache.get("k") == {"model": "n"}
    assert cache.get("unknown") is None
    assert len(cache) == 1
    cache.clear()
    assert len(cache) == 0


def test_in_memory_cache_drops_the_least_recently_used() -> None:
    cache = InMemoryCache(max_entries=2)
    cache.put("a", {"v": 1})
    cache.put("b", {"v": 2})
    cache.get("a")
    cache.put("c", {"v": 3})

    assert cache.get("b") is None
    assert cache.get("a") == {"v": 1} and cache.get("c") == {"v": 3}


def test_in_memory_cache_under_threads() -> None:
    cache = InMemoryCache(max_entries=50)
    barrier = threading.Barrier(8)

    def work(worker: int) -> None:
        barrier.wait()
        for i in range(500):
            cache.put(f"{worker}-{i % 60}", {"v": i})
            cache.get(f"{(worker + 1) % 8}-{i % 60}")

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(work, range(8)))
    assert len(cache) == 50


def test_sqlite_cache_rows_are_json_text(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    judge_on(CachedDecisionModel(ScriptedDecisionModel(GOOD), path)).judge("Hi?", "Hello!")

    with sqlite3.connect(path) as db:
        (text,) = db.execute("SELECT response FROM jev_responses").fetchone()
        (mode,) = db.execute("PRAGMA journal_mode").fetchone()
    stored = json.loads(text)
    assert mode == "wal"
    assert stored["model"] == "scripted"
    assert stored["answers"]["mode"]["choice"] == "answered"
    assert stored["unreadable"] == {} and stored["cache_hit"] is False


# ----------------------------------------------------------------------------- bad settings


def test_bad_cache_arguments_are_named(tmp_path: Path) -> None:
    with pytest.raises(JevConfigurationError, match=r"cache must be a DecisionCache.*got dict"):
        CachedDecisionModel(ScriptedDecisionModel(GOOD), {})  # type: ignore[arg-type]
    (tmp_path / "folder").mkdir()
    with pytest.raises(JevConfigurationError, match=r"cannot open the response cache at .*folder"):
        SQLiteCache(tmp_path / "folder")
    with pytest.raises(JevConfigurationError, match="max_entries must be a positive integer"):
        InMemoryCache(max_entries=0)
    with pytest.raises(JevConfigurationError, match="timeout must be"):
        SQLiteCache(tmp_path / "x.sqlite", timeout=-1)


def test_the_cached_model_reports_the_inner_model() -> None:
    model = CachedDecisionModel(ScriptedDecisionModel(GOOD, model="m-1"), namespace="v2")
    assert model.model == "m-1"
    identity = model_identity(model.inner)
    assert identity["model"] == "m-1" and identity["class"].endswith("ScriptedDecisionModel")
    assert model.key("x", QUESTIONS) == cache_key("m-1", "x", QUESTIONS, "v2", identity)


# ----------------------------------------------------------------------------- its own files, its own key


def _other_application(path: Path) -> bytes:
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    connection.execute("INSERT INTO users (name) VALUES ('ada')")
    connection.commit()
    connection.close()
    return path.read_bytes()


def test_another_applications_database_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "app.sqlite"
    before = _other_application(path)

    with pytest.raises(JevConfigurationError, match=r"is not a langchain-jev cache .*tables: users\); it was left unchanged"):
        SQLiteCache(path)

    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.sqlite"]  # no WAL files either
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert [r[0] for r in connection.execute("SELECT name FROM sqlite_master")] == ["users"]
    connection.close()


@pytest.mark.parametrize(("application_id", "version"), [(0x12345678, 0), (APPLICATION_ID, 99)])
def test_a_database_stamped_by_another_application_or_layout_is_refused(
    tmp_path: Path, application_id: int, version: int
) -> None:
    path = tmp_path / "stamped.sqlite"
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA application_id = {application_id}")
    connection.execute(f"PRAGMA user_version = {version}")
    connection.commit()
    connection.close()
    before = path.read_bytes()
    with pytest.raises(JevConfigurationError, match="it was left unchanged"):
        SQLiteCache(path)
    assert path.read_bytes() == before


def test_a_file_that_is_not_sqlite_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("my notes\n" * 200, encoding="utf-8")
    with pytest.raises(JevConfigurationError, match="cannot open the response cache"):
        SQLiteCache(path)
    assert path.read_text(encoding="utf-8") == "my notes\n" * 200


def test_the_cache_stamps_its_databases_and_reopens_them(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    with SQLiteCache(path) as cache:
        cache.put("k", {"model": "m", "answers": {}})
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert connection.execute("PRAGMA user_version").fetchone()[0] == 1
    connection.close()
    with SQLiteCache(path) as again:
        assert again.get("k") == {"model": "m", "answers": {}}


def test_an_unstamped_cache_of_this_package_is_adopted(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE jev_responses (key TEXT PRIMARY KEY, response TEXT NOT NULL, created_at REAL NOT NULL)")
    connection.execute("INSERT INTO jev_responses VALUES ('k', '{\"model\": \"m\"}', 0)")
    connection.commit()
    connection.close()
    with SQLiteCache(path) as cache:
        assert cache.get("k") == {"model": "m"}
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    connection.close()


def _endpoint_answers() -> dict[str, Any]:
    return {"polite": noul(0.91), "helpful": score({3: 1.0}, HELPFUL.criteria), "mode": choice("answered")}


def test_the_key_tells_endpoints_apart_so_another_server_is_asked(tmp_path: Path) -> None:
    path = tmp_path / "jev.sqlite"
    first, second = JevWire(_endpoint_answers()), JevWire(_endpoint_answers())
    at_a = CachedDecisionModel(_served_at(first, "http://a.test"), path)
    at_b = CachedDecisionModel(_served_at(second, "http://b.test"), path)

    judge_on(at_a).judge("Hi?", "Hello!")
    verdict = judge_on(at_b).judge("Hi?", "Hello!")

    assert (first.calls, second.calls) == (1, 1)  # the second server was asked, not served the first's answers
    assert verdict.response is not None and not verdict.response.cache_hit
    again = CachedDecisionModel(_served_at(JevWire({}), "http://a.test/"), path)  # would fail if asked
    assert judge_on(again).judge("Hi?", "Hello!").passed


def _served_at(wire: JevWire, base_url: str) -> JevDecisionModel:
    """Jev over ``wire``, its own clients pointed at ``base_url`` as the command line's are."""
    policy = RetryPolicy(max_retries=0)
    return JevDecisionModel(
        base_url=base_url,
        client=TypeSafeClient(api_key=API_KEY, base_url=base_url, transport=httpx2.MockTransport(wire), retry=policy),
        async_client=AsyncTypeSafeClient(
            api_key=API_KEY, base_url=base_url, transport=httpx2.MockTransport(wire.handle_async), retry=policy
        ),
    )


def test_the_identity_of_a_model_holds_its_kind_name_endpoint_and_never_its_key() -> None:
    from langchain_jev import ChatModelDecisionModel
    from tests.models.chat.helpers import ScriptedChatModel

    jev = model_identity(JevDecisionModel(api_key=API_KEY, base_url="http://a.test/", model="jev-1"))
    assert jev == {"class": "langchain_jev.models._jev.JevDecisionModel", "model": "jev-1", "endpoint": "http://a.test"}
    assert API_KEY not in repr(jev)
    chat = model_identity(ChatModelDecisionModel(ScriptedChatModel(), strategy="structured"))
    structured_by_default = model_identity(ChatModelDecisionModel(ScriptedChatModel(), strategy="per_question"))
    assert chat["strategy"] == "structured" and chat != structured_by_default
