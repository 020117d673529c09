"""Decision requests of a simulated conversation: ours (one per turn) against a one-request-per-check peer.

Ours: `simulate` over a scripted app and a scripted user for ``TURNS`` turns, a
judge of ``CHECKS`` noul checks and a stop question, over the real typesafe-sdk
client and an in-process transport that counts requests. Each turn's checks and
its stop decision go in one request, and none is added at the end: the goal is
one request per turn.

The peer is a MODEL of openevals' simulator (``run_multiturn_simulation`` with an
LLM ``stopping_condition`` and LLM-as-judge ``trajectory_evaluators``), not the
peer itself: it is written here as that peer works, one LLM-as-judge call per
criterion, over the same counting transport, so both sides' requests are
counted alike. Two shapes of it are counted:

- per-turn checks, as ours gives them: each check is its own request after each
  turn, and so is the stop condition, (CHECKS + 1) requests per turn;
- openevals' default use: the stop condition each turn, the trajectory
  evaluators once on the whole conversation (one request each), so no verdict per
  turn; (TURNS + CHECKS) requests per conversation.

All figures are counts in one run; nothing is timed.

    python benchmarks/simulation_requests.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2
from _common import Row, print_table, row
from langchain_core.decisions import Noul
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableLambda
from typesafe_sdk import AsyncTypeSafeClient, RetryPolicy, TypeSafeClient

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.models import JevDecisionModel
from langchain_jev.simulation import simulate, simulated_user, turn_input

TURNS = 5
CHECKS = 3
STOP = JevCriterion.noul("stop", Noul(instructions="Has the user's goal been reached?"), 0.8)


class Wire:
    """Jev over an in-process transport: every check passes, the stop question never does; counts requests."""

    def __init__(self) -> None:
        self.requests = 0

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.requests += 1
        answers = {
            name: {"type": "noul", "noul": 0.05 if name == "stop" else 0.9} for name in body["questions"]
        }
        usage = {"input_tokens": 10, "output_tokens": len(answers)}
        return httpx2.Response(200, json={"model": body["model"], "answers": answers, "usage": usage})

    def model(self) -> JevDecisionModel:
        retry = RetryPolicy(max_retries=0)
        transport = httpx2.MockTransport(self)
        return JevDecisionModel(
            client=TypeSafeClient(api_key="sk-bench", transport=transport, retry=retry, compression=False),
            async_client=AsyncTypeSafeClient(
                api_key="sk-bench", transport=transport, retry=retry, compression=False
            ),
        )


def _checks() -> list[JevCriterion]:
    return [
        JevCriterion.noul(f"check_{i}", Noul(instructions=f"Does `assistant_answer` meet rule {i}?"), 0.7)
        for i in range(CHECKS)
    ]


def _app() -> RunnableLambda:
    return RunnableLambda(lambda messages: AIMessage(f"Reply to: {messages[-1].content}"))


def _script() -> list[str]:
    return [f"User turn {n}." for n in range(1, TURNS + 1)]


def ours() -> tuple[int, int]:
    """Requests of one conversation of ``TURNS`` turns, and its turns."""
    wire = Wire()
    result = simulate(
        _app(),
        simulated_user(script=_script()),
        max_turns=TURNS,
        judge=JevJudge(_checks(), wire.model()),
        stop_when=STOP,
    )
    return wire.requests, len(result.turns)


def peer(*, per_turn_checks: bool) -> tuple[int, int]:
    """The peer's model: a judge of ONE criterion per LLM call, as openevals' LLM-as-judge evaluators are."""
    wire = Wire()
    model = wire.model()
    one_each = [JevJudge([criterion], model) for criterion in _checks()]
    stopping_condition = JevJudge([STOP], model)
    app, messages, turns = _app(), list[BaseMessage](), 0
    for said in _script():
        messages.append(HumanMessage(said))
        messages.append(app.invoke(messages))
        turns += 1
        data = turn_input(messages)
        if per_turn_checks:
            for evaluator in one_each:
                evaluator.invoke(data)
        if stopping_condition.invoke(data).passed:
            break
    if not per_turn_checks:  # trajectory evaluators: once, on the whole conversation
        for evaluator in one_each:
            evaluator.invoke(turn_input(messages))
    return wire.requests, turns


def run() -> list[Row]:
    """The benchmark's rows."""
    ours_requests, ours_turns = ours()
    checked, checked_turns = peer(per_turn_checks=True)
    default, default_turns = peer(per_turn_checks=False)
    per_turn = ours_requests / ours_turns
    assert ours_turns == checked_turns == default_turns == TURNS
    return [
        row(
            f"ours: decision requests per turn, {CHECKS} checks + stop",
            per_turn,
            "== 1",
            per_turn == 1,
            "req",
        ),
        row(
            "peer model, checks per turn: requests per turn",
            checked / checked_turns,
            f"== {CHECKS + 1}",
            checked / checked_turns == CHECKS + 1,
            "req",
        ),
        row(
            "peer model, checks per turn / ours (requests)",
            checked / ours_requests,
            f">= {CHECKS + 1}",
            checked / ours_requests >= CHECKS + 1,
        ),
        row(
            f"peer model, openevals' default (no per-turn verdicts) / ours, {TURNS} turns",
            default / ours_requests,
            "> 1",
            default / ours_requests > 1,
        ),
    ]


if __name__ == "__main__":
    print_table("simulated conversations: decision requests", run())
