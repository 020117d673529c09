"""Rows judged on Ray keep their answers too: the report is drawn, and rejudge decides them again with no request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed")

from langchain_jev.cli import main  # noqa: E402
from langchain_jev.testing.server import JevServer  # noqa: E402
from tests.ray.conftest import API_KEY  # noqa: E402

pytestmark = pytest.mark.slow


def judge_file(path: Path, minimum: float) -> Path:
    criterion = {
        "kind": "noul",
        "name": "polite",
        "instructions": "Is `assistant_answer` polite?",
        "minimum": minimum,
    }
    path.write_text(json.dumps({"criteria": [criterion]}), encoding="utf-8")
    return path


def test_a_ray_run_draws_its_report_and_is_rejudged_without_a_request(cluster: None, tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        "".join(json.dumps({"id": i, "answer": f"A{i}."}) + "\n" for i in range(12)), encoding="utf-8"
    )
    lenient, strict = judge_file(tmp_path / "lenient.json", 0.7), judge_file(tmp_path / "strict.json", 0.95)
    with JevServer({"polite": 0.92}, api_key=API_KEY) as server:
        code = main(
            [
                "judge",
                str(rows),
                "--judge",
                str(lenient),
                "--engine",
                "ray",
                "--base-url",
                server.base_url,
                "--out",
                str(tmp_path / "ray.jsonl"),
                "--html",
                str(tmp_path / "ray.html"),
                "--quiet",
            ]
        )
        assert code == 0
        asked = server.request_count
        again = main(
            [
                "rejudge",
                str(tmp_path / "ray.jsonl"),
                "--judge",
                str(strict),
                "--out",
                str(tmp_path / "again.jsonl"),
            ]
        )
        assert server.request_count == asked  # not one request
    assert again == 0
    page = (tmp_path / "ray.html").read_text(encoding="utf-8")
    assert page.count("<svg") == 2 and "12 rows: 12 passed" in page
    header, *lines = (tmp_path / "again.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert json.loads(header)["judge"]["criteria"][0]["minimum"] == 0.95
    assert sorted(r["id"] for r in records) == list(range(12))
    assert not any(r["passed"] for r in records)
    assert all(  # rows read from a file keep their row and line, as the local engine's records do
        r["row"] == r["line"] == r["id"] + 1 and r["findings"][0]["answer"] == {"type": "noul", "noul": 0.92}
        for r in records
    )


def test_html_with_a_parquet_out_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(
            [
                "judge",
                "rows.jsonl",
                "--judge",
                str(judge_file(tmp_path / "j.json", 0.5)),
                "--engine",
                "ray",
                "--out",
                "x.parquet",
                "--html",
                "r.html",
            ]
        )
    assert stopped.value.code == 2
    assert "--html is drawn from a results file" in capsys.readouterr().err
