"""The question-wire cache: each question dumped once while it lives, never corrupted by a caller.

A judge's cost per criterion stays flat only if its questions are not dumped again
on every call; these tests pin what that cache must keep doing: serve a judge of any
size without dumping again, see every edit made in place, hand out dicts a caller can
change without changing the cache, and keep no question alive.
"""

from __future__ import annotations

import gc
from typing import Any

import pytest
from langchain_core.decisions import Choice, Noul, NoulCriteria, Score

from langchain_jev import JevCriterion, JevJudge, JevJudgeInput
from langchain_jev.models.wire import QuestionWire, wire_questions
from tests.fakes import JevWire, noul

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
