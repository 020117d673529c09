"""The wire: questions dumped once while they live, and answers read in one strict pass.

A judge's cost per criterion stays flat only if its questions are not dumped again
on every call and its answers are not read twice; these tests pin what that must
keep: the question cache serves a judge of any size without dumping again, sees
every edit made in place, hands out dicts a caller can change without changing the
cache, and keeps no question alive; the one-pass read of a response gives what
reading each answer as sent gives, for any body.
"""

from __future__ import annotations

import gc
import json
from typing import Any

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.decisions import Choice, ChoiceAnswer, Noul, NoulAnswer, NoulCriteria, Score

from langchain_jev import JevCriterion, JevJudge, JevJudgeInput
from langchain_jev.models._response import read_answers
from langchain_jev.models._wire import QuestionWire, WireResponse, wire_questions
from tests.fakes import JevWire, noul
from tests.models.test_answer_properties import FINE
from tests.models.test_answer_properties import answers as answer_cases

DATA = JevJudgeInput("What is the boiling point of water?", "100 C at sea level.")


@pytest.fixture
def dumps(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The type of every question dumped, in order."""
    seen: list[str] = []
    for kind in (Noul, Choice, Score):
        original = kind.model_dump

        def counted(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            seen.append(self.type)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(kind, "model_dump", counted)
    return seen


def _mixed() -> dict[str, Any]:
    return {
        "bare": Noul(instructions="Is it polite?"),
        "described": Noul(instructions="Is it safe?", criteria=NoulCriteria(true="safe", false="unsafe")),
        "rich": Noul(instructions=[{"type": "text", "text": "Is it brief?"}]),
        "mode": Choice(instructions="How?", criteria={"answered": None, "refused": "It declines"}),
        "helpful": Score(instructions="How good?", criteria=["bad", "fine", "good"]),
    }


@pytest.mark.parametrize("size", [1, 600, 2000])
def test_a_judge_of_any_size_is_dumped_once(dumps: list[str], size: int) -> None:
    questions = {f"c{i}": Noul(instructions=f"Is statement {i} true?") for i in range(size)}
    expected = wire_questions(questions)
    wire = QuestionWire()
    for _ in range(4):
        assert wire(questions) == expected
    assert len(dumps) == size + size  # once by wire_questions, once by the cache, never again


def test_a_thousand_criteria_judge_sends_its_questions_dumped_once(dumps: list[str]) -> None:
    questions = {f"c{i}": Noul(instructions=f"Is statement {i} true?") for i in range(1000)}
    wire = JevWire(default=noul(0.9))
    judge = JevJudge([JevCriterion.noul(n, q, 0.5) for n, q in questions.items()], model=wire.model("sync"))
    built = len(dumps)
    for _ in range(3):
        assert judge.invoke(DATA).passed
    assert len(dumps) == built + 1000
    assert wire.bodies[0]["questions"] == wire.bodies[2]["questions"] == wire_questions(questions)


def test_what_a_caller_is_handed_is_its_own(dumps: list[str]) -> None:
    questions = _mixed()
    expected = wire_questions(questions)
    wire = QuestionWire()
    handed = wire(questions)
    handed["bare"]["instructions"] = "Ignore the rubric."
    handed["described"]["criteria"]["true"] = "anything"
    handed["rich"]["instructions"][0]["text"] = "Say yes."
    handed["mode"]["criteria"]["accepted"] = None
    handed["helpful"]["criteria"].append("perfect")
    del handed["mode"]["instructions"]
    dumped = len(dumps)
    assert wire(questions) == expected
    assert len(dumps) == dumped  # served from the cache, untouched by the edits


def test_every_edit_in_place_is_sent_as_edited(dumps: list[str]) -> None:
    questions = _mixed()
    wire = QuestionWire()
    wire(questions)
    edits = [
        lambda q: setattr(q["bare"], "instructions", "Is it rude?"),
        lambda q: setattr(q["described"].criteria, "true", "harmless"),
        lambda q: q["rich"].instructions[0].update(text="Is it long?"),
        lambda q: q["mode"].criteria.update(refused=None),
        lambda q: q["helpful"].criteria.append("perfect"),
        lambda q: setattr(q["described"], "criteria", NoulCriteria(true="harmless", false="unsafe")),
        lambda q: setattr(q["described"].criteria, "false", "dangerous"),  # the replacement, edited
    ]
    for edit in edits:
        edit(questions)
        assert wire(questions) == wire_questions(questions)
    before = len(dumps)
    assert wire(questions) == wire_questions(questions)
    assert len(dumps) == before + len(questions)  # unchanged: only wire_questions dumped


def test_an_equal_replacement_is_followed_by_its_own_edits() -> None:
    question = Noul(instructions="Is it safe?", criteria=NoulCriteria(true="safe"))
    wire = QuestionWire()
    wire({"q": question})
    question.criteria = NoulCriteria(true="safe")  # equal to the one dumped, but another object
    wire({"q": question})
    question.criteria.true = "harmless"
    assert wire({"q": question})["q"]["criteria"]["true"] == "harmless"


def test_no_question_is_kept_alive() -> None:
    wire = QuestionWire()
    questions = {f"c{i}": Noul(instructions=f"Is statement {i} true?") for i in range(50)}
    wire(questions)
    assert len(wire) == 50
    del questions
    gc.collect()
    assert len(wire) == 0


def test_a_new_question_at_a_reused_address_is_dumped() -> None:
    wire = QuestionWire()
    for i in range(200):  # freed questions' addresses are reused by the next ones
        assert wire({"q": Noul(instructions=f"Question {i}?")})["q"]["instructions"] == f"Question {i}?"


# ---------------------------------------------------------------- reading the response in one pass

KNOWN = {"noul", "choice", "score", "box"}


def _as_sent(content: bytes) -> tuple[dict[str, Any], dict[str, str]]:
    """What reading every answer as sent gives (the path a body the quick pass cannot read takes)."""
    raw = WireResponse.model_validate_json(content).answers
    kept = {
        name: answer
        for name, answer in raw.items()
        if not (isinstance(answer, dict) and isinstance(answer.get("type"), str) and answer["type"] not in KNOWN)
    }
    return read_answers(kept)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(answer_cases(), min_size=1, max_size=4))
def test_the_quick_pass_reads_every_body_as_reading_each_answer_as_sent_does(cases: list[tuple[str, Any]]) -> None:
    body = dict(FINE)
    for index, (name, answer) in enumerate(cases):
        body[f"{name}{index}"] = answer
    try:
        content = json.dumps({"model": "jev-latest", "usage": {}, "answers": body}, allow_nan=False).encode()
    except ValueError:
        return
    quick = read_answers(WireResponse._decode(httpx2.Response(200, content=content)).answers)
    assert quick == _as_sent(content)
    assert list(quick[0]) == list(_as_sent(content)[0])  # in the order they came


def test_the_quick_pass_keeps_scores_and_boxes_as_sent() -> None:
    body = {
        "model": "jev-latest",
        "usage": {"input_tokens": 3},
        "answers": {
            "safe": {"type": "noul", "noul": 1},
            "tone": {"type": "choice", "choice": "calm", "probabilities": {"calm": 1}, "confidence": 1},
            "helpful": {"type": "score", "score": 1, "legend": {}, "probabilities": {"01": 1}, "confidence": 1},
            "where": {"type": "box", "box": {"top": 0, "bottom": 1, "left": 0, "right": 1}},
        },
    }
    decoded = WireResponse._decode(httpx2.Response(200, content=json.dumps(body).encode()))
    assert decoded.answers["safe"] == NoulAnswer(type="noul", noul=1.0)
    assert isinstance(decoded.answers["tone"], ChoiceAnswer)
    assert decoded.answers["helpful"] == body["answers"]["helpful"]  # "01" still as written
    assert decoded.answers["where"] == body["answers"]["where"]
    answers, problems = read_answers(decoded.answers)
    assert list(answers) == ["safe", "tone", "where"]
    assert problems == {"helpful": "answers.helpful.probabilities: level key '01' is not a level number written canonically"}
    assert decoded.usage.input_tokens == 3


def test_a_body_with_an_answer_type_of_a_later_api_is_read_answer_by_answer(caplog: pytest.LogCaptureFixture) -> None:
    body = {"model": "m", "usage": {}, "answers": {"a": {"type": "noul", "noul": 0.2}, "b": {"type": "mask"}}}
    decoded = WireResponse._decode(httpx2.Response(200, content=json.dumps(body).encode()))
    assert decoded.answers == {"a": {"type": "noul", "noul": 0.2}}
    assert "unrecognized type 'mask'" in caplog.text
