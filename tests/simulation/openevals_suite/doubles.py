"""What stands in for OpenAI in the vendored tests: each one a rule a test can be checked against.

- `agent_model`: the chat model of the ``create_agent`` agents, a `ReplyingChatModel`
  that calls the ``give_refund`` tool when the user asks for a refund, then
  repeats what the tool said;
- `user_model`: the simulated user's chat model once its fixed responses run
  out, a LangChain ``GenericFakeChatModel`` saying its lines in turn;
- `decision_model`: the Jev decision model of the LLM-as-judge evaluators, over
  `JevWire`; every question is answered yes (0.9) when ``rule`` holds of the
  conversation the request carries, no (0.1) otherwise;
- `openai_api`: the options of a real ``OpenAI`` / ``AsyncOpenAI`` client over
  ``httpx2.MockTransport``, whose chat completions follow the system prompt: the
  refund desk refuses, the parrot squawks, the refund checker answers JSON.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import httpx2
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from langchain_jev.models import JevDecisionModel
from tests.fakes import JevWire, ReplyingChatModel, noul, system_one

GRANTED = "refunds granted"


def _desk(messages: list[BaseMessage]) -> AIMessage:
    last = messages[-1]
    if isinstance(last, ToolMessage):
        return AIMessage(f"Done: {last.content}")
    asked = isinstance(last, HumanMessage) and "refund" in last.text.lower()
    if asked and not any(isinstance(message, ToolMessage) for message in messages):
        return AIMessage("", tool_calls=[{"name": "give_refund", "args": {}, "id": f"call_{len(messages)}"}])
    return AIMessage("Is there anything else I can help with?")


def agent_model() -> ReplyingChatModel:
    """The agents' chat model: the refund tool when asked for a refund, then what it said."""
    return ReplyingChatModel(replies=[_desk] * 64)


def user_model(*lines: str) -> GenericFakeChatModel:
    """The simulated user's model: ``lines`` in turn, over and over."""
    said = lines or ("I still want my refund.",)
    return GenericFakeChatModel(messages=itertools.cycle([AIMessage(line) for line in said]))


def decision_model(rule: Callable[[str], bool]) -> JevDecisionModel:
    """Jev answering every question by ``rule`` of the request's state (the conversation), lowercased."""

    def respond(body: dict[str, Any]) -> httpx2.Response:
        answer = noul(0.9 if rule(json.dumps(body["state"]).lower()) else 0.1)
        return system_one(body, dict.fromkeys(body["questions"], answer), input_tokens=10, output_tokens=1)

    return JevWire(responder=respond).model()


def _completion(request: httpx2.Request) -> httpx2.Response:
    body = json.loads(request.content)
    system = body["messages"][0]["content"]
    said = json.dumps(body["messages"][1:]).lower()
    if "refund has been granted" in system:
        content = json.dumps({"refund_granted": GRANTED in said})
    elif "parrot" in system:
        content = "SQUAWK! Polly wants NOTHING from you! SQUAWK!"
    else:
        content = "I'm sorry, but I cannot give refunds under any circumstances."
    message = {"role": "assistant", "content": content}
    return httpx2.Response(
        200,
        json={
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        },
    )


async def _acompletion(request: httpx2.Request) -> httpx2.Response:
    await request.aread()
    return _completion(request)


def openai_api(asynchronous: bool = False) -> dict[str, Any]:
    """Options for ``OpenAI(**openai_api())`` (``AsyncOpenAI``: ``asynchronous=True``), over a mock transport."""
    client: Any = (
        httpx2.AsyncClient(transport=httpx2.MockTransport(_acompletion))
        if asynchronous
        else httpx2.Client(transport=httpx2.MockTransport(_completion))
    )
    return {"api_key": "sk-test", "base_url": "http://openai.test/v1", "http_client": client}
