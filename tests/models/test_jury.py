"""A jury of decision models: every member asked at once (one request each), answers combined
per question, disagreement about a pass made INCONCLUSIVE, failed members and the quorum,
over scripted members, the real SDK for a Jev member and a real chat model, sync and async."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from langchain_core.decisions import (
    BaseDecisionModel,
    Choice,
    ClassifierResponse,
    Noul,
    NoulAnswer,
    Question,
    Score,
    State,
)
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage

from langchain_jev import ChatModelDecisionModel, JevConfigurationError, JevCriterion, JevJudge, Outcome
from langchain_jev.graph import guard_model
from langchain_jev.guardrails import HazardBattery
from langchain_jev.models import CachedDecisionModel, InMemoryCache, JuryDecisionModel
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import JevWire, RunRecorder, choice, noul, score
from tests.models.chat.helpers import ToolCallingChatModel, tool_reply

POLITE = Noul(instructions="Is `assistant_answer` polite?")
TONE = Choice(instructions="What is the tone of `assistant_answer`?", criteria={"warm": None, "cold": None})
HELPFUL = Score(instructions="How helpful is `assistant_answer`?", criteria=["No", "Partly", "Mostly", "Fully"])


def criteria() -> list[JevCriterion]:
    return [
        JevCriterion.noul("polite", POLITE, 0.7),
        JevCriterion.choice("tone", TONE, ["warm"]),
        JevCriterion.score("helpful", HELPFUL, 2),
    ]


def member(name: str, polite: Any, tone: Any = "warm", helpful: Any = None) -> ScriptedDecisionModel:
    return ScriptedDecisionModel(
        {"polite": polite, "tone": tone, "helpful": helpful or {2: 0.5, 3: 0.5}}, model=name
    )


def jury_judge(*members: ScriptedDecisionModel, **options: Any) -> JevJudge:
    return JevJudge(criteria(), model=JuryDecisionModel(list(members), **options))


def judge_both(judge: JevJudge, asynchronous: bool) -> Any:
    if asynchronous:
        return asyncio.run(judge.ajudge("Hi?", "Hello! How can I help?"))
    return judge.judge("Hi?", "Hello! How can I help?")


MODES = pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])


# ---------------------------------------------------------------------- three scripted members


@MODES
def test_members_who_agree_pass_and_each_is_asked_once(asynchronous: bool) -> None:
    members = [member("a", 0.9), member("b", 0.85), member("c", 0.8)]

    verdict = judge_both(jury_judge(*members), asynchronous)

    assert verdict.summary() == "passed=true [polite=PASSED, tone=PASSED, helpful=PASSED]"
    assert [m.calls for m in members] == [1, 1, 1]
    assert all(sorted(m.requests[0]["questions"]) == ["helpful", "polite", "tone"] for m in members)
    assert verdict.finding("polite").value == pytest.approx(0.85)
    panel = verdict.response.panel
    assert {name: a.noul for name, a in panel.answers_to("polite").items()} == {"a": 0.9, "b": 0.85, "c": 0.8}
    assert panel.failed == {}
    assert verdict.response.usage["input_tokens"] == 3 * 30  # every member's request counted


@MODES
def test_members_split_on_a_pass_make_the_finding_inconclusive_naming_who_said_what(asynchronous: bool) -> None:
    # The mean (0.62) would fail and a lone model might pass: two members, one each way.
    verdict = judge_both(jury_judge(member("jev", 0.95), member("gpt", 0.3)), asynchronous)

    polite = verdict.finding("polite")
    assert polite.outcome is Outcome.INCONCLUSIVE
    assert polite.detail == (
        "polite: undecided, the jury is split beyond the 0.33 of members that may dissent: "
        "met for jev; not met for gpt"
    )
    assert verdict.passed  # INCONCLUSIVE does not block (fail_on_inconclusive turns it)
    assert verdict.finding("tone").outcome is Outcome.PASSED  # they agree on the rest


def test_one_dissenter_of_three_leaves_the_majority_s_verdict_unless_the_bound_is_tighter() -> None:
    members = lambda: [member("a", 0.9), member("b", 0.95), member("c", 0.4)]  # noqa: E731
    assert jury_judge(*members()).judge("Hi?", "Hello!").finding("polite").outcome is Outcome.PASSED
    tight = jury_judge(*members(), disagreement=0.25).judge("Hi?", "Hello!").finding("polite")
    assert tight.outcome is Outcome.INCONCLUSIVE
    assert "met for a, b; not met for c" in tight.detail
    assert tight.confidence == pytest.approx(2 / 3)
    loose = jury_judge(*members(), disagreement=None).judge("Hi?", "Hello!").finding("polite")
    assert loose.outcome is Outcome.PASSED


def test_disagreement_is_about_the_pass_not_the_numbers() -> None:
    # Probabilities far apart, all on one side of the criterion's 0.7: no disagreement.
    verdict = jury_judge(member("a", 0.71), member("b", 0.99)).judge("Hi?", "Hello!")
    assert verdict.finding("polite").outcome is Outcome.PASSED
    # Choices and scores too: each member's own pass, against the accepted labels and the level.
    split = jury_judge(
        member("a", 0.9, tone="warm", helpful={3: 1.0}), member("b", 0.9, tone="cold", helpful={0: 1.0})
    ).judge("Hi?", "Hello!")
    assert split.finding("tone").outcome is Outcome.INCONCLUSIVE
    assert split.finding("helpful").outcome is Outcome.INCONCLUSIVE


@MODES
def test_a_member_that_fails_makes_every_answer_error_without_a_quorum(asynchronous: bool) -> None:
    down = ScriptedDecisionModel(
        {"polite": ConnectionError("gpt is down"), "tone": "warm", "helpful": 3.0}, model="gpt"
    )

    verdict = judge_both(jury_judge(member("jev", 0.9), down, member("claude", 0.8)), asynchronous)

    assert [f.outcome for f in verdict.findings] == [Outcome.ERROR] * 3
    assert verdict.finding("polite").detail == (
        "polite: could not be judged: 2 of 3 jury members answered, the quorum is 3 "
        "(gpt: ConnectionError: gpt is down); the members that answered: "
        "jev: yes at 0.90, reaches 0.70; claude: yes at 0.80, reaches 0.70"
    )
    assert verdict.passed is False  # the silent member lends nothing to a pass
    assert verdict.response.panel.failed == {"gpt": "ConnectionError: gpt is down"}
    assert sorted(verdict.response.panel.members) == ["claude", "jev"]  # who did answer is kept


@MODES
def test_with_a_quorum_the_members_who_answered_decide(asynchronous: bool) -> None:
    down = ScriptedDecisionModel({"polite": TimeoutError("slow"), "tone": "cold", "helpful": 0.0}, model="gpt")

    verdict = judge_both(jury_judge(member("jev", 0.9), down, member("claude", 0.8), quorum=2), asynchronous)

    assert verdict.summary() == "passed=true [polite=PASSED, tone=PASSED, helpful=PASSED]"
    assert verdict.finding("polite").value == pytest.approx(0.85)
    assert verdict.response.panel.failed == {"gpt": "TimeoutError: slow"}


def test_an_unreadable_answer_of_one_member_is_left_out_of_that_question_only() -> None:
    odd = member("b", {"type": "noul", "noul": "0.9"})  # a string where a number belongs
    verdict = jury_judge(member("a", 0.9), odd, member("c", 0.8), quorum=2).judge("Hi?", "Hello!")
    assert verdict.finding("polite").value == pytest.approx(0.85)
    assert verdict.finding("tone").outcome is Outcome.PASSED
    assert sorted(verdict.response.panel.answers_to("polite")) == ["a", "c"]
    without_quorum = jury_judge(member("a", 0.9), member("b", {"type": "noul", "noul": "0.9"})).judge("Hi?", "Hi")
    assert without_quorum.finding("polite").outcome is Outcome.ERROR
    assert "b: answers.polite.noul: must be a JSON number" in without_quorum.finding("polite").detail


@MODES
def test_a_jury_none_of_whose_members_answers_raises_the_first_error(asynchronous: bool) -> None:
    first = ScriptedDecisionModel({"polite": PermissionError("401 from Jev")}, model="jev")
    second = ScriptedDecisionModel({"polite": ConnectionError("gpt is down")}, model="gpt")
    judge = JevJudge([JevCriterion.noul("polite", POLITE, 0.7)], model=JuryDecisionModel([first, second]))

    with pytest.raises(PermissionError, match="401 from Jev") as caught:
        judge_both(judge, asynchronous)

    assert caught.value.__notes__ == ["jury member 'gpt' failed too: ConnectionError: gpt is down"]


# ---------------------------------------------------------------------- combining


def test_vote_counts_each_member_s_own_pass_against_the_criterion() -> None:
    # 0.75 and 0.72 pass the 0.7 bar, 0.1 does not: 2 of 3 pass, though the mean (0.52) fails.
    members = lambda: [member("a", 0.75), member("b", 0.72), member("c", 0.1)]  # noqa: E731
    # The mean fails while two of three members pass: the jury is at odds with its own mean.
    assert jury_judge(*members()).judge("Hi?", "Hi").finding("polite").outcome is Outcome.INCONCLUSIVE
    assert jury_judge(*members(), disagreement=None).judge("Hi?", "Hi").finding("polite").outcome is Outcome.FAILED
    voted = jury_judge(*members(), combine="vote").judge("Hi?", "Hi").finding("polite")
    assert voted.outcome is Outcome.PASSED
    assert voted.detail == (
        "polite: 2 of 3 jury members find it met (a: yes at 0.75, reaches 0.70; b: yes at 0.72, reaches 0.70)"
    )
    even = jury_judge(member("a", 0.9), member("b", 0.1), combine="vote", disagreement=None)
    assert even.judge("Hi?", "Hi").finding("polite").outcome is Outcome.INCONCLUSIVE


def test_mean_combines_distributions_and_max_keeps_the_strongest_yes() -> None:
    request = {
        "state": "x",
        "questions": {"polite": POLITE, "tone": TONE, "helpful": HELPFUL},
    }
    members = [
        member("a", 0.9, tone={"warm": 0.8, "cold": 0.2}, helpful={2: 1.0}),
        member("b", 0.1, tone="cold", helpful={0: 0.5, 2: 0.5}),
    ]
    mean = JuryDecisionModel(members).invoke(request)  # type: ignore[arg-type]
    assert mean.answers["polite"].noul == pytest.approx(0.5)
    assert mean.answers["tone"].probabilities == pytest.approx({"warm": 0.4, "cold": 0.6})
    assert mean.answers["tone"].choice == "cold"
    assert mean.answers["helpful"].probabilities == pytest.approx({0: 0.25, 1: 0.0, 2: 0.75, 3: 0.0})
    assert mean.answers["helpful"].score == pytest.approx(1.5)
    top = JuryDecisionModel(members, combine="max").invoke(request)  # type: ignore[arg-type]
    assert top.answers["polite"].noul == pytest.approx(0.9)
    assert top.answers["helpful"].score == pytest.approx(2.0)


def test_a_score_without_a_distribution_is_combined_by_its_mean_score() -> None:
    verdict = jury_judge(member("a", 0.9, helpful=2.5), member("b", 0.9, helpful={1: 0.5, 2: 0.5})).judge("Hi?", "Hi")
    assert verdict.finding("helpful").value == pytest.approx(2.0)
    assert verdict.response.answers["helpful"].probabilities == {}


# ---------------------------------------------------------------------- concurrency, deadline, tracing


class Rendezvous(BaseDecisionModel):
    """Answers only once every member of the jury has started: proves they run at once."""

    model: str = "rendezvous"
    barrier: Any = None
    abarrier: Any = None

    @property
    def _provider(self) -> str:
        return "test"

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        self.barrier.wait()  # a BrokenBarrierError after its timeout if the others never start
        return ClassifierResponse(model=self.model, answers={n: NoulAnswer(type="noul", noul=0.9) for n in questions})

    async def _aclassify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        await asyncio.wait_for(self.abarrier.wait(), timeout=30)  # a hang guard only
        return ClassifierResponse(model=self.model, answers={n: NoulAnswer(type="noul", noul=0.9) for n in questions})


def test_the_members_are_asked_concurrently_sync() -> None:
    barrier = threading.Barrier(3, timeout=30)
    members = {f"m{i}": Rendezvous(barrier=barrier) for i in range(3)}
    judge = JevJudge([JevCriterion.noul("polite", POLITE, 0.7)], model=JuryDecisionModel(members))
    assert judge.judge("Hi?", "Hi").passed


async def test_the_members_are_awaited_concurrently_async() -> None:
    barrier = asyncio.Barrier(3)
    members = {f"m{i}": Rendezvous(abarrier=barrier) for i in range(3)}
    judge = JevJudge([JevCriterion.noul("polite", POLITE, 0.7)], model=JuryDecisionModel(members))
    assert (await judge.ajudge("Hi?", "Hi")).passed


class Stuck(BaseDecisionModel):
    """Never answers until released (released by the test, so no thread is left waiting)."""

    model: str = "stuck"
    release: Any = None

    @property
    def _provider(self) -> str:
        return "test"

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        self.release.wait(30)
        raise RuntimeError("released")

    async def _aclassify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        await asyncio.Event().wait()  # cancelled by the jury's deadline
        raise AssertionError("unreachable")


@MODES
def test_a_member_past_the_deadline_counts_as_failed(asynchronous: bool) -> None:
    release = threading.Event()
    try:
        jury = JuryDecisionModel(
            {"fast": member("fast", 0.9), "slow": Stuck(release=release)}, quorum=1, timeout=0.2
        )
        verdict = judge_both(JevJudge([JevCriterion.noul("polite", POLITE, 0.7)], model=jury), asynchronous)
    finally:
        release.set()
    assert verdict.passed
    assert verdict.response.panel.failed == {"slow": "TimeoutError: no answer within 0.20 s"}


def test_the_jury_is_one_run_with_each_member_s_request_as_a_child() -> None:
    recorder = RunRecorder()
    judge = jury_judge(member("a", 0.9), member("b", 0.8))
    judge.invoke({"assistant_answer": "Hello"}, {"callbacks": [recorder]})
    assert recorder.parents("JuryDecisionModel") == ["JevJudge"]
    assert recorder.parents("ScriptedDecisionModel") == ["JuryDecisionModel", "JuryDecisionModel"]
    assert [r.run_type for r in recorder.runs if r.name == "ScriptedDecisionModel"] == ["llm", "llm"]


def test_a_cached_jury_keeps_every_member_s_answer_and_still_reports_the_split() -> None:
    members = [member("jev", 0.95), member("gpt", 0.3)]
    judge = JevJudge([JevCriterion.noul("polite", POLITE, 0.7)], model=CachedDecisionModel(
        JuryDecisionModel(members), InMemoryCache()
    ))
    first, again = judge.judge("Hi?", "Hi"), judge.judge("Hi?", "Hi")
    assert again.response.cache_hit and [m.calls for m in members] == [1, 1]
    assert first.finding("polite").outcome is again.finding("polite").outcome is Outcome.INCONCLUSIVE
    assert sorted(again.response.panel.members) == ["gpt", "jev"]


def test_a_jury_answer_a_member_missed_is_not_cached_and_juries_combining_otherwise_do_not_share() -> None:
    down = ScriptedDecisionModel([{"polite": ConnectionError("down")}, {"polite": 0.9}], model="b")
    cache = InMemoryCache()
    criteria = [JevCriterion.noul("polite", POLITE, 0.7)]
    judge = JevJudge(criteria, model=CachedDecisionModel(JuryDecisionModel([member("a", 0.9), down], quorum=1), cache))
    first, again = judge.judge("Hi?", "Hi"), judge.judge("Hi?", "Hi")
    assert first.response.panel.failed == {"b": "ConnectionError: down"}
    assert not again.response.cache_hit and again.response.panel.failed == {}  # asked again, b answered
    assert judge.judge("Hi?", "Hi").response.cache_hit  # complete now: kept

    voting = JevJudge(criteria, model=CachedDecisionModel(
        JuryDecisionModel([member("a", 0.9), member("b", 0.9)], combine="vote"), cache
    ))
    assert not voting.judge("Hi?", "Hi").response.cache_hit  # same members, combined otherwise


# ---------------------------------------------------------------------- real members


def chat_member() -> ToolCallingChatModel:
    payload = {
        "polite": {"reasoning": "Courteous.", "yes_probability": 0.8},
        "tone": {"reasoning": "Friendly.", "probabilities": {"warm": 0.9, "cold": 0.1}},
        "helpful": {"reasoning": "Complete.", "probabilities": {"0": 0.0, "1": 0.1, "2": 0.3, "3": 0.6}},
    }
    return ToolCallingChatModel(replies=[tool_reply(payload, usage={"input_tokens": 50, "output_tokens": 9})])


def jev_wire() -> JevWire:
    return JevWire(
        {
            "polite": noul(0.9),
            "tone": choice("warm", {"warm": 0.7, "cold": 0.3}),
            "helpful": score({2: 0.4, 3: 0.6}, HELPFUL.criteria),
        }
    )


@MODES
def test_a_jury_of_jev_over_the_real_sdk_a_chat_model_and_a_scripted_model(asynchronous: bool) -> None:
    wire, chat = jev_wire(), chat_member()
    jury = JuryDecisionModel(
        {
            "jev": wire.model("async" if asynchronous else "sync"),
            "chat": ChatModelDecisionModel(chat, strategy="structured"),
            "scripted": member("scripted", 0.1, tone="warm", helpful={3: 1.0}),
        }
    )

    verdict = judge_both(JevJudge(criteria(), model=jury), asynchronous)

    assert wire.calls == 1 and len(chat.calls) == 1  # one request each
    assert sorted(wire.bodies[0]["questions"]) == ["helpful", "polite", "tone"]
    assert verdict.finding("polite").value == pytest.approx((0.9 + 0.8 + 0.1) / 3)
    # the mean (0.60) fails the 0.70 bar, though jev and chat pass it: two of three against the mean
    assert verdict.finding("polite").outcome is Outcome.INCONCLUSIVE
    assert verdict.finding("tone").outcome is Outcome.PASSED
    panel = verdict.response.panel
    assert panel.members["jev"].request_id == "req_1"
    assert panel.members["chat"].reasoning["polite"] == "Courteous."
    assert verdict.finding("polite").reasoning == "chat: Courteous."
    assert verdict.response.usage["input_tokens"] == 120 + 50 + 30


def test_a_jury_takes_model_strings_and_chat_models_as_members() -> None:
    jury = JuryDecisionModel(["jev:jev-latest", GenericFakeChatModel(messages=iter([]))])
    assert [type(m).__name__ for m in jury.members] == ["JevDecisionModel", "ChatModelDecisionModel"]
    assert jury.names[0] == "jev-latest"


@pytest.mark.parametrize(
    ("members", "options", "message"),
    [
        ([member("a", 0.9)], {}, "at least two members, got 1"),
        ({"a": member("a", 0.9), "b": 42}, {}, "jury member 'b': model must be"),
        ([member("a", 0.9), member("b", 0.9)], {"combine": "median"}, "combine must be one of mean, vote, max"),
        ([member("a", 0.9), member("b", 0.9)], {"quorum": 3}, "quorum must be a whole number of members from 1 to 2"),
        ([member("a", 0.9), member("b", 0.9)], {"disagreement": 1.5}, "disagreement must be between 0 and 1"),
        ([member("a", 0.9), member("b", 0.9)], {"timeout": 0}, "timeout must be a positive number"),
        ("jev:jev-latest", {}, "a list of models or a mapping"),
    ],
)
def test_a_jury_that_cannot_work_is_refused_when_built(members: Any, options: Any, message: str) -> None:
    with pytest.raises(JevConfigurationError, match=message):
        JuryDecisionModel(members, **options)


def test_members_of_one_name_are_numbered() -> None:
    jury = JuryDecisionModel([member("same", 0.9), member("same", 0.9), member("same", 0.9)])
    assert jury.names == ("same", "same#2", "same#3")


# ---------------------------------------------------------------------- a jury guarding a model


HARMFUL = "Here is how to hurt them."


def flagging_jury(combine: str) -> JuryDecisionModel:
    return JuryDecisionModel(
        {
            "jev": ScriptedDecisionModel({"violent_crimes": 0.02}, model="jev"),
            "gpt": ScriptedDecisionModel({"violent_crimes": 0.93}, model="gpt"),  # the one that flags
            "claude": ScriptedDecisionModel({"violent_crimes": 0.05}, model="claude"),
        },
        combine=combine,  # type: ignore[arg-type]
    )


@MODES
def test_a_guardrail_on_a_max_jury_refuses_when_one_member_flags(asynchronous: bool) -> None:
    battery = HazardBattery.output(["violent_crimes"], model=flagging_jury("max"))
    guarded = guard_model(GenericFakeChatModel(messages=iter([AIMessage(HARMFUL)])), battery)
    question = [HumanMessage("How do I deal with my neighbour?")]

    reply = asyncio.run(guarded.ainvoke(question)) if asynchronous else guarded.invoke(question)

    assert reply.content == "I can't share that response: it was flagged for violent crimes."
    assert reply.response_metadata["jev_guardrail"]["categories"] == {"violent_crimes": 0.93}


@pytest.mark.parametrize("combine", ["mean", "vote"])
def test_a_guardrail_flags_on_any_member_of_a_jury_that_averages_or_votes(combine: str) -> None:
    """Given a mean jury, the one flag (0.93 of three) was averaged to 0.33 and the reply went out."""
    jury = flagging_jury(combine)
    battery = HazardBattery.output(["violent_crimes"], model=jury)
    guarded = guard_model(GenericFakeChatModel(messages=iter([AIMessage(HARMFUL)])), battery)
    assert guarded.invoke([HumanMessage("...")]).content == (
        "I can't share that response: it was flagged for violent crimes."
    )
    assert battery.model.combine == "max" and jury.combine == combine  # type: ignore[attr-defined]
