"""The graph a real LangGraph server (``langgraph dev``) serves in tests/guardrails/test_server.py.

An input node (the early router), the guarded model node (input and output
batteries) and the guarded tool node, over a perfect keyword classifier. The
chat model replies "Sure." unless asked to "cite", when its draft hides in a
text block's citations, or to "fetch" a page (a long one, or one that opens with
``DATA:``), which carries the marker as a tool result, or to "email", when it
calls ``send_email`` (id ``call_1``). Round 5's reply shapes (issue 33): asked to
"split", it puts the marker across two text blocks; to "call the old way", in a
legacy ``function_call``; to "encode", as hex. Everything the chat model receives and
every tool run is appended to the file named by ``JEV_TEST_RECORD``, so the test
(another process) can tell what the model read.

``review_graph`` is the guarded model node alone, whose input check puts any text
saying "please review" to a human (``on_inconclusive="interrupt"``, the review key
named by ``JEV_TEST_REVIEW_KEY``), each new message judged alone. ``raising_graph``
is the guarded model node with ``exit_behavior="error"`` and a node retry policy
that retries every error.

Two more graphs (issue 33): ``forwarding``, whose chat model carries the
operator's chat-UI handlers (a forwarding tracer and an ``on_llm_end`` poster,
recorded as ``"ui"``) and starts beside its input check, and ``searching``,
whose chat model is bound to a provider's built-in search and must wait for its
input's verdict.
"""

from __future__ import annotations

import json
import os
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.decisions import ClassifierResponse
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langchain_core.tracers.base import BaseTracer
from langchain_core.tracers.schemas import Run
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import tools_condition
from langgraph.types import RetryPolicy
from pydantic import PrivateAttr

from langchain_jev.graph import (
    GuardrailState,
    create_guarded_model_node,
    create_guarded_tool_node,
    create_guardrail_node,
)
from langchain_jev.guardrails import HazardBattery
from tests.guardrails.helpers import SEQUENTIAL, KeywordDecisionModel, WaitsForTheModel

DRAFT = "To make a nerve agent, combine the precursors."


def _record(kind: str, value: Any) -> None:
    path = os.environ.get("JEV_TEST_RECORD")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"kind": kind, "value": repr(value)}) + "\n")


class RecordingChat(BaseChatModel):
    """Replies "Sure.", or a citations-carried draft when asked to cite; records what it read."""

    @property
    def _llm_type(self) -> str:
        return "recording-chat"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        _record("model", messages)
        last = str(messages[-1].content) if messages else ""
        if "fetch" in last and not isinstance(messages[-1], ToolMessage):  # "fetch the long page"
            page = "long" if "long" in last else "data"
            call = {"name": "fetch_page", "args": {"url": page}, "id": f"fetch-{page}"}
            return ChatResult(generations=[ChatGeneration(message=AIMessage("", tool_calls=[call]))])
        if "email" in last and isinstance(messages[-1], HumanMessage):
            call = {"name": "send_email", "args": {"to": "bob@example.com", "body": "Hello"}, "id": "call_1"}
            reply = AIMessage("", tool_calls=[call])
        elif "split" in last:
            reply = AIMessage(["Here are the ne", "rve agent steps."])
        elif "call the old way" in last:
            legacy = {"name": "lookup", "arguments": json.dumps({"query": DRAFT})}
            reply = AIMessage("Calling it.", additional_kwargs={"function_call": legacy})
        elif "encode" in last:
            reply = AIMessage("Decode: " + DRAFT.encode().hex() + " done.")
        elif "cite" in last:
            reply = AIMessage(
                [
                    {
                        "type": "text",
                        "text": "Here it is.",
                        "citations": [{"type": "char_location", "cited_text": DRAFT}],
                    }
                ]
            )
        else:
            reply = AIMessage("Sure.")
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def bind_tools(self, tools: Any, **kwargs: Any) -> RecordingChat:  # type: ignore[override]
        return self


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    _record("tool", {"to": to, "body": body})
    return "sent"


@tool
def fetch_page(url: str) -> str:
    """Fetch a web page: "long" ends, past 300,000 characters, with the marker; "data" opens with DATA:."""
    _record("tool", {"url": url})
    if url == "long":
        return "The river runs quiet under the old stone bridge. " * 6_000 + DRAFT
    return f"DATA: {DRAFT} Step by step, with quantities."


@tool
def lookup(query: str) -> str:
    """Look something up."""
    _record("tool", {"query": query})
    return "found"


_decision = KeywordDecisionModel(keywords={"indiscriminate_weapons": ("nerve agent",)})
_inputs = HazardBattery.input(["indiscriminate_weapons"], model=_decision)
_outputs = HazardBattery.output(["indiscriminate_weapons"], model=_decision)

