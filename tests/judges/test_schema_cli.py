"""A row whose tool schema backtracks: the command line names it and goes on, and one Ctrl-C stops the run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from langchain_jev.testing.server import JevServer
from tests.cli.helpers import judge_args, read_results, run_cli, start_cli, write_jsonl

pytestmark = pytest.mark.slow  # subprocesses and a server

BACKTRACKS = {"search": {"type": "object", "properties": {"q": {"type": "string", "pattern": "^(a|a)+$"}}}}
HOSTILE = "a" * 40 + "!"  # with Python's `re` this one match never ends, and Ctrl-C cannot stop it
JUDGE = {
    "criteria": [
        {"kind": "check", "name": "arguments", "check": {"tool_arguments_valid": {}}, "defect": "bad arguments"},
        {"kind": "noul", "name": "fine", "instructions": "Fine?", "minimum": 0.5},
    ]
}


def _row(index: int, query: str) -> dict[str, Any]:
    return {"id": f"r{index}", "question": "Find it", "answer": "Found.", "tool_schemas": BACKTRACKS,
            "tool_calls": [{"name": "search", "arguments": {"q": query}}]}


def _answers(state: dict[str, Any], questions: dict[str, Any]) -> dict[str, Any]:
    return {"fine": 0.9}


def test_the_backtracking_row_is_stopped_within_its_bound_and_the_others_are_judged(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", [_row(0, "aaa"), _row(1, HOSTILE), _row(2, "aa")])
    judge = tmp_path / "judge.json"
    judge.write_text(json.dumps(JUDGE), encoding="utf-8")
    out = tmp_path / "results.jsonl"
    with JevServer(_answers) as server:
        done = run_cli(*judge_args(data, server.base_url, "--out", out, "--quiet", judge=judge), timeout=120)
    assert done.returncode == 2, done.stderr  # a bad input row was skipped, and named
    assert "rows.jsonl:2: row 2: call 1 (search): the tool_arguments_valid check took longer than its bound of 1 s" in done.stderr
    assert sorted((r["id"], r["passed"]) for r in read_results(out)) == [("r0", True), ("r2", True)]  # any order


@pytest.mark.skipif(sys.platform != "linux", reason="process groups and SIGINT as a terminal sends it")
def test_one_ctrl_c_stops_a_run_whose_rows_are_inside_a_check(sigint_at_start: str, tmp_path: Path) -> None:
    rows = [_row(index, HOSTILE) for index in range(40)]  # 40 s of checks at 1 s each
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    judge = tmp_path / "judge.json"
    judge.write_text(json.dumps(JUDGE), encoding="utf-8")
    out = tmp_path / "results.jsonl"
    with JevServer(_answers) as server:
        process = start_cli(*judge_args(data, server.base_url, "--out", out, "--workers", "1", judge=judge),
                            start_new_session=True)
        try:
            deadline = time.monotonic() + 60
            while not (out.exists() and out.stat().st_size):  # the header is written: rows are being checked
                assert process.poll() is None, process.communicate()
                assert time.monotonic() < deadline, "the run never started"
                time.sleep(0.05)
            time.sleep(1.5)  # well inside the checks
            os.killpg(process.pid, signal.SIGINT)
            sent = time.monotonic()
            try:
                _, stderr = process.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                pytest.fail("one Ctrl-C did not stop a run inside a check within 15 s")
            took = time.monotonic() - sent
        finally:
            process.kill()
            process.wait()
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert stderr.count("took longer than its bound") < len(rows)  # it stopped before the rows were done
    print(f"exited {took:.2f} s after the interrupt")
