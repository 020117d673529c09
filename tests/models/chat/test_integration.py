"""Against a real provider: run only when its key is set (and its package installed)."""

from __future__ import annotations

import importlib.util
import os

import pytest
from langchain_core.decisions import Choice, Noul

from langchain_jev import ChatModelDecisionModel, JevCriterion, JevJudge

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not os.environ.get("OPENAI_API_KEY"), reason="OPENAI_API_KEY is not set"),
    pytest.mark.skipif(
        importlib.util.find_spec("langchain_openai") is None, reason="langchain-openai is not installed"
    ),
]

MODEL = os.environ.get("JEV_CHAT_TEST_MODEL", "openai:gpt-4o-mini")
CRITERIA = [
    JevCriterion.noul(
        "answers_the_question", Noul(instructions="Does `assistant_answer` answer `user_question`?"), 0.6
    ),
    JevCriterion.choice(
        "language",
        Choice(
            instructions="In which language is `assistant_answer` written?",
            criteria={"english": None, "french": None},
        ),
        ["english"],
    ),
]


@pytest.mark.parametrize("strategy", ["structured", "logprobs", "per_question", "auto"])
def test_a_real_model_judges_an_obvious_case(strategy: str) -> None:
    judge = JevJudge(CRITERIA, model=ChatModelDecisionModel(MODEL, strategy=strategy))

    good = judge.judge("What is the capital of France?", "The capital of France is Paris.")
    bad = judge.judge("What is the capital of France?", "J'aime les pommes.")

    assert good.passed, good.summary()
    assert not bad.passed, bad.summary()


async def test_a_real_model_judges_asynchronously() -> None:
    judge = JevJudge(CRITERIA, model=ChatModelDecisionModel(MODEL, strategy="structured"))

    verdict = await judge.ajudge("What is the capital of France?", "The capital of France is Paris.")

    assert verdict.passed, verdict.summary()
    assert verdict.finding("answers_the_question").reasoning
