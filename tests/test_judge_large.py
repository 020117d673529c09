"""A judge of a thousand criteria decides every one as a judge of one criterion would.

The verdict's loop takes a quick path for nouls and the question wire is cached
across calls; neither may change a finding. Every kind of criterion, dependency,
unreadable and missing answer is here, judged twice (the second time from the
cache), sync and async.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from langchain_core.decisions import Choice, Noul, NoulCriteria, Score

from langchain_jev import JevCriterion, JevJudge, JevJudgeInput, JevVerdict, Outcome
from tests.fakes import JevWire, choice, noul, score

SIZE = 1000
LEVELS = ["none", "some", "most", "all"]
DATA = JevJudgeInput("What is the boiling point of water?", "100 C at sea level.")


def _criterion(i: int) -> JevCriterion:
    name = f"c{i}"
    slot = i % 10
    if slot < 5:
        described = NoulCriteria(false=f"Fact {i} is wrong") if slot == 4 else None
        return JevCriterion.noul(name, Noul(instructions=f"Is fact {i} stated?", criteria=described), 0.5)
    if slot == 5:
        return JevCriterion.score(name, Score(instructions=f"How much of part {i}?", criteria=LEVELS), 2)
    if slot == 6:
        question = Choice(instructions=f"How is part {i} given?", criteria={"stated": None, "implied": None})
        return JevCriterion.choice(name, question, ["stated"])
    if slot == 7:
        return JevCriterion.noul(name, Noul(instructions=f"Is part {i - 1} exact?"), 0.5).when_chosen(
            f"c{i - 1}", "stated"
        )
    if slot == 8:
        return JevCriterion.check(name, lambda data, i=i: i % 20 == 8, f"check {i} failed")
    return JevCriterion.noul(name, Noul(instructions=f"Is fact {i} sourced?"), 0.5)


def _answer(i: int) -> dict[str, Any] | None:
    slot = i % 10
    if slot < 5 or slot == 7:
        return noul((i % 7) / 6)
    if slot == 5:
        spread = {1: 0.6, 2: 0.4} if i % 20 == 5 else {2: 0.3, 3: 0.7}
        return score(spread, LEVELS)
    if slot == 6:
        return choice("stated" if i % 30 != 6 else "implied", None)
    if slot == 9:
        return {"type": "noul", "noul": "0.9"} if i % 20 == 9 else None  # unreadable, or missing
    return None


def _expected(i: int) -> Outcome:
    slot = i % 10
    if slot < 5:
        return Outcome.PASSED if (i % 7) / 6 >= 0.5 else Outcome.FAILED
    if slot == 5:
        return Outcome.FAILED if i % 20 == 5 else Outcome.PASSED
    if slot == 6:
        return Outcome.PASSED if i % 30 != 6 else Outcome.FAILED
    if slot == 7:
        if (i - 1) % 30 == 6:
            return Outcome.NOT_APPLICABLE
        return Outcome.PASSED if (i % 7) / 6 >= 0.5 else Outcome.FAILED
    if slot == 8:
        return Outcome.PASSED if i % 20 == 8 else Outcome.FAILED
    return Outcome.ERROR


CRITERIA = [_criterion(i) for i in range(SIZE)]
SCRIPT = {f"c{i}": answer for i in range(SIZE) if (answer := _answer(i)) is not None}


def _check(verdict: JevVerdict) -> None:
    assert [f.name for f in verdict.findings] == [f"c{i}" for i in range(SIZE)]
    assert [f.outcome for f in verdict.findings] == [_expected(i) for i in range(SIZE)]
    tally = Counter(f.outcome.value for f in verdict.findings)
    assert tally == {"PASSED": 490, "FAILED": 376, "NOT_APPLICABLE": 34, "ERROR": 100}
    assert not verdict.passed
    assert verdict.feedback.count("\n") + 1 == tally["FAILED"]
    unreadable = verdict.finding("c9")
    assert unreadable.detail == "c9: could not be judged: answers.c9.noul: must be a JSON number, got \"0.9\""
    assert verdict.finding("c19").detail == "c19: could not be judged: the model returned no answer for this question"
    assert verdict.finding("c14").detail == 'c14: "Fact 14 is wrong" (yes at 0.00, needs 0.50)'


def _alone(criterion: JevCriterion, wire: JevWire) -> Outcome:
    """The outcome a judge of this one criterion (and its dependency) gives."""
    criteria = [criterion]
    if criterion.depends_on is not None:
        criteria.insert(0, next(c for c in CRITERIA if c.name == criterion.depends_on.name))
    if not any(c.is_question for c in criteria):
        criteria.append(CRITERIA[0])
    verdict = JevJudge(criteria, model=wire.model("sync")).invoke(DATA)
    return verdict.finding(criterion.name).outcome


def test_a_thousand_criteria_are_decided_as_each_alone() -> None:
    wire = JevWire(SCRIPT)
    judge = JevJudge(CRITERIA, model=wire.model("sync"))
    first, second = judge.invoke(DATA), judge.invoke(DATA)
    _check(first)
    assert second.findings == first.findings and second.feedback == first.feedback
    assert wire.bodies[0]["questions"] == wire.bodies[1]["questions"]
    assert len(wire.bodies[0]["questions"]) == SIZE - SIZE // 10  # the checks are not asked
    sample = CRITERIA[:40] + CRITERIA[-10:]
    assert [_alone(c, wire) for c in sample] == [first.finding(c.name).outcome for c in sample]


async def test_a_thousand_criteria_judged_async_give_the_same_verdict() -> None:
    wire = JevWire(SCRIPT)
    judge = JevJudge(CRITERIA, model=wire.model("async"))
    first = await judge.ainvoke(DATA)
    second = await judge.ainvoke(DATA)
    _check(first)
    assert second.findings == first.findings


@pytest.mark.parametrize("policy", ["fail_on_error", "fail_on_inconclusive"])
def test_the_failure_policy_applies_to_every_finding_of_a_large_judge(policy: str) -> None:
    verdict = JevJudge(CRITERIA, model=JevWire(SCRIPT).model("sync"), **{policy: True}).invoke(DATA)
    turned = Counter(f.decided.value for f in verdict.findings if f.decided is not None)
    assert turned == ({"ERROR": 100} if policy == "fail_on_error" else {})
