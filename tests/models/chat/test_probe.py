"""The ``auto`` strategy probes for log-probabilities once per instance, however many calls start at once."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.decisions import Noul
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from langchain_jev import ChatModelDecisionModel, JevCriterion, JevJudge

VERDICT = '{"polite": {"reasoning": "A kind greeting.", "yes_probability": 0.9}}'


class SlowChat(BaseChatModel):
    """Takes ``latency`` seconds per call; returns log-probabilities only when ``logprobs`` is set."""

    latency: float = 0.05
    logprobs: bool = False
    _requests: list[dict[str, Any]] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "slow-test-chat"

    @property
    def requests(self) -> list[dict[str, Any]]:
        return list(self._requests)

    def _reply(self, kwargs: dict[str, Any]) -> ChatResult:
        with self._lock:
            self._requests.append(dict(kwargs))
        if not kwargs.get("logprobs"):
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=VERDICT))])
        metadata: dict[str, Any] = {}
        if self.logprobs:
            top = [{"token": "yes", "logprob": math.log(0.9)}, {"token": "no", "logprob": math.log(0.1)}]
            metadata["logprobs"] = {"content": [{"token": "yes", "logprob": math.log(0.9), "top_logprobs": top}]}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="yes", response_metadata=metadata))])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        time.sleep(self.latency)
        return self._reply(kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        await asyncio.sleep(self.latency)
        return self._reply(kwargs)


def _judge(chat: SlowChat) -> JevJudge:
    polite = JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.5)
    return JevJudge([polite], model=ChatModelDecisionModel(chat, strategy="auto"))


async def test_fifty_concurrent_first_calls_probe_once_async() -> None:
    chat = SlowChat()
    judge = _judge(chat)
    verdicts = await asyncio.gather(*(judge.ajudge("Hi", f"Hello {i}!") for i in range(50)))
    assert all(v.passed and v.response.strategy == "structured" for v in verdicts)  # type: ignore[union-attr]
    assert len(chat.requests) == 51
    assert sum(1 for r in chat.requests if r.get("logprobs")) == 1
    await judge.ajudge("Hi", "Hello again!")
    assert len(chat.requests) == 52  # remembered: no second probe


def test_fifty_concurrent_first_calls_probe_once_in_threads() -> None:
    chat = SlowChat()
    judge = _judge(chat)
    with ThreadPoolExecutor(max_workers=50) as pool:
        verdicts = list(pool.map(lambda i: judge.judge("Hi", f"Hello {i}!"), range(50)))
    assert all(v.passed for v in verdicts)
    assert len(chat.requests) == 51
    assert sum(1 for r in chat.requests if r.get("logprobs")) == 1


async def test_calls_that_waited_for_a_successful_probe_use_logprobs() -> None:
    chat = SlowChat(logprobs=True)
    judge = _judge(chat)
    verdicts = await asyncio.gather(*(judge.ajudge("Hi", f"Hello {i}!") for i in range(50)))
    assert all(v.response.strategy == "logprobs" for v in verdicts)  # type: ignore[union-attr]
    assert len(chat.requests) == 50  # the probe answers its own call's question
    assert all(r.get("logprobs") for r in chat.requests)


async def test_an_abandoned_probe_lets_the_next_call_probe() -> None:
    chat = SlowChat(latency=0.2)
    judge = _judge(chat)
    first = asyncio.ensure_future(judge.ajudge("Hi", "Hello!"))
    await asyncio.sleep(0.05)
    waiting = asyncio.ensure_future(judge.ajudge("Hi", "Hello there!"))
    await asyncio.sleep(0.05)
    first.cancel()
    verdict = await asyncio.wait_for(waiting, 5)
    assert verdict.passed
    assert sum(1 for r in chat.requests if r.get("logprobs")) == 1  # the waiting call probed itself


async def test_a_call_that_stops_waiting_leaves_the_probe_to_the_others() -> None:
    chat = SlowChat(latency=0.2)
    judge = _judge(chat)
    prober = asyncio.ensure_future(judge.ajudge("Hi", "Hello!"))
    await asyncio.sleep(0.05)
    quitter = asyncio.ensure_future(judge.ajudge("Hi", "Bye!"))
    others = [asyncio.ensure_future(judge.ajudge("Hi", f"Hello {i}!")) for i in range(3)]
    await asyncio.sleep(0.05)
    quitter.cancel()
    verdicts = await asyncio.wait_for(asyncio.gather(prober, *others), 5)
    assert all(v.passed for v in verdicts)
    assert sum(1 for r in chat.requests if r.get("logprobs")) == 1
