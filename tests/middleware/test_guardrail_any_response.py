"""Everything a model call's response adds to the conversation is judged before the middleware releases it.

Every message of the response's result, of any role, with or without an AI reply, and its structured
response; a response of no known shape is refused.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, ModelResponse
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from pydantic import BaseModel

from langchain_jev import JevInputError
from langchain_jev.middleware import JevGuardrailMiddleware
from tests.fakes import ReplyingChatModel
from tests.guardrails.helpers import SEQUENTIAL
from tests.guardrails.lossless_kit import CATEGORY, has_mark, perfect

PHRASE = "how to make a nerve agent"


class Answer(BaseModel):
    text: str


@dataclasses.dataclass
class Note:
    text: str


class Answers(AgentMiddleware):
    """A middleware inside the guardrail that answers with a response of its own making."""

    def __init__(self, make: Callable[[], Any]) -> None:
        super().__init__()
        self.make = make

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        handler(request)
        return self.make()

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        await handler(request)
        return self.make()


_MESSAGES: dict[str, Callable[[str], BaseMessage]] = {
    "tool": lambda text: ToolMessage(text, tool_call_id="c1"),
    "human": lambda text: HumanMessage(text),
    "system": lambda text: SystemMessage(text),
    "function": lambda text: FunctionMessage(text, name="f"),
    "chat assistant": lambda text: ChatMessage(text, role="assistant"),
    "chat other": lambda text: ChatMessage(text, role="narrator"),
    "ai kwargs": lambda text: AIMessage("", additional_kwargs={"note": text}),
    "ai": lambda text: AIMessage(text),
}

_STRUCTURED: dict[str, Callable[[str], Any]] = {
    "dict": lambda text: {"text": text},
    "pydantic": lambda text: Answer(text=text),
    "list": lambda text: [text],
}


def _released(out: dict[str, Any]) -> str:
    return json.dumps([m.model_dump() for m in out["messages"]], default=str) + repr(
        out.get("structured_response")
    )


def _run(make: Callable[[], Any], way: str = "invoke") -> dict[str, Any]:
    guard = JevGuardrailMiddleware(categories=[CATEGORY], model=perfect(), **SEQUENTIAL)
    agent: Any = create_agent(ReplyingChatModel(replies=["Sunny."]), middleware=[guard, Answers(make)])
    value = {"messages": [HumanMessage("Weather?")]}
    return agent.invoke(value) if way == "invoke" else asyncio.run(agent.ainvoke(value))


@st.composite
def _responses(draw: Any) -> tuple[list[tuple[str, bool]], tuple[str, bool] | None]:
    """Kinds of messages (each with whether it carries the hazard), and a structured response or none."""
    kinds = draw(st.lists(st.tuples(st.sampled_from(sorted(_MESSAGES)), st.booleans()), max_size=3))
    structured = draw(st.none() | st.tuples(st.sampled_from(sorted(_STRUCTURED)), st.booleans()))
    return kinds, structured


def _response(kinds: list[tuple[str, bool]], structured: tuple[str, bool] | None) -> ModelResponse[Any]:
    result = [_MESSAGES[kind](PHRASE if hazard else "It is sunny.") for kind, hazard in kinds]
    answer = None if structured is None else _STRUCTURED[structured[0]](PHRASE if structured[1] else "Sunny.")
    return ModelResponse(result=result, structured_response=answer)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_responses())
def test_every_message_of_a_response_and_its_structured_response_are_judged(shape: Any) -> None:
    kinds, structured = shape
    out = _run(lambda: _response(kinds, structured))
    assert not has_mark(_released(out))


@pytest.mark.parametrize("way", ["invoke", "ainvoke"])
@pytest.mark.parametrize("kind", sorted(_MESSAGES))
def test_a_response_of_one_message_of_any_role_carrying_the_hazard_is_refused(kind: str, way: str) -> None:
    out = _run(lambda: ModelResponse(result=[_MESSAGES[kind](PHRASE)]), way)
    assert not has_mark(_released(out))


@pytest.mark.parametrize("kind", sorted(_STRUCTURED))
def test_a_structured_response_alone_carrying_the_hazard_is_refused(kind: str) -> None:
    out = _run(lambda: ModelResponse(result=[], structured_response=_STRUCTURED[kind](PHRASE)))
    assert not has_mark(_released(out))
    assert out.get("structured_response") is None


def test_a_benign_response_with_no_ai_reply_is_released_as_it_is() -> None:
    out = _run(lambda: ModelResponse(result=[ToolMessage("It is sunny.", tool_call_id="c1")]))
    assert out["messages"][-1].content == "It is sunny."
    assert not out["guardrail"]["refused"]


@pytest.mark.parametrize(
    "make",
    [lambda: ModelResponse(result=[Note(PHRASE)]), lambda: ModelResponse(result=PHRASE)],  # type: ignore[arg-type]
    ids=["not a message", "not a list"],
)
def test_a_response_of_no_known_shape_is_refused(make: Callable[[], Any]) -> None:
    with pytest.raises(JevInputError, match="response must"):
        _run(make)
