"""The command line's options and messages, run in this process: what a user types, what the command says."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from langchain_jev.cli import _arguments as arguments
from langchain_jev.cli import main
from langchain_jev.datasets import _exit_codes as exit_codes
from tests.cli.helpers import WEATHER_JUDGE, numbered_rows, write_jsonl

WEATHER = ["examples/weather.jsonl", "--judge", str(WEATHER_JUDGE)]


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TYPESAFE_BASE_URL", "TYPESAFE_DEFAULT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TYPESAFE_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.chdir(Path(__file__).resolve().parents[2])


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as stop:
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from langchain_jev import __version__

    code, out, _ = _run(["--version"], capsys)
    assert code == 0
    assert out.strip() == f"langchain-jev {__version__}"


@pytest.mark.parametrize(
    ("text", "rate"),
    [("80", 0.8), ("80%", 0.8), ("0.8", 0.8), ("1", 1.0), ("100", 1.0), ("0", 0.0), ("99.5", 0.995), ("1%", 0.01)],
)
def test_fail_under_takes_a_fraction_or_a_percentage(text: str, rate: float) -> None:
    assert arguments.rate(text) == pytest.approx(rate)


@pytest.mark.parametrize("text", ["101", "-1", "150%", "x", "nan", "inf"])
def test_fail_under_refuses_what_is_neither(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        arguments.rate(text)


def test_help_documents_every_exit_code_and_the_key(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["judge", "--help"], capsys)
    assert code == 0
    text = " ".join(out.split())
    assert "TYPESAFE_API_KEY" in text
    for number in (0, 1, 2, 3, 130, 70):
        assert f"{number} " in text.split("exit codes:", 1)[1], number
    assert "80 and 0.8 both mean 80%" in text


def test_the_docs_document_every_exit_code() -> None:
    readme = (Path(__file__).resolve().parents[2] / "docs" / "command-line.md").read_text(encoding="utf-8")
    for code in (exit_codes.EXIT_OK, exit_codes.EXIT_BELOW_THRESHOLD, exit_codes.EXIT_BAD_INPUT, exit_codes.EXIT_MODEL_ERRORS):
        assert f"| `{code}` |" in readme
    assert f"| `{exit_codes.EXIT_INTERRUPTED}` |" in readme
    assert f"| `{exit_codes.EXIT_INTERNAL}` |" in readme


def test_no_key_names_what_the_command_user_can_set(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TYPESAFE_API_KEY")
    code, _, err = _run(["judge", *WEATHER, "--quiet"], capsys)
    assert code == 2
    assert "TYPESAFE_API_KEY" in err
    assert "api_key=" not in err
    assert "client=" not in err


def test_an_unknown_provider_says_what_model_can_be(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["judge", *WEATHER, "--model", "nosuchprovider:x"], capsys)
    assert code == 2
    assert "--model nosuchprovider:x: unknown provider 'nosuchprovider'" in err
    assert "model_provider" not in err  # a Python argument the command does not have
    assert "openai:" in err  # an example of a provider that works
    assert "jev-latest" in err  # or a Jev model name


@pytest.mark.parametrize(("column", "option"), [("answer", "--answer-field"), ("question", "--question-field")])
def test_a_missing_column_hints_at_the_option_that_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], column: str, option: str
) -> None:
    rows = numbered_rows(3)
    for row in rows:
        row["reply" if column == "answer" else "prompt"] = row.pop(column)
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    code, _, err = _run(
        ["judge", str(data), "--judge", str(WEATHER_JUDGE), "--base-url", "http://127.0.0.1:9", "--quiet"], capsys
    )
    assert code == 2
    assert err.count(option) == 1, err  # one hint, not one per row
    assert f"no '{column}' column" in err
    assert ("reply" if column == "answer" else "prompt") in err.split(option, 1)[0].rsplit("\n", 1)[-1]


def test_an_internal_error_is_one_line_and_its_own_exit_code(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from langchain_jev.datasets._local import run as cli_run

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("something the command did not expect")

    monkeypatch.setattr(cli_run, "run", broken)
    code, _, err = _run(["judge", *WEATHER, "--base-url", "http://127.0.0.1:9", "--quiet"], capsys)
    assert code == exit_codes.EXIT_INTERNAL == 70
    assert "Traceback" not in err
    assert "langchain-jev: internal error: RuntimeError: something the command did not expect" in err


def test_a_record_that_utf8_cannot_hold_is_still_written(tmp_path: Path) -> None:
    from langchain_jev.datasets.results import ResultsFile

    path = tmp_path / "results.jsonl"
    with ResultsFile(path) as results:
        results.write({"row": 1, "key": "k", "id": "\ud800x", "passed": True})
    assert json.loads(path.read_text(encoding="utf-8").splitlines()[-1])["id"] == "\ud800x"
