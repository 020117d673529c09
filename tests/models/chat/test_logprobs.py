"""The logprobs and auto strategies: probabilities from token log-probabilities."""

from __future__ import annotations

import math
from typing import Any

import pytest
from langchain_core.decisions import Choice, Noul, Score

from langchain_jev import ChatModelDecisionModel, JevCriterion, JevJudge, LogprobsUnavailableError, Outcome
from langchain_jev.models._chat.logprobs import answer_from_positions, token_positions
from tests.models.chat.helpers import (
    ScriptedChatModel,
    ToolCallingChatModel,
    by_question,
    logprob_reply,
    tool_reply,
)

POLITE = Noul(instructions="Is `assistant_answer` polite?")
MODE = Choice(
    instructions="How does `assistant_answer` respond?",
    criteria={"answered": "Gives the weather", "clarification_needed": "Asks which place", "refused": None},
)
HELPFUL = Score(instructions="How helpful?", criteria=["Useless", "Partly", "Mostly", "Fully"])
QUESTIONS = {"polite": POLITE, "mode": MODE, "helpful": HELPFUL}


def judge_on(chat: Any, strategy: str = "logprobs") -> JevJudge:
    return JevJudge(
        [
            JevCriterion.noul("polite", POLITE, 0.7),
            JevCriterion.choice("mode", MODE, ["answered"]),
            JevCriterion.score("helpful", HELPFUL, 2),
        ],
        model=ChatModelDecisionModel(chat, strategy=strategy),
    )


def read(question: Any, reply: Any) -> Any:
    positions = token_positions(reply.response_metadata)
    assert positions is not None
    answer, problem = answer_from_positions(question, positions)
    assert problem is None, problem
    return answer


def test_a_noul_is_the_softmax_of_yes_against_no_summing_case_and_space_variants() -> None:
    reply = logprob_reply(
        {
            "Yes": math.log(0.5),
            " yes": math.log(0.1),
            "YES": math.log(0.1),
            "No": math.log(0.2),
            "Maybe": -0.5,
        }
    )

    answer = read(POLITE, reply)

    assert answer.noul == pytest.approx(0.7 / 0.9)


def test_a_choice_sums_the_variants_of_each_letter() -> None:
    reply = logprob_reply(
        [(" B", math.log(0.4)), ("B", math.log(0.2)), ("A", math.log(0.1)), ("The", math.log(0.3))]
    )

    answer = read(MODE, reply)

    assert answer.choice == "clarification_needed"
    assert answer.probabilities == pytest.approx(
        {"answered": 0.1 / 0.7, "clarification_needed": 0.6 / 0.7, "refused": 0.0}
    )
    assert answer.confidence == pytest.approx(0.6 / 0.7)


def test_labels_missing_from_the_top_alternatives_get_zero() -> None:
    reply = logprob_reply({"2": math.log(0.6), "3": math.log(0.2), "Hmm": math.log(0.2)})

    answer = read(HELPFUL, reply)

    assert answer.probabilities == pytest.approx({0: 0.0, 1: 0.0, 2: 0.75, 3: 0.25})
    assert answer.score == pytest.approx(2.25)
    assert answer.legend == {0: "Useless", 1: "Partly", 2: "Mostly", 3: "Fully"}


def test_lower_case_letters_are_not_counted_as_labels() -> None:
    reply = logprob_reply({"A": math.log(0.5), "a": math.log(0.4), "C": math.log(0.1)})

    answer = read(MODE, reply)

    assert answer.probabilities == pytest.approx(
        {"answered": 5 / 6, "clarification_needed": 0.0, "refused": 1 / 6}
    )


def test_the_answer_token_is_found_after_leading_tokens() -> None:
    reply = logprob_reply({" B": math.log(0.9), " A": math.log(0.1)}, before=["Answer", ":"])

    answer = read(MODE, reply)

    assert answer.choice == "clarification_needed"
    assert answer.probabilities["clarification_needed"] == pytest.approx(0.9)


def test_the_generated_token_counts_when_top_alternatives_are_absent() -> None:
    reply = logprob_reply({}, chosen="yes")

    answer = read(POLITE, reply)

    assert answer.noul == 1.0


def test_each_question_is_asked_in_its_own_request_and_the_judge_decides() -> None:
    chat = ScriptedChatModel(
        replies=[
            by_question(
                {
                    "polite": logprob_reply({"yes": math.log(0.95), "no": math.log(0.05)}),
                    "mode": logprob_reply({"A": math.log(0.8), "B": math.log(0.2)}),
                    "helpful": logprob_reply({"1": math.log(0.7), "2": math.log(0.3)}),
                }
            )
        ]
    )

    verdict = judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")

    assert len(chat.calls) == 3
    assert all(call["kwargs"] == {"logprobs": True, "top_logprobs": 20} for call in chat.calls)
    assert verdict.response is not None
    assert verdict.response.strategy == "logprobs"  # type: ignore[attr-defined]
    assert verdict.response.reasoning == {}  # type: ignore[attr-defined]
    assert verdict.summary() == "passed=false [polite=PASSED, mode=PASSED, helpful=FAILED]"
    assert verdict.finding("polite").confidence == pytest.approx(0.95)
    assert verdict.finding("helpful").confidence == pytest.approx(0.7)


