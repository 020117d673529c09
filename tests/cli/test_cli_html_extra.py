"""``--html`` without the ``report`` extra is refused before any row is judged (no request spent)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from langchain_jev.cli import main
from langchain_jev.testing.server import JevServer
from tests.cli.helpers import WEATHER_DATA, WEATHER_JUDGE


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[JevServer]:
    with JevServer({}) as jev:
        monkeypatch.setenv("TYPESAFE_API_KEY", "sk-test")
        monkeypatch.setenv("TYPESAFE_BASE_URL", jev.base_url)
        monkeypatch.setitem(sys.modules, "matplotlib", None)  # the report extra is not installed
        yield jev


def _says_what_to_do(err: str) -> None:
    assert 'pip install -e ".[report]"' in err
    assert "rejudge RESULTS.jsonl --judge SPEC --html REPORT.html" in err


@pytest.mark.parametrize("command", ["judge", "calibrate"])
def test_judging_commands_refuse_html_before_asking_anything(
    command: str, server: JevServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.jsonl"
    extra = ["--label", "search_required"] if command == "calibrate" else []
    argv = [command, str(WEATHER_DATA), "--judge", str(WEATHER_JUDGE), "--out", str(out),
            "--html", str(tmp_path / "report.html"), "--workers", "1", "--quiet", *extra]  # fmt: skip
    assert main(argv) == 2
    assert server.request_count == 0 and not out.exists()
    _says_what_to_do(capsys.readouterr().err)


def test_rejudge_refuses_html_before_reading_anything(
    server: JevServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["rejudge", str(tmp_path / "no-such-results.jsonl"), "--judge", str(WEATHER_JUDGE),
            "--html", str(tmp_path / "report.html")]  # fmt: skip
    assert main(argv) == 2
    _says_what_to_do(capsys.readouterr().err)
