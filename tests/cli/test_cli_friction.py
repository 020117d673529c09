"""Small command-line frictions: the address a failed connection names, rejudge --quiet, the chat extra."""

from __future__ import annotations

from pathlib import Path

import pytest
from typesafe_sdk.constants import DEFAULT_BASE_URL

from langchain_jev.cli import main
from langchain_jev.datasets._model import ModelSettings, model_identity
from langchain_jev.models import JevDecisionModel

ROOT = Path(__file__).resolve().parents[2]


def test_without_base_url_the_endpoint_is_the_address_tried_not_the_model_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TYPESAFE_BASE_URL", raising=False)
    jev = JevDecisionModel(api_key="sk-test")
    assert model_identity(jev, ModelSettings()) == ("jev-latest", DEFAULT_BASE_URL)
    monkeypatch.setenv("TYPESAFE_BASE_URL", "http://127.0.0.1:9")
    assert model_identity(JevDecisionModel(api_key="sk-test"), ModelSettings())[1] == "http://127.0.0.1:9"


def test_rejudge_accepts_quiet_as_judge_and_calibrate_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["rejudge", str(tmp_path / "none.jsonl"), "--judge", str(ROOT / "examples" / "weather_judge.yaml"),
                 "--quiet"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "unrecognized arguments" not in err and "none.jsonl" in err


def test_judge_help_names_the_extra_a_chat_model_string_needs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["judge", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "needs langchain-jev[chat]" in text and "langchain-jev[middleware]" not in text


def test_gitignore_covers_what_the_tour_leaves() -> None:
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    for pattern in ("results.jsonl", "report.html", "*.sqlite", "judged.parquet/"):
        assert pattern in ignored
