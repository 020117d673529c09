"""A guardrail's refusal is LangChain's standard ``refusal`` content block, and its text stays readable.

``ModelRefusalMiddleware`` raises ``ModelRefusalError`` for a response whose
``content_blocks`` hold a ``refusal`` block; UIs read the same blocks. A
guardrail's refusal must be found by exactly that code, while ``content`` stays
the refusal's text (a string, as before) and every provider that is sent the
conversation again is sent that text.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain.agents import create_agent
from langchain.agents.middleware import ModelRefusalMiddleware
from langchain.agents.middleware.types import ModelRequest, ModelResponse
from langchain_core.exceptions import ModelRefusalError
from langchain_core.load import dumps, loads
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from langchain_jev.graph import create_guardrail_node
from langchain_jev.guardrails import HazardBattery
from langchain_jev.guardrails._chunks import stopped_reply
from langchain_jev.guardrails._policy import GuardrailReport, refusal_reply
from langchain_jev.middleware import JevGuardrailMiddleware
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import ReplyingChatModel

REFUSED_INPUT = "I can't help with that request: it was flagged for violent crimes."
REFUSED_OUTPUT = "I can't share that response: it was flagged for violent crimes."

MODES = pytest.mark.parametrize("mode", ["sync", "async"])


def guard(side: str, probability: float) -> JevGuardrailMiddleware:
    """A guardrail of one rail (``"input"`` or ``"output"``) that finds violent crimes with ``probability``."""
    model = ScriptedDecisionModel({"violent_crimes": probability})
    rails = {"check_input": side == "input", "check_output": side == "output"}
    return JevGuardrailMiddleware(categories=["violent_crimes"], model=model, **rails)


async def run(agent: Any, text: str, mode: str, config: Any = None) -> dict[str, Any]:
    state = {"messages": [HumanMessage(text)]}
    return agent.invoke(state, config) if mode == "sync" else await agent.ainvoke(state, config)


def refusal_of(message: AIMessage) -> dict[str, Any]:
    (block,) = [block for block in message.content_blocks if block["type"] == "refusal"]
    return dict(block)


@MODES
@pytest.mark.parametrize(("side", "sentence"), [("input", REFUSED_INPUT), ("output", REFUSED_OUTPUT)])
async def test_a_refusal_reads_as_its_sentence_and_carries_the_standard_block(
    mode: str, side: str, sentence: str
) -> None:
    agent = create_agent(ReplyingChatModel(replies=["A violent answer."]), middleware=[guard(side, 0.95)])
    reply = (await run(agent, "a request", mode))["messages"][-1]
    assert isinstance(reply.content, str) and reply.content == sentence and reply.text == sentence
    assert [block["type"] for block in reply.content_blocks] == ["text", "refusal"]
    assert refusal_of(reply)["refusal"] == sentence
    assert refusal_of(reply)["extras"]["categories"] == ["violent_crimes"]


@MODES
async def test_model_refusal_middleware_raises_for_a_guardrail_s_refusal(mode: str) -> None:
    # Listed outside the guardrail, LangChain's middleware sees the refusal the guardrail returns.
    model = ReplyingChatModel(replies=["A violent answer."])
    agent = create_agent(model, middleware=[ModelRefusalMiddleware(), guard("output", 0.95)])
    with pytest.raises(ModelRefusalError, match="flagged for violent crimes") as raised:
        await run(agent, "a request", mode)
    assert isinstance(raised.value.raw_message, AIMessage)
    assert raised.value.raw_message.text == REFUSED_OUTPUT
    # A reply that passes is no refusal.
    passing = create_agent(
        ReplyingChatModel(replies=["A calm answer."]),
        middleware=[ModelRefusalMiddleware(), guard("output", 0.01)],
    )
    assert (await run(passing, "a request", mode))["messages"][-1].content == "A calm answer."


@MODES
async def test_the_refusal_kept_in_a_checkpoint_is_still_one(mode: str) -> None:
    agent = create_agent(
        ReplyingChatModel(replies=["unused"]), middleware=[guard("input", 0.95)], checkpointer=InMemorySaver()
    )
    config = {"configurable": {"thread_id": f"refusal-{mode}"}}
    await run(agent, "a request", mode, config)
    kept = agent.get_state(config).values["messages"][-1]
    assert kept.text == REFUSED_INPUT and refusal_of(kept)["refusal"] == REFUSED_INPUT
    reread = loads(dumps(kept), allowed_objects="messages")
    assert reread.text == REFUSED_INPUT and refusal_of(reread)["refusal"] == REFUSED_INPUT


@MODES
async def test_a_graph_guardrail_s_refusal_carries_the_block_too(mode: str) -> None:
    battery = HazardBattery.input(["violent_crimes"], model=ScriptedDecisionModel({"violent_crimes": 0.95}))
    node = create_guardrail_node(battery)
    state = {"messages": [HumanMessage("a request", id="h1")]}
    out = node.invoke(state) if mode == "sync" else await node.ainvoke(state)
    update = out.update if hasattr(out, "update") else out
    (reply,) = [m for m in update["messages"] if isinstance(m, AIMessage)]
    assert reply.text == REFUSED_INPUT and refusal_of(reply)["refusal"] == REFUSED_INPUT


def test_model_refusal_middleware_s_own_check_finds_the_refusal() -> None:
    # ModelRefusalMiddleware's wrap_model_call, given the guardrail's refusal as the response.
    reply = refusal_reply(GuardrailReport("output", True, {"hate": 0.9}), "No.")
    request = ModelRequest(model=ReplyingChatModel(), messages=[HumanMessage("hi")])
    with pytest.raises(ModelRefusalError, match=r"refused to produce the requested output: No\.$"):
        ModelRefusalMiddleware().wrap_model_call(request, lambda _: ModelResponse(result=[reply]))
    plain = AIMessage("No.")
    assert ModelRefusalMiddleware().wrap_model_call(
        request, lambda _: ModelResponse(result=[plain])
    ).result == [plain]


@given(kept=st.text(max_size=40), wording=st.text(min_size=1, max_size=80))
def test_a_stopped_stream_s_reply_refuses_with_the_wording_alone(kept: str, wording: str) -> None:
    # What was released before the check stopped the stream stays in the text; the block is the refusal.
    refusal = refusal_reply(GuardrailReport("output", True, {"hate": 0.9}), wording)
    reply = stopped_reply(kept, refusal, "run-1")
    assert reply.text.endswith(wording) and reply.text.startswith(kept)
    assert refusal.text == wording and refusal_of(refusal)["refusal"] == wording
    assert refusal_of(reply)["refusal"] == wording


def _openai(**settings: Any) -> Any:
    return pytest.importorskip("langchain_openai").ChatOpenAI(model="gpt-4o", api_key="sk-dummy", **settings)


PROVIDERS = {
    "openai": lambda: _openai()._get_request_payload,
    "openai_responses": lambda: _openai(use_responses_api=True)._get_request_payload,
    "anthropic": lambda: (
        pytest.importorskip("langchain_anthropic")
        .ChatAnthropic(model="claude-sonnet-4-5", api_key="sk-dummy")
        ._get_request_payload
    ),
    "gemini": lambda: (
        pytest.importorskip("langchain_google_genai")
        .ChatGoogleGenerativeAI(model="gemini-2.5-flash", google_api_key="dummy")
        ._prepare_request
    ),
}


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_a_provider_sent_the_conversation_again_is_sent_the_refusal_s_text_once(provider: str) -> None:
    # Each provider's own request builder: the refusal is the assistant's turn, as text, once.
    sentence = "A refusal, worded-4d1e."
    refusal = refusal_reply(GuardrailReport("output", True, {"hate": 0.9}), sentence)
    payload = PROVIDERS[provider]()([HumanMessage("hi"), refusal, HumanMessage("and now?")])
    assert str(payload).count("worded-4d1e") == 1
