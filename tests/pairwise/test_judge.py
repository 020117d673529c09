"""`PairwiseJudge`: both orders of every criterion in one request, sync and async, on any decision
model (the real SDK, a jury), and bad input refused clearly."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.decisions import Choice, Noul, Score

from langchain_jev import JevConfigurationError, JevCriterion, JevInputError, JevJudge, JevJudgeInput
from langchain_jev.models import JuryDecisionModel
from langchain_jev.pairwise import PairwiseCriterion, PairwiseJudge, Preference, pairwise_judge
from langchain_jev.pairwise._questions import engine_criteria
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import JevWire

QUESTION = "Will I need an umbrella in Dublin tomorrow?"
GOOD = "Yes: rain from 9am to 3pm, about 8 mm."
VAGUE = "Maybe."


def prefers(good: str) -> Any:
    """A consistent model: the answer ``good`` is better, whichever position it is shown in."""

    def choose(state: dict[str, Any], question: Any) -> str:
        pair = state["comparison_1" if "`comparison_1`" in question.instructions else "comparison_2"]
        return "answer_1" if pair["answer_1"] == good else "answer_2"

    return choose


def test_one_request_asks_both_orders_of_every_criterion() -> None:
    model = ScriptedDecisionModel({"helpful__1": prefers(GOOD), "helpful__2": prefers(GOOD),
                                   "specific__1": prefers(GOOD), "specific__2": prefers(GOOD)})
    judge = pairwise_judge({"helpful": "Which answer helps more?", "specific": "Which gives times and amounts?"},
                           model=model)

    verdict = judge.compare(QUESTION, VAGUE, GOOD)

    assert verdict.summary() == "preferred=B [helpful=B, specific=B]"
    (request,) = model.requests
    assert list(request["questions"]) == ["helpful__1", "helpful__2", "specific__1", "specific__2"]
    assert request["state"] == {
        "user_question": QUESTION,
        "comparison_1": {"answer_1": VAGUE, "answer_2": GOOD},
        "comparison_2": {"answer_1": GOOD, "answer_2": VAGUE},
    }
    first, second = request["questions"]["helpful__1"], request["questions"]["helpful__2"]
    assert first.instructions.replace("comparison_1", "comparison_2") == second.instructions
    assert list(first.criteria) == ["answer_1", "answer_2", "equally_good"]


async def test_acompare_over_the_async_sdk() -> None:
    wire = JevWire({"helpful__1": {"type": "choice", "choice": "answer_2", "probabilities": {}, "confidence": 1.0},
                    "helpful__2": {"type": "choice", "choice": "answer_1", "probabilities": {}, "confidence": 1.0}})
    judge = pairwise_judge({"helpful": "Which answer helps more?"}, model=wire.model("async"))

    verdict = await judge.acompare(JevJudgeInput(QUESTION, expected="Rain from 9am."), VAGUE, GOOD)

    assert verdict.finding("helpful").preference is Preference.B
    assert wire.calls == 1
    assert wire.bodies[0]["state"]["expected_output"] == "Rain from 9am."


def test_a_judge_s_questions_become_comparisons_with_their_rubric() -> None:
    judge = JevJudge(
        [
            JevCriterion.check("short", lambda d: True, "too long"),
            JevCriterion.score("helpful", Score(instructions="How helpful is `assistant_answer`?",
                                                criteria=["Useless", "Partly", "Fully"]), 1),
            JevCriterion.choice("mode", Choice(instructions="How does it respond?",
                                               criteria={"answered": "Gives the weather", "asked": None}),
                                ["answered"]),
            JevCriterion.noul("polite", Noul(instructions="Is it polite?"), 0.7),
        ],
        model=ScriptedDecisionModel({}),
    )
    pairwise = pairwise_judge(judge)
    assert pairwise.names == ["helpful", "mode", "polite"]
    assert pairwise.model is judge.model
    helpful, mode, _ = (c.criterion for c in pairwise.criteria)
    assert "Levels, lowest first: 0: Useless; 1: Partly; 2: Fully" in helpful
    assert "Options: answered: Gives the weather; asked" in mode and "(answered)" in mode
    other = ScriptedDecisionModel({})
    assert pairwise_judge(judge, other).model is other


def test_the_deprecated_judge_pairwise_still_builds_the_comparison_and_names_its_replacement() -> None:
    judge = JevJudge([JevCriterion.check("short", lambda d: True, "too long"),
                      JevCriterion.noul("polite", Noul(instructions="Is it polite?"), 0.7)],
                     model=ScriptedDecisionModel({}))
    other = ScriptedDecisionModel({})
    replacement = r"JevJudge\.pairwise\(\) is deprecated: use pairwise_judge\(judge\)"
    with pytest.warns(DeprecationWarning, match=replacement) as caught:
        pairwise = judge.pairwise(other)
    assert caught[0].filename == __file__
    assert isinstance(pairwise, PairwiseJudge)
    assert (pairwise.names, pairwise.model) == (["polite"], other)


def test_an_unreadable_answer_makes_that_criterion_an_error_and_keeps_the_rest() -> None:
    model = ScriptedDecisionModel({"helpful__1": "answer_1", "helpful__2": "answer_2",
                                   "specific__1": {"type": "choice", "choice": "answer_3", "probabilities": {},
                                                   "confidence": 1.0},
                                   "specific__2": "answer_2"})
    verdict = pairwise_judge({"helpful": "Helps more?", "specific": "More specific?"}, model=model).compare(
        QUESTION, GOOD, VAGUE
    )
    assert verdict.finding("helpful").preference is Preference.A
    specific = verdict.finding("specific")
    assert specific.preference is Preference.ERROR
    assert 'A first: chose "answer_3", which is not an option of the choice' in specific.detail


def test_a_model_that_cannot_be_reached_raises() -> None:
    wire = JevWire(status=503)
    with pytest.raises(Exception, match="503"):
        pairwise_judge({"helpful": "Helps more?"}, model=wire.model()).compare(QUESTION, GOOD, VAGUE)


def test_a_jury_compares_too_one_request_per_member() -> None:
    members = [ScriptedDecisionModel({"helpful__1": prefers(GOOD), "helpful__2": prefers(GOOD)}, model=name)
               for name in ("a", "b", "c")]
    verdict = pairwise_judge({"helpful": "Helps more?"}, model=JuryDecisionModel(members)).compare(
        QUESTION, GOOD, VAGUE
    )
    assert verdict.finding("helpful").preference is Preference.A
    assert [m.calls for m in members] == [1, 1, 1]


@pytest.mark.parametrize(
    ("criteria", "message"),
    [
        ({}, "at least one criterion"),
        ("helpful", "takes criteria"),
        ([JevCriterion.check("short", lambda d: True, "too long")], "criterion 'short' is a code check"),
        ({"x": "Better?", "x__1": "Other?"}, "pairwise criterion 'x__1' clashes with 'x'"),
        ({"x": "  "}, "what makes an answer better is empty"),
        ({"x": 3}, "must be text or JSON"),
        ([42], r"pairwise criteria\[0\] must be a JevCriterion"),
    ],
)
def test_criteria_that_cannot_compare_are_refused(criteria: Any, message: str) -> None:
    with pytest.raises(JevConfigurationError, match=message):
        pairwise_judge(criteria, model=ScriptedDecisionModel({}))


def test_bad_comparison_input_is_refused_before_any_request() -> None:
    model = ScriptedDecisionModel({})
    judge = pairwise_judge([PairwiseCriterion("helpful", "Helps more?")], model=model)
    with pytest.raises(JevInputError, match="answer B must be text, got int"):
        judge.compare(QUESTION, GOOD, 3)  # type: ignore[arg-type]
    with pytest.raises(JevInputError, match="has no 'assistant_answer'"):
        judge.compare(JevJudgeInput(QUESTION, GOOD), GOOD, VAGUE)
    with pytest.raises(JevInputError, match="takes what both answers answer"):
        judge.compare(7, GOOD, VAGUE)  # type: ignore[arg-type]
    assert model.calls == 0


def test_a_pairwise_judge_refuses_an_engine_that_asks_other_questions() -> None:
    compared = [PairwiseCriterion("helpful", "Helps more?")]
    other = JevJudge(engine_criteria([PairwiseCriterion("concise", "Shorter?")]), model=ScriptedDecisionModel({}))
    with pytest.raises(JevConfigurationError, match="must ask engine_criteria"):
        PairwiseJudge(compared, other)
    assert PairwiseJudge(compared, JevJudge(engine_criteria(compared), model=ScriptedDecisionModel({}))).names == [
        "helpful"
    ]


# ---------------------------------------------------------------------- a jury compares: who said what


def member(name: str, good: str | None) -> ScriptedDecisionModel:
    """A consistent member that finds ``good`` better; None: one whose first-shown answer always wins."""
    if good is None:
        return ScriptedDecisionModel({"helpful__1": "answer_1", "helpful__2": "answer_1"}, model=name)
    return ScriptedDecisionModel({"helpful__1": prefers(good), "helpful__2": prefers(good)}, model=name)


def jury_compare(members: list[ScriptedDecisionModel], asynchronous: bool = False, **options: Any) -> Any:
    import asyncio

    judge = pairwise_judge({"helpful": "Helps more?"}, model=JuryDecisionModel(members, **options))
    if asynchronous:
        return asyncio.run(judge.acompare(QUESTION, GOOD, VAGUE))
    return judge.compare(QUESTION, GOOD, VAGUE)


@pytest.mark.parametrize("asynchronous", [False, True])
def test_members_split_on_the_better_answer_beyond_the_bound_are_undecided_naming_who_said_what(
    asynchronous: bool,
) -> None:
    members = [member("a", GOOD), member("b", GOOD), member("c", VAGUE)]
    finding = jury_compare(members, asynchronous, disagreement=0.0).finding("helpful")
    assert finding.preference is Preference.INCONCLUSIVE
    assert finding.detail == (
        "helpful: undecided, the jury is split beyond the 0.00 of members that may dissent: "
        "A better for a, b; B better for c"
    )
    assert finding.members == {"a": Preference.A, "b": Preference.A, "c": Preference.B}


def test_a_two_to_one_split_stands_under_the_default_bound_and_says_who_dissented() -> None:
    finding = jury_compare([member("a", GOOD), member("b", GOOD), member("c", VAGUE)]).finding("helpful")
    assert finding.preference is Preference.A
    assert finding.to_dict()["members"] == {"a": "A", "b": "A", "c": "B"}


def test_a_one_to_one_split_of_two_members_is_undecided_even_when_the_mean_leans() -> None:
    lopsided = ScriptedDecisionModel(
        {"helpful__1": {"answer_1": 0.9, "answer_2": 0.1, "equally_good": 0.0},
         "helpful__2": {"answer_1": 0.1, "answer_2": 0.9, "equally_good": 0.0}}, model="sure")
    doubtful = ScriptedDecisionModel(
        {"helpful__1": {"answer_1": 0.4, "answer_2": 0.6, "equally_good": 0.0},
         "helpful__2": {"answer_1": 0.6, "answer_2": 0.4, "equally_good": 0.0}}, model="doubtful")
    finding = jury_compare([lopsided, doubtful]).finding("helpful")
    assert finding.preference is Preference.INCONCLUSIVE  # the mean prefers A; half the jury prefers B
    assert finding.members == {"sure": Preference.A, "doubtful": Preference.B}


def test_a_vote_counts_each_member_s_own_preference_and_a_member_without_one_is_left_out() -> None:
    members = [member("a", VAGUE), member("b", VAGUE), member("c", GOOD), member("biased", None)]
    finding = jury_compare(members, combine="vote").finding("helpful")
    assert finding.preference is Preference.B  # two of the three members that hold a preference
    assert finding.members == {"a": Preference.B, "b": Preference.B, "c": Preference.A,
                               "biased": Preference.INCONCLUSIVE}
    even = jury_compare([member("a", GOOD), member("b", VAGUE)], combine="vote", disagreement=None)
    assert even.finding("helpful").preference is Preference.INCONCLUSIVE
    assert "split evenly" in even.finding("helpful").detail


def test_a_max_jury_and_a_single_model_keep_the_preference_of_the_answers() -> None:
    members = [member("a", GOOD), member("b", GOOD), member("c", VAGUE)]
    assert jury_compare(members, combine="max").finding("helpful").preference is Preference.A
    alone = pairwise_judge({"helpful": "Helps more?"}, model=member("a", GOOD)).compare(QUESTION, GOOD, VAGUE)
    assert alone.finding("helpful").members is None and "members" not in alone.finding("helpful").to_dict()
