"""Dataset columns: the aliases the LangSmith mapping reads, and a wrong column said once, with a count."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from langchain_jev._input import ANSWER_FIELD, FIELD_ALIASES, QUESTION_FIELD
from langchain_jev._runs import ANSWER_KEYS, QUESTION_KEYS
from langchain_jev.cli import main
from langchain_jev.testing.server import JevServer

SPEC = 'criteria:\n  - {kind: noul, name: ok, instructions: "Does `assistant_answer` answer `user_question`?", minimum: 0.5}\n'


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[JevServer]:
    with JevServer({"ok": 0.9, "polite": 0.9}) as jev:
        monkeypatch.setenv("TYPESAFE_API_KEY", "sk-test")
        monkeypatch.setenv("TYPESAFE_BASE_URL", jev.base_url)
        yield jev


def _judge(tmp_path: Path, rows: list[dict[str, str]], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, Path]:
    data, spec, out = tmp_path / "rows.jsonl", tmp_path / "judge.yaml", tmp_path / "results.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    spec.write_text(SPEC, encoding="utf-8")
    code = main(["judge", str(data), "--judge", str(spec), "--out", str(out), "--workers", "1", "--quiet"])
    return code, capsys.readouterr().err, out


def test_the_command_line_reads_the_columns_the_langsmith_mapping_reads() -> None:
    assert FIELD_ALIASES[QUESTION_FIELD] == QUESTION_KEYS and FIELD_ALIASES[ANSWER_FIELD] == ANSWER_KEYS


@pytest.mark.parametrize(("question", "answer"), [("input", "output"), ("input", "response"), ("query", "result")])
def test_alias_columns_are_judged(
    question: str, answer: str, server: JevServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err, out = _judge(tmp_path, [{question: "Hi?", answer: "Hello!"}], capsys)
    assert code == 0, err
    assert server.requests[-1].state == {"user_question": "Hi?", "assistant_answer": "Hello!"}
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2  # the header and the row


def test_a_wrong_column_is_said_once_with_the_count_of_rows(
    server: JevServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"question": f"Q{n}?", "reply": "A."} for n in range(200)]
    code, err, _ = _judge(tmp_path, rows, capsys)
    assert code == 2 and server.request_count == 0
    lines = err.strip().splitlines()
    assert len(lines) <= 4, err  # not one line per row
    assert sum("row 1: missing 'answer'" in line for line in lines) == 1
    assert any("200 rows skipped in all for this (the first at line 1): missing 'answer'" in line for line in lines)


def test_a_field_the_questions_name_and_the_first_row_lacks_is_said_before_any_request(
    server: JevServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, spec, out = tmp_path / "tickets.csv", tmp_path / "judge.yaml", tmp_path / "results.jsonl"
    data.write_text(
        "ticket_id,customer_message,agent_reply,channel\n1,Where is order 42?,It ships today.,email\n",
        encoding="utf-8",
    )
    spec.write_text(SPEC, encoding="utf-8")
    args = ["judge", str(data), "--judge", str(spec), "--out", str(out), "--workers", "1", "--quiet"]
    main([*args, "--answer-field", "agent_reply"])
    err = capsys.readouterr().err
    assert err.count("warning: the judge's questions name a field the first row lacks") == 1, err
    assert "'question'" in err and "customer_message" in err and "--question-field" in err, err
    assert "requires:" in err
    code = main([*args, "--answer-field", "agent_reply", "--question-field", "customer_message"])
    err = capsys.readouterr().err
    assert code == 0 and "warning" not in err, err
    assert server.requests[-1].state["user_question"] == "Where is order 42?"


def test_a_field_listed_under_requires_refuses_rows_without_it_before_any_request(
    server: JevServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, spec, out = tmp_path / "tickets.csv", tmp_path / "judge.yaml", tmp_path / "results.jsonl"
    data.write_text("ticket_id,customer_message,agent_reply\n1,Where is order 42?,It ships today.\n", encoding="utf-8")
    spec.write_text("requires: [user_question, assistant_answer]\n" + SPEC, encoding="utf-8")
    args = ["judge", str(data), "--judge", str(spec), "--out", str(out), "--workers", "1", "--quiet"]
    code = main([*args, "--answer-field", "agent_reply"])
    err = capsys.readouterr().err
    assert code == 2 and server.request_count == 0, err
    assert "--question-field" in err and "customer_message" in err


def test_a_field_named_by_a_question_that_may_not_apply_is_not_required(
    server: JevServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, spec, out = tmp_path / "rows.jsonl", tmp_path / "judge.yaml", tmp_path / "results.jsonl"
    data.write_text(json.dumps({"answer": "Hello"}) + "\n", encoding="utf-8")
    spec.write_text(
        "criteria:\n  - kind: noul\n    name: ok\n    instructions: Is `assistant_answer` grounded in"
        " `supporting_context`?\n    minimum: 0.5\n    applies_when: {present: supporting_context}\n"
        '  - {kind: noul, name: polite, instructions: "Is `assistant_answer` polite?", minimum: 0.5}\n',
        encoding="utf-8",
    )
    code = main(["judge", str(data), "--judge", str(spec), "--out", str(out), "--workers", "1", "--quiet"])
    assert code == 0, capsys.readouterr().err


def test_a_field_a_question_names_that_may_be_absent_is_said_once_when_the_first_row_lacks_it(
    server: JevServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, spec, out = tmp_path / "rows.jsonl", tmp_path / "judge.yaml", tmp_path / "results.jsonl"
    data.write_text("".join(json.dumps({"answer": "Hi", "docs": ["d"]}) + "\n" for _ in range(3)), encoding="utf-8")
    spec.write_text(
        'criteria:\n  - {kind: noul, name: ok, instructions: "Is `assistant_answer` in `supporting_context`?",'
        " minimum: 0.5}\n",
        encoding="utf-8",
    )
    code = main(["judge", str(data), "--judge", str(spec), "--out", str(out), "--workers", "1", "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert err.count("--context-field") == 1 and "docs" in err, err
