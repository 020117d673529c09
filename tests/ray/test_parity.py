"""One dataset, one answer: both engines judge the same rows against one scripted server, record for record.

The project's examples and a corpus of awkward rows (`tests.ray.corpus`) go
through ``langchain-jev judge`` on the local engine and with ``--engine ray``;
the results files are compared field by field (keys, rows, lines, outcomes,
answers, errors), with the states the server received and the bad rows named
on stderr. The documented differences are the only ones allowed: a request id
is the server's count of its requests (so it depends on the order they came in),
and rows of a Parquet file or a Dataset built in Python have no row or line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed")

from langchain_jev.cli import main  # noqa: E402
from langchain_jev.ray import judge_dataset  # noqa: E402
from langchain_jev.testing.server import JevServer  # noqa: E402
from tests.cli.helpers import EXAMPLES, WEATHER_JUDGE, weather_answers  # noqa: E402
from tests.ray import corpus  # noqa: E402
from tests.ray.conftest import API_KEY  # noqa: E402

pytestmark = pytest.mark.slow

SERVER_ONLY = {"request_id"}
"""Fields that are the server's and not the row's: its count of the requests it received."""
ROW_PLACE = {"row", "line"}
"""Fields a row read from a file has and a row of a Parquet file or an in-memory Dataset has not."""


def steady(header: dict[str, Any]) -> dict[str, Any]:
    """A results header without the second its run started: what two runs of one judge share."""
    run = header.get("run")
    assert isinstance(run, dict) and run["started"], header  # each engine says what ran, and when
    return {**header, "run": {name: value for name, value in run.items() if name != "started"}}


def judge_file(tmp_path: Path) -> Path:
    path = tmp_path / "judge.json"
    path.write_text(json.dumps(corpus.JUDGE), encoding="utf-8")
    return path


def run_both(
    data: Path, judge: Path, answers: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> dict[str, dict[str, Any]]:
    """Judge ``data`` on each engine against one scripted server: its records, header, states and stderr."""
    runs: dict[str, dict[str, Any]] = {}
    with JevServer(answers, api_key=API_KEY) as server:  # one server: the headers name the same one
        for engine in ("local", "ray"):
            out = tmp_path / f"{data.stem}-{engine}.jsonl"
            server.reset()
            code = main(
                [
                    "judge", str(data), "--judge", str(judge), "--engine", engine, "--workers", "1",
                    "--base-url", server.base_url, "--max-retries", "0", "--out", str(out), "--quiet",
                ]
            )  # fmt: skip
            header, *lines = out.read_text(encoding="utf-8").splitlines()
            runs[engine] = {
                "code": code,
                "header": steady(json.loads(header)),
                "records": [json.loads(line) for line in lines],
                "states": corpus.states(server.requests),
                "stderr": sorted(line for line in capsys.readouterr().err.splitlines() if ": row " in line),
            }
    return runs


def assert_same_records(
    local: list[dict[str, Any]], ray_records: list[dict[str, Any]], *, allowed: set[str] = SERVER_ONLY
) -> None:
    """Every record of one engine has its twin on the other, equal in every field but ``allowed``."""

    def by_key(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        keyed = {record["key"]: record for record in records}
        assert len(keyed) == len(records), "two records share a key"
        return keyed

    ours, theirs = by_key(local), by_key(ray_records)
    assert set(ours) == set(theirs), (
        sorted((r.get("row"), r.get("id"), r["key"]) for r in local if r["key"] not in theirs),
        sorted((r.get("row"), r.get("id"), r["key"]) for r in ray_records if r["key"] not in ours),
    )
    for key, record in ours.items():
        twin = theirs[key]
        for name in (set(record) | set(twin)) - allowed:
            assert record.get(name) == twin.get(name), (key, name, record.get(name), twin.get(name))


@pytest.mark.parametrize(
    "write", [corpus.write_jsonl, corpus.write_json_array, corpus.write_csv], ids=["jsonl", "json", "csv"]
)
def test_awkward_rows_are_judged_alike_on_both_engines(
    cluster: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], write: Any
) -> None:
    suffix = {"write_jsonl": ".jsonl", "write_json_array": ".json", "write_csv": ".csv"}[write.__name__]
    data = write(tmp_path / f"rows{suffix}", corpus.awkward_rows())
    runs = run_both(data, judge_file(tmp_path), corpus.answers, tmp_path, capsys)
    local, on_ray = runs["local"], runs["ray"]
    assert (
        local["code"] == on_ray["code"] == 2
    )  # the row without an answer and the infinite cost are bad input
    assert (
        local["header"] == on_ray["header"]
    )  # same judge, same model: either engine's file resumes the other's
    # every row but the one without an answer and the infinite cost (and, in CSV, the empty answer: a cell)
    assert len(local["records"]) == (12 if suffix == ".csv" else 13)
    assert_same_records(local["records"], on_ray["records"])
    assert local["states"] == on_ray["states"]
    assert local["stderr"] == on_ray["stderr"]
    assert any("not finite at cost" in line for line in local["stderr"]), local["stderr"]
    by_id = {str(record.get("id")): record for record in on_ray["records"]}  # CSV ids are text
    assert all(isinstance(record.get("line"), int) for record in on_ray["records"])  # rows read from a file
    grounded = {f["name"]: f["outcome"] for f in by_id["2"]["findings"]}["grounded"]
    assert grounded == "NOT_APPLICABLE"  # no context on either engine: the question is not asked


def test_the_examples_are_judged_alike_on_both_engines(
    cluster: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for data in (EXAMPLES / "weather.jsonl", EXAMPLES / "weather_labelled.jsonl"):
        runs = run_both(data, WEATHER_JUDGE, weather_answers, tmp_path, capsys)
        local, on_ray = runs["local"], runs["ray"]
        assert local["code"] == on_ray["code"] == 0
        assert local["header"] == on_ray["header"]
        assert len(on_ray["records"]) == 8
        assert_same_records(local["records"], on_ray["records"])
        assert local["states"] == on_ray["states"]


def test_parquet_and_pandas_rows_are_judged_as_their_jsonl_twin(
    cluster: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The nulls Arrow and pandas add for the columns and nested keys a row lacks are absent, never data."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pd = pytest.importorskip("pandas")
    rows = corpus.columnar_rows()
    jsonl = corpus.write_jsonl(tmp_path / "rows.jsonl", rows)
    parquet = tmp_path / "rows.parquet"
    table = pa.Table.from_struct_array(pa.array(rows))  # one schema for all the rows' keys
    assert table.column("context").null_count > 0  # the unified schema gave the rows without one a null
    assert table.column("meta").type.num_fields == 2  # and nested keys a row lacks too
    pq.write_table(table, parquet)
    judge = judge_file(tmp_path)
    runs = {}
    for name, data in (("jsonl", jsonl), ("parquet", parquet)):
        out = tmp_path / f"{name}.jsonl"
        engine = "local" if name == "jsonl" else "ray"
        with JevServer(corpus.answers, api_key=API_KEY) as server:
            code = main(
                [
                    "judge", str(data), "--judge", str(judge), "--engine", engine, "--workers", "1",
                    "--base-url", server.base_url, "--max-retries", "0", "--out", str(out), "--quiet",
                ]
            )  # fmt: skip
            assert code == 0, capsys.readouterr().err
            runs[name] = (
                [json.loads(line) for line in out.read_text().splitlines()[1:]],
                corpus.states(server.requests),
            )
    (local, local_states), (on_parquet, parquet_states) = runs["jsonl"], runs["parquet"]
    assert_same_records(local, on_parquet, allowed=SERVER_ONLY | ROW_PLACE)
    assert local_states == parquet_states
    assert not any(ROW_PLACE & set(record) for record in on_parquet)  # the documented difference

    frame = pd.DataFrame(rows)  # NaN where a row lacks a column, as pandas has it
    assert frame["score"].isna().sum() == len(rows) - 1
    with JevServer(corpus.answers, api_key=API_KEY) as server:
        judged = judge_dataset(ray.data.from_pandas(frame), corpus.JUDGE, base_url=server.base_url).take_all()
        pandas_states = corpus.states(server.requests)
    assert pandas_states == local_states
    by_key = {record["key"]: record for record in local}
    assert {row["jev_key"] for row in judged} == set(by_key)
