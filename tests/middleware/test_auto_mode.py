"""A judge's decision model is the classifier of LangChain's ``AutoModeMiddleware``.

``AutoModeMiddleware(classifier=...)`` takes any ``BaseDecisionModel`` and asks
it one ``Noul`` question (``is_risky``) about each call of the tools it guards.
`JevDecisionModel` is one: here it answers through the real typesafe-sdk over
``httpx2.MockTransport``, in a real agent, under this folder's filters (the
middleware is in beta: its warning is exempt, any deprecation is an error).
So are a jury of Jev models and OpenAI Decisions as a judge takes it (the real
``OpenAIDecisions`` over ``httpx.MockTransport``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AutoModeMiddleware
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool

from langchain_jev.models import JevDecisionModel, JuryDecisionModel, as_decision_model
from tests.fakes import JevWire, ReplyingChatModel, noul
from tests.support.self_refine import calls_tool

deleted_paths: list[str] = []


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    deleted_paths.append(path)
    return f"deleted {path}"


def risk(body: dict[str, Any]) -> dict[str, Any]:
    """Jev's answer: deleting anything under secrets/ is risky."""
    call = body["state"]["tool_call"]
    return noul(0.93 if call["args"]["path"].startswith("secrets/") else 0.04)


async def auto_mode_turn(classifier: Any, path: str, mode: str) -> ToolMessage:
    """One agent turn under AutoMode with ``classifier``, the model asking to delete ``path``: the tool's result."""
    deleted_paths.clear()
    model = ReplyingChatModel(replies=[calls_tool("delete_file", {"path": path}, "call-1"), "Done."])
    agent = create_agent(
        model,
        tools=[delete_file],
        middleware=[AutoModeMiddleware(tools=[delete_file], classifier=classifier)],
    )
    state = {"messages": [HumanMessage(f"Delete {path}.")]}
    out = agent.invoke(state) if mode == "sync" else await agent.ainvoke(state)
    (result,) = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    return result


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(("path", "runs"), [("secrets/keys.txt", False), ("tmp/cache.txt", True)])
async def test_jev_decision_model_classifies_the_tool_calls_of_auto_mode(
    mode: str, path: str, runs: bool
) -> None:
    wire = JevWire({"is_risky": risk})
    classifier = wire.model()
    assert isinstance(classifier, JevDecisionModel)
    result = await auto_mode_turn(classifier, path, mode)
    assert deleted_paths == ([path] if runs else [])
    assert (result.status == "error") is not runs
    assert ("was blocked because it was classified as risky" in str(result.content)) is not runs
    # One System One request through the SDK, asking AutoMode's own question about this call.
    (body,) = wire.bodies
    assert list(body["questions"]) == ["is_risky"]
    assert body["state"]["tool_call"]["name"] == "delete_file"
    assert f"Delete {path}." in json.dumps(body["state"])


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(("path", "runs"), [("secrets/keys.txt", False), ("tmp/cache.txt", True)])
async def test_a_jury_of_jev_models_classifies_the_tool_calls_of_auto_mode(
    mode: str, path: str, runs: bool
) -> None:
    first, second = JevWire({"is_risky": risk}), JevWire({"is_risky": risk})
    jury = JuryDecisionModel({"first": first.model(), "second": second.model()})
    result = await auto_mode_turn(jury, path, mode)
    assert deleted_paths == ([path] if runs else [])
    assert ("was blocked because it was classified as risky" in str(result.content)) is not runs
    # each member was asked AutoMode's own question, once
    assert [list(body["questions"]) for body in first.bodies + second.bodies] == [["is_risky"], ["is_risky"]]


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(("path", "runs"), [("secrets/keys.txt", False), ("tmp/cache.txt", True)])
async def test_openai_decisions_as_a_judge_takes_it_classifies_the_tool_calls_of_auto_mode(
    mode: str, path: str, runs: bool
) -> None:
    pytest.importorskip("langchain_openai.decisions")
    from tests.models.test_openai_decisions import DecisionsWire, predicate

    def answer(body: dict[str, Any]) -> Any:
        import httpx

        risky = "secrets/" in json.dumps(body)
        decision = {"model": "gpt-6-luna", "answers": [predicate("is_risky", 0.93 if risky else 0.04)]}
        return httpx.Response(200, json=decision)

    wire = DecisionsWire(answer)
    result = await auto_mode_turn(as_decision_model(wire.decisions()), path, mode)
    assert deleted_paths == ([path] if runs else [])
    assert ("was blocked because it was classified as risky" in str(result.content)) is not runs
    (body,) = wire.requests  # one Decisions request, about this call
    assert "delete_file" in json.dumps(body)
