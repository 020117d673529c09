"""`langchain-jev calibrate`: figures, suggestions, --write-judge, --json, --results and --repeat from the command line."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.helpers import (
    WEATHER_JUDGE,
    expected_weather_verdicts,
    judge_args,
    run_cli,
    weather_answers,
    weather_rows,
    write_jsonl,
)
from tests.support.jev_server import JevServer

pytestmark = pytest.mark.slow  # subprocesses and a loopback server

FIGURES = {
    "n",
    "base_rate",
    "auroc",
    "brier",
    "ece",
    "accuracy",
    "kappa",
    "kappa_interval",
    "false_pass_rate",
    "false_fail_rate",
    "pass_rate",
    "reliability",
    "sweep",
}


def calibrate_args(data: Path, server_url: str, *extra: Any) -> list[str]:
    return [
        "calibrate",
        str(data),
        "--judge",
        str(WEATHER_JUDGE),
        "--base-url",
        server_url,
        "--max-retries",
        "0",
        *map(str, extra),
    ]


def labelled_rows() -> list[dict[str, Any]]:
    expected = expected_weather_verdicts()
    rows = []
    for row in weather_rows():
        details = row["id"] not in (
            "madrid-vague",
            "oslo-no-search",
            "why-rain",
        )  # people disagree on why-rain
        rows.append({**row, "human": "pass" if expected[row["id"]] else "fail", "details_ok": details})
    return rows


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("calibrate")
    data = write_jsonl(folder / "rows.jsonl", labelled_rows())
    with JevServer(weather_answers) as server:
        result = run_cli(
            *calibrate_args(data, server.base_url, "--out", folder / "results.jsonl", "--quiet"),
            "--label",
            "human",
            "--label",
            "has_details=details_ok",
            "--json",
            folder / "calibration.json",
            "--write-judge",
            folder / "new.yaml",
            "--max-false-pass",
            "0",
            "--html",
            folder / "calibration.html",
        )
        requests = server.request_count
    return {"folder": folder, "data": data, "result": result, "requests": requests}


def test_calibrate_prints_the_figures_suggests_and_writes_the_judge(calibrated: dict[str, Any]) -> None:
    result, folder = calibrated["result"], calibrated["folder"]
    assert result.returncode == 0, result.stderr
    assert calibrated["requests"] == 8  # one request per row; the labels went nowhere
    assert "calibration against the labels" in result.stdout
    assert "overall verdict against its label:\n  before: accuracy 1.00" in result.stdout
    # people fail why-rain's details, which the model gives 0.9: no false pass on has_details needs a minimum
    # above 0.9, yet people pass why-rain as a whole, so that minimum would fail a row the overall label
    # passes: a suggestion that makes the verdict agree less is withdrawn, saying so
    assert (
        "has_details: left as it is, with it, the overall verdict would agree less with the overall label "
        "(accuracy 1.00, kappa 1.00 -> accuracy 0.62, kappa 0.25)"
    ) in result.stdout
    assert "\n  after:  accuracy 1.00" in result.stdout
    assert f"wrote {folder / 'new.yaml'} (no threshold changed)" in result.stdout
    assert (folder / "new.yaml").read_bytes() == WEATHER_JUDGE.read_bytes()


def test_a_criterion_s_own_labels_move_its_threshold_and_the_judge_is_written_with_it(
    calibrated: dict[str, Any], tmp_path: Path
) -> None:
    folder = calibrated["folder"]
    new, page = tmp_path / "new.yaml", tmp_path / "calibration.html"
    result = run_cli(
        "calibrate", calibrated["data"], "--judge", WEATHER_JUDGE, "--results", folder / "results.jsonl",
        "--label", "has_details=details_ok", "--max-false-pass", "0", "--write-judge", new, "--html", page,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # people fail why-rain's details, which the model gives 0.9: no false pass means a minimum above 0.9
    assert "has_details: 0.7 -> 0.91\n    at 0.91: accuracy " in result.stdout
    assert "-    minimum: 0.7\n+    minimum: 0.91" in result.stdout  # the diff
    written = yaml.safe_load(new.read_text())
    old = yaml.safe_load(WEATHER_JUDGE.read_text())
    assert written["criteria"][4]["minimum"] == 0.91

    def rest(spec: dict) -> dict:
        criteria = [{k: v for k, v in c.items() if k != "minimum"} for c in spec["criteria"]]
        return {**{k: v for k, v in spec.items() if k != "min_confidence"}, "criteria": criteria}

    assert rest(written) == rest(old)
    assert "suggested 0.91" in page.read_text(encoding="utf-8")  # has_details' suggested minimum, on its curve


def test_the_json_holds_every_figure_with_its_definition(calibrated: dict[str, Any]) -> None:
    document = json.loads((calibrated["folder"] / "calibration.json").read_text())
    assert [c["name"] for c in document["criteria"]] == ["is_grounded", "helpfulness", "mode", "has_details"]
    for criterion in document["criteria"]:
        assert set(criterion) >= FIGURES
    details = document["criteria"][3]
    assert details["n"] == 7  # asked and applicable on the 7 rows that answered
    assert details["kappa_interval"] is not None
    assert document["suggestion"]["objective"] == {
        "target": "kappa",
        "max_false_pass": 0.0,
        "max_false_fail": None,
    }
    for point in document["suggestion"]["points"].values():
        assert point["false_pass_rate"] in (0.0, None)
    assert document["overall"]["accuracy"] == 1.0
    for key in FIGURES - {"reliability", "sweep"} | {"flip_rate", "mean_variance", "overall"}:
        assert key in document["definitions"], key


def test_calibrate_reuses_a_results_file_without_a_model(calibrated: dict[str, Any], tmp_path: Path) -> None:
    folder = calibrated["folder"]
    again = run_cli(
        "calibrate",
        calibrated["data"],
        "--judge",
        WEATHER_JUDGE,
        "--results",
        folder / "results.jsonl",
        "--label",
        "human",
        "--label",
        "has_details=details_ok",
        "--target",
        "accuracy",
        "--json",
        tmp_path / "again.json",
    )
    assert again.returncode == 0, again.stderr
    document = json.loads((tmp_path / "again.json").read_text())
    first = json.loads((folder / "calibration.json").read_text())
    assert document["criteria"] == first["criteria"]
    assert document["suggestion"]["objective"] == {
        "target": "accuracy",
        "max_false_pass": None,
        "max_false_fail": None,
    }


def test_calibrate_reads_the_results_of_rows_judged_on_ray(
    calibrated: dict[str, Any], tmp_path: Path
) -> None:
    folder = calibrated["folder"]
    lines = (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
    unplaced = [{k: v for k, v in json.loads(line).items() if k not in ("row", "line")} for line in lines]
    write_jsonl(tmp_path / "ray.jsonl", unplaced[::-1])  # Ray keeps no order either
    again = run_cli(
        "calibrate",
        calibrated["data"],
        "--judge",
        WEATHER_JUDGE,
        "--results",
        tmp_path / "ray.jsonl",
        "--label",
        "human",
        "--label",
        "has_details=details_ok",
        "--max-false-pass",
        "0",
        "--json",
        tmp_path / "again.json",
    )
    assert again.returncode == 0, again.stderr
    first = json.loads((folder / "calibration.json").read_text())
    assert json.loads((tmp_path / "again.json").read_text())["criteria"] == first["criteria"]


def test_labels_given_after_judging_are_read_and_a_bad_one_is_named_by_line_and_field(
    calibrated: dict[str, Any], tmp_path: Path
) -> None:
    rows = labelled_rows()
    unlabelled = write_jsonl(
        tmp_path / "plain.jsonl", [{k: v for k, v in r.items() if k != "human"} for r in rows]
    )
    with JevServer(weather_answers) as server:
        judged = run_cli(
            *judge_args(unlabelled, server.base_url, "--out", tmp_path / "results.jsonl", "--quiet")
        )
    assert judged.returncode == 0, judged.stderr
    rows[2]["human"] = "dunno"
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    bad = run_cli(
        "calibrate",
        data,
        "--judge",
        WEATHER_JUDGE,
        "--results",
        tmp_path / "results.jsonl",
        "--label",
        "human",
    )
    assert bad.returncode == 2
    assert "rows.jsonl:3: human: 'dunno' is not a label" in bad.stderr
    other = write_jsonl(
        tmp_path / "other.jsonl", [{**row, "answer": row["answer"] + "!"} for row in labelled_rows()]
    )
    mixed = run_cli(
        "calibrate",
        other,
        "--judge",
        WEATHER_JUDGE,
        "--results",
        tmp_path / "results.jsonl",
        "--label",
        "human",
    )
    assert mixed.returncode == 2 and "the results are of other data" in mixed.stderr


class Wobbly:
    """The weather answers, with has_details moving by a known amount: 0.6, 0.8, 0.6, ... per request of a row."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, state: Any, questions: Any) -> dict[str, Any]:
        answers = weather_answers(state, questions)
        with self.lock:
            self.seen[state["assistant_answer"]] += 1
            count = self.seen[state["assistant_answer"]]
        answers["has_details"] = 0.6 if count % 2 else 0.8
        return answers


def test_repeat_asks_again_past_the_cache_and_measures_flips_and_variance(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", labelled_rows())
    with JevServer(Wobbly()) as server:
        result = run_cli(
            *calibrate_args(
                data, server.base_url, "--cache", tmp_path / "cache.sqlite", "--quiet", "--workers", "1"
            ),
            "--label",
            "human",
            "--repeat",
            "4",
            "--json",
            tmp_path / "calibration.json",
        )
        assert server.request_count == 4 * 8  # the cache answered none of the repeats
    assert result.returncode == 0, result.stderr
    stability = {s["name"]: s for s in json.loads((tmp_path / "calibration.json").read_text())["stability"]}
    assert stability["has_details"]["rows"] == 7
    assert stability["has_details"]["flip_rate"] == 1.0  # 0.6 fails and 0.8 passes the minimum 0.7
    assert stability["has_details"]["mean_variance"] == pytest.approx(0.01)  # (0.1) ** 2
    assert stability["is_grounded"] == {
        "name": "is_grounded",
        "rows": 4,
        "flip_rate": 0.0,
        "mean_variance": 0.0,
    }
    assert "has_details: flip rate 1.00, mean within-row variance 0.01000 (7 rows)" in result.stdout
