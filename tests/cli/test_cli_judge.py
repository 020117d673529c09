"""`langchain-jev judge` run as a user runs it: a subprocess against a loopback Jev server."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from langchain_jev.testing.server import Fault, JevServer
from tests.cli.helpers import (
    FAKE_KEY,
    WEATHER_DATA,
    WORKERS,
    expected_weather_verdicts,
    judge_args,
    numbered_rows,
    read_results,
    run_cli,
    table_row,
    weather_answers,
    weather_rows,
    write_jsonl,
)

pytestmark = pytest.mark.slow  # subprocesses, servers or large loads: `-m "not slow"` leaves them out


@pytest.fixture
def server() -> Iterator[JevServer]:
    with JevServer(weather_answers) as running:
        yield running


@WORKERS
def test_writes_one_result_line_per_row_and_a_table(server: JevServer, tmp_path: Path, workers: str) -> None:
    out = tmp_path / "results.jsonl"
    done = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--out", out, "--workers", workers))
    assert done.returncode == 0, done.stderr
    records = read_results(out)
    assert sorted(r["row"] for r in records) == list(range(1, 9))
    assert {r["id"]: r["passed"] for r in records} == expected_weather_verdicts()
    tokyo = next(r for r in records if r["id"] == "tokyo-ungrounded")
    grounded = next(f for f in tokyo["findings"] if f["name"] == "is_grounded")
    assert grounded["outcome"] == "FAILED"
    assert "is_grounded" in tokyo["feedback"]
    springfield = next(r for r in records if r["id"] == "springfield")
    outcomes = {f["name"]: f["outcome"] for f in springfield["findings"]}
    assert outcomes["is_grounded"] == "NOT_APPLICABLE"  # no context in that row
    assert outcomes["has_details"] == "NOT_APPLICABLE"  # it asked back
    # the table: one row per criterion in declaration order, then overall
    names = [line.split()[0] for line in done.stdout.splitlines()[1:7]]
    assert names == [
        "matches_search_expectation",
        "is_grounded",
        "helpfulness",
        "mode",
        "has_details",
        "overall",
    ]
    assert table_row(done.stdout, "matches_search_expectation")[2:] == ["6", "2", "0", "0", "0", "75.0%"]
    assert table_row(done.stdout, "is_grounded")[2:] == ["3", "1", "0", "0", "4", "75.0%"]
    assert table_row(done.stdout, "overall")[-1] == "50.0%"
    assert "8 rows: 4 passed, 4 failed, pass rate 50.0%" in done.stdout
    assert server.request_count == 8


@WORKERS
def test_each_result_belongs_to_its_row(server: JevServer, tmp_path: Path, workers: str) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(40))
    out = tmp_path / "results.jsonl"
    done = run_cli(*judge_args(data, server.base_url, "--out", out, "--concurrency", "16", "--workers", workers))
    assert done.returncode == 0, done.stderr
    records = read_results(out)
    assert len(records) == 40
    for record in records:
        # the server echoes each state's marker as the request id
        assert record["request_id"] == f"m{record['row']}"
        assert record["id"] == f"r{record['row']}"
        assert record["passed"] is (record["row"] % 4 != 0)


@WORKERS
def test_concurrency_bounds_the_requests_in_flight(tmp_path: Path, workers: str) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(24))
    with JevServer(weather_answers, delay=0.2) as server:
        done = run_cli(*judge_args(data, server.base_url, "--concurrency", "4", "--quiet", "--workers", workers))
    assert done.returncode == 0, done.stderr
    assert server.request_count == 24
    assert server.peak_in_flight == 4


def test_fail_under_sets_exit_code_1(server: JevServer, tmp_path: Path) -> None:
    failing = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--fail-under", "0.8"))
    assert failing.returncode == 1, failing.stderr
    assert "FAIL: pass rate 50.0% is under --fail-under 80.0%" in failing.stdout
    passing = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--fail-under", "50%"))
    assert passing.returncode == 0, passing.stderr
    assert "FAIL" not in passing.stdout


@WORKERS
def test_a_row_missing_a_needed_field_is_named_and_the_run_goes_on(
    server: JevServer, tmp_path: Path, workers: str
) -> None:
    rows = weather_rows()
    del rows[2]["answer"]
    del rows[5]["question"]
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    out = tmp_path / "results.jsonl"
    done = run_cli(*judge_args(data, server.base_url, "--out", out, "--workers", workers))
    assert done.returncode == 2
    assert "rows.jsonl:3: row 3: missing 'answer' (or 'assistant_answer', 'output', 'response', ...), which the judge needs" in done.stderr
    assert "rows.jsonl:6: row 6: missing 'question' (or 'user_question', 'input', 'query'), which the judge needs" in done.stderr
    assert sorted(r["row"] for r in read_results(out)) == [1, 2, 4, 5, 7, 8]
    assert "2 bad input rows skipped" in done.stdout


@WORKERS
def test_strict_stops_at_the_first_bad_row(server: JevServer, tmp_path: Path, workers: str) -> None:
    rows = numbered_rows(30)
    del rows[9]["answer"]
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    out = tmp_path / "results.jsonl"
    done = run_cli(
        *judge_args(data, server.base_url, "--out", out, "--strict", "--concurrency", "2", "--workers", workers)
    )
    assert done.returncode == 2
    assert "stopped at the first bad row (--strict): line 10" in done.stderr
    judged = sorted(r["row"] for r in read_results(out))
    assert 10 not in judged
    assert max(judged) < 30  # it did not go on to the end


def test_rows_that_are_not_json_objects_are_bad_input(server: JevServer, tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    rows = numbered_rows(3)
    data.write_text(
        json.dumps(rows[0]) + "\n{not json\n\n[1, 2]\n" + json.dumps(rows[1]) + "\n", encoding="utf-8"
    )
    done = run_cli(*judge_args(data, server.base_url, "--quiet"))
    assert done.returncode == 2
    assert "rows.jsonl:2: row 2: not valid JSON" in done.stderr
    assert "rows.jsonl:4: row 3: a row must be a JSON object, got an array" in done.stderr
    assert "2 rows: 2 passed" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["judge", "missing.jsonl", "--judge", "examples/weather_judge.yaml"], "cannot read missing.jsonl"),
        (["judge", "examples/weather.jsonl", "--judge", "missing.yaml"], "cannot read the judge file"),
    ],
)
def test_unreadable_files_exit_2(args: list[str], message: str) -> None:
    done = run_cli(*args)
    assert done.returncode == 2
    assert message in done.stderr


def test_an_invalid_judge_file_exits_2_naming_the_place(tmp_path: Path) -> None:
    spec = tmp_path / "judge.yaml"
    spec.write_text(
        "criteria:\n"
        "  - name: polite\n"
        "    kind: noul\n"
        "    instructions: Is `assistant_answer` polite?\n"
        "    minimum: 1.5\n",
        encoding="utf-8",
    )
    done = run_cli("judge", WEATHER_DATA, "--judge", spec)
    assert done.returncode == 2
    assert "judge.yaml:5: criteria[0].minimum: must be between 0 and 1, got 1.5" in done.stderr


@WORKERS
def test_an_unreachable_model_makes_error_rows_never_passes(tmp_path: Path, workers: str) -> None:
    out = tmp_path / "results.jsonl"
    with JevServer(weather_answers, faults=lambda request: Fault(status=503)) as server:
        done = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--out", out, "--workers", workers))
        below = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--fail-under", "0.5", "--quiet"))
    assert done.returncode == 3, done.stderr
    records = read_results(out)
    assert len(records) == 8
    assert all(r["passed"] is False and r["error"].startswith("TypeSafe") for r in records)
    assert "8 rows could not be judged (TypeSafeInternalServerError x8)" in done.stdout
    assert "counted as not passed" in done.stdout
    assert table_row(done.stdout, "overall")[-1] == "0.0%"
    assert below.returncode == 1


def test_a_closed_port_is_an_error_row_too(tmp_path: Path) -> None:
    with JevServer() as server:
        url = server.base_url
    done = run_cli(*judge_args(WEATHER_DATA, url, "--timeout", "2", "--quiet"))
    assert done.returncode == 3
    assert "could not be judged (TypeSafeAPIConnectionError x8)" in done.stdout


def test_a_missing_api_key_is_bad_input(server: JevServer) -> None:
    done = run_cli(*judge_args(WEATHER_DATA, server.base_url), TYPESAFE_API_KEY="")
    assert done.returncode == 2
    assert "no API key for Jev" in done.stderr
    assert server.request_count == 0


def test_csv_with_other_column_names(server: JevServer, tmp_path: Path) -> None:
    data = tmp_path / "rows.csv"
    with open(data, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "prompt", "response", "search_required", "calls", "docs"])
        for row in weather_rows():
            writer.writerow(
                [
                    row["id"],
                    row["question"],
                    row["answer"],
                    "true" if row["search_required"] else "false",
                    json.dumps(row["tool_calls"]) if "tool_calls" in row else "",
                    json.dumps(row["context"]) if "context" in row else "",
                ]
            )
    out = tmp_path / "results.jsonl"
    done = run_cli(
        *judge_args(data, server.base_url, "--out", out),
        "--question-field",
        "prompt",
        "--answer-field",
        "response",
        "--tool-calls-field",
        "calls",
        "--context-field",
        "docs",
    )
    assert done.returncode == 0, done.stderr
    assert {r["id"]: r["passed"] for r in read_results(out)} == expected_weather_verdicts()
    lines = {r["id"]: r["line"] for r in read_results(out)}
    assert lines["dublin-umbrella"] == 2  # the header is line 1


def test_a_json_array_dataset(server: JevServer, tmp_path: Path) -> None:
    data = tmp_path / "rows.json"
    data.write_text(json.dumps(weather_rows(), indent=2), encoding="utf-8")
    out = tmp_path / "results.jsonl"
    done = run_cli(*judge_args(data, server.base_url, "--out", out))
    assert done.returncode == 0, done.stderr
    assert {r["id"]: r["passed"] for r in read_results(out)} == expected_weather_verdicts()


def test_results_to_stdout_keep_the_table_apart(server: JevServer) -> None:
    done = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--out", "-", "--quiet", "--workers", "2"))
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(records) == 8
    assert "pass rate" in done.stderr


@WORKERS
def test_progress_lines_when_stderr_is_not_a_terminal(server: JevServer, workers: str) -> None:
    done = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--workers", workers))
    assert done.returncode == 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("done: 8/8 rows (100%), pass rate 50.0%")
    assert "ETA" in last


def test_schema_prints_the_judge_json_schema() -> None:
    done = run_cli("schema")
    assert done.returncode == 0, done.stderr
    schema = json.loads(done.stdout)
    assert schema["title"] == "langchain-jev judge"
    assert "criteria" in schema["required"]


def test_the_console_script_is_declared() -> None:
    import tomllib

    from tests.cli.helpers import ROOT

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"]["langchain-jev"] == "langchain_jev.cli:main"


def test_model_names_a_jev_model_or_a_chat_model(server: JevServer) -> None:
    named = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--model", "jev-canary", "--quiet"))
    assert named.returncode == 0, named.stderr
    assert {r.model for r in server.requests} == {"jev-canary"}
    server.reset()
    prefixed = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--model", "typesafe:jev-other", "--quiet"))
    assert prefixed.returncode == 0, prefixed.stderr
    assert {r.model for r in server.requests} == {"jev-other"}
    unknown = run_cli("judge", WEATHER_DATA, "--judge", "examples/weather_judge.yaml", "--model", "nosuchprovider:x")
    assert unknown.returncode == 2
    assert "--model nosuchprovider:x:" in unknown.stderr


def test_an_unwritable_results_file_is_bad_input(server: JevServer, tmp_path: Path) -> None:
    done = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--out", tmp_path / "no" / "such" / "dir.jsonl"))
    assert done.returncode == 2
    assert "cannot write" in done.stderr
    assert server.request_count == 0


@WORKERS
def test_the_api_key_is_never_shown(tmp_path: Path, workers: str) -> None:
    out = tmp_path / "results.jsonl"
    with JevServer(weather_answers, api_key="sk-the-server-wants-another") as server:
        done = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--out", out, "--workers", workers))
    assert done.returncode == 3, done.stderr
    records = read_results(out)
    assert len(records) == 8
    assert all(r["passed"] is False and "Authentication" in r["error"] for r in records)
    for text in (done.stdout, done.stderr, out.read_text(encoding="utf-8")):
        assert FAKE_KEY not in text
        assert FAKE_KEY[-8:] not in text
