"""Files a careless user or a hostile server make: each is one line naming its place, never a crash or a bad file.

Strict JSON is written whatever a server answers (no ``NaN``, no ``Infinity``);
a number that is not finite in a dataset is refused with its place; a tampered
results file is refused naming the record and the field; a cache that breaks
mid-run stops the run naming the cache; a CSV record with more cells than its
header is refused without being built.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from langchain_jev.testing.server import JevServer
from tests.cli.helpers import (
    WEATHER_DATA,
    WEATHER_JUDGE,
    judge_args,
    numbered_rows,
    read_results,
    run_cli,
    weather_answers,
    write_jsonl,
)

pytestmark = pytest.mark.slow  # subprocesses and servers: `-m "not slow"` leaves them out

NAN, INFINITY = float("nan"), float("inf")
LEGEND = {"0": "Terrible: irrelevant or off-topic", "1": "Mostly unhelpful: misses the main point",
          "2": "Mostly helpful: minor gaps remain", "3": "Excellent: fully and correctly addressed"}  # fmt: skip


def _strict(line: str) -> Any:
    """Parse a line as JSON proper: ``NaN`` and ``Infinity`` are not JSON."""

    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in a line that must be strict JSON: {line[:200]}")

    return json.loads(line, parse_constant=refuse)


def _one_error(done: subprocess.CompletedProcess[str], code: int, *named: str) -> str:
    assert done.returncode == code, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("langchain-jev: error: ")]
    assert len(errors) == 1, done.stderr
    for text in named:
        assert text in errors[0], (text, errors[0])
    return errors[0]


def _unreadable_numbers(state: Any, questions: Any) -> dict[str, Any]:
    """Weather answers, but helpfulness comes back as NaN and has_details' choice of probability infinite."""
    answers = weather_answers(state, questions)
    answers["helpfulness"] = {"type": "score", "score": NAN, "confidence": 0.9, "legend": LEGEND,
                              "probabilities": {"0": 0.1, "1": 0.0, "2": INFINITY, "3": 0.0}}  # fmt: skip
    return answers


