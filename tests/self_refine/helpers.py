"""Shared parts of the self-refine tests: a scripted chat model, judges, and a Jev wire."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

import httpx2
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.decisions import Noul
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tracers.base import BaseTracer
from langchain_core.tracers.schemas import Run
from pydantic import Field
from typesafe_sdk import AsyncTypeSafeClient, RetryPolicy, TypeSafeClient

from langchain_jev import JevCriterion, JevDecisionModel, JevJudge
from langchain_jev.testing import ScriptedDecisionModel

Reply = AIMessage | str | Callable[[list[BaseMessage]], AIMessage | str]

QUESTION = "At what temperature does water boil at sea level?"

UNITS = Noul(
    instructions="Does `assistant_answer` give the unit of every number it states?",
    criteria={"false": "A number is given without its unit"},
)
SOURCED = Noul(instructions="Does `assistant_answer` name a source for its claim?")
BRIEF = Noul(instructions="Is `assistant_answer` at most two sentences long?")


class ScriptedChatModel(BaseChatModel):
    """A chat model that replies from a list and records every conversation it received.

    ``bind_tools`` returns the model itself, so it works inside ``create_agent``.
    """

    replies: list[Any] = Field(default_factory=list)
    received: list[list[BaseMessage]] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)
    lock: Any = Field(default_factory=threading.Lock, exclude=True)

    @property
    def _llm_type(self) -> str:
        return "scripted-chat"

    @property
    def calls(self) -> int:
        return len(self.received)

    def _reply(self, messages: list[BaseMessage], path: str) -> ChatResult:
        with self.lock:
            self.paths.append(path)
            index = len(self.received)
            self.received.append(list(messages))
        if index >= len(self.replies):
            raise AssertionError(
                f"ScriptedChatModel got call {index + 1} but has {len(self.replies)} replies"
            )
        reply = self.replies[index]
        if callable(reply):
            reply = reply(list(messages))
        message = AIMessage(content=reply) if isinstance(reply, str) else reply.model_copy()
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._reply(messages, "sync")

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._reply(messages, "async")

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        return self


def calls_tool(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


def unit_judge(*probabilities: float, **options: Any) -> tuple[JevJudge, ScriptedDecisionModel]:
    """A one-criterion judge answering successive requests with these probabilities of yes."""
    model = ScriptedDecisionModel([{"cites_unit": p} for p in probabilities])
    return JevJudge([JevCriterion.noul("cites_unit", UNITS, 0.7)], model=model, **options), model


def three_judge(*scripts: dict[str, Any], **options: Any) -> tuple[JevJudge, ScriptedDecisionModel]:
    """A three-criterion judge (cites_unit, sourced, brief) answering from successive scripts."""
    model = ScriptedDecisionModel(list(scripts))
    criteria = [
        JevCriterion.noul("cites_unit", UNITS, 0.7),
        JevCriterion.noul("sourced", SOURCED, 0.7),
        JevCriterion.noul("brief", BRIEF, 0.7),
    ]
    return JevJudge(criteria, model=model, **options), model


def contents(messages: Sequence[BaseMessage]) -> list[tuple[str, Any]]:
    return [(message.type, message.content) for message in messages]


def _decode(request: httpx2.Request) -> dict[str, Any]:
    content = request.content
    if request.headers.get("content-encoding") == "zstd":
        from backports import zstd

        content = zstd.decompress(content)
    body: dict[str, Any] = json.loads(content)
    return body


class JevWire:
    """System One over httpx2.MockTransport: answers successive requests, records each body."""

    def __init__(self, *answers: dict[str, Any]) -> None:
        self.answers = list(answers)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = _decode(request)
        self.bodies.append(body)
        index = len(self.bodies) - 1
        if index >= len(self.answers):
            return httpx2.Response(500, json={"error": {"message": "no more scripted answers"}})
        return httpx2.Response(
            200,
            json={
                "model": body["model"],
                "answers": self.answers[index],
                "usage": {"input_tokens": 80, "output_tokens": len(self.answers[index])},
            },
        )

    async def handle_async(self, request: httpx2.Request) -> httpx2.Response:
        return self(request)

    def model(self, mode: str = "both") -> JevDecisionModel:
        """Jev over this wire; ``mode`` "sync" or "async" gives it only that client, so the
        other path fails loudly."""
        retry = RetryPolicy(max_retries=0)
        clients: dict[str, Any] = {}
        if mode in ("sync", "both"):
            clients["client"] = TypeSafeClient(
                api_key="sk-test", transport=httpx2.MockTransport(self), retry=retry
            )
        if mode in ("async", "both"):
            clients["async_client"] = AsyncTypeSafeClient(
                api_key="sk-test", transport=httpx2.MockTransport(self.handle_async), retry=retry
            )
        return JevDecisionModel(**clients)


class RunCollector(BaseTracer):
    """Collects every run of a trace, to check where the judge's runs sit."""

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[Run] = []

    def _persist_run(self, run: Run) -> None:
        pass

    def _start_trace(self, run: Run) -> None:
        super()._start_trace(run)
        self.runs.append(run)

    def parents(self, name: str) -> list[str | None]:
        """The name of the parent run of every run called ``name``."""
        by_id = {run.id: run for run in self.runs}
        found = [by_id.get(run.parent_run_id) for run in self.runs if run.name == name]  # type: ignore[arg-type]
        return [parent.name if parent is not None else None for parent in found]