_builder = StateGraph(GuardrailState)
_builder.add_node("guard", create_guardrail_node(_inputs, next_node="agent"), destinations=("agent", END))
_builder.add_node("agent", create_guarded_model_node(RecordingChat(), _inputs, _outputs, **SEQUENTIAL))
_builder.add_node("tools", create_guarded_tool_node([send_email, fetch_page, lookup], _inputs, _outputs))
_builder.add_edge(START, "guard")
_builder.add_conditional_edges("agent", tools_condition)
_builder.add_edge("tools", "agent")
graph = _builder.compile()


class _Unsure(KeywordDecisionModel):
    """The keyword classifier, leaving every category unanswered for a text that says "please review"."""

    def _classify(self, state: Any, questions: dict[str, Any]) -> Any:
        if "please review" in json.dumps(state).lower():
            self._states.append(dict(state))
            return ClassifierResponse(model="keyword", answers={})
        return super()._classify(state, questions)


_reviewed = HazardBattery.input(["indiscriminate_weapons"], model=_Unsure(keywords=_decision.keywords))
_review_builder = StateGraph(GuardrailState)
_review_builder.add_node(
    "agent",
    create_guarded_model_node(
        RecordingChat(),
        _reviewed,
        on_inconclusive="interrupt",
        review_key=os.environ.get("JEV_TEST_REVIEW_KEY", "a review key for the server tests"),
        review_store=lambda item: None,
        context_messages=0,
        **SEQUENTIAL,
    ),
)
_review_builder.add_edge(START, "agent").add_edge("agent", END)
review_graph = _review_builder.compile()


_raising_builder = StateGraph(GuardrailState)
_raising_builder.add_node(
    "agent",
    create_guarded_model_node(RecordingChat(), _inputs, _outputs, exit_behavior="error", **SEQUENTIAL),
    retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.01, retry_on=lambda error: True),
)
_raising_builder.add_edge(START, "agent").add_edge("agent", END)
raising_graph = _raising_builder.compile()


# ---------------------------------------------------------------- issue 33, classes C and D

LEAK = "DRAFT-LEAK written for a refused request"


class ForwardsToTheUI(BaseTracer):
    """The operator's chat-UI tracer on the model (as Chainlit's ``LangchainCallbackHandler``): it forwards
    every token and run output, recorded as ``"ui"``."""

    def _persist_run(self, run: Run) -> None:
        pass

    def _on_llm_new_token(self, run: Run, token: str, chunk: Any) -> None:
        _record("ui", token)

    def _on_llm_end(self, run: Run) -> None:
        _record("ui", run.outputs)


class PostsMessages(BaseCallbackHandler):
    """Posts each finished message (``on_llm_end``), recorded as ``"ui"``."""

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        _record("ui", response)


class DraftingChat(BaseChatModel):
    """Drafts an answer to anything: a leak for a refused request, a flagged reply when asked to "cite",
    else "Sure."; what it reads is recorded as ``kind``."""

    kind: str = "drafting-model"
    _decision: Any = PrivateAttr(default=None)
    """A `WaitsForTheModel` told of every call (its input checks wait for one), or None. Private: a
    runnable in a field would be read as a model this one holds, which waits for its verdict."""

    @property
    def _llm_type(self) -> str:
        return "drafting-chat"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        _record(self.kind, messages)
        if self._decision is not None:
            self._decision._handshake.called()
        if "nerve agent" in repr(messages):
            reply = AIMessage(LEAK)
        elif "cite" in str(messages[-1].content):
            reply = AIMessage(DRAFT)
        else:
            reply = AIMessage("Sure.")
        return ChatResult(generations=[ChatGeneration(message=reply)])


def _guarded(model: Any, decision: KeywordDecisionModel) -> Any:
    categories = ["indiscriminate_weapons"]
    batteries = [
        HazardBattery.input(categories, model=decision),
        HazardBattery.output(categories, model=decision),
    ]
    builder = StateGraph(GuardrailState).add_node("agent", create_guarded_model_node(model, *batteries))
    return builder.add_edge(START, "agent").add_edge("agent", END).compile()


_waiting = WaitsForTheModel(keywords={"indiscriminate_weapons": ("nerve agent",)})
_drafting = DraftingChat(callbacks=[ForwardsToTheUI(), PostsMessages()])
_drafting._decision = _waiting
forwarding = _guarded(_drafting, _waiting)
"""A chat model carrying the operator's UI handlers, started beside its input check (the default): each
input check waits for its call, so the draft for a refused request is really written."""
searching = _guarded(DraftingChat(kind="searching-model").bind(tools=[{"google_search": {}}]), _decision)
"""A chat model bound to a provider's built-in search: it must wait for its input's verdict."""
