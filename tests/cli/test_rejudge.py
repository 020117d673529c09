"""`langchain-jev rejudge`: stored answers decided again under another judge file, with zero requests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.calibration.helpers import spec_with
from tests.cli.helpers import judge_args, read_results, run_cli, weather_answers, weather_rows, write_jsonl
from tests.support.jev_server import JevServer

pytestmark = pytest.mark.slow  # subprocesses and a loopback server

LENIENT = spec_with(
    min_confidence=0.95, criteria={"is_grounded": {"minimum": 0.05}, "helpfulness": {"minimum": 1}}
)


def table(stdout: str) -> str:
    return stdout.split("\n\n", 1)[0]


def by_row(path: Path) -> list[dict]:
    """The records of a results file in row order (a run writes them as rows finish)."""
    return sorted(read_results(path), key=lambda record: record["row"])


def write_spec(path: Path, spec: dict) -> Path:
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The weather rows judged under the example judge (stored) and under a lenient one (fresh), once."""
    folder = tmp_path_factory.mktemp("rejudge")
    # the marker is echoed as the request id, so two runs over the same rows record the same ids
    data = write_jsonl(folder / "rows.jsonl", [{**row, "marker": row["id"]} for row in weather_rows()])
    lenient = write_spec(folder / "lenient.yaml", LENIENT)
    with JevServer(weather_answers) as server:
        stored = run_cli(
            *judge_args(
                data,
                server.base_url,
                "--out",
                folder / "stored.jsonl",
                "--quiet",
                "--html",
                folder / "judge.html",
            )
        )
        fresh = run_cli(
            *judge_args(data, server.base_url, "--out", folder / "fresh.jsonl", "--quiet", judge=lenient)
        )
        assert stored.returncode == fresh.returncode == 0, stored.stderr + fresh.stderr
        requests = server.request_count
        again = run_cli(
            "rejudge",
            folder / "stored.jsonl",
            "--judge",
            lenient,
            "--out",
            folder / "again.jsonl",
            "--html",
            folder / "again.html",
        )
        assert server.request_count == requests  # not one request
    return {"folder": folder, "fresh": fresh, "again": again}


def test_rejudge_equals_a_fresh_judge_run_at_the_new_thresholds_and_makes_zero_requests(runs: dict) -> None:
    folder, again = runs["folder"], runs["again"]
    assert again.returncode == 0, again.stderr
    assert by_row(folder / "again.jsonl") == by_row(folder / "fresh.jsonl")
    assert by_row(folder / "again.jsonl") != by_row(folder / "stored.jsonl")
    header = json.loads((folder / "again.jsonl").read_text().splitlines()[0])
    fresh = json.loads((folder / "fresh.jsonl").read_text().splitlines()[0])
    stored = json.loads((folder / "stored.jsonl").read_text().splitlines()[0])
    assert header["judge"] == fresh["judge"] and header["fingerprint"] == fresh["fingerprint"]  # the lenient one
    assert header["run"] == stored["run"]  # the rows are the stored run's: where they came from carries over
    assert table(again.stdout) == table(runs["fresh"].stdout)
    assert "0 requests" in again.stdout


def test_rejudge_refuses_a_criterion_whose_question_changed_by_name(runs: dict, tmp_path: Path) -> None:
    changed = write_spec(
        tmp_path / "changed.yaml",
        spec_with(criteria={"has_details": {"instructions": "Is it detailed?", "minimum": 0.5}}),
    )
    refused = run_cli(
        "rejudge", runs["folder"] / "stored.jsonl", "--judge", changed, "--out", tmp_path / "again.jsonl"
    )
    assert refused.returncode == 2
    assert "has_details: its question changed since the answers were stored" in refused.stderr
    assert "helpfulness" not in refused.stderr
    assert not (tmp_path / "again.jsonl").exists()


def test_rejudge_applies_fail_under_and_says_what_it_cannot_read(runs: dict, tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "s.yaml", spec_with())
    strict = run_cli("rejudge", runs["folder"] / "stored.jsonl", "--judge", spec, "--fail-under", "0.9")
    assert strict.returncode == 1
    assert "FAIL: pass rate 50.0% is under --fail-under 90.0%" in strict.stdout
    missing = run_cli("rejudge", tmp_path / "nope.jsonl", "--judge", spec)
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_judge_and_rejudge_draw_their_reports(runs: dict) -> None:
    judged = (runs["folder"] / "judge.html").read_text(encoding="utf-8")
    again = (runs["folder"] / "again.html").read_text(encoding="utf-8")
    for page in (judged, again):
        assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 5  # pass rates, 4 distributions
        assert page.count("<script") == 2  # the rows' data island and the one script its policy allows
        # each row's judged state, read again from the dataset the header names
        assert "Heavy snow, 40 cm, is expected in Tokyo tomorrow." in page
        assert "rows.jsonl" in page and "127.0.0.1" in page  # provenance: the dataset, the server's host
    assert "tokyo-ungrounded" in judged  # failing under the example judge
    title = judged.split("<title>", 1)[1].split("</title>", 1)[0]
    assert title.startswith("judge: ") and "rows.jsonl with " in title  # the dataset, not the --out file
    assert "threshold 0.05" in again  # is_grounded's lenient minimum, drawn


def test_html_needs_a_results_file(tmp_path: Path) -> None:
    refused = run_cli("judge", "rows.jsonl", "--judge", "judge.yaml", "--html", tmp_path / "r.html")
    assert refused.returncode == 2
    assert "--html needs --out PATH" in refused.stderr


def test_rejudge_refuses_a_check_or_condition_that_changed_by_name(runs: dict, tmp_path: Path) -> None:
    changed = write_spec(
        tmp_path / "changed.yaml",
        spec_with(
            criteria={
                "is_grounded": {"applies_when": {"present": "expected_output"}},
                "matches_search_expectation": {"check": {"tool_called": "search"}},
            }
        ),
    )
    refused = run_cli("rejudge", runs["folder"] / "stored.jsonl", "--judge", changed)
    assert refused.returncode == 2
    assert "is_grounded: its applies_when changed: the stored run asked it on other rows" in refused.stderr
    assert "matches_search_expectation: its check changed" in refused.stderr
