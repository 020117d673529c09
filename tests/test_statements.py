"""Plain-English judges: statement criteria and JevJudge.from_statements."""

from __future__ import annotations

import math
from typing import Any

import pytest
from langchain_core.decisions import Noul

from langchain_jev import ChatModelDecisionModel, JevConfigurationError, JevJudge, Outcome
from langchain_jev._statements import Statement, default_question, statement_criteria
from langchain_jev.testing import ScriptedDecisionModel
from tests.models.chat.helpers import ToolCallingChatModel, tool_reply, user_text


def test_statements_become_nouls_named_by_position() -> None:
    criteria = statement_criteria(
        ["The answer is polite.", Statement("The answer cites a source.", name="cites"), "It is in English."],
        threshold=0.7,
    )

    assert [(c.name, c.kind, c.minimum) for c in criteria] == [
        ("statement_1", "noul", 0.7),
        ("cites", "noul", 0.7),
        ("statement_3", "noul", 0.7),
    ]


def test_the_default_question_asks_for_a_clear_and_full_hold() -> None:
    question = default_question(Statement("The answer names the city."))

    assert isinstance(question.instructions, str)
    assert question.instructions.endswith("\nStatement: The answer names the city.")
    assert "answer no when it holds only partly, does not hold, or it is unclear" in question.instructions
    assert question.criteria is not None
    assert question.criteria.true == "The statement clearly and fully holds."
    assert question.criteria.false == "The statement does not clearly hold: The answer names the city."


def test_satisfied_and_not_satisfied_descriptions_replace_the_defaults() -> None:
    statement = Statement(
        "The answer is short.",
        satisfied_when="Three sentences or fewer.",
        not_satisfied_when="More than three.",
    )

    (criterion,) = statement_criteria([statement])

    assert isinstance(criterion.question, Noul)
    assert criterion.question.criteria is not None
    assert (criterion.question.criteria.true, criterion.question.criteria.false) == (
        "Three sentences or fewer.",
        "More than three.",
    )


def test_a_question_function_replaces_the_default_question() -> None:
    def ask(statement: Statement) -> Noul:
        return Noul(instructions=f"Would a support agent accept it? It must: {statement.text}")

    criteria = statement_criteria(["Be polite.", "Be brief."], question=ask)

    assert [c.question.instructions for c in criteria] == [  # type: ignore[union-attr]
        "Would a support agent accept it? It must: Be polite.",
        "Would a support agent accept it? It must: Be brief.",
    ]
    (plain,) = statement_criteria(["Be polite."], question=lambda s: f"Is it true that: {s.text}")
    assert plain.question == Noul(instructions="Is it true that: Be polite.")


@pytest.mark.parametrize("threshold", [0, 0.0, -0.1, 1.01, math.nan, math.inf, True, "0.5"])
def test_the_threshold_must_be_above_zero_and_at_most_one(threshold: Any) -> None:
    with pytest.raises(JevConfigurationError, match="threshold must be greater than 0 and at most 1"):
        statement_criteria(["Be polite."], threshold=threshold)


def test_a_threshold_of_one_is_allowed() -> None:
    (criterion,) = statement_criteria(["Be polite."], threshold=1)

    assert criterion.minimum == 1.0


@pytest.mark.parametrize(
    ("statements", "message"),
    [
        ("Be polite.", "statements must be a list of statements, got str"),
        ([], "statements must hold at least one statement"),
        (["  "], "a statement's text must be a non-empty string"),
        ([42], "a statement must be a string, a Statement or a mapping, got int"),
        ([{"text": "Be polite.", "weight": 2}], "a statement mapping has unknown keys: weight"),
        (
            [Statement("A", name="x"), Statement("B", name="x")],
            "statement names must be unique: 'x' names statements 1 and 2",
        ),
    ],
)
def test_bad_statements_get_a_clear_error(statements: Any, message: str) -> None:
    with pytest.raises(JevConfigurationError, match=message):
        statement_criteria(statements)


def test_a_question_function_must_return_a_noul() -> None:
    with pytest.raises(
        JevConfigurationError, match=r"statement 1 \('statement_1'\): question must return a Noul"
    ):
        statement_criteria(["Be polite."], question=lambda s: 42)  # type: ignore[arg-type,return-value]


def test_from_statements_asks_every_statement_in_one_request_of_a_chat_model() -> None:
    reply = {
        "statement_1": {"reasoning": "It greets the user.", "yes_probability": 0.9},
        "statement_2": {"reasoning": "No source is given.", "yes_probability": 0.2},
    }
    chat = ToolCallingChatModel(replies=[tool_reply(reply)])

    judge = JevJudge.from_statements(
        ["The answer is polite.", "The answer cites its source."],
        model=ChatModelDecisionModel(chat, strategy="structured"),
        threshold=0.6,
    )
    verdict = judge.judge("Weather in Dublin?", "Hello! It will rain.")

    assert len(chat.calls) == 1
    text = user_text(chat.calls[0])
    assert "Statement: The answer is polite." in text
    assert "Statement: The answer cites its source." in text
    assert verdict.summary() == "passed=false [statement_1=PASSED, statement_2=FAILED]"
    assert verdict.finding("statement_2").reasoning == "No source is given."
    assert verdict.feedback == (
        'statement_2: "The statement does not clearly hold: The answer cites its source." '
        "(yes at 0.20, needs 0.60)"
    )


def test_from_statements_passes_at_the_threshold_on_any_decision_model() -> None:
    model = ScriptedDecisionModel({"statement_1": 0.5, "statement_2": 0.49})

    verdict = JevJudge.from_statements(["Is polite.", "Is brief."], model=model).judge("Q?", "A.")

    assert [f.outcome for f in verdict.findings] == [Outcome.PASSED, Outcome.FAILED]
    assert model.calls == 1
