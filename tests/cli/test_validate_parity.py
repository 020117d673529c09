"""Validation parity: every judge file that ``judge`` refuses, ``validate`` refuses, with the same message.

``validate`` runs every check that building the judge runs (`JudgeSpec.check`,
and the model the file names), importing none of the file's code and asking
no model, so "a valid judge file" means ``judge`` will build it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from langchain_jev.cli import main

HEAD = "criteria:\n"
NOUL = '  - {kind: noul, name: ok, instructions: "Is `assistant_answer` fine?", minimum: 0.5}\n'
MODE = (
    '  - {kind: choice, name: mode, instructions: "How does `assistant_answer` respond?",'
    " options: [answered, refused], accepted: [answered]}\n"
)
RUBRIC = '  - {kind: score, name: helpful, instructions: "Helpful?", levels: [a, b, c, d], minimum: %s}\n'

# name -> a judge file `judge` refuses
BAD: dict[str, str] = {
    "when_chosen label typo": HEAD
    + MODE
    + '  - {kind: noul, name: d, instructions: "Details?", minimum: 0.7,'
    " when_chosen: {criterion: mode, labels: [answerd]}}\n",
    "score minimum above a 0-3 rubric": HEAD + RUBRIC % 5,
    "score minimum below the rubric": HEAD + RUBRIC % -1,
    "when_chosen on a score": HEAD
    + RUBRIC % 2
    + '  - {kind: noul, name: d, instructions: "Details?", minimum: 0.7,'
    " when_chosen: {criterion: helpful, labels: [a]}}\n",
    "when_chosen names a later criterion": HEAD
    + '  - {kind: noul, name: d, instructions: "Details?", minimum: 0.7,'
    " when_chosen: {criterion: mode, labels: [answered]}}\n"
    + MODE,
    "when_passed names no criterion": HEAD
    + '  - {kind: noul, name: d, instructions: "Details?", minimum: 0.7, when_passed: nosuch}\n',
    "checks only, no question": HEAD
    + "  - {kind: check, name: j, check: {answer_is_json: true}, defect: not JSON}\n",
    "one name twice across kinds": HEAD
    + NOUL
    + "  - {kind: check, name: ok, check: {answer_is_json: true}, defect: not JSON}\n",
    "an engine problem beside code (judged with --allow-code json)": HEAD
    + RUBRIC % 7
    + "  - {kind: check, name: mine, check: {call: 'json:loads'}, defect: d}\n",
    "an unknown model provider": "model: nosuch:gpt\n" + HEAD + NOUL,
    "a provider whose package is not installed": "model: fireworks:some-model\n" + HEAD + NOUL,
    "a jury member named twice": "model: {jury: [{name: a, model: 'jev:x'}, {name: a, model: 'jev:y'}]}\n"
    + HEAD
    + NOUL,
}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"question": "Hi?", "answer": "Hello!"}\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("name", list(BAD))
def test_validate_refuses_what_judge_refuses_with_the_same_message(
    name: str, data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if "not installed" in name and importlib.util.find_spec("langchain_fireworks") is not None:
        pytest.skip("langchain-fireworks is installed here")
    monkeypatch.setenv("TYPESAFE_API_KEY", "sk-test")
    monkeypatch.delenv("TYPESAFE_BASE_URL", raising=False)
    spec = tmp_path / "judge.yaml"
    spec.write_text(BAD[name], encoding="utf-8")
    trust = ["--allow-code", "json"] if "--allow-code" in name else []  # validate imports no code
    judged, judge_says = _run(
        ["judge", str(data), "--judge", str(spec), "--workers", "1", "--quiet", *trust], capsys
    )
    assert judged == 2 and "the judge file is invalid" in judge_says, judge_says
    validated, validate_says = _run(["validate", str(spec)], capsys)
    assert validated == 2, f"validate accepted a file judge refuses:\n{judge_says}"
    assert validate_says == judge_says


def test_a_file_both_accept_is_still_valid(capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(__file__).resolve().parents[2]
    code, _ = _run(["validate", str(root / "examples" / "weather_judge.yaml")], capsys)
    assert code == 0
