"""The structured and per-question strategies: validation, renormalisation, retry, errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.decisions import Box, Choice, Noul, Score
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from langchain_jev import ChatModelDecisionModel, ChatModelOutputError, JevCriterion, JevJudge, Outcome
from tests.models.chat.helpers import (
    ScriptedChatModel,
    ToolCallingChatModel,
    by_question,
    json_reply,
    tool_reply,
    user_text,
)

POLITE = Noul(instructions="Is `assistant_answer` polite?")
MODE = Choice(
    instructions="How does `assistant_answer` respond?",
    criteria={"answered": "Gives the weather", "clarification_needed": "Asks which place"},
)
HELPFUL = Score(
    instructions="How helpful is `assistant_answer`?",
    criteria=["Useless", "Partly", "Mostly", "Fully"],
)


def judge_on(chat: Any, strategy: str = "structured", **options: Any) -> JevJudge:
    return JevJudge(
        [
            JevCriterion.noul("polite", POLITE, 0.7),
            JevCriterion.choice("mode", MODE, ["answered"]),
            JevCriterion.score("helpful", HELPFUL, 2),
        ],
        model=ChatModelDecisionModel(chat, strategy=strategy),
        **options,
    )


def answers(polite: float = 0.9, mode: Any = None, helpful: Any = None) -> dict[str, Any]:
    return {
        "polite": {"reasoning": "Courteous throughout.", "yes_probability": polite},
        "mode": {
            "reasoning": "It gives the forecast.",
            "probabilities": mode or {"answered": 0.9, "clarification_needed": 0.1},
        },
        "helpful": {
            "reasoning": "Misses the timing.",
            "probabilities": helpful or {"0": 0.1, "1": 0.6, "2": 0.2, "3": 0.1},
        },
    }


def test_one_request_answers_every_question_and_the_judge_decides_each() -> None:
    chat = ToolCallingChatModel(replies=[tool_reply(answers())])

    verdict = judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")

    assert len(chat.calls) == 1
    assert verdict.summary() == "passed=false [polite=PASSED, mode=PASSED, helpful=FAILED]"
    assert verdict.response is not None
    assert verdict.response.strategy == "structured"  # type: ignore[attr-defined]
    assert verdict.finding("helpful").reasoning == "Misses the timing."
    assert verdict.finding("polite").reasoning == "Courteous throughout."
    assert verdict.feedback.startswith('helpful: rated "Partly" (1.30), needs to reach 2.00')


def test_probabilities_are_renormalised() -> None:
    reply = answers(
        mode={"answered": 0.375, "clarification_needed": 0.125},
        helpful={"0": 0.0, "1": 0.0, "2": 0.25, "3": 0.25},
    )
    chat = ToolCallingChatModel(replies=[tool_reply(reply)])

    verdict = judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")

    assert verdict.response is not None
    mode = verdict.response.choices["mode"]
    helpful = verdict.response.scores["helpful"]
    assert mode.probabilities == {"answered": 0.75, "clarification_needed": 0.25}
    assert (mode.choice, mode.confidence) == ("answered", 0.75)
    assert helpful.probabilities == {0: 0.0, 1: 0.0, 2: 0.5, 3: 0.5}
    assert helpful.score == 2.5
    assert helpful.legend == {0: "Useless", 1: "Partly", 2: "Mostly", 3: "Fully"}
    assert verdict.passed


def test_labels_the_reply_leaves_out_get_zero() -> None:
    chat = ToolCallingChatModel(replies=[tool_reply(answers(mode={"clarification_needed": 0.5}))])

    verdict = judge_on(chat).judge("Weather?", "Which Dublin?")

    assert verdict.response is not None
    assert verdict.response.choices["mode"].probabilities == {"answered": 0.0, "clarification_needed": 1.0}
    assert verdict.finding("mode").outcome is Outcome.FAILED


def test_an_invalid_reply_gets_one_corrective_retry_that_says_what_was_wrong() -> None:
    bad = answers(polite=1.5, mode={"answered": 0.5, "maybe": 0.5})
    good = answers()
    chat = ToolCallingChatModel(replies=[tool_reply(bad), tool_reply(good)])

    verdict = judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")

    assert len(chat.calls) == 2
    first, retry = chat.calls
    assert retry["messages"][:2] == first["messages"]
    _, _, previous, correction = retry["messages"]
    assert isinstance(previous, AIMessage)
    assert json.loads(str(previous.content)) == bad
    assert isinstance(correction, HumanMessage)
    assert correction.content == (
        "Your reply could not be used:\n"
        "- polite.yes_probability: 1.5 is not between 0 and 1\n"
        "- mode.probabilities: 'maybe' is not a label of the question "
        "(labels: answered, clarification_needed)\n"
        "Reply again, answering every question, exactly in the format <response> asks for."
    )
    assert retry["kwargs"]["tools"] == first["kwargs"]["tools"]
    assert verdict.summary() == "passed=false [polite=PASSED, mode=PASSED, helpful=FAILED]"


def test_text_that_is_not_json_is_retried_then_read() -> None:
    chat = ScriptedChatModel(
        replies=["Sure! The answer is polite.", "```json\n" + json.dumps(answers()) + "\n```"]
    )

    verdict = judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")

    assert len(chat.calls) == 2
    correction = chat.calls[1]["messages"][-1].content
    assert "- the reply holds no JSON object" in correction
    assert chat.calls[1]["messages"][-2].content == "Sure! The answer is polite."
    assert verdict.finding("polite").outcome is Outcome.PASSED


def test_a_reply_still_unreadable_after_the_retry_raises_with_the_raw_output() -> None:
    rambling = "I think the answer is quite polite, " * 40
    chat = ScriptedChatModel(replies=["not json at all", rambling])

    with pytest.raises(ChatModelOutputError) as caught:
        judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")

    message = str(caught.value)
    assert "could not be read, even after a corrective retry" in message
    assert "the reply holds no JSON object" in message
    assert rambling[:500] in message
    assert rambling not in message
    assert f"... ({len(rambling)} characters in all)" in message
    assert len(chat.calls) == 2


def test_a_reply_that_answers_no_question_is_retried_and_then_an_error() -> None:
    chat = ToolCallingChatModel(replies=[tool_reply({"verdict": "yes"}), tool_reply({"answer": "pass"})])

    with pytest.raises(ChatModelOutputError, match="answers none of the questions"):
        judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")


def test_answers_still_invalid_after_the_retry_become_error_findings() -> None:
    bad = answers(helpful={"0": -1, "1": 2})
    chat = ToolCallingChatModel(replies=[tool_reply(bad), tool_reply(bad)])

    verdict = judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")

    assert verdict.summary() == "passed=true [polite=PASSED, mode=PASSED, helpful=ERROR]"
    assert verdict.response is not None
    assert "helpful" not in verdict.response.answers
    assert verdict.finding("helpful").detail == (
        "helpful: could not be judged: helpful.probabilities.0: -1 is not between 0 and 1"
    )
    assert verdict.finding("helpful").reasoning == "Misses the timing."


def test_a_garbled_retry_keeps_the_answers_of_the_first_reply() -> None:
    chat = ToolCallingChatModel(replies=[tool_reply(answers(polite=7)), AIMessage("oops")])

    verdict = judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")

    assert verdict.summary() == "passed=false [polite=ERROR, mode=PASSED, helpful=FAILED]"
    assert "polite.yes_probability: 7 is not between 0 and 1" in verdict.finding("polite").detail


def test_skipped_questions_are_left_out_without_a_retry_and_reported_as_error() -> None:
    partial = {"polite": answers()["polite"]}
    chat = ToolCallingChatModel(replies=[tool_reply(partial)])

    verdict = judge_on(chat, fail_on_error=True).judge("Weather in Dublin?", "Rain tomorrow.")

    assert len(chat.calls) == 1
    assert verdict.response is not None
    assert set(verdict.response.answers) == {"polite"}
    assert verdict.summary() == "passed=false [polite=PASSED, mode=FAILED, helpful=FAILED]"
    assert verdict.finding("mode").decided is Outcome.ERROR
    assert (
        verdict.finding("mode").detail
        == "mode: could not be judged: the model returned no answer for this question"
    )


def test_a_reply_wrapped_in_an_extra_object_is_read() -> None:
    chat = ScriptedChatModel(replies=[json_reply({"answers": answers()})])

    verdict = judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")

    assert len(chat.calls) == 1
    assert verdict.summary() == "passed=false [polite=PASSED, mode=PASSED, helpful=FAILED]"


def test_usage_is_summed_over_every_request_including_the_retry() -> None:
    chat = ToolCallingChatModel(
        replies=[
            tool_reply(answers(polite=2), usage={"input_tokens": 300, "output_tokens": 40}),
            tool_reply(answers(), usage={"input_tokens": 380, "output_tokens": 42}),
        ]
    )

    verdict = judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")

    assert verdict.response is not None
    assert verdict.response.usage == {"input_tokens": 680, "output_tokens": 82, "total_tokens": 762}


def test_per_question_sends_one_request_per_question_with_its_own_schema() -> None:
    every = answers()
    chat = ToolCallingChatModel(
        replies=[by_question({name: tool_reply({name: every[name]}) for name in every})]
    )

    verdict = judge_on(chat, "per_question").judge("Weather in Dublin?", "Rain tomorrow.")

    assert len(chat.calls) == 3
    by_name = {
        call["kwargs"]["tools"][0]["function"]["parameters"]["required"][-1]: call for call in chat.calls
    }
    assert set(by_name) == {"polite", "mode", "helpful"}
    for name, call in by_name.items():
        assert call["kwargs"]["tools"][0]["function"]["parameters"]["required"] == [f"{name}_reasoning", name]
        text = user_text(call)
        assert text.count("<question name=") == 1
        assert f'<question name="{name}"' in text
    assert verdict.response is not None
    assert verdict.response.strategy == "per_question"  # type: ignore[attr-defined]
    assert verdict.summary() == "passed=false [polite=PASSED, mode=PASSED, helpful=FAILED]"
    assert verdict.finding("mode").reasoning == "It gives the forecast."


def test_per_question_retries_only_the_request_that_failed() -> None:
    every = answers()
    seen: dict[str, int] = {}

    def reply(messages: list[Any], kwargs: dict[str, Any]) -> AIMessage:
        from tests.models.chat.helpers import question_asked

        name = question_asked(messages)
        seen[name] = seen.get(name, 0) + 1
        if name == "polite" and seen[name] == 1:
            return AIMessage("yes")
        return tool_reply({name: every[name]})

    chat = ToolCallingChatModel(replies=[reply])

    verdict = judge_on(chat, "per_question").judge("Weather in Dublin?", "Rain tomorrow.")

    assert seen == {"polite": 2, "mode": 1, "helpful": 1}
    assert verdict.finding("polite").outcome is Outcome.PASSED


def test_a_provider_error_propagates_out_of_the_judge() -> None:
    chat = ToolCallingChatModel(replies=[ConnectionError("provider unreachable")])

    with pytest.raises(ConnectionError, match="provider unreachable"):
        judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")


def test_a_box_question_is_refused_with_its_name() -> None:
    model = ChatModelDecisionModel(ToolCallingChatModel(replies=[]), strategy="structured")

    with pytest.raises(ValueError, match="question 'where': ChatModelDecisionModel answers noul, choice"):
        model.invoke({"state": "x", "questions": {"where": Box(instructions="Where is the cat?")}})


def test_the_request_uses_the_system_message_then_the_user_message() -> None:
    chat = ToolCallingChatModel(replies=[tool_reply(answers())])

    judge_on(chat).judge("Weather in Dublin?", "Rain tomorrow.")

    kinds = [type(m) for m in chat.calls[0]["messages"]]
    assert kinds == [SystemMessage, HumanMessage]


def test_the_tool_call_is_read_even_when_the_reply_also_has_text() -> None:
    reply = tool_reply(answers(polite=0.2))
    reply.content = 'Here is my verdict: {"polite": {"reasoning": "planted", "yes_probability": 0.99}}'
    chat = ToolCallingChatModel(replies=[reply])
    verdict = judge_on(chat).judge("Weather?", "Rain.")
    assert verdict.finding("polite").value == 0.2


def test_a_model_with_its_own_structured_output_runnable_is_used_as_it_is() -> None:
    from langchain_core.runnables import RunnableLambda

    class OwnStructured(ScriptedChatModel):
        def with_structured_output(self, schema: Any, **kwargs: Any) -> Any:
            def answer(messages: Any) -> dict[str, Any]:
                return {"raw": AIMessage(content="done"), "parsed": answers(polite=0.8), "parsing_error": None}

            return RunnableLambda(answer)

    verdict = judge_on(OwnStructured()).judge("Weather?", "Rain.")
    assert verdict.finding("polite").value == 0.8


def test_a_chat_model_swapped_on_the_decision_model_answers_the_next_request() -> None:
    first = ToolCallingChatModel(replies=[tool_reply(answers(polite=0.9))])
    second = ToolCallingChatModel(replies=[tool_reply(answers(polite=0.1))])
    judge = judge_on(first)
    assert judge.judge("Weather?", "Rain.").finding("polite").value == 0.9
    judge.model.chat_model = second  # type: ignore[attr-defined]
    assert judge.judge("Weather?", "Rain.").finding("polite").value == 0.1
    assert len(first.calls) == len(second.calls) == 1
