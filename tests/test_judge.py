"""JevJudge end to end over the real typesafe-sdk client and an in-process transport."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import pytest
from typesafe_sdk import (
    TypeSafeAPIConnectionError,
    TypeSafeAuthenticationError,
    TypeSafeBadRequestError,
)

from langchain_jev import JevCriterion, JevJudge, JevJudgeInput, JevVerdict, Outcome, ToolCall
from tests.fakes import JevWire, RunRecorder, choice, noul, score
from tests.support.rubrics import (
    GROUNDED,
    HELPFULNESS_LEVELS,
    RELEVANT,
    details,
    helpfulness,
    mode,
    plausible,
)

SPEC_SCORE = score({0: 0.0, 1: 0.07, 2: 0.52, 3: 0.41}, HELPFULNESS_LEVELS)


def quickstart(wire: JevWire, **options: Any) -> JevJudge:
    return JevJudge([helpfulness(2.0), plausible(0.7)], model=wire.model(), **options)


def test_quickstart_sends_one_request_and_returns_a_verdict() -> None:
    wire = JevWire({"helpfulness": SPEC_SCORE, "is_plausible": noul(0.35)})
    verdict = quickstart(wire).judge("How hot is the sun's surface?", "About 5,500 C.")
    assert wire.calls == 1
    body = wire.bodies[0]
    assert body["state"] == {"user_question": "How hot is the sun's surface?", "assistant_answer": "About 5,500 C."}
    assert list(body["questions"]) == ["helpfulness", "is_plausible"]
    assert body["questions"]["helpfulness"]["type"] == "score"
    assert body["questions"]["helpfulness"]["criteria"] == HELPFULNESS_LEVELS
    assert body["questions"]["is_plausible"]["criteria"]["false"] == "At least one value is impossible"
    assert body["model"] == "jev-latest"
    assert verdict.summary() == "passed=false [helpfulness=PASSED, is_plausible=FAILED]"
    assert verdict.passed is False
    assert verdict.finding("helpfulness").confidence == pytest.approx(0.93)
    assert verdict.feedback == 'is_plausible: "At least one value is impossible" (yes at 0.35, needs 0.70)'
    assert verdict.response is not None and verdict.response.request_id == "req_1"
    assert verdict.response.usage == {"input_tokens": 120, "output_tokens": 2, "total_tokens": 122}


def test_the_spec_feedback_sentence_comes_back_from_the_wire() -> None:
    failing = score({0: 0.1, 1: 0.6, 2: 0.3}, HELPFULNESS_LEVELS)  # 1.20
    wire = JevWire({"helpfulness": failing, "is_plausible": noul(0.9)})
    verdict = quickstart(wire, min_confidence=0.6).judge("q", "a")
    assert verdict.failures()[0].name == "helpfulness"
    assert verdict.feedback == (
        'helpfulness: rated "Mostly unhelpful: misses the main point" (1.20), '
        'needs to reach 2.00 which is "Mostly helpful: minor gaps remain"'
    )


def test_a_judge_input_with_everything_becomes_the_state() -> None:
    wire = JevWire({"is_grounded": noul(0.9)})
    judge = JevJudge([JevCriterion.noul("is_grounded", GROUNDED, 0.7)], model=wire.model())
    judge.judge(
        JevJudgeInput(
            question="Will I need an umbrella in Dublin tomorrow?",
            answer="Yes, rain is likely.",
            expected="Rain is likely; bring an umbrella.",
            context=["Met Eireann: rain from 9am"],
            tool_calls=[ToolCall("search", {"q": "Dublin forecast"}, "rain")],
            fields={"search_required": True},
        )
    )
    assert wire.bodies[0]["state"] == {
        "user_question": "Will I need an umbrella in Dublin tomorrow?",
        "assistant_answer": "Yes, rain is likely.",
        "expected_output": "Rain is likely; bring an umbrella.",
        "supporting_context": ["Met Eireann: rain from 9am"],
        "tool_calls": [{"name": "search", "arguments": {"q": "Dublin forecast"}, "result": "rain"}],
        "search_required": True,
    }


def test_a_state_mapping_is_sent_as_it_is_and_checks_read_it() -> None:
    wire = JevWire({"supports": noul(0.8)})
    judge = JevJudge(
        [
            JevCriterion.check("has_claim", lambda d: d.field("claim", str) is not None, "no claim"),
            JevCriterion.noul("supports", RELEVANT, 0.5),
        ],
        model=wire.model(),
    )
    verdict = judge.judge({"passage": "The sky is blue.", "claim": "The sky is blue."})
    assert wire.bodies[0]["state"] == {"passage": "The sky is blue.", "claim": "The sky is blue."}
    assert verdict.passed


def test_checks_never_reach_the_model_and_land_in_the_verdict() -> None:
    wire = JevWire({"is_grounded": noul(0.9)})
    judge = JevJudge(
        [
            JevCriterion.check(
                "matches_search_expectation",
                lambda d: bool(d.tool_calls) == bool(d.field("search_required", bool)),
                "searched when no search was required, or skipped a required search",
            ),
            JevCriterion.noul("is_grounded", GROUNDED, 0.7),
        ],
        model=wire.model(),
    )
    verdict = judge.judge(JevJudgeInput("q", "a", fields={"search_required": True}))
    assert list(wire.bodies[0]["questions"]) == ["is_grounded"]
    check = verdict.finding("matches_search_expectation")
    assert check.outcome is Outcome.FAILED and check.answer is None
    assert verdict.feedback == (
        "matches_search_expectation: searched when no search was required, or skipped a required search"
    )
    assert verdict.summary() == "passed=false [matches_search_expectation=FAILED, is_grounded=PASSED]"


def test_a_check_that_raises_propagates_before_any_request() -> None:
    wire = JevWire({"is_plausible": noul(0.9)})

    def broken(data: JevJudgeInput) -> bool:
        raise RuntimeError("bug in the check")

    judge = JevJudge([JevCriterion.check("broken", broken, "x"), plausible()], model=wire.model())
    with pytest.raises(RuntimeError, match="bug in the check"):
        judge.judge("q", "a")
    assert wire.calls == 0


def test_fail_fast_skips_the_request_when_a_check_fails() -> None:
    wire = JevWire({"is_plausible": noul(0.9)})
    judge = JevJudge(
        [JevCriterion.check("short", lambda d: len(d.answer or "") < 5, "the answer is too long"), plausible()],
        model=wire.model(),
        fail_fast=True,
    )
    verdict = judge.judge("q", "a much too long answer")
    assert wire.calls == 0 and verdict.response is None
    assert verdict.finding("is_plausible").outcome is Outcome.NOT_APPLICABLE
    assert verdict.feedback == "short: the answer is too long"
    judge.judge("q", "ok")
    assert wire.calls == 1


def test_applies_when_false_keeps_the_question_out_of_the_request() -> None:
    wire = JevWire({"is_grounded": noul(0.9), "is_relevant": noul(0.9)})
    judge = JevJudge(
        [
            JevCriterion.noul("is_grounded", GROUNDED, 0.7).applies_when(lambda d: bool(d.context)),
            JevCriterion.noul("is_relevant", RELEVANT, 0.7),
        ],
        model=wire.model(),
    )
    verdict = judge.judge("q", "a")
    assert list(wire.bodies[0]["questions"]) == ["is_relevant"]
    grounded = verdict.finding("is_grounded")
    assert grounded.outcome is Outcome.NOT_APPLICABLE and grounded.detail == "is_grounded: does not apply"
    judge.judge(JevJudgeInput("q", "a", context="doc"))
    assert list(wire.bodies[1]["questions"]) == ["is_grounded", "is_relevant"]


def test_no_applicable_question_means_no_request_and_no_response() -> None:
    wire = JevWire({})
    judge = JevJudge(
        [JevCriterion.noul("is_grounded", GROUNDED, 0.7).applies_when(lambda d: bool(d.context))],
        model=wire.model(),
    )
    verdict = judge.judge("q", "a")
    assert wire.calls == 0 and verdict.response is None and verdict.passed


def test_a_check_that_does_not_apply_is_not_run_and_settles_only_what_it_can() -> None:
    ran: list[str] = []

    def exact(data: JevJudgeInput) -> bool:
        ran.append(data.answer or "")
        return data.answer == data.expected

    wire = JevWire({"is_relevant": noul(0.9)})
    judge = JevJudge(
        [
            JevCriterion.check("exact", exact, "differs").applies_when(lambda d: d.answer == d.expected),
            JevCriterion.noul("is_relevant", RELEVANT, 0.7).applies_when(lambda d: d.answer != d.expected),
        ],
        model=wire.model(),
    )
    settled = judge.judge(JevJudgeInput("q", "42", expected="42"))
    assert wire.calls == 0 and settled.passed and ran == ["42"]
    assert [(f.name, f.outcome) for f in settled.findings] == [
        ("exact", Outcome.PASSED), ("is_relevant", Outcome.NOT_APPLICABLE)]
    asked = judge.judge(JevJudgeInput("q", "forty-two", expected="42"))
    assert wire.calls == 1 and ran == ["42"]  # the check was not run on the second input
    assert asked.finding("exact").outcome is Outcome.NOT_APPLICABLE
    assert asked.finding("exact").detail == "exact: does not apply"


def test_a_dependent_is_asked_anyway_and_set_aside_when_the_choice_lands_elsewhere() -> None:
    wire = JevWire({"mode": choice("clarification_needed", {"answered": 0.1, "clarification_needed": 0.9}),
                    "has_details": noul(0.1)})
    judge = JevJudge([mode(), details()], model=wire.model())
    verdict = judge.judge("What's the weather in Springfield?", "Which Springfield do you mean?")
    assert list(wire.bodies[0]["questions"]) == ["mode", "has_details"]
    dependent = verdict.finding("has_details")
    assert dependent.outcome is Outcome.NOT_APPLICABLE
    assert dependent.detail == 'has_details: does not apply, mode was "clarification_needed"'
    assert verdict.passed


def test_a_dependent_applies_when_its_label_is_chosen() -> None:
    wire = JevWire({"mode": choice("answered"), "has_details": noul(0.2)})
    verdict = JevJudge([mode(), details()], model=wire.model()).judge("q", "a")
    assert verdict.finding("has_details").outcome is Outcome.FAILED


def test_an_undecided_dependency_makes_dependents_not_applicable() -> None:
    wire = JevWire({"mode": choice("answered", {"answered": 0.55, "clarification_needed": 0.45}),
                    "has_details": noul(0.9)})
    judge = JevJudge(
        [JevCriterion.choice("mode", mode().question, ["answered"]), details()],  # type: ignore[arg-type]
        model=wire.model(),
    )
    verdict = judge.judge("q", "a")
    assert verdict.finding("mode").outcome is Outcome.INCONCLUSIVE
    assert verdict.finding("has_details").detail == "has_details: does not apply, mode was INCONCLUSIVE"
    missing = JevWire({"has_details": noul(0.9)})
    verdict = JevJudge([mode(), details()], model=missing.model()).judge("q", "a")
    assert verdict.finding("mode").outcome is Outcome.ERROR
    assert verdict.finding("has_details").detail == "has_details: does not apply, mode was ERROR"


def test_when_passed_follows_the_dependency_and_can_depend_on_a_check() -> None:
    wire = JevWire({"is_grounded": noul(0.3), "cites": noul(0.9)})
    judge = JevJudge(
        [
            JevCriterion.check("has_context", lambda d: bool(d.context), "no context to judge against"),
            JevCriterion.noul("is_grounded", GROUNDED, 0.7).when_passed("has_context"),
            JevCriterion.noul("cites", RELEVANT, 0.7).when_passed("is_grounded"),
        ],
        model=wire.model(),
    )
    verdict = judge.judge(JevJudgeInput("q", "a", context="doc"))
    assert verdict.finding("cites").detail == "cites: does not apply, is_grounded was FAILED"
    without = judge.judge("q", "a")
    # a dependency that failed before the call keeps its dependents out: no request at all
    assert wire.calls == 1
    assert without.finding("is_grounded").detail == "is_grounded: does not apply, has_context was FAILED"
    assert without.finding("cites").detail == "cites: does not apply, is_grounded was NOT_APPLICABLE"


def test_fail_on_inconclusive_and_fail_on_error_report_failures() -> None:
    answers = {"helpfulness": score({1: 0.45, 2: 0.55}, HELPFULNESS_LEVELS)}  # is_plausible missing
    plain = quickstart(JevWire(answers)).judge("q", "a")
    assert plain.passed and [f.name for f in plain.inconclusive()] == ["helpfulness"]
    assert [f.name for f in plain.errors()] == ["is_plausible"]
    assert plain.feedback == ""
    strict = quickstart(JevWire(answers), fail_on_inconclusive=True, fail_on_error=True).judge("q", "a")
    assert not strict.passed and strict.inconclusive() == [] and strict.errors() == []
    assert [f.name for f in strict.failures()] == ["helpfulness", "is_plausible"]
    assert strict.finding("helpfulness").decided is Outcome.INCONCLUSIVE
    assert strict.feedback.splitlines() == [
        "helpfulness: undecided, rated 1.55 against 2.00; only 0.55 of the probability supports a pass, "
        "below the 0.60 required",
        "is_plausible: could not be judged: the model returned no answer for this question",
    ]


def test_a_feedback_renderer_replaces_the_wording() -> None:
    wire = JevWire({"helpfulness": SPEC_SCORE, "is_plausible": noul(0.1)})

    def render(findings: Any) -> str:
        return "; ".join(f"{f.name} -> {f.outcome}" for f in findings)

    verdict = quickstart(wire, feedback_renderer=render).judge("q", "a")
    assert verdict.feedback == "helpfulness -> PASSED; is_plausible -> FAILED"


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ({"type": "choice", "choice": "x", "probabilities": {"x": 1.0}, "confidence": 1.0}, "expected a noul answer, got 'choice'"),
        ({"type": "noul", "noul": -0.3}, "answers.is_plausible"),
        ({"type": "noul", "noul": 3}, "answers.is_plausible"),
        ({"type": "noul"}, "answers.is_plausible"),
        ("not an object", "answers.is_plausible"),
    ],
)
def test_an_odd_answer_makes_that_finding_an_error_and_keeps_the_rest(answer: Any, reason: str) -> None:
    wire = JevWire({"helpfulness": SPEC_SCORE, "is_plausible": answer})
    verdict = quickstart(wire).judge("q", "a")
    finding = verdict.finding("is_plausible")
    assert finding.outcome is Outcome.ERROR
    assert finding.detail.startswith("is_plausible: could not be judged: ") and reason in finding.detail
    assert verdict.finding("helpfulness").outcome is Outcome.PASSED
    assert verdict.passed


def test_a_choice_label_outside_the_options_is_an_error() -> None:
    wire = JevWire({"mode": choice("sunny"), "has_details": noul(0.9)})
    verdict = JevJudge([mode(), details()], model=wire.model()).judge("q", "a")
    assert verdict.finding("mode").detail == 'mode: could not be judged: chose "sunny", which is not an option of the choice'


def test_nan_probabilities_in_the_body_are_an_error_for_that_finding() -> None:
    body = (
        '{"model": "jev-latest", "usage": {"input_tokens": 1, "output_tokens": 1}, "answers": {'
        '"is_plausible": {"type": "noul", "noul": NaN},'
        '"helpfulness": {"type": "score", "score": 2.3, "legend": {}, "probabilities": {"2": 0.7, "3": 0.3}, "confidence": 0.7}}}'
    )
    verdict = quickstart(JevWire(body=body)).judge("q", "a")
    assert verdict.finding("is_plausible").outcome is Outcome.ERROR
    assert verdict.finding("helpfulness").outcome is Outcome.PASSED


def test_answers_for_other_question_names_leave_ours_in_error() -> None:
    wire = JevWire(responder=lambda body: httpx2.Response(200, json={
        "model": "jev-latest", "usage": {"input_tokens": 1, "output_tokens": 1},
        "answers": {"something_else": {"type": "noul", "noul": 0.9}}}))
    verdict = quickstart(wire).judge("q", "a")
    assert [f.outcome for f in verdict.findings] == [Outcome.ERROR, Outcome.ERROR]
    assert verdict.passed is True and quickstart(wire, fail_on_error=True).judge("q", "a").passed is False


@pytest.mark.parametrize(
    ("wire", "error", "message"),
    [
        (JevWire(status=401), TypeSafeAuthenticationError, "401 failure 401"),
        (JevWire(status=400), TypeSafeBadRequestError, "400 failure 400"),
        (JevWire(error=httpx2.ConnectError("connection refused")), TypeSafeAPIConnectionError, "connection refused"),
    ],
)
def test_a_judge_that_cannot_reach_its_model_raises_the_provider_error(
    wire: JevWire, error: type[Exception], message: str
) -> None:
    judge = quickstart(wire)
    with pytest.raises(error, match=message):
        judge.judge("q", "a")
    with pytest.raises(error, match=message):
        asyncio.run(judge.ajudge("q", "a"))


def test_every_entry_point_judges_the_same() -> None:
    wire = JevWire({"helpfulness": SPEC_SCORE, "is_plausible": noul(0.9)})
    judge = quickstart(wire)
    data = JevJudgeInput("q", "a")
    results = [
        judge.judge("q", "a"),
        judge.judge(data),
        judge.judge(data.to_state()),
        judge.invoke(data),
        judge.invoke(data.to_state()),
        *judge.batch([data, data.to_state()]),
        asyncio.run(judge.ajudge("q", "a")),
        asyncio.run(judge.ajudge(data)),
        asyncio.run(judge.ainvoke(data)),
        *asyncio.run(judge.abatch([data, data])),
    ]
    assert {v.summary() for v in results} == {"passed=true [helpfulness=PASSED, is_plausible=PASSED]"}
    assert wire.calls == len(results)
    assert all(body["state"] == data.to_state() for body in wire.bodies)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("question only",), "judge\\(question, answer\\) needs the answer as well"),
        ((JevJudgeInput("q", "a"), "extra"), "takes two strings"),
        ((["a list"],), "judge\\(\\) takes \\(question, answer\\), a JevJudgeInput or a state mapping, got list"),
    ],
)
def test_judge_arguments_are_checked(args: tuple[Any, ...], message: str) -> None:
    judge = quickstart(JevWire({}))
    with pytest.raises(TypeError, match=message):
        judge.judge(*args)


async def test_one_judge_shared_by_200_concurrent_calls_returns_each_its_own_verdict() -> None:
    def by_marker(body: dict[str, Any]) -> dict[str, Any]:
        number = int(body["state"]["assistant_answer"])
        return noul(0.9 if number % 2 == 0 else 0.1)

    wire = JevWire({"is_plausible": by_marker, "helpfulness": SPEC_SCORE})
    judge = quickstart(wire)
    verdicts = await asyncio.gather(*(judge.ajudge("q", str(i)) for i in range(200)))
    assert wire.calls == 200
    for i, verdict in enumerate(verdicts):
        assert verdict.passed is (i % 2 == 0)
        assert verdict.finding("is_plausible").value == (0.9 if i % 2 == 0 else 0.1)


@pytest.mark.parametrize("mode_", ["sync", "async"])
def test_a_judgement_is_one_run_with_the_model_call_as_its_child(mode_: str) -> None:
    wire = JevWire({"helpfulness": SPEC_SCORE, "is_plausible": noul(0.9)})
    judge = quickstart(wire)
    tracer = RunRecorder()
    config: Any = {"callbacks": [tracer]}
    verdict: JevVerdict = (
        judge.invoke(JevJudgeInput("q", "a"), config)
        if mode_ == "sync"
        else asyncio.run(judge.ainvoke(JevJudgeInput("q", "a"), config))
    )
    assert verdict.passed
    [root] = tracer.roots
    assert root.name == "JevJudge" and root.run_type == "chain"
    [child] = root.child_runs
    assert child.run_type == "llm" and child.name == "JevDecisionModel"
    assert child.extra["metadata"]["ls_provider"] == "typesafe"
    assert child.extra["metadata"]["ls_model_name"] == "jev-latest"
