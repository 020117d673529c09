"""``langchain-jev judge DATA --engine ray``: JSONL, CSV and Parquet in, JSONL or Parquet out, the same table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed")

from langchain_jev.cli import main  # noqa: E402
from langchain_jev.testing.server import JevServer  # noqa: E402
from tests.ray.conftest import API_KEY  # noqa: E402

pytestmark = pytest.mark.slow

JUDGE = {
    "criteria": [
        {"kind": "noul", "name": "polite", "instructions": "Is `assistant_answer` polite?", "minimum": 0.7},
    ]
}


def write_inputs(tmp_path: Path) -> tuple[Path, Path, Path]:
    judge = tmp_path / "judge.json"
    judge.write_text(json.dumps(JUDGE), encoding="utf-8")
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text(
        "".join(json.dumps({"id": i, "question": f"Q{i}?", "answer": f"A{i}."}) + "\n" for i in range(40)),
        encoding="utf-8",
    )
    csv = tmp_path / "rows.csv"
    csv.write_text("id,question,answer\n" + "".join(f"{i},Q{i}?,{i}\n" for i in range(10)), encoding="utf-8")
    return judge, jsonl, csv


def on_ray(data: Path, judge: Path, server: JevServer, out: Path, *options: str) -> int:
    """``langchain-jev judge DATA --judge JUDGE --engine ray`` against ``server``, results to ``out``."""
    command = ["judge", str(data), "--judge", str(judge), "--engine", "ray", "--base-url", server.base_url]
    return main([*command, "--out", str(out), *options])


def test_jsonl_in_results_file_out_with_the_table(
    cluster: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge, jsonl, _ = write_inputs(tmp_path)
    out = tmp_path / "results.jsonl"
    with JevServer({"polite": 0.92}, api_key=API_KEY) as server:
        code = on_ray(jsonl, judge, server, out, "--quiet")
    assert code == 0
    header, *lines = out.read_text(encoding="utf-8").splitlines()
    assert json.loads(header)["langchain_jev"] == "results"  # the local engine's header
    records = [json.loads(line) for line in lines]
    assert sorted(record["id"] for record in records) == list(range(40))
    assert all(record["passed"] and record["findings"][0]["name"] == "polite" for record in records)
    printed = capsys.readouterr().out
    assert "polite" in printed and "40 rows: 40 passed, 0 failed, pass rate 100.0%" in printed


def test_csv_cells_are_text_and_parquet_round_trips(
    cluster: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge, _, csv = write_inputs(tmp_path)
    parquet = tmp_path / "judged.parquet"
    with JevServer({"polite": 0.5}, api_key=API_KEY) as server:
        code = on_ray(csv, judge, server, parquet, "--fail-under", "0.5")
        states = [received.state for received in server.requests]
    assert code == 1  # every row failed polite, under --fail-under
    assert {state["assistant_answer"] for state in states} == {str(i) for i in range(10)}  # text, as sent
    table = ray.data.read_parquet(str(parquet)).take_all()
    assert sorted(int(row["id"]) for row in table) == list(range(10))
    assert {row["jev_passed"] for row in table} == {False}
    assert "10 rows: 0 passed, 10 failed" in capsys.readouterr().out

    again = tmp_path / "again.jsonl"
    with JevServer({"polite": 0.92}, api_key=API_KEY) as server:
        code = on_ray(parquet, judge, server, again)
        sent = [received.state for received in server.requests]
    assert code == 0  # the earlier verdict columns are replaced, never judged as state
    assert len(sent) == 10 and not [name for state in sent for name in state if name.startswith("jev_")]
    records = [json.loads(line) for line in again.read_text(encoding="utf-8").splitlines()[1:]]
    assert len(records) == 10 and all(record["passed"] for record in records)


def test_resume_is_refused_on_ray(cluster: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    judge, jsonl, _ = write_inputs(tmp_path)
    code = main(
        [
            "judge",
            str(jsonl),
            "--judge",
            str(judge),
            "--engine",
            "ray",
            "--resume",
            "--out",
            str(tmp_path / "r.jsonl"),
        ]
    )
    assert code == 2
    assert "--resume is for the local engine" in capsys.readouterr().err