def test_an_answer_with_no_label_among_the_alternatives_is_an_error_finding() -> None:
    chat = ScriptedChatModel(
        replies=[
            by_question(
                {
                    "polite": logprob_reply({"Sure": -0.1, "Well": -2.0}),
                    "mode": logprob_reply({"A": -0.1}),
                    "helpful": logprob_reply({"3": -0.1}),
                }
            )
        ]
    )

    verdict = judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")

    assert verdict.finding("polite").outcome is Outcome.ERROR
    assert verdict.finding("polite").detail == (
        "polite: could not be judged: none of the labels (yes, no) is among the top "
        "alternatives of the answer token 'Sure'"
    )
    assert verdict.finding("mode").outcome is Outcome.PASSED


def test_logprobs_without_log_probabilities_raise_instead_of_inventing_numbers() -> None:
    chat = ScriptedChatModel(replies=[by_question(dict.fromkeys(QUESTIONS, "yes"))])

    with pytest.raises(LogprobsUnavailableError, match="needs token log-probabilities"):
        judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")


def test_logprobs_refuses_a_question_that_does_not_fit_one_token() -> None:
    wide = Score(instructions="Rate 0 to 10", criteria=[str(level) for level in range(11)])
    model = ChatModelDecisionModel(ScriptedChatModel(replies=[]), strategy="logprobs")

    with pytest.raises(
        ValueError, match=r"question 'rating' cannot be asked with strategy='logprobs': a score"
    ):
        model.invoke({"state": "x", "questions": {"rating": wide}})


def test_logprobs_options_are_bound_to_the_request() -> None:
    chat = ScriptedChatModel(replies=[logprob_reply({"yes": -0.1, "no": -3.0})])
    model = ChatModelDecisionModel(
        chat, strategy="logprobs", top_logprobs=5, logprobs_kwargs={"max_tokens": 1}
    )

    model.invoke({"state": "x", "questions": {"polite": POLITE}})

    assert chat.calls[0]["kwargs"] == {"logprobs": True, "top_logprobs": 5, "max_tokens": 1}


def test_auto_uses_logprobs_when_the_model_returns_them() -> None:
    chat = ScriptedChatModel(
        replies=[
            by_question(
                {
                    "polite": logprob_reply({"yes": math.log(0.9), "no": math.log(0.1)}),
                    "mode": logprob_reply({"A": math.log(0.8), "B": math.log(0.2)}),
                    "helpful": logprob_reply({"2": math.log(0.9), "1": math.log(0.1)}),
                }
            )
        ]
    )

    judge = judge_on(chat, "auto")
    first = judge.judge("Weather in Dublin?", "Rain tomorrow.")
    second = judge.judge("Weather in Dublin?", "Rain tomorrow.")

    assert first.response is not None and second.response is not None
    assert first.response.strategy == second.response.strategy == "logprobs"  # type: ignore[attr-defined]
    assert first.passed and second.passed
    assert len(chat.calls) == 6


def test_auto_falls_back_to_structured_once_and_remembers() -> None:
    structured = {
        "polite": {"reasoning": "Kind.", "yes_probability": 0.9},
        "mode": {
            "reasoning": "Answers.",
            "probabilities": {"answered": 1, "clarification_needed": 0, "refused": 0},
        },
        "helpful": {"reasoning": "Good.", "probabilities": {"0": 0, "1": 0, "2": 0.5, "3": 0.5}},
    }

    def reply(messages: list[Any], kwargs: dict[str, Any]) -> Any:
        if kwargs.get("logprobs"):
            return "yes"  # this provider ignores the logprobs request
        return tool_reply(structured)

    chat = ToolCallingChatModel(replies=[reply])
    judge = judge_on(chat, "auto")

    first = judge.judge("Weather in Dublin?", "Rain tomorrow.")
    second = judge.judge("Weather in Dublin?", "Rain tomorrow.")

    assert first.response is not None and second.response is not None
    assert first.response.strategy == second.response.strategy == "structured"  # type: ignore[attr-defined]
    assert [bool(call["kwargs"].get("logprobs")) for call in chat.calls] == [True, False, False]
    assert first.finding("polite").reasoning == "Kind."
    assert first.passed and second.passed


def test_auto_falls_back_when_the_provider_rejects_the_logprobs_request() -> None:
    structured = {"polite": {"reasoning": "Kind.", "yes_probability": 0.9}}

    def reply(messages: list[Any], kwargs: dict[str, Any]) -> Any:
        if kwargs.get("logprobs"):
            raise ValueError("unsupported parameter: logprobs")
        return tool_reply(structured)

    model = ChatModelDecisionModel(ToolCallingChatModel(replies=[reply]), strategy="auto")

    response = model.invoke({"state": "x", "questions": {"polite": POLITE}})

    assert response.strategy == "structured"  # type: ignore[attr-defined]
    assert response.nouls["polite"].noul == 0.9


def test_auto_still_raises_when_the_structured_request_fails_too() -> None:
    chat = ToolCallingChatModel(replies=[ConnectionError("down"), ConnectionError("down")])
    model = ChatModelDecisionModel(chat, strategy="auto")

    with pytest.raises(ConnectionError, match="down"):
        model.invoke({"state": "x", "questions": {"polite": POLITE}})


def test_auto_uses_structured_for_questions_that_do_not_fit_one_token() -> None:
    wide = Choice(instructions="Which?", criteria={f"option_{i}": None for i in range(30)})
    payload = {"pick": {"reasoning": "r", "probabilities": {"option_3": 1.0}}}
    chat = ToolCallingChatModel(replies=[tool_reply(payload)])

    response = ChatModelDecisionModel(chat, strategy="auto").invoke(
        {"state": "x", "questions": {"pick": wide}}
    )

    assert response.strategy == "structured"  # type: ignore[attr-defined]
    assert response.choices["pick"].choice == "option_3"
    assert len(chat.calls) == 1