def test_results_are_strict_json_whatever_the_server_answers(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    with JevServer(_unreadable_numbers) as server:
        done = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--out", out, "--quiet"))
    assert done.returncode == 3, done.stderr  # a criterion left ERROR counts, whatever the model
    records = [_strict(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    assert len(records) == 8
    for record in records:
        helpfulness = {f["name"]: f for f in record["findings"]}["helpfulness"]
        assert helpfulness["outcome"] == "ERROR"  # an answer must hold finite numbers
        assert helpfulness["value"] is None and helpfulness["answer"]["score"] is None

    # what is written from such a file is strict too: re-judged records, and calibrate's figures
    again = tmp_path / "again.jsonl"
    rejudged = run_cli("rejudge", out, "--judge", WEATHER_JUDGE, "--out", again)
    assert rejudged.returncode == 3, rejudged.stderr  # the same ERROR findings, the same exit code
    assert all(_strict(line) for line in again.read_text(encoding="utf-8").splitlines())
    figures = tmp_path / "figures.json"
    labelled = WEATHER_DATA.parent / "weather_labelled.jsonl"
    with JevServer(_unreadable_numbers) as server:
        calibrated = run_cli(
            "calibrate", labelled, "--judge", WEATHER_JUDGE, "--label", "human", "--base-url", server.base_url,
            "--json", figures, "--out", tmp_path / "labelled-results.jsonl",
        )  # fmt: skip
    assert calibrated.returncode == 3, calibrated.stderr  # it judged the rows: the same ERROR findings
    _strict(figures.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("name", "write", "place"),
    [
        ("rows.csv", lambda: "id,answer,cost\n1,Fine.,1e999\n2,Also fine.,3\n", "a cell holds a number that is not finite at cost"),
        ("rows.csv", lambda: 'id,answer,meta\n1,Fine.,"{""cost"": [1, -1e999]}"\n2,Also fine.,{}\n', "at meta.cost[1]"),
        ("rows.jsonl", lambda: '{"id": 1, "answer": "Fine.", "cost": 1e999}\n{"id": 2, "answer": "Also fine."}\n', "holds a number that is not finite at cost"),
        ("rows.jsonl", lambda: '{"id": 1, "answer": "Fine.", "m": {"c": -Infinity}}\n{"id": 2, "answer": "Also fine."}\n', "not finite at m.c"),
        ("rows.json", lambda: '[{"id": 1, "answer": "Fine.", "cost": Infinity}, {"id": 2, "answer": "Also fine."}]', "not finite at cost"),
    ],
    ids=["csv cell", "csv json cell", "jsonl number", "jsonl literal", "json array"],
)  # fmt: skip
def test_a_number_that_is_not_finite_is_refused_with_its_place_and_never_sent(
    tmp_path: Path, name: str, write: Callable[[], str], place: str
) -> None:
    data = tmp_path / name
    data.write_text(write(), encoding="utf-8")
    judge = tmp_path / "judge.json"
    judge.write_text(json.dumps({"criteria": [{"kind": "noul", "name": "ok", "instructions": "Is `assistant_answer` ok?", "minimum": 0.5}]}))  # fmt: skip
    with JevServer({"ok": 0.9}) as server:
        done = run_cli(*judge_args(data, server.base_url, "--out", tmp_path / "out.jsonl", "--quiet", judge=judge))
        sent = [json.dumps(r.body) for r in server.requests]
    assert done.returncode == 2, done.stderr
    assert f"{name}:" in done.stderr and "row 1: " in done.stderr and place in done.stderr, done.stderr
    assert len(sent) == 1 and "Infinity" not in sent[0]  # the other row was judged; this one never sent


TAMPERED: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "bogus outcome": (lambda r: r["findings"][0].update(outcome="BOGUS"), "findings[0].outcome is 'BOGUS'"),
    "no detail": (lambda r: r["findings"][0].pop("detail"), "findings[0] has no detail"),
    "findings not a list": (lambda r: r.update(findings="many"), 'findings is "many", not a list'),
    "finding not an object": (lambda r: r["findings"].__setitem__(1, 7), "findings[1] is 7, not an object"),
    "passed not a boolean": (lambda r: r.update(passed="yes"), 'passed is "yes", not true or false'),
    "answer not an object": (lambda r: r["findings"][1].update(answer=[0.9]), "findings[1].answer is [0.9]"),
    "unknown kind": (lambda r: r["findings"][2].update(kind="vibe"), "findings[2].kind is 'vibe'"),
}


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    out = tmp_path_factory.mktemp("judged") / "results.jsonl"
    with JevServer(weather_answers) as server:
        done = run_cli(*judge_args(WEATHER_DATA, server.base_url, "--out", out, "--quiet"))
    assert done.returncode == 0, done.stderr
    return out.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("tamper", TAMPERED, ids=list(TAMPERED))
@pytest.mark.parametrize("command", ["rejudge", "calibrate"])
def test_a_tampered_results_file_is_one_line_naming_the_record_and_field(
    tmp_path: Path, judged: list[str], tamper: str, command: str
) -> None:
    header, *lines = judged
    records = [json.loads(line) for line in lines]
    change, said = TAMPERED[tamper]
    change(records[2])
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join([header, *(json.dumps(r) for r in records)]) + "\n", encoding="utf-8")
    if command == "rejudge":
        done = run_cli("rejudge", results, "--judge", WEATHER_JUDGE)
    else:
        labelled = WEATHER_DATA.parent / "weather_labelled.jsonl"
        done = run_cli("calibrate", labelled, "--judge", WEATHER_JUDGE, "--label", "human", "--results", results)
    _one_error(done, 2, f"{results}: row {records[2]['row']} (key {records[2]['key']}): ", said)


def _break(cache: Path) -> None:
    """Write over the cache's pages past its first, as a disk fault or another program would.

    Its header is left sound, so the cache opens; the damage shows only when a row's look-up reads a page.
    """
    size = cache.stat().st_size
    assert size > 8192, size
    with open(cache, "r+b") as handle:
        handle.seek(4096)
        handle.write((b"this is not a SQLite page any more " * (size // 35 + 1))[: size - 4096])


@pytest.mark.parametrize("workers", ["1", "2"], ids=["one-process", "two-workers"])
def test_a_cache_found_broken_mid_run_stops_it_naming_the_cache(tmp_path: Path, workers: str) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(300))
    cache, out = tmp_path / "answers.sqlite", tmp_path / "results.jsonl"
    with JevServer(weather_answers) as server:
        first = run_cli(*judge_args(data, server.base_url, "--cache", cache, "--out", tmp_path / "first.jsonl", "--quiet"))
        assert first.returncode == 0, first.stderr
        _break(cache)
        done = run_cli(*judge_args(data, server.base_url, "--cache", cache, "--out", out, "--workers", workers))
    _one_error(done, 2, f"the response cache {cache} cannot be used")
    assert not [r for r in read_results(out) if "error" in r]  # no row was made an error of it


def test_a_csv_record_with_more_cells_than_its_header_is_refused_unbuilt(tmp_path: Path) -> None:
    data = tmp_path / "rows.csv"
    wide = "2,Q?," + "," * 300_000  # 300,003 cells, each built by the csv module, were the record parsed
    data.write_text(f"id,question,answer\n1,Q?,Fine.\n{wide}\n3,Q?,Also fine.\n", encoding="utf-8")
    with JevServer(weather_answers) as server:
        done = run_cli(*judge_args(data, server.base_url, "--out", tmp_path / "out.jsonl", "--quiet"))
        assert server.request_count == 2
    assert done.returncode == 2
    assert "rows.csv:3: row 2: has 300003 cells but the header names 3" in done.stderr, done.stderr
