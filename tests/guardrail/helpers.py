"""Test doubles for the guardrail: a chat model that replies from a list, Jev over MockTransport,
scripts for every category of a battery, and small graph builders."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import httpx2
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tracers.base import BaseTracer
from langchain_core.tracers.schemas import Run
from langgraph.graph import END, START, StateGraph
from pydantic import PrivateAttr
from typesafe_sdk import AsyncTypeSafeClient, RetryPolicy, TypeSafeClient

from langchain_jev import JevDecisionModel
from langchain_jev.graph import (
    HAZARDS,
    GuardrailState,
    HazardBattery,
    create_guarded_model_node,
    create_guardrail_node,
)

API_KEY = "sk-test-guardrail-0123456789"
SAFE = 0.02

INPUT_CATEGORIES = [h.name for h in HAZARDS if "input" in h.questions]
OUTPUT_CATEGORIES = [h.name for h in HAZARDS if "output" in h.questions]


class ReplyingChatModel(BaseChatModel):
    """Replies with the given AI messages in turn and records every conversation it was sent.

    ``bind_tools`` returns the model itself, so it works inside ``create_agent``.
    """

    replies: list[AIMessage]
    _seen: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "replying-test-chat"

    @property
    def seen(self) -> list[list[BaseMessage]]:
        return list(self._seen)

    @property
    def calls(self) -> int:
        return len(self._seen)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            index = len(self._seen)
            self._seen.append(list(messages))
        if index >= len(self.replies):
            raise AssertionError(f"the chat model was called {index + 1} times; scripted {len(self.replies)}")
        return ChatResult(generations=[ChatGeneration(message=self.replies[index].model_copy())])

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ReplyingChatModel:  # type: ignore[override]
        return self


def chat(*replies: str | AIMessage) -> ReplyingChatModel:
    return ReplyingChatModel(replies=[r if isinstance(r, AIMessage) else AIMessage(r) for r in replies])


def script(categories: Iterable[str], **flagged: float) -> dict[str, float]:
    """Every category answered SAFE, except those given."""
    answers = dict.fromkeys(categories, SAFE)
    for name, p in flagged.items():
        assert name in answers, f"{name} is not a category of this battery"
        answers[name] = p
    return answers


# ---------------------------------------------------------------- Jev over MockTransport


def decode(request: httpx2.Request) -> dict[str, Any]:
    body = request.content
    if request.headers.get("content-encoding") == "zstd":
        from backports import zstd

        body = zstd.decompress(body)
    data: dict[str, Any] = json.loads(body)
    return data


class JevWire:
    """Answers System One requests from a mapping of question name -> probability, or fails
    with a status; records every request body."""

    def __init__(self, answers: Mapping[str, float] | None = None, *, status: int = 200) -> None:
        self.answers = dict(answers or {})
        self.status = status
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = decode(request)
        with self._lock:
            self.bodies.append(body)
        if self.status != 200:
            return httpx2.Response(self.status, json={"error": {"message": "service unavailable"}})
        answers = {name: {"type": "noul", "noul": self.answers.get(name, SAFE)} for name in body["questions"]}
        return httpx2.Response(
            200,
            json={
                "model": body["model"],
                "answers": answers,
                "usage": {"input_tokens": 50, "output_tokens": 5},
            },
            headers={"x-typesafe-request-id": f"req_{len(self.bodies)}"},
        )

    async def handle_async(self, request: httpx2.Request) -> httpx2.Response:
        return self(request)

    @property
    def calls(self) -> int:
        return len(self.bodies)

    def model(self) -> JevDecisionModel:
        retry = RetryPolicy(max_retries=0)
        return JevDecisionModel(
            client=TypeSafeClient(api_key=API_KEY, transport=httpx2.MockTransport(self), retry=retry),
            async_client=AsyncTypeSafeClient(
                api_key=API_KEY, transport=httpx2.MockTransport(self.handle_async), retry=retry
            ),
        )


def unreachable_model() -> tuple[JevWire, JevDecisionModel]:
    """A real Jev decision model whose server answers 503, with retries off."""
    wire = JevWire(status=503)
    return wire, wire.model()


# ---------------------------------------------------------------- graphs


def guarded_graph(
    agent: Callable[[Any], Any] | ReplyingChatModel,
    *,
    input_battery: HazardBattery | None = None,
    output_battery: HazardBattery | None = None,
    output_guard: str = "node",
    **node_options: Any,
) -> Any:
    """START -> [input guard] -> agent -> [output guard] -> END, wired as the docs say.

    ``output_guard="model"`` checks the output inside the agent's step instead: the agent
    node is `create_guarded_model_node` over the chat model, and there is no output node.
    """
    assert output_guard in ("node", "model"), output_guard
    builder = StateGraph(GuardrailState)
    if output_guard == "model" and output_battery is not None:
        assert isinstance(agent, ReplyingChatModel), "a guarded model node needs a chat model"
        builder.add_node("agent", create_guarded_model_node(agent, output_battery, **node_options))
        output_battery = None
    elif isinstance(agent, ReplyingChatModel):
        model = agent

        def call_model(state: GuardrailState) -> dict[str, Any]:
            return {"messages": [model.invoke(state["messages"])]}

        builder.add_node("agent", call_model)
    else:
        builder.add_node("agent", agent)
    first = "agent"
    if input_battery is not None:
        builder.add_node(
            "input_guard",
            create_guardrail_node(input_battery, next_node="agent", **node_options),
            destinations=("agent", END),
        )
        first = "input_guard"
    builder.add_edge(START, first)
    if output_battery is not None:
        builder.add_node(
            "output_guard", create_guardrail_node(output_battery, **node_options), destinations=(END,)
        )
        builder.add_edge("agent", "output_guard")
    else:
        builder.add_edge("agent", END)
    return builder.compile()


class RunRecorder(BaseTracer):
    """Keeps every finished root run (with its children), as a tracer such as LangSmith's sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.roots: list[Run] = []

    def _persist_run(self, run: Run) -> None:
        self.roots.append(run)

    @property
    def runs(self) -> list[Run]:
        return walk(self.roots)


def walk(runs: Iterable[Run]) -> list[Run]:
    """Every run of a trace, depth first."""
    found: list[Run] = []
    for run in runs:
        found.append(run)
        found.extend(walk(run.child_runs))
    return found


def contents(messages: Iterable[BaseMessage]) -> list[str]:
    return [str(m.content) for m in messages]
