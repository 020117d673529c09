"""Prebuilt judges by name: ``load_judge("rag")``, ``langchain-jev judges``, ``judges show`` and ``--judge rag``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from langchain_jev import JudgeSpecError
from langchain_jev.cli import main
from langchain_jev.judges import judge_names, judge_text
from langchain_jev.spec import load_judge, load_spec
from tests.cli.helpers import read_results, run_cli, write_jsonl
from tests.judges.cases import RAG_CONTEXT
from tests.support.jev_server import JevServer


def test_judges_lists_every_prebuilt_judge_with_its_fields(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judges"]) == 0
    out = capsys.readouterr().out
    names = [line.split()[0] for line in out.splitlines() if line and not line.startswith(" ")]
    assert names[: len(judge_names())] == list(judge_names())
    words = " ".join(out.split())
    assert "needs user_question, assistant_answer; reads supporting_context, expected_output" in words
    assert "needs image; reads user_question, assistant_answer when given" in words
    assert [line for line in out.splitlines() if len(line) > 80] == []  # it fits a terminal of 80


def test_judges_show_prints_the_file_as_shipped(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judges", "show", "rag"]) == 0
    out = capsys.readouterr().out
    assert out == judge_text("rag")
    assert yaml.safe_load(out)["name"] == "rag"


def test_a_copy_of_a_shown_file_loads_and_can_be_edited(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["judges", "show", "summary"])
    copy = tmp_path / "my_summary.yaml"
    copy.write_text(capsys.readouterr().out.replace("minimum: 2", "minimum: 3"), encoding="utf-8")
    spec = load_spec(copy)
    assert [c.minimum for c in spec.criteria] == [0.7, 0.7, 3.0]


def test_judges_show_of_an_unknown_name_exits_2_listing_the_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judges", "show", "ragg"]) == 2
    assert "no prebuilt judge is called 'ragg'; the prebuilt judges are rag, correctness" in capsys.readouterr().err


def test_a_bare_name_loads_the_prebuilt_judge_and_a_file_of_that_name_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_spec("rag").name == "rag"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rag").write_text(
        "criteria: [{kind: noul, name: mine, instructions: 'Mine?', minimum: 0.5}]\n", encoding="utf-8"
    )
    assert [c.name for c in load_spec("rag").criteria] == ["mine"]


def test_an_unknown_bare_name_names_the_prebuilt_judges() -> None:
    with pytest.raises(JudgeSpecError, match=r"ragg: no such file, and no prebuilt judge of that name \(rag, correctness"):
        load_judge("ragg")


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_judge_rag_by_name_over_a_dataset(tmp_path: Path, workers: str) -> None:
    def answers(state: dict[str, Any], questions: dict[str, Any]) -> dict[str, Any]:
        grounded = "Lyon" not in str(state.get("assistant_answer"))
        return {
            "groundedness": 0.95 if grounded else 0.1,
            "context_relevance": 3.0,
            "answer_relevance": 3.0,
            "completeness": 0.9,
            "citations": "accurate",
        }

    rows = [
        {"id": "ok", "question": "Capital of France?", "answer": "Paris [1].", "context": RAG_CONTEXT},
        {"id": "wrong", "question": "Capital of France?", "answer": "Lyon [2].", "context": RAG_CONTEXT},
        {"id": "bare", "question": "Capital of France?", "answer": "Paris."},
    ]
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    out = tmp_path / "results.jsonl"
    with JevServer(answers) as server:
        done = run_cli("judge", data, "--judge", "rag", "--base-url", server.base_url, "--max-retries", "0",
                       "--out", out, "--workers", workers, "--quiet")
        asked = [sorted(r.questions) for r in server.requests]
    assert done.returncode == 0, done.stderr
    results = {r["id"]: r for r in read_results(out)}
    assert {k: r["passed"] for k, r in results.items()} == {"ok": True, "wrong": False, "bare": True}
    outcomes = {f["name"]: f["outcome"] for f in results["bare"]["findings"]}
    assert outcomes["context_relevance"] == outcomes["citations"] == "NOT_APPLICABLE"
    assert sorted(len(questions) for questions in asked) == [2, 4, 4]  # one request per row
    assert "groundedness" in done.stdout and json.loads(json.dumps(results["wrong"]["feedback"]))
