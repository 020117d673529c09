"""Test doubles for the guardrail: a chat model that replies from a list, Jev over MockTransport,
scripts for every category of a battery, small graph builders, a perfect keyword classifier, and one
whose input checks wait for the chat model's call (`WaitsForTheModel`: proof that a draft is written)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from langchain_core.decisions import BaseDecisionModel, ClassifierResponse, NoulAnswer
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.graph import END, START, StateGraph
from pydantic import Field, PrivateAttr

from langchain_jev.graph import GuardrailState, create_guarded_model_node, create_guardrail_node
from langchain_jev.guardrails import HAZARDS, HazardBattery
from langchain_jev.models import JevDecisionModel
from tests.fakes import JevWire, ReplyingChatModel, noul

API_KEY = "sk-test-guardrail-0123456789"
SAFE = 0.02

SEQUENTIAL: dict[str, Any] = {"concurrent_input": False}
"""The door called sequentially: the model is called only once its input is judged clean, so it never
reads a refused request (the tests of that guarantee pin it; `test_concurrent` tests the default)."""

INPUT_CATEGORIES = [h.name for h in HAZARDS if "input" in h.questions]
OUTPUT_CATEGORIES = [h.name for h in HAZARDS if "output" in h.questions]
TITLES = {h.name: h.title for h in HAZARDS}
"""The title each category is named by in a refusal."""


def chat(*replies: str | AIMessage) -> ReplyingChatModel:
    return ReplyingChatModel(replies=list(replies))


class StreamingChat(GenericFakeChatModel):
    """A fake chat model that streams its replies token by token and accepts tools."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> StreamingChat:  # type: ignore[override]
        return self


def script(categories: Iterable[str], **flagged: float) -> dict[str, float]:
    """Every category answered SAFE, except those given."""
    answers = dict.fromkeys(categories, SAFE)
    for name, p in flagged.items():
        assert name in answers, f"{name} is not a category of this battery"
        answers[name] = p
    return answers


# ---------------------------------------------------------------- Jev over MockTransport


def hazard_wire(answers: Mapping[str, float] | None = None, *, status: int = 200) -> JevWire:
    """Jev answering a battery: the given categories with these probabilities, every other SAFE."""
    flagged = {name: noul(p) for name, p in (answers or {}).items()}
    return JevWire(flagged, default=noul(SAFE), status=status, input_tokens=50)


def unreachable_model() -> tuple[JevWire, JevDecisionModel]:
    """A real Jev decision model whose server answers 503, with retries off."""
    wire = hazard_wire(status=503)
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


def contents(messages: Iterable[BaseMessage]) -> list[str]:
    return [str(m.content) for m in messages]


# ---------------------------------------------------------------- a perfect keyword classifier


class KeywordDecisionModel(BaseDecisionModel):
    """A perfect keyword classifier: a category is flagged (0.97) when one of its keywords is
    anywhere in the state sent, else cleared (SAFE). Records every state it was sent."""

    keywords: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    model: str = "keyword"
    hit: float = 0.97
    """The probability of yes when a keyword is in the state."""
    _states: list[dict[str, Any]] = PrivateAttr(default_factory=list)

    @property
    def _provider(self) -> str:
        return "keyword"

    @property
    def states(self) -> list[dict[str, Any]]:
        return list(self._states)

    def _classify(self, state: Any, questions: dict[str, Any]) -> ClassifierResponse:
        self._states.append(dict(state))
        text = json.dumps(state, ensure_ascii=False).lower()
        answers = {}
        for name in questions:
            hit = any(word in text for word in self.keywords.get(name, ()))
            answers[name] = NoulAnswer(type="noul", noul=self.hit if hit else SAFE)
        return ClassifierResponse(model="keyword", answers=answers)


def keyword_wire(keywords: Mapping[str, Iterable[str]]) -> JevWire:
    """Jev over MockTransport answering as the perfect keyword classifier does."""

    def answer(words: tuple[str, ...]) -> Callable[[dict[str, Any]], dict[str, Any]]:
        def read(body: dict[str, Any]) -> dict[str, Any]:
            text = json.dumps(body["state"], ensure_ascii=False).lower()
            return noul(0.97 if any(word in text for word in words) else SAFE)

        return read

    return JevWire({name: answer(tuple(words)) for name, words in keywords.items()}, default=noul(SAFE))


class Handshake:
    """The chat model's calls, counted: the n-th input check is answered only once the model was called n times.

    A door that called the model only after its check could never satisfy it (each wait gives up after a
    generous hang guard, and records that it did)."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.calls = 0

    def called(self) -> None:
        with self.changed:
            self.calls += 1
            self.changed.notify_all()

    def wait(self, calls: int) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: self.calls >= calls, timeout=30)


class WaitsForTheModel(KeywordDecisionModel):
    """A keyword classifier whose input checks wait for the chat model's call (see `Handshake`)."""

    _handshake: Handshake = PrivateAttr(default_factory=Handshake)
    _inputs: int = PrivateAttr(default=0)
    _met: list[bool] = PrivateAttr(default_factory=list)

    def _classify(self, state: Any, questions: dict[str, Any]) -> ClassifierResponse:
        if "assistant_answer" not in state:
            self._inputs += 1
            self._met.append(self._handshake.wait(self._inputs))
        return super()._classify(state, questions)
