"""The middleware's hook spans do not copy the judged text, as LangChain's own decision-model middleware.

``AutoModeMiddleware`` and ``ModelRefusalMiddleware`` set
``TracePolicy(process_inputs=omit_payload)``: their ``wrap_*`` spans keep their
name and timing but record no input, while the messages stay on the model's own
run. Every middleware of the package does the same. The trace is LangSmith's
real one: a real client posting to a fake LangSmith API on loopback, whose
bodies are read back.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Iterator
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, AutoModeMiddleware, ModelRefusalMiddleware
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langchain_core.tracers.langchain import wait_for_all_tracers
from langgraph.types import omit_payload
from langsmith import Client
from langsmith.run_helpers import tracing_context

import langchain_jev.middleware
from langchain_jev.middleware import JevGuardrailMiddleware, JevSelfRefineMiddleware
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import ReplyingChatModel
from tests.support.fake_langsmith import Posted, fake_langsmith_api
from tests.support.self_refine import calls_tool, unit_judge

QUESTION = "How warm is the kettle, judged-words-7f3a?"
ARGUMENT = "tool-argument-91c2"
ANSWER = "About 100 degrees Celsius."


@pytest.fixture
def langsmith() -> Iterator[tuple[Client, list[Posted]]]:
    """A real LangSmith client posting every run, one request each, to a fake API on loopback."""
    with fake_langsmith_api() as (url, posted):
        yield Client(api_key="fake-key", api_url=url, auto_batch_tracing=False), posted


@tool
def thermometer(q: str) -> str:
    """Read the kettle's thermometer."""
    return "99.8"


def middlewares(untraced: bool) -> list[AgentMiddleware[Any, Any, Any]]:
    """A guardrail (every rail, tools too) around a self-refine loop; with ``untraced``, their policy unset."""
    guard = JevGuardrailMiddleware(
        categories=["violent_crimes"], model=ScriptedDecisionModel({"violent_crimes": 0.01})
    )
    refine = JevSelfRefineMiddleware(unit_judge(0.9)[0])
    if untraced:  # what they recorded before: the default policy of a LangChain middleware
        for middleware in (guard, refine):
            middleware.trace_policy = None
    return [guard, refine]


async def traced_turn(
    langsmith: tuple[Client, list[Posted]], mode: str, untraced: bool = False
) -> tuple[list[str], list[dict[str, Any]]]:
    """One agent turn that calls a tool then answers, traced to ``client``; the middlewares' names and the runs."""
    client, posted = langsmith
    model = ReplyingChatModel(replies=[calls_tool("thermometer", {"q": ARGUMENT}, "call-1"), ANSWER])
    used = middlewares(untraced)
    agent = create_agent(model, tools=[thermometer], middleware=used)
    state = {"messages": [HumanMessage(QUESTION)]}
    with tracing_context(enabled=True, client=client, project_name="traced"):
        out = agent.invoke(state) if mode == "sync" else await agent.ainvoke(state)
    wait_for_all_tracers()
    assert out["messages"][-1].content == ANSWER
    runs = [{"method": p.method, "path": p.path, **json.loads(p.body)} for p in posted if p.path.startswith("/runs")]
    return [m.name for m in used], runs


def hook_spans(names: list[str], runs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """What each middleware's hook spans posted (their start and end), by hook (``.awrap_`` read as ``.wrap_``)."""
    spans: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        name, _, hook = str(run.get("name")).rpartition(".")
        if name in names and hook.removeprefix("a").startswith("wrap_"):
            spans.setdefault(f"{name}.{hook.removeprefix('a')}", []).append(run)
    return spans


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_the_middlewares_spans_record_no_judged_text(langsmith: tuple[Client, list[Posted]], mode: str) -> None:
    names, runs = await traced_turn(langsmith, mode)
    spans = hook_spans(names, runs)
    guard, refine = names
    # The spans are there, with their timing: the guardrail's model and tool hooks and the loop's.
    assert {f"{guard}.wrap_model_call", f"{guard}.wrap_tool_call", f"{refine}.wrap_model_call"} <= set(spans)
    for name, posted in spans.items():
        started = [run for run in posted if run["method"] == "POST"]
        assert started and all(run["inputs"] == {} and run["start_time"] for run in started), name
        # Its end records the response, as LangChain's own spans do, and no input either.
        assert all(run.get("inputs") in (None, {}) for run in posted), name
    # The messages stay on the model's own run, as LangChain keeps them.
    assert QUESTION in json.dumps([run.get("inputs") for run in runs if run.get("run_type") == "llm"])


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_without_the_policy_the_same_spans_copy_the_judged_text(langsmith: tuple[Client, list[Posted]], mode: str) -> None:
    # The trace this test reads is able to show the leak: with the policy unset, every hook span copies it.
    names, runs = await traced_turn(langsmith, mode, untraced=True)
    spans = hook_spans(names, runs)
    guard, refine = names

    def inputs(name: str) -> str:
        return json.dumps([run.get("inputs") for run in spans[name]])

    assert QUESTION in inputs(f"{guard}.wrap_model_call")
    assert QUESTION in inputs(f"{refine}.wrap_model_call")
    assert ARGUMENT in inputs(f"{guard}.wrap_tool_call")


def package_middlewares() -> list[type[Any]]:
    """Every agent middleware class the package defines, found by walking its modules."""
    found: list[type[Any]] = []
    for info in pkgutil.walk_packages(langchain_jev.middleware.__path__, "langchain_jev.middleware."):
        module = importlib.import_module(info.name)
        found += [
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, AgentMiddleware)
            and value.__module__ == module.__name__
        ]
    return found


def test_every_middleware_of_the_package_omits_its_payload_as_langchain_s_decision_middleware_does() -> None:
    classes = package_middlewares()
    assert {JevGuardrailMiddleware, JevSelfRefineMiddleware} <= set(classes)
    for cls in [*classes, AutoModeMiddleware, ModelRefusalMiddleware]:
        assert cls.trace_policy is not None, cls
        assert cls.trace_policy.process_inputs is omit_payload, cls
        assert cls.trace_policy.process_outputs is None, cls
