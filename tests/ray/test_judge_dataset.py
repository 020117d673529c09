"""judge_dataset on a local Ray cluster against the loopback Jev server: every row once, none lost."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed")

from langchain_core.decisions import Noul  # noqa: E402

from langchain_jev import JevConfigurationError, JevCriterion, JevJudge  # noqa: E402
from langchain_jev.cli import main  # noqa: E402
from langchain_jev.datasets._tally import Tally  # noqa: E402
from langchain_jev.models import JevDecisionModel  # noqa: E402
from langchain_jev.ray import COLUMNS, judge_dataset, read_file  # noqa: E402
from langchain_jev.testing.server import Fault, JevServer  # noqa: E402
from tests.cli.helpers import cli_command, cli_env  # noqa: E402
from tests.ray.conftest import API_KEY  # noqa: E402

pytestmark = pytest.mark.slow  # a Ray cluster takes seconds to start

JUDGE = {
    "criteria": [
        {"kind": "noul", "name": "polite", "instructions": "Is `assistant_answer` polite?", "minimum": 0.7},
        {
            "kind": "check",
            "name": "answered",
            "check": {"present": "assistant_answer"},
            "defect": "no answer",
        },
    ]
}


def rows(count: int) -> list[dict[str, Any]]:
    return [
        {"id": i, "marker": f"m{i}", "question": f"Question {i}?", "answer": f"Answer {i}."}
        for i in range(count)
    ]


def records(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [json.loads(row["jev_record"]) for row in output]


def test_two_thousand_rows_each_judged_once_in_the_output_and_on_the_server(cluster: None) -> None:
    with JevServer({"polite": 0.92}, delay=0.01, api_key=API_KEY, keep_bodies=False) as server:
        output = judge_dataset(
            ray.data.from_items(rows(2000)), JUDGE, base_url=server.base_url, max_retries=0, in_flight=16
        ).take_all()
        markers = server.markers()
    assert Counter(row["id"] for row in output) == Counter(range(2000))
    assert Counter(markers) == Counter(f"m{i}" for i in range(2000))
    assert all(set(COLUMNS) <= set(row) for row in output)
    assert {row["jev_passed"] for row in output} == {True}
    first = min(output, key=lambda row: row["id"])
    assert (first["question"], first["answer"], first["jev_error"]) == ("Question 0?", "Answer 0.", None)
    record = json.loads(first["jev_record"])
    assert record["id"] == 0 and record["passed"] is True
    assert [f["name"] for f in record["findings"]] == ["polite", "answered"]


@pytest.mark.parametrize("source", ["one file", "one block"])
def test_every_actor_judges_whatever_blocks_the_rows_came_in(cluster: None, tmp_path: Path, source: str) -> None:
    """A file Ray reads in a few blocks, or one block, still keeps both actors' requests in flight at once.

    The pool hands whole blocks to its actors, up to four at a time each: a file read
    as four blocks went to the first actor ready, and the other was cancelled with
    nothing left to consume (the requests in flight never passed one actor's share).
    """
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows(300)), encoding="utf-8")
    ds = read_file(str(data), "jsonl") if source == "one file" else ray.data.from_items(rows(300)).repartition(1)
    assert ds.materialize().num_blocks() <= 4
    with JevServer({"polite": 0.92}, delay=0.3, api_key=API_KEY, keep_bodies=False) as server:
        output = judge_dataset(ds, JUDGE, base_url=server.base_url, actors=2, in_flight=8).take_all()
        peak = server.peak_in_flight
        markers = server.markers()
    assert Counter(markers) == Counter(f"m{i}" for i in range(300)) and len(output) == 300
    assert peak > 8, f"at most {peak} requests in flight: one actor's share of 2 x 8"


def test_a_failing_share_of_requests_becomes_error_rows_never_passes_never_dropped(cluster: None) -> None:
    failed: list[int] = []

    def every_fifth(received: Any) -> Fault | None:
        if received.number % 5 == 0:
            failed.append(received.number)
            return Fault(status=503)
        return None

    with JevServer({"polite": 0.92}, api_key=API_KEY, faults=every_fifth) as server:
        output = judge_dataset(
            ray.data.from_items(rows(300)), JUDGE, base_url=server.base_url, max_retries=0
        ).take_all()
    assert sorted(row["id"] for row in output) == list(range(300))
    errors = [row for row in output if row["jev_error"] is not None]
    assert len(errors) == len(failed) == 60
    assert not any(row["jev_passed"] for row in errors)
    assert all("503" in row["jev_error"] or "Unavailable" in row["jev_error"] for row in errors)
    assert all(json.loads(row["jev_record"])["passed"] is False for row in errors)


def test_the_decision_model_retries_before_a_row_is_an_error(cluster: None) -> None:
    with JevServer({"polite": 0.92}, api_key=API_KEY, faults=[Fault(status=503)]) as server:
        output = judge_dataset(
            ray.data.from_items(rows(20)), JUDGE, base_url=server.base_url, max_retries=2
        ).take_all()
        assert server.request_count == 21  # one retried request
    assert all(row["jev_error"] is None and row["jev_passed"] for row in output)


def _dying_factory(sentinel: str, base_url: str) -> Any:
    """A judge whose first request kills its actor's process, once across the pool."""

    def build() -> JevJudge:
        model = JevDecisionModel(api_key=API_KEY, base_url=base_url, max_retries=0)
        original = model._aclassify

        async def classify(state: Any, questions: Any) -> Any:
            try:
                descriptor = os.open(sentinel, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return await original(state, questions)
            os.close(descriptor)
            os._exit(1)  # the actor dies mid-batch

        object.__setattr__(model, "_aclassify", classify)
        return JevJudge(
            [JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)],
            model=model,
        )

    return build


def test_an_actor_killed_mid_run_is_replaced_and_every_row_comes_out_once(
    cluster: None, tmp_path: Path
) -> None:
    sentinel = tmp_path / "died"
    with JevServer({"polite": 0.92}, delay=0.01, api_key=API_KEY) as server:
        output = judge_dataset(
            ray.data.from_items(rows(400)), _dying_factory(str(sentinel), server.base_url), batch_size=50
        ).take_all()
    assert sentinel.exists()  # an actor did die
    assert Counter(row["id"] for row in output) == Counter(range(400))
    assert all(row["jev_passed"] for row in output)


def test_rows_that_cannot_be_judged_are_named_and_kept(cluster: None) -> None:
    data = [*rows(3), {"id": 99, "question": "No answer here?"}]
    with JevServer({"polite": 0.92}, api_key=API_KEY) as server:
        output = judge_dataset(ray.data.from_items(data), JUDGE, base_url=server.base_url).take_all()
    bad = [row for row in output if row["id"] == 99]
    assert len(output) == 4 and len(bad) == 1
    assert bad[0]["jev_passed"] is False
    assert "bad input: missing 'answer'" in bad[0]["jev_error"]


def test_one_rate_limit_holds_across_actors(cluster: None) -> None:
    with JevServer({"polite": 0.92}, api_key=API_KEY) as server:
        judge_dataset(
            ray.data.from_items(rows(30)), JUDGE, base_url=server.base_url, actors=2, rate_limit=20.0
        ).take_all()
        times = sorted(server.times())
    assert len(times) == 30
    assert times[-1] - times[0] >= 29 / 20.0 * 0.9  # 20 per second across both actors


def test_records_read_like_the_command_lines_results(cluster: None) -> None:
    with JevServer({"polite": 0.5}, api_key=API_KEY) as server:
        output = judge_dataset(ray.data.from_items(rows(10)), JUDGE, base_url=server.base_url).take_all()
    tally = Tally([("polite", "noul"), ("answered", "check")])
    for record in records(output):
        tally.add(record)
    assert (tally.rows, tally.passed) == (10, 0)
    assert tally.criteria[0].counts["FAILED"] == 10


def test_a_judge_object_is_refused_with_what_to_pass_instead(cluster: None) -> None:
    judge = JevJudge([JevCriterion.noul("ok", Noul(instructions="Ok?"), 0.5)], model=None)
    with pytest.raises(JevConfigurationError, match="picklable function that returns the JevJudge"):
        judge_dataset(ray.data.from_items(rows(1)), judge)
    with pytest.raises(JevConfigurationError, match="actors must be a whole number"):
        judge_dataset(ray.data.from_items(rows(1)), JUDGE, actors=0)


def test_actors_share_one_cache_file_so_a_second_run_asks_nothing(cluster: None, tmp_path: Path) -> None:
    """The second run is answered from the file: it asks nothing the first run had not asked.

    Under load a request may be asked twice in the first run (an answer slower than the client's
    timeout is asked again; Ray judges again the batch of an actor it lost), so the first run's
    count is at least one per row, not exactly one: the variant below makes the retry happen.
    """
    _second_run_asks_nothing(tmp_path, faults=None, timeout=None)


def test_a_retried_request_in_the_first_run_is_still_one_cached_answer(cluster: None, tmp_path: Path) -> None:
    """An answer slower than the client's timeout (a loaded machine) is asked again; the cache is still whole."""
    _second_run_asks_nothing(tmp_path, faults=[None] * 7 + [Fault(delay=3.0)], timeout=1.0)


def _second_run_asks_nothing(tmp_path: Path, faults: Any, timeout: float | None) -> None:
    cache = str(tmp_path / "answers.sqlite")
    with JevServer({"polite": 0.92}, api_key=API_KEY, faults=faults) as server:
        first = judge_dataset(
            ray.data.from_items(rows(60)), JUDGE, base_url=server.base_url, cache=cache, actors=2, timeout=timeout
        ).take_all()
        asked = server.markers()
        second = judge_dataset(
            ray.data.from_items(rows(60)), JUDGE, base_url=server.base_url, cache=cache, actors=2, timeout=timeout
        ).take_all()
        assert server.markers() == asked  # the second run asked nothing
    assert set(asked) == {f"m{i}" for i in range(60)}  # every row asked in the first run, some maybe twice
    if faults is not None:
        assert len(asked) > 60  # the slow answer was asked again: exactly what load does
    assert all(row["jev_passed"] for row in first + second)
    assert all(json.loads(row["jev_record"]).get("cache_hit") for row in second)


def test_actors_and_local_workers_write_one_cache_at_once_without_a_lost_hit_or_an_error(
    cluster: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three actors and two worker processes miss, ask and write the same 400 answers to one file at once."""
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows(400)), encoding="utf-8")
    judge = tmp_path / "judge.json"
    judge.write_text(json.dumps(JUDGE), encoding="utf-8")
    cache = tmp_path / "answers.sqlite"

    def both(server: JevServer, tag: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        local_out, ray_out = tmp_path / f"{tag}-local.jsonl", tmp_path / f"{tag}-ray.jsonl"
        common = ["judge", str(data), "--judge", str(judge), "--base-url", server.base_url, "--cache", str(cache)]
        local = subprocess.Popen(
            cli_command(*common, "--workers", "2", "--concurrency", "16", "--out", local_out, "--quiet"),
            env=cli_env(TYPESAFE_API_KEY=API_KEY), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            on_ray = main([*common, "--engine", "ray", "--workers", "3", "--concurrency", "48", "--out", str(ray_out)])
            _, local_err = local.communicate(timeout=300)
        finally:
            local.kill()
            local.wait()
        assert (local.returncode, on_ray) == (0, 0), (local_err, capsys.readouterr().err)
        return [_records(path) for path in (local_out, ray_out)]  # type: ignore[return-value]

    with JevServer({"polite": 0.92}, delay=0.02, api_key=API_KEY, keep_bodies=False) as server:
        first = both(server, "first")
        assert set(server.markers()) == {f"m{i}" for i in range(400)}
        server.reset()
        second = both(server, "second")
        assert server.request_count == 0  # no lost hit: every answer either engine wrote is found by both
    for records in (*first, *second):
        assert len(records) == 400 and not [r for r in records if "error" in r]
    assert all(r.get("cache_hit") for records in second for r in records)


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
