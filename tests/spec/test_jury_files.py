"""A judge file names its model, a jury of them for one (``model: {jury: [...]}``): built when
the caller gives no model, refused at its place when it cannot work, and used by the command
line when ``--model`` is not given."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from langchain_jev import JudgeSpecError, Outcome
from langchain_jev.models import JevDecisionModel, JuryDecisionModel
from langchain_jev.spec import load_judge, load_spec
from langchain_jev.testing import ScriptedDecisionModel
from langchain_jev.testing.server import Fault, JevServer, Received
from tests.cli.helpers import run_cli, write_jsonl

CRITERIA = """\
criteria:
  - name: polite
    kind: noul
    instructions: Is `assistant_answer` polite?
    minimum: 0.7
"""

JURY_FILE = """\
model:
  jury:
    - jev:jev-a
    - {name: second, model: jev:jev-b}
  combine: vote
  disagreement: 0.5
  quorum: 1
  timeout: 30
""" + CRITERIA


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "judge.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_judge_file_names_a_jury_and_the_judge_is_built_on_it(tmp_path: Path) -> None:
    judge = load_judge(write(tmp_path, JURY_FILE))

    jury = judge.model
    assert isinstance(jury, JuryDecisionModel)
    assert jury.names == ("jev-a", "second")
    assert [m.model for m in jury.members] == ["jev-a", "jev-b"]
    assert all(isinstance(m, JevDecisionModel) for m in jury.members)
    assert (jury.combine, jury.disagreement, jury.quorum, jury.timeout) == ("vote", 0.5, 1, 30.0)


def test_defaults_follow_the_combine_and_null_turns_the_disagreement_off(tmp_path: Path) -> None:
    plain = load_spec({"model": {"jury": ["jev:a", "jev:b"]}, "criteria": [NOUL]}).decision_model()
    assert isinstance(plain, JuryDecisionModel)
    assert (plain.combine, round(plain.disagreement or 0, 2), plain.quorum) == ("mean", 0.33, 2)
    flagging = load_spec({"model": {"jury": ["jev:a", "jev:b"], "combine": "max"}, "criteria": [NOUL]})
    assert flagging.decision_model().disagreement is None  # type: ignore[union-attr]
    off = load_spec({"model": {"jury": ["jev:a", "jev:b"], "disagreement": None}, "criteria": [NOUL]})
    assert off.decision_model().disagreement is None  # type: ignore[union-attr]


NOUL: dict[str, Any] = {"kind": "noul", "name": "polite", "instructions": "Polite?", "minimum": 0.7}


def test_the_caller_s_model_wins_over_the_file_s(tmp_path: Path) -> None:
    mine = ScriptedDecisionModel({"polite": 0.9})
    judge = load_judge(write(tmp_path, JURY_FILE), model=mine)
    assert judge.model is mine
    assert judge.judge("Hi?", "Hello!").passed


def test_a_single_model_string_is_a_model_too() -> None:
    spec = load_spec({"model": "jev:jev-small", "criteria": [NOUL]})
    assert spec.build().model.model == "jev-small"


def test_the_jury_of_a_file_judges_with_every_member() -> None:
    spec = load_spec({"model": {"jury": ["jev:a", "jev:b"]}, "criteria": [NOUL]})
    jury = spec.decision_model()
    assert isinstance(jury, JuryDecisionModel)
    members = [ScriptedDecisionModel({"polite": 0.95}, model="a"), ScriptedDecisionModel({"polite": 0.2}, model="b")]
    judge = spec.build(JuryDecisionModel(dict(zip(jury.names, members, strict=True))))
    assert judge.judge("Hi?", "Hello!").finding("polite").outcome is Outcome.INCONCLUSIVE


@pytest.mark.parametrize(
    ("model", "place", "message"),
    [
        ("gpt-4o-mini", "model", "must name its provider, as provider:model"),
        ({"jury": ["jev:a"]}, "model.jury", "at least 2"),
        ({"jury": ["jev:a", "gpt-4o-mini"]}, "model.jury[1]", "must name its provider, as provider:model"),
        ({"jury": ["jev:a", {"model": "jev:b"}]}, "model.jury[1].name", "required"),
        ({"jury": ["jev:a", "jev:b"], "combine": "median"}, "model.combine", "mean"),
        ({"jury": ["jev:a", "jev:b"], "disagreement": 1.5}, "model.disagreement", "between 0 and 1"),
        ({"jury": ["jev:a", "jev:b"], "quorum": 0}, "model.quorum", "1"),
        ({"jury": ["jev:a", "jev:b"], "judges": 3}, "model.judges", "is not a known key"),
    ],
)
def test_a_jury_file_that_cannot_work_names_the_place(model: Any, place: str, message: str) -> None:
    with pytest.raises(JudgeSpecError) as caught:
        load_spec({"model": model, "criteria": [NOUL]})
    text = "\n".join(caught.value.messages())
    assert place in text and message in text, text


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ({"jury": ["jev:a", "jev:b"], "quorum": 3}, "model.jury: quorum must be a whole number of members from 1 to 2"),
        (
            {"jury": ["jev:gpt", {"name": "gpt", "model": "jev:other"}]},
            "model.jury: jury member 'gpt' is named twice",
        ),
        ({"jury": ["jev:a", "nosuchprovider:x"]}, "LangChain knows no chat model provider"),
    ],
)
def test_a_jury_that_validates_but_cannot_be_built_is_refused_before_any_request(model: Any, message: str) -> None:
    spec = load_spec({"model": model, "criteria": [NOUL]})
    with pytest.raises(JudgeSpecError, match=message):
        spec.build()


# ---------------------------------------------------------------------- the command line


def second_member_says_no(received: Received) -> Fault | None:
    """The loopback server answers jev-b's requests itself: it finds every answer impolite."""
    if received.model != "jev-b":
        return None
    answers = {name: {"type": "noul", "noul": 0.1} for name in received.questions}
    return Fault(body={"model": "jev-b", "answers": answers, "usage": {"input_tokens": 5, "output_tokens": 1}})


@pytest.mark.slow
def test_the_command_line_judges_with_the_file_s_jury_when_no_model_is_given(tmp_path: Path) -> None:
    judge = write(tmp_path, "model:\n  jury: [jev:jev-a, jev:jev-b]\n" + CRITERIA)
    data = write_jsonl(tmp_path / "rows.jsonl", [{"id": f"r{i}", "answer": f"Hello {i}!"} for i in range(3)])
    out = tmp_path / "results.jsonl"
    with JevServer({"polite": 0.95}, faults=second_member_says_no) as server:
        done = run_cli("judge", data, "--judge", judge, "--out", out, TYPESAFE_BASE_URL=server.base_url)
        models = sorted(r.model or "" for r in server.requests)

    assert done.returncode == 0, done.stderr
    assert models == ["jev-a"] * 3 + ["jev-b"] * 3  # one request per member per row
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    assert [r["findings"][0]["outcome"] for r in records] == ["INCONCLUSIVE"] * 3
    assert "met for jev-a; not met for jev-b" in records[0]["findings"][0]["detail"]
