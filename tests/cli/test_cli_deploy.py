"""``langchain-jev deploy``: a judge file as a LangSmith rule, through the real client on a fake API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from langchain_jev.cli import main
from tests.cli.helpers import WEATHER_JUDGE, run_cli
from tests.support.fake_langsmith import RULES_PATH, Posted, fake_langsmith_api, rule_id, rules_api

LS_KEY = "lsv2_pt_cli-deploy-key-0123456789abcdef"
PROJECT_ID = "33333333-3333-4333-8333-333333333333"

JUDGE = """\
version: 1
model: jev:jev-2
criteria:
  - name: helpful
    kind: score
    instructions: How well does `assistant_answer` address `user_question`?
    levels: [Not at all, Partly, Fully]
    minimum: 2
  - name: tone
    kind: choice
    instructions: What is the tone of `assistant_answer`?
    options: {friendly: Warm and polite, curt: Short and cold}
    accepted: [friendly]
  - name: short
    kind: check
    check: {present: assistant_answer}
    defect: there is no answer
"""


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, list[Posted]]]:
    """The fake LangSmith API knowing the project ``support-bot``, and the environment pointing at it."""
    with fake_langsmith_api(rules_api({"support-bot": PROJECT_ID})) as (url, posted):
        for name in ("LANGCHAIN_BASE_URL", "TYPESAFE_BASE_URL"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("LANGSMITH_API_KEY", LS_KEY)
        monkeypatch.setenv("LANGSMITH_ENDPOINT", url)
        yield url, posted


@pytest.fixture
def judge_file(tmp_path: Path) -> Path:
    """A judge file: a score, a choice and a code check, on Jev."""
    path = tmp_path / "judge.yaml"
    path.write_text(JUDGE, encoding="utf-8")
    return path


def rules(posted: list[Posted]) -> list[dict[str, object]]:
    """The bodies of the rules the fake API was asked to create."""
    return [request.json() for request in posted if request.method == "POST" and request.path == RULES_PATH]


def test_deploy_creates_the_rule_with_every_option(
    api: tuple[str, list[Posted]], judge_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, posted = api
    argv = ["deploy", str(judge_file), "--project", "support-bot", "--sampling-rate", "10%",
            "--filter", "eq(is_root, true)", "--threads", "--map", "user_question=input.messages"]  # fmt: skip
    assert main(argv) == 0
    out, err = capsys.readouterr()
    (body,) = rules(posted)
    assert body["questions"] == {
        "helpful": {
            "type": "score",
            "instructions": "How well does `assistant_answer` address `user_question`?",
            "levels": ["Not at all", "Partly", "Fully"],
        },
        "tone": {
            "type": "choice",
            "instructions": "What is the tone of `assistant_answer`?",
            "options": {"friendly": "Warm and polite", "curt": "Short and cold"},
        },
    }
    assert body["variable_mapping"] == {
        "user_question": "input.messages",
        "assistant_answer": "output.answer",
    }
    assert (body["provider"], body["model"], body["session_id"]) == ("typesafe", "jev-2", PROJECT_ID)
    assert (body["sampling_rate"], body["filter"], body["group_by"]) == (
        0.1,
        "eq(is_root, true)",
        "thread_id",
    )
    assert out == (
        f"created rule {rule_id(1)} ('langchain-jev: helpful, tone') on project 'support-bot': "
        "feedback keys helpful, tone\n"
    )
    assert "note: the rule records answers, not verdicts" in err and "'helpful' (level >= 2.00)" in err
    assert "note: the code check 'short' does not travel" in err
    assert LS_KEY not in out + err


def test_dry_run_prints_the_rule_and_sends_nothing(
    api: tuple[str, list[Posted]], judge_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, posted = api
    assert main(["deploy", str(judge_file), "--project", "support-bot", "--dry-run"]) == 0
    out, err = capsys.readouterr()
    assert posted == []
    printed = json.loads(out)
    assert list(printed["questions"]) == ["helpful", "tone"] and "session_id" not in printed
    assert "dry run: nothing was sent" in err
    assert main(["deploy", str(judge_file), "--project", "support-bot"]) == 0
    (sent,) = rules(posted)
    assert {**printed, "session_id": PROJECT_ID} == sent


def test_a_judge_that_cannot_travel_is_bad_input_naming_its_criteria(
    api: tuple[str, list[Posted]], capsys: pytest.CaptureFixture[str]
) -> None:
    _, posted = api
    code = main(["deploy", str(WEATHER_JUDGE), "--project", "support-bot", "--model", "jev:jev-latest"])
    err = capsys.readouterr().err
    assert code == 2
    assert "'is_grounded' (applies_when)" in err and "cannot travel to a LangSmith rule" in err
    assert posted == []


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--project", "nobody"], "LangSmith has no project named 'nobody'"),
        (["--project", "support-bot", "--map", "user_question"], "--map 'user_question': give VAR=FIELD"),
        (["--project", "support-bot", "--model", "openai:gpt-4o-mini"], "cannot travel to LangSmith"),
    ],
)
def test_bad_options_are_bad_input(
    options: list[str],
    said: str,
    api: tuple[str, list[Posted]],
    judge_file: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-cli-deploy-test")
    assert main(["deploy", str(judge_file), *options]) == 2
    assert said in capsys.readouterr().err
    assert rules(api[1]) == []


def test_project_and_dataset_are_one_or_the_other(
    judge_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["deploy", str(judge_file), "--project", "a", "--dataset", "b"])
    assert stopped.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_a_refusal_of_langsmith_is_said_without_the_key(judge_file: Path) -> None:
    def refuse(request: Posted) -> tuple[int, object]:
        return 401, {"detail": f"bad key {request.headers.get('X-API-Key')}"}

    with fake_langsmith_api(refuse) as (url, posted):
        done = run_cli("deploy", judge_file, "--project", "support-bot", LANGSMITH_API_KEY=LS_KEY,
                       LANGSMITH_ENDPOINT=url)  # fmt: skip
    assert done.returncode == 3, done.stderr
    assert "LangSmith did not create the rule: AuthenticationError" in done.stderr
    assert posted and posted[0].headers["X-API-Key"] == LS_KEY
    assert LS_KEY not in done.stdout + done.stderr


def test_without_a_key_the_command_names_the_variable(judge_file: Path) -> None:
    done = run_cli("deploy", judge_file, "--project", "support-bot")
    assert done.returncode == 2 and "set LANGSMITH_API_KEY" in done.stderr
