"""A decision model works from any event loop: one after another and at once.

``asyncio.run`` per request (some servers, scripts), notebooks that make a loop
per cell, servers with a loop per thread: each gets Jev's answers. Before, the
asynchronous client was bound to the first loop, so every call in a second loop
failed with ``RuntimeError: Event loop is closed``; every guarded turn was then
refused and every jury call not judged. The real SDK talks to the loopback server.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.decisions import Noul
from langchain_core.messages import HumanMessage

from langchain_jev import JevCriterion, JevJudge, Outcome
from langchain_jev.guardrails import HazardBattery
from langchain_jev.models import CachedDecisionModel, InMemoryCache, JevDecisionModel, JuryDecisionModel
from langchain_jev.testing.server import JevServer
from tests.guardrails.helpers import chat, guarded_graph

POLITE = JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)


@pytest.fixture(scope="module")
def server() -> Iterator[JevServer]:
    with JevServer({"polite": 0.9, "hate": 0.01}) as running:
        yield running


def jev(server: JevServer, name: str = "jev-latest") -> JevDecisionModel:
    return JevDecisionModel(api_key="sk-test-loops-0123456789", base_url=server.base_url, model=name)


ANSWERS = itertools.count()
"""Each call judges another answer, so a cache never answers in a model's place."""


def judge_in_a_new_loop(judge: JevJudge) -> Any:
    return asyncio.run(judge.ajudge("Hi?", f"Hello! How can I help? ({next(ANSWERS)})"))


MODELS = pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda s: jev(s), id="jev"),
        pytest.param(lambda s: CachedDecisionModel(jev(s), InMemoryCache()), id="jev behind a cache"),
        pytest.param(lambda s: JuryDecisionModel({"a": jev(s, "jev-a"), "b": jev(s, "jev-b")}), id="jury of jev"),
    ],
)


@MODELS
def test_one_loop_after_another(server: JevServer, make: Any) -> None:
    judge = JevJudge([POLITE], model=make(server))
    for _ in range(3):  # before: the second asyncio.run failed with "Event loop is closed"
        verdict = judge_in_a_new_loop(judge)
        assert verdict.finding("polite").outcome is Outcome.PASSED, verdict.finding("polite").detail


@MODELS
def test_loops_at_once_in_threads(server: JevServer, make: Any) -> None:
    judge = JevJudge([POLITE], model=make(server))
    outcomes: list[Any] = []
    errors: list[BaseException] = []

    def one() -> None:
        try:
            for _ in range(3):
                outcomes.append(judge_in_a_new_loop(judge).finding("polite").outcome)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)  # a hang guard
    assert errors == []
    assert outcomes == [Outcome.PASSED] * 12


def test_a_notebook_s_loops_and_the_sync_path_share_one_model(server: JevServer) -> None:
    model = jev(server)
    judge = JevJudge([POLITE], model=model)
    first, second = asyncio.new_event_loop(), asyncio.new_event_loop()
    try:
        for loop in (first, second, first):  # cells run in loops that stay open
            assert loop.run_until_complete(judge.ajudge("Hi?", "Hello!")).passed
        assert judge.judge("Hi?", "Hello!").passed
        assert len(model._own_async_clients) == 2  # one client per loop, reused within it
        first.run_until_complete(model.aclose())
    finally:
        first.close()
        second.close()
    for _ in range(3):
        assert judge_in_a_new_loop(judge).passed
    assert len(model._own_async_clients) == 1  # a closed loop's client is dropped when another is made


@pytest.mark.parametrize("turns", [3])
def test_a_guarded_turn_per_loop_is_judged_not_refused(server: JevServer, turns: int) -> None:
    agent = chat(*["Here is a recipe for pasta."] * turns)
    graph = guarded_graph(agent, input_battery=HazardBattery.input(["hate"], model=jev(server)))
    for turn in range(turns):
        out = asyncio.run(graph.ainvoke({"messages": [HumanMessage(f"message {turn} about pasta")]}))
        assert out["guardrail"]["error"] is None, out["guardrail"]["error"]
        assert out["guardrail"]["refused"] is False  # before: refused from the second loop on
    assert agent.calls == turns
