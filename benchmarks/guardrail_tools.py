"""Guardrail tool turns: a turn in which the model calls a tool, guarded against the same turn unguarded.

The tools' door runs a call the guarded model released without asking its battery
again (it claims the call's record), so a tool turn costs the model's door twice
(once per model call) and nothing more. Two figures, for the guarded model node
with the guarded tool node, and for the agent middleware:

- **time**: ``invoke`` of a guarded tool turn / the same turn unguarded, the
  model taking ``LATENCY`` seconds per call and Jev (the loopback test server in a
  child process) ``JUDGE_DELAY`` seconds per check, interleaved, medians. With the
  input checks beside the model's calls, the ideal is ``(2 * LATENCY + 2 *
  JUDGE_DELAY) / (2 * LATENCY)``. Goal: at most 1.40, as for a turn without tools.
- **battery requests per tool turn**, counted (no timing): 4, an input and an
  output check for each of the two model calls; a tools' door that judged the
  model's own call again would make it 5.

    python benchmarks/guardrail_tools.py
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from itertools import count
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, print_table, row
from guardrail_latency import JUDGE_DELAY, LATENCY, TURN_GOAL, _medians, jev_server
from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from langchain_jev.graph import GuardrailState, create_guarded_model_node, create_guarded_tool_node
from langchain_jev.guardrails import HAZARDS, HazardBattery
from langchain_jev.middleware import JevGuardrailMiddleware
from langchain_jev.models import JevDecisionModel
from langchain_jev.testing import ScriptedDecisionModel

ROUNDS = 7
_calls = count()


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"Lentils take 20 minutes ({query})."


class CallingChat(BaseChatModel):
    """After ``LATENCY`` seconds: a ``lookup`` call (a new id each turn), or "Done." once the tool answered."""

    @property
    def _llm_type(self) -> str:
        return "calling-chat"

    def _reply(self, messages: list[BaseMessage]) -> ChatResult:
        if isinstance(messages[-1], ToolMessage):
            reply = AIMessage("Done.")
        else:
            call = {"name": "lookup", "args": {"query": "lentils"}, "id": f"call_{next(_calls)}"}
            reply = AIMessage("", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        time.sleep(LATENCY)
        return self._reply(messages)

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        await asyncio.sleep(LATENCY)
        return self._reply(messages)

    def bind_tools(self, tools: Any, **kwargs: Any) -> CallingChat:  # type: ignore[override]
        return self


def _plain_graph(chat: CallingChat) -> Any:
    def call(state: MessagesState) -> dict[str, Any]:
        return {"messages": [chat.invoke(state["messages"])]}

    builder = StateGraph(MessagesState).add_node("agent", RunnableLambda(call)).add_node("tools", ToolNode([lookup]))
    builder.add_edge(START, "agent").add_conditional_edges("agent", tools_condition).add_edge("tools", "agent")
    return builder.compile()


def _guarded_graph(chat: CallingChat, decision: Any) -> Any:
    inputs, outputs = HazardBattery.input(model=decision), HazardBattery.output(model=decision)
    builder = StateGraph(GuardrailState)
    builder.add_node("agent", create_guarded_model_node(chat, inputs, outputs))
    builder.add_node("tools", create_guarded_tool_node([lookup], inputs, outputs))
    builder.add_edge(START, "agent").add_conditional_edges("agent", tools_condition).add_edge("tools", "agent")
    return builder.compile()


def _guarded_agent(chat: CallingChat, decision: Any) -> Any:
    return create_agent(chat, tools=[lookup], middleware=[JevGuardrailMiddleware(model=decision)])


_questions = count()


def _turn() -> dict[str, Any]:
    """A new question each time, so the ledger never spares a check."""
    return {"messages": [HumanMessage(f"Question {next(_questions)}: how long do lentils take to cook?")]}


def _timed(call: Callable[[], Any]) -> Callable[[], float]:
    def run() -> float:
        start = time.perf_counter()
        out = call()
        assert out["messages"][-1].content == "Done.", out["messages"][-1]
        return time.perf_counter() - start

    return run


def measure(rounds: int = ROUNDS) -> dict[str, float]:
    """Median seconds of each tool turn, interleaved one of each per round (after one warm-up round)."""
    with jev_server() as url:
        jev = JevDecisionModel(api_key="sk-bench", base_url=url)
        chat = CallingChat()
        graphs = {
            "graph": _plain_graph(chat),
            "graph guarded": _guarded_graph(chat, jev),
            "agent": create_agent(chat, tools=[lookup]),
            "agent guarded": _guarded_agent(chat, jev),
        }
        runs = {name: _timed(lambda graph=graph: graph.invoke(_turn())) for name, graph in graphs.items()}
        return _medians(runs, rounds)


def battery_requests() -> dict[str, int]:
    """Battery requests of one guarded tool turn, per form (a scripted decision model counts them)."""
    counted: dict[str, int] = {}
    for name, build in (("graph", _guarded_graph), ("agent", _guarded_agent)):
        decision = ScriptedDecisionModel(dict.fromkeys((h.name for h in HAZARDS), 0.02))
        out = build(CallingChat(), decision).invoke(_turn())
        assert out["messages"][-1].content == "Done.", out["messages"][-1]
        counted[name] = decision.calls
    return counted


def run() -> list[Row]:
    """The guardrail tool-turn rows of the benchmark table."""
    t = measure()
    asked = battery_requests()
    ideal = (2 * LATENCY + 2 * JUDGE_DELAY) / (2 * LATENCY)
    graph = t["graph guarded"] / t["graph"]
    agent = t["agent guarded"] / t["agent"]
    return [
        row(f"guardrail tool turn: model and tool nodes / unguarded (ideal {ideal:.2f})", graph, f"<= {TURN_GOAL}", graph <= TURN_GOAL),
        row(f"guardrail tool turn: middleware / unguarded agent (ideal {ideal:.2f})", agent, f"<= {TURN_GOAL}", agent <= TURN_GOAL),
        row("guardrail tool turn: battery requests, model and tool nodes", asked["graph"], "4", asked["graph"] == 4, "count"),
        row("guardrail tool turn: battery requests, middleware", asked["agent"], "4", asked["agent"] == 4, "count"),
    ]


if __name__ == "__main__":
    print_table("guardrail tool turns", run())
