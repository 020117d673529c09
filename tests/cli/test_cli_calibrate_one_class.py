"""``calibrate --write-judge`` with labels of one class writes the judge unchanged and says why.

Every row the people labelled passes and the judge passes them all: no threshold can
be learned from that, so each criterion is left as it is (the terminal says so), the
overall verdict agrees as well after as before (1.00), and ``--write-judge`` writes
the judge file byte for byte as it was (the file is written, so a pipeline that reads
it finds it; nothing in it changed).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from langchain_jev.cli import main
from langchain_jev.testing.server import JevServer
from tests.cli.helpers import (
    WEATHER_JUDGE,
    expected_weather_verdicts,
    weather_answers,
    weather_rows,
    write_jsonl,
)
from tests.cli.stored import KEY

pytestmark = pytest.mark.slow  # a loopback server


@pytest.fixture
def server() -> Iterator[JevServer]:
    with JevServer(weather_answers) as running:
        yield running


@pytest.mark.parametrize("reuse", [False, True], ids=["judged", "--results"])
def test_one_class_of_labels_writes_the_judge_unchanged_and_says_a_threshold_cannot_be_learned(
    reuse: bool, server: JevServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
    passing = [row for row in weather_rows() if expected_weather_verdicts()[row["id"]]]
    data = write_jsonl(tmp_path / "rows.jsonl", [{**row, "human": "pass"} for row in passing])
    model = ["--base-url", server.base_url, "--max-retries", "0", "--workers", "1", "--quiet"]
    results = tmp_path / "results.jsonl"
    if reuse:
        assert main(["judge", str(data), "--judge", str(WEATHER_JUDGE), "--ignore-field", "human", "--out",
                     str(results), *model]) == 0  # fmt: skip
        capsys.readouterr()
    new = tmp_path / "new.yaml"
    reused = ["--results", str(results)] if reuse else []
    code = main(["calibrate", str(data), "--judge", str(WEATHER_JUDGE), "--label", "human", "--write-judge",
                 str(new), *reused, *model])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert new.read_bytes() == WEATHER_JUDGE.read_bytes()
    assert f"wrote {new} (no threshold changed)" in out
    for name in ("is_grounded", "helpfulness", "has_details"):
        assert f"{name}: left as it is, a threshold cannot be learned from one class of labels" in out, out
    assert "min_confidence: left as it is, a threshold cannot be learned from one class of labels" in out
    assert "overall verdict against its label:\n  before: accuracy 1.00" in out
    assert "\n  after:  accuracy 1.00" in out
