"""Guardrail overhead: a guarded model step against its two parts called bare.

The guarded step (`guard_model`: the chat model, then the output battery's one
request with all 14 categories, the decision recorded, the runs hidden from
streams) is timed against a runnable of the same shape (a `RunnableLambda`, as a
graph node is) that calls the same chat model and the same battery directly,
over the real typesafe-sdk client on one in-process transport. What is left is
the rail's own work: reading every block of the reply, making its text sendable,
hiding the runs, deciding, and recording the decision. The input rail is timed
against its battery on a ten-message conversation judged whole (its ledger
forgets, so every run asks the battery; with the ledger a run over what was
judged before asks nothing, see guardrail_ledger.py).

    python benchmarks/guardrail_overhead.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2
from _common import Row, interleaved, print_table, row
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableLambda
from typesafe_sdk import RetryPolicy, TypeSafeClient

from langchain_jev.graph import guard_model
from langchain_jev.guardrails import HAZARDS, HazardBattery
from langchain_jev.guardrails._judged import input_subject
from langchain_jev.guardrails._rail import GuardrailRail
from langchain_jev.models import JevDecisionModel

GOAL = 1.3


class _Forgetful:
    """A ledger store that remembers nothing, so the input rail asks its battery on every run."""

    def get(self, key: str) -> Any:
        return None

    def put(self, key: str, value: Any) -> None:
        return None

    async def aget(self, key: str) -> Any:
        return None

    async def aput(self, key: str, value: Any) -> None:
        return None


def _model() -> JevDecisionModel:
    body = json.dumps(
        {
            "model": "jev-latest",
            "usage": {"input_tokens": 300, "output_tokens": 16},
            "answers": {h.name: {"type": "noul", "noul": 0.02} for h in HAZARDS},
        }
    ).encode()

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body, headers={"content-type": "application/json"})

    client = TypeSafeClient(
        api_key="sk-bench", transport=httpx2.MockTransport(handler), retry=RetryPolicy(max_retries=0)
    )
    return JevDecisionModel(client=client)


def measure(rounds: int = 11, inner: int = 20) -> dict[str, float]:
    """Seconds per call of the guarded step and of its parts, and of the input rail and its battery."""
    reply = AIMessage(
        [
            {"type": "reasoning", "reasoning": "The user wants a recipe; lentils are simple."},
            {"type": "text", "text": "Rinse the lentils, then simmer them for 20 minutes."},
        ]
    )
    chat = FakeMessagesListChatModel(responses=[reply])
    output = HazardBattery.output(model=_model())
    guarded = guard_model(chat, output)
    question: list[BaseMessage] = [HumanMessage("How do I cook lentils?")]
    assert guarded.invoke(question).content == reply.content

    conversation: list[BaseMessage] = []
    for i in range(5):
        conversation += [HumanMessage(f"Question {i} about cooking?", id=f"h{i}"), AIMessage(f"Answer {i}.")]
    conversation += [HumanMessage("And lentils?", id="last")]
    subject = input_subject(conversation, 0)
    assert subject is not None
    battery = HazardBattery.input(model=_model())
    rail = GuardrailRail(battery, "input", ledger=_Forgetful())  # judges the turn every time
    turn = subject.data  # the same request the rail makes

    def unguarded(messages: list[BaseMessage]) -> BaseMessage:
        answer = chat.invoke(messages)
        output.invoke([*messages, answer])
        return answer

    bare = RunnableLambda(unguarded)

    guarded_s, bare_s, rail_s, battery_s = interleaved(
        [
            lambda: guarded.invoke(question),
            lambda: bare.invoke(question),
            lambda: rail.run(conversation),
            lambda: battery.invoke(turn),
        ],
        rounds,
        inner,
    )
    return {"guarded": guarded_s, "bare": bare_s, "rail": rail_s, "battery": battery_s}


def run() -> list[Row]:
    """The guardrail overhead rows of the benchmark table."""
    t = measure()
    step = t["guarded"] / t["bare"]
    rail = t["rail"] / t["battery"]
    return [
        row("guardrail: guarded model step / the same step unguarded", step, f"<= {GOAL}", step <= GOAL),
        row(
            "guardrail: input rail (10 messages) / its battery called bare", rail, f"<= {GOAL}", rail <= GOAL
        ),
    ]


if __name__ == "__main__":
    print_table("Guardrail overhead (same in-process transport, medians of interleaved runs)", run())
