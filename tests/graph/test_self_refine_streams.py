"""Streams show the answer, not the workings: with ``stream_mode="messages"`` (and the
other modes) neither a rejected draft, nor the feedback, nor a chat-model judge's own
JSON verdict reaches a consumer, for the middleware and for the graph. Streaming the
drafts is an opt-in that labels them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage

from langchain_jev import ChatModelDecisionModel, JevCriterion, JevJudge
from langchain_jev.graph import create_self_refine_graph
from langchain_jev.middleware import JevSelfRefineMiddleware
from tests.models.chat.helpers import ScriptedChatModel
from tests.support.self_refine import UNITS, ask

REJECTED = "About 100."
KEPT = "About 100 degrees Celsius."
JUDGE_MARK = "JUDGE-REASONING"
FEEDBACK_MARK = "A reviewer checked your previous answer"


def verdict_json(p: float) -> str:
    return json.dumps({"answers": {"cites_unit": {"reasoning": f"{JUDGE_MARK} {p}", "yes_probability": p}}})


def chat_judge() -> tuple[JevJudge, ScriptedChatModel]:
    chat = ScriptedChatModel(replies=[verdict_json(0.2), verdict_json(0.9)])
    judge = JevJudge([JevCriterion.noul("cites_unit", UNITS, 0.7)], model=ChatModelDecisionModel(chat, strategy="structured"))
    return judge, chat


def drafting_model() -> GenericFakeChatModel:
    """A chat model that streams its replies token by token."""
    return GenericFakeChatModel(messages=iter([AIMessage(REJECTED), AIMessage(KEPT)]))


class Agentish(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:  # create_agent binds the (no) tools
        return self


def agent(**options: Any) -> tuple[Any, ScriptedChatModel]:
    judge, chat = chat_judge()
    model = Agentish(messages=iter([AIMessage(REJECTED), AIMessage(KEPT)]))
    return create_agent(model, middleware=[JevSelfRefineMiddleware(judge, **options)]), chat


def graph(**options: Any) -> tuple[Any, ScriptedChatModel]:
    judge, chat = chat_judge()
    return create_self_refine_graph(drafting_model(), judge, **options), chat


APPS = {"middleware": agent, "graph": graph}


async def collect(app: Any, mode: str, stream_mode: str) -> list[Any]:
    if mode == "sync":
        return list(app.stream(ask(), stream_mode=stream_mode))
    return [part async for part in app.astream(ask(), stream_mode=stream_mode)]


def text(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else json.dumps(message.content)


def streamed_text(parts: list[Any]) -> dict[str, str]:
    """Every message id's streamed text, tokens joined."""
    texts: dict[str, str] = {}
    for message, _ in parts:
        texts[message.id] = texts.get(message.id, "") + text(message)
    return texts


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.parametrize("shape", list(APPS))
async def test_the_messages_stream_shows_only_the_kept_answer(mode: str, shape: str) -> None:
    app, chat = APPS[shape]()

    parts = await collect(app, mode, "messages")

    texts = streamed_text(parts)
    everything = " ".join(texts.values())
    assert KEPT in texts.values()
    assert REJECTED not in texts.values() and REJECTED + " " not in everything
    assert JUDGE_MARK not in everything and "yes_probability" not in everything
    assert FEEDBACK_MARK not in everything
    assert len(chat.calls) == 2  # the judge did run twice


@pytest.mark.parametrize("shape", list(APPS))
@pytest.mark.parametrize("stream_mode", ["updates", "values"])
async def test_the_other_stream_modes_carry_no_draft_in_the_conversation(mode: str, shape: str, stream_mode: str) -> None:
    app, _ = APPS[shape]()

    parts = await collect(app, mode, stream_mode)

    for part in parts:
        states = part.values() if stream_mode == "updates" else [part]
        for state in states:
            for message in (state or {}).get("messages", []) if isinstance(state, dict) else []:
                assert text(message) not in (REJECTED,) and FEEDBACK_MARK not in text(message)
                assert JUDGE_MARK not in text(message)


@pytest.mark.parametrize("shape", list(APPS))
async def test_stream_drafts_shows_every_draft_labelled_and_never_the_judge(mode: str, shape: str) -> None:
    app, _ = APPS[shape](stream_drafts=True)

    parts = await collect(app, mode, "messages")

    drafts: dict[str, tuple[str, Any]] = {}
    for message, metadata in parts:
        if "jev_draft" in (metadata.get("tags") or []):
            previous = drafts.get(message.id, ("", None))[0]
            drafts[message.id] = (previous + text(message), metadata.get("jev_attempt"))
    assert sorted(drafts.values(), key=lambda d: d[1]) == [(REJECTED, 1), (KEPT, 2)]
    everything = " ".join(text(m) for m, _ in parts)
    assert JUDGE_MARK not in everything and FEEDBACK_MARK not in everything


@pytest.mark.parametrize("shape", list(APPS))
async def test_astream_events_show_no_model_run_of_a_draft_or_of_the_judge(shape: str) -> None:
    app, chat = APPS[shape]()

    events = [event async for event in app.astream_events(ask(), version="v2")]

    model_events = [e for e in events if e["event"].startswith(("on_chat_model", "on_llm"))]
    for event in model_events:
        data = event.get("data", {})
        shown = [data.get("chunk"), data.get("output"), data.get("input")]
        text_shown = " ".join(text(m) for m in shown if isinstance(m, BaseMessage))
        assert REJECTED not in text_shown and JUDGE_MARK not in text_shown, event["event"]
        assert "yes_probability" not in repr(data.get("input"))
    assert len(chat.calls) == 2
