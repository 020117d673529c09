"""judge_dataset on a local Ray cluster against the loopback Jev server: every row once, none lost."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed")

from langchain_core.decisions import Noul  # noqa: E402

from langchain_jev import JevCriterion, JevDecisionModel, JevJudge  # noqa: E402
from langchain_jev.datasets.tally import Tally  # noqa: E402
from langchain_jev.errors import JevConfigurationError  # noqa: E402
from langchain_jev.ray import COLUMNS, judge_dataset  # noqa: E402
from langchain_jev.testing.server import Fault, JevServer  # noqa: E402
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
    cache = str(tmp_path / "answers.sqlite")
    with JevServer({"polite": 0.92}, api_key=API_KEY) as server:
        first = judge_dataset(
            ray.data.from_items(rows(60)), JUDGE, base_url=server.base_url, cache=cache, actors=2
        ).take_all()
        asked = server.request_count
        second = judge_dataset(
            ray.data.from_items(rows(60)), JUDGE, base_url=server.base_url, cache=cache, actors=2
        ).take_all()
        assert (asked, server.request_count) == (60, 60)  # the second run was answered from the file
    assert all(row["jev_passed"] for row in first + second)
    assert all(json.loads(row["jev_record"]).get("cache_hit") for row in second)
