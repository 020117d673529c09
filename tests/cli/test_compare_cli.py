"""`langchain-jev compare`: two runs of the same rows compared on the terminal and as a page; `--html` with any name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.calibration.helpers import spec_with
from tests.cli.helpers import judge_args, run_cli, weather_answers, weather_rows, write_jsonl
from tests.support.jev_server import JevServer

pytestmark = pytest.mark.slow  # subprocesses and a loopback server

STRICT = spec_with(criteria={"has_details": {"minimum": 0.95}})
ODD_NAME = "cost in $\\frac{1}{$ units"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The weather rows judged by the example judge (A) and a stricter one (B); other rows judged too."""
    folder = tmp_path_factory.mktemp("compare")
    data = write_jsonl(folder / "rows.jsonl", weather_rows())
    other = write_jsonl(folder / "other_rows.jsonl", [{**row, "answer": row["answer"] + "!"} for row in weather_rows()])
    strict = folder / "strict.yaml"
    strict.write_text(yaml.safe_dump(STRICT, sort_keys=False), encoding="utf-8")
    odd = folder / "odd.yaml"
    odd.write_text(
        yaml.safe_dump(
            {"criteria": [{"kind": "noul", "name": ODD_NAME, "instructions": "Cheap?", "minimum": 0.5}]}
        ),
        encoding="utf-8",
    )
    paths = {name: folder / f"{name}.jsonl" for name in ("a", "b", "other", "odd")}
    with JevServer(lambda state, questions: {**weather_answers(state, questions), ODD_NAME: 0.3}) as server:
        for name, rows, judge in (
            ("a", data, None),
            ("b", data, strict),
            ("other", other, None),
            ("odd", data, odd),
        ):
            extra = ("--html", folder / f"{name}.html") if name == "odd" else ()
            kwargs = {"judge": judge} if judge is not None else {}
            done = run_cli(*judge_args(rows, server.base_url, "--out", paths[name], "--quiet", *extra, **kwargs))
            assert done.returncode in (0, 3), done.stderr
            paths[f"{name}-run"] = done  # type: ignore[assignment]
    paths["folder"] = folder
    return paths


def test_compare_prints_both_pass_rates_the_noise_and_the_flipped_rows(runs: dict, tmp_path: Path) -> None:
    done = run_cli("compare", runs["a"], runs["b"], "--html", tmp_path / "c.html", "--json", tmp_path / "c.json")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    details = next(line for line in lines if line.startswith("has_details"))
    assert "71.4%" in details and "0.0%" in details and "-71.4" in details  # 5 of 7 rows -> none
    # 5 discordant rows, all one way: McNemar's exact p = 2 / 2**5 = 0.0625, while the interval leaves out 0
    assert "0.062" in details and details.endswith("too few rows to tell")
    overall = next(line for line in lines if line.startswith("overall"))
    assert "50.0%" in overall and "12.5%" in overall and "0.250" in overall
    assert overall.endswith("too few rows to tell")  # 3 rows, one way: p = 0.25, interval below 0
    assert "8 rows compared (joined by key); 5 flipped: 5 regressions, 0 improvements" in done.stdout
    assert "regression  row 1 (dublin-umbrella): passed -> failed; has_details PASSED -> FAILED" in done.stdout
    assert "criterion 'has_details' changed: minimum 0.7 -> 0.95" in done.stdout  # the judges differ, named
    figures = json.loads((tmp_path / "c.json").read_text())
    assert figures["overall"]["a_only"] == 3 and figures["overall"]["b_only"] == 0
    page = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert page.count("<script") == 2 and '"regression":true' in page
    assert "Rain is expected from 9am" in page or "rain is expected from 9am" in page  # both runs' states


def test_compare_refuses_results_of_another_dataset_with_the_reason(runs: dict) -> None:
    done = run_cli("compare", runs["a"], runs["other"])
    assert done.returncode == 2
    assert "share no row (joined by key): A has 8 rows, B has 8" in done.stderr
    assert "join them by id (--on id)" in done.stderr
    by_id = run_cli("compare", runs["a"], runs["other"], "--on", "id")
    assert by_id.returncode == 0, by_id.stderr
    assert "8 rows compared (joined by id)" in by_id.stdout


def test_compare_refuses_a_file_that_is_not_results_and_an_output_over_an_input(runs: dict, tmp_path: Path) -> None:
    stray = tmp_path / "stray.jsonl"
    stray.write_text("not json\n{}\n", encoding="utf-8")
    done = run_cli("compare", runs["a"], stray)
    assert done.returncode == 2 and "not a JSON line" in done.stderr
    over = run_cli("compare", runs["a"], runs["b"], "--html", runs["b"])
    assert over.returncode == 2 and "is an input of this comparison" in over.stderr


def test_html_draws_a_criterion_whose_name_has_dollar_signs(runs: dict) -> None:
    """A name matplotlib would read as maths made `--html` exit 70 with a parser error."""
    done = runs["odd-run"]
    assert done.returncode == 0, done.stderr
    assert "internal error" not in done.stderr
    page = (runs["folder"] / "odd.html").read_text(encoding="utf-8")
    assert "cost in $\\frac{1}{$ units" in page  # in the chart's text, as written
