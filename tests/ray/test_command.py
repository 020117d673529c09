"""``langchain-jev judge DATA --engine ray``: JSONL, CSV and Parquet in, JSONL or Parquet out, the same table."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed")
pq = pytest.importorskip("pyarrow.parquet")

from langchain_jev.cli import main  # noqa: E402
from langchain_jev.datasets._lock import ResultsLock  # noqa: E402
from langchain_jev.testing.server import JevServer  # noqa: E402
from tests.cli.helpers import cli_command, cli_env  # noqa: E402
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


def test_csv_cells_are_text_and_parquet_out_is_one_file_that_round_trips(
    cluster: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge, _, csv = write_inputs(tmp_path)
    parquet = tmp_path / "judged.parquet"
    with JevServer({"polite": 0.5}, api_key=API_KEY) as server:
        code = on_ray(csv, judge, server, parquet, "--fail-under", "0.5")
        states = [received.state for received in server.requests]
    assert code == 1  # every row failed polite, under --fail-under
    assert {state["assistant_answer"] for state in states} == {str(i) for i in range(10)}  # text, as sent
    assert parquet.is_file()  # one file, as named: not a folder of parts
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # nothing left beside it
    table = pq.read_table(parquet).to_pylist()
    rows = [json.loads(row["jev_row"]) for row in table]  # each row as read, with its place in the file
    assert sorted(int(row["id"]) for row in rows) == list(range(10))
    assert sorted(row["jev_line"] for row in table) == list(range(2, 12))
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


def test_a_parquet_folder_only_when_out_names_one(cluster: None, tmp_path: Path) -> None:
    judge, jsonl, _ = write_inputs(tmp_path)
    folder = tmp_path / "judged"
    folder.mkdir()
    with JevServer({"polite": 0.92}, api_key=API_KEY) as server:
        assert on_ray(jsonl, judge, server, folder, "--quiet") == 0
    parts = list(folder.glob("*.parquet"))
    assert parts and sum(pq.read_table(part).num_rows for part in parts) == 40


def test_errors_are_one_line_with_the_local_engines_exit_codes(
    cluster: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge, jsonl, _ = write_inputs(tmp_path)
    out = tmp_path / "results.jsonl"
    broken = tmp_path / "broken.json"
    broken.write_text('[{"answer": "fine"}, {"answer": "fine"} {"answer": "no comma"}]', encoding="utf-8")
    held = ResultsLock(out)
    held.acquire()  # another run writes --out
    try:
        with JevServer({"polite": 0.92}, api_key=API_KEY) as server:
            locked = on_ray(jsonl, judge, server, out)
            locked_err = capsys.readouterr().err
            over_data = on_ray(jsonl, judge, server, jsonl)
            over_err = capsys.readouterr().err
            unreadable = on_ray(broken, judge, server, tmp_path / "other.jsonl")
            unreadable_err = capsys.readouterr().err
            missing = on_ray(tmp_path / "nowhere.jsonl", judge, server, tmp_path / "other.jsonl")
            missing_err = capsys.readouterr().err
            assert server.request_count <= 2  # only the broken array's first rows, if any, were judged
    finally:
        held.release()
    for code, err, said in (
        (locked, locked_err, f"{out} is being written by another run"),
        (over_data, over_err, f"--out {jsonl} is the same file as DATA {jsonl}"),
        (unreadable, unreadable_err, "expected ',' or ']' in the JSON array"),
        (missing, missing_err, "nowhere.jsonl: no such file"),
    ):
        lines = [line for line in err.splitlines() if line.strip()]
        assert code == 2, (code, err)
        assert len(lines) == 1 and lines[0].startswith("langchain-jev: error: ") and said in lines[0], err


def test_a_run_on_ray_is_quiet_unless_verbose(tmp_path: Path) -> None:
    """The command's own lines only: Ray's logs (some 28 lines a run) show with --verbose."""
    judge, jsonl, _ = write_inputs(tmp_path)
    env = cli_env(TYPESAFE_API_KEY=API_KEY)
    with JevServer({"polite": 0.92}, api_key=API_KEY) as server:
        command = [*cli_command("judge", jsonl, "--judge", judge, "--engine", "ray", "--base-url", server.base_url)]
        quiet = subprocess.run(
            [*command, "--out", str(tmp_path / "quiet.parquet")], env=env, capture_output=True, text=True, timeout=300
        )
        verbose = subprocess.run(
            [*command, "--out", str(tmp_path / "verbose.jsonl"), "--verbose"],
            env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert quiet.returncode == verbose.returncode == 0, (quiet.stderr, verbose.stderr)
    assert quiet.stderr == "", quiet.stderr
    assert "40 rows: 40 passed" in quiet.stdout
    assert "Started a local Ray instance" in verbose.stderr or "ray" in verbose.stderr.lower(), verbose.stderr


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
