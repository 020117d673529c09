"""assert_judged and aassert_judged: what passes, what fails, and what the failure says."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.decisions import Noul
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langchain_jev import JevConfigurationError, JevCriterion, JevInputError, JevJudge, Outcome
from langchain_jev.testing import ScriptedDecisionModel, aassert_judged, assert_judged
from tests.fakes import JevWire, noul
from tests.testing.helpers import GOOD, judge_on

BAD = {"polite": 0.2, "helpful": {0: 0.1, 1: 0.8, 2: 0.1}, "mode": "answered"}


def test_a_passing_text_returns_the_verdict() -> None:
    model = ScriptedDecisionModel(GOOD)

    verdict = assert_judged("Hello! How can I help?", judge_on(model), given="Hi?")

    assert verdict.passed
    assert verdict.summary() == "passed=true [polite=PASSED, helpful=PASSED, mode=PASSED]"
    assert model.requests[0]["state"] == {
        "user_question": "Hi?",
        "assistant_answer": "Hello! How can I help?",
    }


def test_a_failing_text_raises_with_the_summary_and_the_feedback() -> None:
    judge = judge_on(ScriptedDecisionModel(BAD))

    with pytest.raises(AssertionError) as raised:
        assert_judged("Go away.", judge, given="Hi?")

    assert str(raised.value) == (
        "passed=false [polite=FAILED, helpful=FAILED, mode=PASSED]\n"
        'polite: not met: "Is `assistant_answer` polite?" (yes at 0.20, needs 0.70)\n'
        'helpful: rated "Mostly unhelpful" (1.00), needs to reach 2.00 which is "Mostly helpful"'
    )


def test_an_unanswered_question_fails_the_assertion_although_the_verdict_passes() -> None:
    judge = judge_on(ScriptedDecisionModel({**GOOD, "mode": {"type": "choice", "choice": 3}}))
    assert judge.judge("Hi?", "Hello!").passed  # the judge's own policy lets it pass

    with pytest.raises(AssertionError) as raised:
        assert_judged("Hello!", judge, given="Hi?")

    lines = str(raised.value).splitlines()
    assert lines[0] == "passed=true [polite=PASSED, helpful=PASSED, mode=ERROR]"
    assert lines[1].startswith("mode: ")
    assert len(lines) == 2


def test_a_conversation_gives_the_question_and_the_tool_calls_of_the_last_turn() -> None:
    model = ScriptedDecisionModel(GOOD)
    conversation = [
        HumanMessage("Hello"),
        AIMessage("Hi! What can I do?"),
        HumanMessage("Weather in Dublin?"),
        AIMessage("", tool_calls=[{"name": "search", "args": {"q": "Dublin weather"}, "id": "c1"}]),
        ToolMessage("Rain, 12 C", tool_call_id="c1"),
    ]

    assert_judged("Rain and 12 C.", judge_on(model), given=conversation, context=["Forecast: rain"])

    assert model.requests[0]["state"] == {
        "user_question": "Weather in Dublin?",
        "assistant_answer": "Rain and 12 C.",
        "supporting_context": ["Forecast: rain"],
        "tool_calls": [{"name": "search", "arguments": {"q": "Dublin weather"}, "result": "Rain, 12 C", "message": 0}],
    }


def test_a_conversation_of_role_content_mappings_and_a_message_as_text() -> None:
    model = ScriptedDecisionModel(GOOD)

    assert_judged(
        AIMessage("Paris."),
        judge_on(model),
        given=[{"role": "user", "content": "Capital of France?"}],
    )

    assert model.requests[0]["state"] == {"user_question": "Capital of France?", "assistant_answer": "Paris."}


def test_without_given_only_the_answer_is_judged() -> None:
    model = ScriptedDecisionModel(GOOD)
    assert_judged("Hello!", judge_on(model), context="A greeting guide.")
    assert model.requests[0]["state"] == {
        "assistant_answer": "Hello!",
        "supporting_context": ["A greeting guide."],
    }


def test_model_replaces_the_judges_own_model() -> None:
    unused = ScriptedDecisionModel({})
    judge = judge_on(unused)
    other = ScriptedDecisionModel(GOOD)

    assert assert_judged("Hello!", judge, model=other).passed
    assert (unused.calls, other.calls) == (0, 1)
    assert judge.model is unused


def test_a_check_criterion_failure_is_reported() -> None:
    judge = JevJudge(
        [
            JevCriterion.check("short", lambda data: len(data.answer or "") < 10, "the answer is too long"),
            JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.5),
        ],
        model=ScriptedDecisionModel({"polite": 0.9}),
    )
    with pytest.raises(AssertionError, match=r"(?s)passed=false \[short=FAILED, polite=PASSED\].*too long"):
        assert_judged("This answer is far too long.", judge)


async def test_the_async_twin_passes_and_fails_alike() -> None:
    good = await aassert_judged("Hello!", judge_on(ScriptedDecisionModel(GOOD)), given="Hi?")
    assert good.finding("mode").outcome is Outcome.PASSED

    with pytest.raises(AssertionError, match=r"^passed=false \[polite=FAILED, helpful=FAILED, mode=PASSED\]"):
        await aassert_judged("Go away.", judge_on(ScriptedDecisionModel(BAD)), given="Hi?")


def test_bad_arguments_are_named() -> None:
    judge = judge_on(ScriptedDecisionModel(GOOD))
    with pytest.raises(JevConfigurationError, match="needs statements"):
        assert_judged("Hello!")
    with pytest.raises(JevConfigurationError, match="either statements or one JevJudge"):
        assert_judged("Hello!", judge, "It is polite.")
    with pytest.raises(JevConfigurationError, match="non-empty string, got '  '"):
        assert_judged("Hello!", "It is polite.", "  ", model=ScriptedDecisionModel({}))
    with pytest.raises(JevConfigurationError, match="threshold must be greater than 0"):
        assert_judged("Hello!", "It is polite.", model=ScriptedDecisionModel({}), threshold=0)
    with pytest.raises(JevInputError, match="text to judge must be a string or a message, got int"):
        assert_judged(42, judge)  # type: ignore[arg-type]
    with pytest.raises(JevInputError, match=r"given must be a question .* got int"):
        assert_judged("Hello!", judge, given=7)  # type: ignore[arg-type]
    with pytest.raises(JevInputError, match="given must be a question or a list of messages"):
        assert_judged("Hello!", judge, given=[{"no": "role"}])


# ----------------------------------------------------------------------------- statements


def test_statements_are_asked_in_one_request_and_pass_at_the_threshold() -> None:
    model = ScriptedDecisionModel({"statement_1": 0.9, "statement_2": 0.55})

    verdict = assert_judged(
        "Hello! How can I help?", "It greets the user.", "It offers help.", given="Hi", model=model
    )

    assert verdict.summary() == "passed=true [statement_1=PASSED, statement_2=PASSED]"
    assert model.calls == 1
    assert list(model.requests[0]["questions"]) == ["statement_1", "statement_2"]
    assert "It offers help." in str(model.requests[0]["questions"]["statement_2"].instructions)


def test_a_statement_below_the_threshold_fails_and_is_quoted() -> None:
    model = ScriptedDecisionModel({"statement_1": 0.9, "statement_2": 0.55})

    with pytest.raises(AssertionError) as raised:
        assert_judged("Hello!", "It greets the user.", "It offers help.", model=model, threshold=0.7)

    message = str(raised.value)
    assert message.splitlines()[0] == "passed=false [statement_1=PASSED, statement_2=FAILED]"
    assert "It offers help." in message and "0.55" in message and "0.70" in message
    assert "It greets the user." not in message


async def test_statements_over_the_jev_wire() -> None:
    def respond(body: dict[str, Any]) -> dict[str, Any]:
        return noul(0.1 if "rude" in body["questions"]["statement_1"]["instructions"] else 0.95)

    wire = JevWire({"statement_1": respond})

    verdict = await aassert_judged("Hello!", "It is friendly.", given="Hi", model=wire.model())
    with pytest.raises(AssertionError, match=r"statement_1=FAILED"):
        await aassert_judged("Hello!", "It is rude.", given="Hi", model=wire.model())

    assert verdict.passed
    assert wire.calls == 2
    assert wire.bodies[0]["state"] == {"user_question": "Hi", "assistant_answer": "Hello!"}
