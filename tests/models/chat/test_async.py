"""Async parity: ajudge gives the same verdict and sends the same requests as judge."""

from __future__ import annotations

import asyncio
import math
import threading
from typing import Any

import pytest
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.decisions import Choice, Noul, Score
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from langchain_jev import ChatModelDecisionModel, ChatModelOutputError, JevCriterion, JevJudge
from tests.models.chat.helpers import (
    ScriptedChatModel,
    ToolCallingChatModel,
    by_question,
    logprob_reply,
    tool_reply,
)

POLITE = Noul(instructions="Is `assistant_answer` polite?")
MODE = Choice(instructions="How?", criteria={"answered": None, "clarification_needed": None})
HELPFUL = Score(instructions="How helpful?", criteria=["Useless", "Partly", "Mostly", "Fully"])
STRUCTURED = {
    "polite": {"reasoning": "Kind.", "yes_probability": 0.9},
    "mode": {"reasoning": "Answers.", "probabilities": {"answered": 0.8, "clarification_needed": 0.2}},
    "helpful": {"reasoning": "Thin.", "probabilities": {"0": 0.1, "1": 0.6, "2": 0.2, "3": 0.1}},
}
LOGPROBS = {
    "polite": logprob_reply({"yes": math.log(0.9), "no": math.log(0.1)}),
    "mode": logprob_reply({"A": math.log(0.8), "B": math.log(0.2)}),
    "helpful": logprob_reply({"1": math.log(0.6), "2": math.log(0.4)}),
}


def judge_on(chat: Any, strategy: str) -> JevJudge:
    return JevJudge(
        [
            JevCriterion.noul("polite", POLITE, 0.7),
            JevCriterion.choice("mode", MODE, ["answered"]),
            JevCriterion.score("helpful", HELPFUL, 2),
        ],
        model=ChatModelDecisionModel(chat, strategy=strategy),
    )


def chat_for(strategy: str) -> Any:
    if strategy == "logprobs":
        return ScriptedChatModel(replies=[by_question(LOGPROBS)])
    if strategy == "per_question":
        return ToolCallingChatModel(
            replies=[by_question({n: tool_reply({n: a}) for n, a in STRUCTURED.items()})]
        )
    return ToolCallingChatModel(replies=[tool_reply(STRUCTURED)])


def _requests(chat: Any) -> list[tuple[Any, ...]]:
    return sorted(
        (
            tuple(m.content if isinstance(m.content, str) else str(m.content) for m in c["messages"]),
            str(c["kwargs"]),
        )
        for c in chat.calls
    )


@pytest.mark.parametrize("strategy", ["structured", "per_question", "logprobs", "auto"])
async def test_ajudge_matches_judge(strategy: str) -> None:
    if strategy == "auto":
        sync_chat, async_chat = chat_for("logprobs"), chat_for("logprobs")
    else:
        sync_chat, async_chat = chat_for(strategy), chat_for(strategy)

    expected = judge_on(sync_chat, strategy).judge("Weather in Dublin?", "Rain tomorrow.")
    got = await judge_on(async_chat, strategy).ajudge("Weather in Dublin?", "Rain tomorrow.")

    assert got.to_dict() == expected.to_dict()
    assert got.response is not None
    assert got.response.strategy == ("logprobs" if strategy == "auto" else strategy)  # type: ignore[attr-defined]
    assert _requests(async_chat) == _requests(sync_chat)


async def test_async_corrective_retry_and_final_error() -> None:
    chat = ScriptedChatModel(replies=["nope", "still nope"])

    with pytest.raises(ChatModelOutputError, match="even after a corrective retry"):
        await judge_on(chat, "structured").ajudge("Weather in Dublin?", "Rain tomorrow.")
    assert len(chat.calls) == 2


class ConcurrentChatModel(ScriptedChatModel):
    """Async-native: counts how many requests are in flight at once."""

    _in_flight: int = PrivateAttr(default=0)
    _peak: int = PrivateAttr(default=0)
    _gate: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._gate:
            self._in_flight += 1
            self._peak = max(self._peak, self._in_flight)
        await asyncio.sleep(0.05)
        with self._gate:
            self._in_flight -= 1
        result = self._generate(messages, stop, None, **kwargs)
        message = result.generations[0].message
        assert isinstance(message, AIMessage)
        return ChatResult(generations=[ChatGeneration(message=message)])


async def test_async_logprobs_requests_run_concurrently_within_the_limit() -> None:
    questions = {f"q{i}": Noul(instructions=f"Question {i}?") for i in range(6)}
    chat = ConcurrentChatModel(replies=[lambda messages, kwargs: logprob_reply({"yes": -0.1, "no": -2.0})])
    model = ChatModelDecisionModel(chat, strategy="logprobs", max_concurrency=4)

    response = await model.ainvoke({"state": "x", "questions": questions})

    assert set(response.answers) == set(questions)
    assert chat._peak == 4
