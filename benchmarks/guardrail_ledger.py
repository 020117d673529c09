"""Guardrail ledger: what the input battery judges per turn over a 50-turn conversation.

A guarded model node (input and output batteries) answers 50 turns of one
checkpointed thread. The input battery is asked only about what its ledger has
not seen judged: the new user message, with earlier messages as context
(bounded by ``context_messages``). Without the ledger (a store that forgets),
every turn judges the whole conversation again, which grows with it. The
figures are judged characters (the JSON of every state the input battery was
sent in that turn) at turn 1 and turn 50; turn 1 has no context yet, so the
goal compares turn 50 with turn 4, the first whose context window is full.

    python benchmarks/guardrail_ledger.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import Row, print_table, row
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from langchain_jev.graph import GuardrailState, create_guarded_model_node
from langchain_jev.guardrails import HazardBattery
from tests.fakes import ReplyingChatModel
from tests.guardrails.helpers import KeywordDecisionModel

TURNS = 50
GOAL = 1.2
FULL_CONTEXT = 4
"""The first turn whose context holds ``context_messages`` (6) earlier messages: from here on a
turn's judged text is the new message and a context of fixed length."""


class _Forgetful:
    """A ledger store that remembers nothing: every turn judges the whole conversation."""

    def get(self, key: str) -> dict[str, Any] | None:
        return None

    def put(self, key: str, value: Any) -> None:
        return None

    async def aget(self, key: str) -> dict[str, Any] | None:
        return None

    async def aput(self, key: str, value: Any) -> None:
        return None


def judged_per_turn(ledger: Any = None) -> list[int]:
    """Characters the input battery was sent in each of ``TURNS`` turns."""
    decision = KeywordDecisionModel(keywords={"hate": ("vermin",)})
    inputs = HazardBattery.input(["hate"], model=decision)
    outputs = HazardBattery.output(["hate"], model=decision)
    replies = [AIMessage(f"Answer {n}: simmer the lentils for {n + 10} minutes, then season.") for n in range(TURNS)]
    model = ReplyingChatModel(replies=replies)
    options = {"ledger": ledger} if ledger is not None else {}
    builder = StateGraph(GuardrailState)
    builder.add_node("agent", create_guarded_model_node(model, inputs, outputs, **options))
    graph = builder.add_edge(START, "agent").add_edge("agent", END).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "bench"}}
    judged: list[int] = []
    for n in range(TURNS):
        before = len(decision.states)
        graph.invoke({"messages": [HumanMessage(f"Question {n}: how long do I cook lentils for soup {n}?")]}, config)
        sent = [s for s in decision.states[before:] if "assistant_answer" not in s]
        judged.append(sum(len(json.dumps(s, ensure_ascii=False)) for s in sent))
    return judged


def run() -> list[Row]:
    """The ledger rows of the benchmark table."""
    kept = judged_per_turn()
    forgotten = judged_per_turn(_Forgetful())
    full = FULL_CONTEXT - 1
    growth = kept[-1] / kept[full]
    saving = forgotten[-1] / kept[-1]
    return [
        row("guardrail ledger: judged characters at turn 1 (input battery)", kept[0], "(info)", True, "chars"),
        row(f"guardrail ledger: judged characters at turn {TURNS}", kept[-1], "(info)", True, "chars"),
        row(
            f"guardrail ledger: judged characters, turn {TURNS} / turn {FULL_CONTEXT} (context window full)",
            growth,
            f"<= {GOAL}",
            growth <= GOAL,
        ),
        row(
            f"guardrail ledger: turn {TURNS} without the ledger / with it",
            saving,
            "(info)",
            True,
        ),
    ]


if __name__ == "__main__":
    print_table(f"Guardrail ledger ({TURNS}-turn conversation, guarded model node, checkpointer)", run())
