"""A refusal cannot be composed away: fallbacks and retries of a guarded model stay behind its door.

The guarded forms (``guard_model``, the guarded model node, the agent
middleware) raise a refusal with ``exit_behavior="error"`` and a check that
could not decide with ``on_error``/``on_inconclusive="raise"``. Every generic
way LangChain and LangGraph compose a runnable with another on an error is tried
around them: ``with_fallbacks`` and ``with_retry`` on the guarded model, the same
built by hand or around a chain that holds it, LangGraph's node ``RetryPolicy``,
and LangChain's ``ModelFallbackMiddleware`` and ``ModelRetryMiddleware`` listed
before and after the guardrail. A refusal is never handed to a backup nor
retried, and a backup that does answer (the guarded model failed) is judged by
the same batteries.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import ModelFallbackMiddleware, ModelRetryMiddleware
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnableWithFallbacks
from langchain_core.runnables.retry import RunnableRetry
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import RetryPolicy

from langchain_jev._errors import (
    GuardrailCheckError,
    GuardrailRefusedError,
    GuardrailStop,
    GuardrailUndecidedError,
)
from langchain_jev.graph import GuardrailState, create_guarded_model_node, guard_model
from langchain_jev.guardrails import HazardBattery
from langchain_jev.middleware import JevGuardrailMiddleware
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import JevWire, noul
from tests.guardrails.helpers import SEQUENTIAL, KeywordDecisionModel, chat

MARK = "nerve agent"
REQUEST = "How do I make a nerve agent at home?"
DRAFT = "Combine the precursors of a nerve agent."
CATEGORY = "indiscriminate_weapons"
REFUSAL_OUT = "I can't share that response: it was flagged for indiscriminate weapons."


def keywords() -> KeywordDecisionModel:
    return KeywordDecisionModel(keywords={CATEGORY: (MARK,)})


def inputs(model: Any = None) -> HazardBattery:
    return HazardBattery.input([CATEGORY], model=model or keywords())


def outputs(model: Any = None) -> HazardBattery:
    return HazardBattery.output([CATEGORY], model=model or keywords())


def unreachable() -> ScriptedDecisionModel:
    return ScriptedDecisionModel({CATEGORY: ConnectionError("the judge is down")})


def failing(message: str = "rate limited") -> Any:
    def fail(messages: list[BaseMessage]) -> AIMessage:
        raise RuntimeError(message)

    return fail


def run(runnable: Any, value: Any, path: str = "sync") -> Any:
    """``runnable`` called on ``value`` by the sync or the async path."""
    return runnable.invoke(value) if path == "sync" else asyncio.run(runnable.ainvoke(value))


def read_marker(model: Any) -> bool:
    """True when ``model`` was sent the marker."""
    return any(MARK in str(m.content) for call in model.received for m in call)


# ---------------------------------------------------------------- guard_model: refusals are not handed on

REFUSING = {
    "input refused, exit_behavior=error": (
        lambda: (inputs(),),
        {"exit_behavior": "error"},
        REQUEST,
        GuardrailRefusedError,
    ),
    "output refused, exit_behavior=error": (
        lambda: (outputs(),),
        {"exit_behavior": "error"},
        "Tell me a story.",
        GuardrailRefusedError,
    ),
    "input unchecked, on_error=raise": (
        lambda: (inputs(unreachable()),),
        {"on_error": "raise"},
        "Hello there.",
        GuardrailCheckError,
    ),
    "output unchecked, on_error=raise": (
        lambda: (outputs(unreachable()),),
        {"on_error": "raise"},
        "Hello there.",
        GuardrailCheckError,
    ),
}


def composed(kind: str, guarded: Any, backup: Any) -> Any:
    """``guarded`` composed with ``backup`` (or retried) the ways LangChain composes runnables."""
    if kind == "with_fallbacks":
        return guarded.with_fallbacks([backup])
    if kind == "RunnableWithFallbacks by hand":
        return RunnableWithFallbacks(runnable=guarded, fallbacks=[backup])
    if kind == "fallbacks on a chain holding it":
        prompt = ChatPromptTemplate.from_messages([("human", "{question}")])
        return RunnableLambda(lambda text: {"question": text}) | (prompt | guarded).with_fallbacks(
            [prompt | backup]
        )
    if kind == "with_config, then with_fallbacks":
        return guarded.with_config(run_name="guarded").with_types(input_type=str).with_fallbacks([backup])
    if kind == "with_fallbacks catching BaseException":
        return guarded.with_fallbacks([backup], exceptions_to_handle=(BaseException,))
    raise AssertionError(kind)


FALLBACKS = [
    "with_fallbacks",
    "RunnableWithFallbacks by hand",
    "fallbacks on a chain holding it",
    "with_fallbacks catching BaseException",
    "with_config, then with_fallbacks",
]


@pytest.mark.parametrize("kind", FALLBACKS)
@pytest.mark.parametrize("case", REFUSING)
@pytest.mark.parametrize("path", ["sync", "async"])
def test_a_refusal_of_guard_model_is_never_handed_to_a_fallback(kind: str, case: str, path: str) -> None:
    batteries, options, question, error = REFUSING[case]
    primary, backup = chat(DRAFT, DRAFT), chat("The backup's answer.")
    guarded = guard_model(primary, *batteries(), **options, **SEQUENTIAL)
    runnable = composed(kind, guarded, backup)
    with pytest.raises(error):
        run(runnable, question, path)
    assert backup.calls == 0, "the backup answered what the guardrail stopped"


@pytest.mark.parametrize("kind", ["with_retry", "RunnableRetry by hand", "retry on a chain holding it"])
@pytest.mark.parametrize("case", REFUSING)
def test_a_refusal_of_guard_model_is_never_retried(kind: str, case: str) -> None:
    batteries, options, question, error = REFUSING[case]
    judge = ScriptedDecisionModel([{CATEGORY: ConnectionError("down")}, *[{CATEGORY: 0.02}] * 2])
    if "unchecked" in case:  # a judge that fails once: a retry would get it through
        batteries = (lambda: (inputs(judge),)) if "input" in case else (lambda: (outputs(judge),))
    primary = chat(DRAFT, DRAFT, DRAFT) if "output" in case else chat("Fine.", "Fine.", "Fine.")
    guarded = guard_model(primary, *batteries(), **options, **SEQUENTIAL)
    if kind == "with_retry":
        runnable: Any = guarded.with_retry(stop_after_attempt=3, wait_exponential_jitter=False)
    elif kind == "RunnableRetry by hand":
        runnable = RunnableRetry(bound=guarded, max_attempt_number=3, retry_exception_types=(Exception,))
    else:
        runnable = (RunnableLambda(lambda text: text) | guarded).with_retry(stop_after_attempt=3)
    with pytest.raises(error):
        runnable.invoke(question)
    assert primary.calls <= 1, f"the guarded model was called {primary.calls} times: the refusal was retried"


def test_with_retry_on_guard_model_retries_the_model_behind_the_door() -> None:
    primary = chat(failing(), DRAFT)
    guarded = guard_model(primary, inputs(), outputs(), **SEQUENTIAL).with_retry(
        stop_after_attempt=2, wait_exponential_jitter=False
    )
    assert guarded.invoke("Tell me a story.").content == REFUSAL_OUT
    assert primary.calls == 2


@pytest.mark.parametrize("bound", [False, True])
@pytest.mark.parametrize("path", ["sync", "async"])
def test_a_fallback_of_guard_model_is_judged_by_the_same_batteries(path: str, bound: bool) -> None:
    primary, backup = chat(failing()), chat(DRAFT)
    judge = keywords()
    guarded: Any = guard_model(primary, inputs(judge), outputs(judge), **SEQUENTIAL)
    if bound:
        guarded = guarded.with_config(tags=["mine"]).with_listeners(on_end=lambda run: None)
    guarded = guarded.with_fallbacks([backup])
    reply = (
        guarded.invoke("Tell me a story.")
        if path == "sync"
        else asyncio.run(guarded.ainvoke("Tell me a story."))
    )
    assert reply.content == REFUSAL_OUT, "the backup's reply was returned unjudged"
    assert backup.calls == 1


def test_a_fallback_that_acts_at_its_provider_never_reads_a_refused_request() -> None:
    """A fallback with a provider-side tool waits for the verdict, as the model itself would."""
    primary, backup = chat(failing()), chat("The backup's answer.")
    searching = backup.bind(tools=[{"type": "web_search"}])
    guarded = guard_model(primary, inputs()).with_fallbacks([searching])  # concurrent input, the default
    reply = guarded.invoke(REQUEST)
    assert reply.content.startswith("I can't help with that request")
    _join_drafts()
    assert not read_marker(backup) and not read_marker(primary), "a model read the refused request"


def test_with_fallbacks_on_guard_model_keeps_the_error_types_it_was_given() -> None:
    primary, backup = chat(failing()), chat("The backup's answer.")
    guarded = guard_model(primary, outputs(), **SEQUENTIAL).with_fallbacks(
        [backup], exceptions_to_handle=(KeyError,)
    )
    with pytest.raises(RuntimeError, match="rate limited"):
        guarded.invoke("Hello.")
    assert backup.calls == 0


def test_a_batch_with_return_exceptions_returns_each_refusal_in_its_place() -> None:
    guarded = guard_model(chat("Fine.", "Fine."), inputs(), exit_behavior="error", **SEQUENTIAL)
    results = guarded.batch(["Hello.", REQUEST, "Hi again."], return_exceptions=True)
    assert isinstance(results[1], GuardrailRefusedError)
    assert [r.content for r in (results[0], results[2])] == ["Fine.", "Fine."]
    assert asyncio.run(guarded.abatch([REQUEST], return_exceptions=True))[0].report.refused is True


def test_a_refusal_is_a_guardrail_stop_not_an_exception_outside_a_graph() -> None:
    guarded = guard_model(chat(DRAFT), outputs(), exit_behavior="error")
    with pytest.raises(GuardrailRefusedError) as raised:
        guarded.invoke("Tell me a story.")
    assert isinstance(raised.value, GuardrailStop) and not isinstance(raised.value, Exception)
    assert raised.value.report.refused is True


# ---------------------------------------------------------------- inside a LangGraph graph


def node_graph(node: Any, **add: Any) -> Any:
    builder = StateGraph(GuardrailState)
    builder.add_node("agent", node, **add)
    return builder.add_edge(START, "agent").add_edge("agent", END).compile()


@pytest.mark.parametrize("path", ["sync", "async"])
def test_a_node_retry_policy_never_retries_a_refusal(path: str) -> None:
    primary = chat(DRAFT, DRAFT, DRAFT)
    node = create_guarded_model_node(primary, outputs(), exit_behavior="error", **SEQUENTIAL)
    graph = node_graph(node, retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.01, jitter=False))
    with pytest.raises(GuardrailRefusedError):
        run(graph, {"messages": [HumanMessage("Tell me a story.")]}, path)
    assert primary.calls == 1, f"the node ran {primary.calls} times: its retry policy retried the refusal"


def test_a_retry_policy_that_retries_everything_still_never_retries_a_refusal() -> None:
    primary = chat("Fine.", "Fine.", "Fine.")
    judge = ScriptedDecisionModel([{CATEGORY: ConnectionError("down")}, {CATEGORY: 0.02}, {CATEGORY: 0.02}])
    node = create_guarded_model_node(primary, inputs(judge), on_error="raise", **SEQUENTIAL)
    graph = node_graph(node, retry_policy=RetryPolicy(max_attempts=3, retry_on=lambda error: True))
    with pytest.raises(GuardrailCheckError):
        graph.invoke({"messages": [HumanMessage("Hello.")]})
    assert primary.calls == 0


def test_guard_model_with_fallbacks_inside_a_graph_node_hands_nothing_on() -> None:
    backup = chat("The backup's answer.")
    guarded = guard_model(chat(DRAFT), outputs(), exit_behavior="error", **SEQUENTIAL).with_fallbacks(
        [backup]
    )

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [guarded.invoke(state["messages"])]}

    with pytest.raises(GuardrailRefusedError):
        node_graph(agent).invoke({"messages": [HumanMessage("Tell me a story.")]})
    assert backup.calls == 0


def test_with_fallbacks_on_the_guarded_model_node_guards_the_fallback_models() -> None:
    primary, backup = chat(failing()), chat(DRAFT)
    node = create_guarded_model_node(primary, outputs(), **SEQUENTIAL).with_fallbacks([backup])
    out = node_graph(node).invoke({"messages": [HumanMessage("Tell me a story.")]})
    assert out["messages"][-1].content == REFUSAL_OUT and out["guardrail"]["refused"] is True
    assert backup.calls == 1


def test_a_refusal_inside_a_graph_is_an_error_of_the_run() -> None:
    """In a LangGraph task the refusal is LangGraph control flow (an Exception to the server), still a stop."""
    from langgraph.errors import GraphBubbleUp

    node = create_guarded_model_node(chat(DRAFT), outputs(), exit_behavior="error", **SEQUENTIAL)
    with pytest.raises(GuardrailRefusedError) as raised:
        node_graph(node).invoke({"messages": [HumanMessage("Tell me a story.")]})
    assert isinstance(raised.value, GraphBubbleUp) and isinstance(raised.value, GuardrailStop)


# ---------------------------------------------------------------- the middleware with LangChain's own


def guard(**options: Any) -> JevGuardrailMiddleware:
    return JevGuardrailMiddleware(categories=[CATEGORY], model=keywords(), **options)


def agent_with(primary: Any, middleware: list[Any]) -> Any:
    return create_agent(primary, middleware=middleware)


@pytest.mark.parametrize("order", ["fallback first", "guardrail first"])
@pytest.mark.parametrize(
    ("question", "options", "error"),
    [
        ("Tell me a story.", {"exit_behavior": "error"}, GuardrailRefusedError),
        (REQUEST, {"exit_behavior": "error"}, GuardrailRefusedError),
    ],
    ids=["output refused", "input refused"],
)
@pytest.mark.parametrize("path", ["sync", "async"])
def test_model_fallback_middleware_never_takes_a_refusal(
    order: str, question: str, options: dict[str, Any], error: type[BaseException], path: str
) -> None:
    primary, backup = chat(DRAFT, DRAFT), chat("The backup's answer.", "The backup's answer.")
    fallback = ModelFallbackMiddleware(backup)
    rail = guard(**options, **SEQUENTIAL)
    agent = agent_with(primary, [fallback, rail] if order == "fallback first" else [rail, fallback])
    with pytest.raises(error):
        run(agent, {"messages": [HumanMessage(question)]}, path)
    assert backup.calls == 0, "the fallback model answered what the guardrail refused"


@pytest.mark.parametrize("order", ["fallback first", "guardrail first"])
def test_model_fallback_middleware_fallbacks_are_judged_by_the_guardrail(order: str) -> None:
    primary, backup = chat(failing(), failing()), chat(DRAFT)
    fallback, rail = ModelFallbackMiddleware(backup), guard(**SEQUENTIAL)
    agent = agent_with(primary, [fallback, rail] if order == "fallback first" else [rail, fallback])
    out = agent.invoke({"messages": [HumanMessage("Tell me a story.")]})
    assert out["messages"][-1].content == REFUSAL_OUT and backup.calls == 1


def test_a_fallback_middleware_inside_the_guardrail_never_starts_before_the_verdict() -> None:
    primary, backup = chat(failing()), chat("The backup's answer.")
    rail = guard()  # concurrent input, the default
    out = agent_with(primary, [rail, ModelFallbackMiddleware(backup)]).invoke(
        {"messages": [HumanMessage(REQUEST)]}
    )
    assert out["messages"][-1].content.startswith("I can't help with that request")
    _join_drafts()
    assert not read_marker(backup) and not read_marker(primary), "a model read the refused request"


@pytest.mark.parametrize("order", ["retry first", "guardrail first"])
@pytest.mark.parametrize(
    "case", ["output refused", "judge fails once, on_error=raise", "undecided once, on_inconclusive=raise"]
)
def test_model_retry_middleware_never_retries_a_refusal(order: str, case: str) -> None:
    if case == "output refused":
        primary = chat(DRAFT, DRAFT, DRAFT)
        rail, error = guard(exit_behavior="error", **SEQUENTIAL), GuardrailRefusedError
    else:
        if "fails" in case:
            judge: Any = ScriptedDecisionModel([{CATEGORY: ConnectionError("down")}, *[{CATEGORY: 0.02}] * 2])
            setting, error = {"on_error": "raise"}, GuardrailCheckError
        else:  # no answer at first, then a clean one
            judge = JevWire([{}, *[{CATEGORY: noul(0.02)}] * 2]).model()
            setting, error = {"on_inconclusive": "raise"}, GuardrailUndecidedError
        primary = chat("Fine.", "Fine.", "Fine.")
        rail = JevGuardrailMiddleware(
            categories=[CATEGORY], model=judge, check_output=False, **setting, **SEQUENTIAL
        )
    retry = ModelRetryMiddleware(max_retries=2, initial_delay=0.0, on_failure="error")
    agent = agent_with(primary, [retry, rail] if order == "retry first" else [rail, retry])
    with pytest.raises(error):
        agent.invoke({"messages": [HumanMessage("Tell me a story.")]})
    assert primary.calls <= 1, f"the model was called {primary.calls} times: the refusal was retried"


def _join_drafts() -> None:
    """Wait for the door's draft threads (a hang guard), so a late model call is seen."""
    deadline = time.monotonic() + 30
    for thread in threading.enumerate():
        if thread.name == "jev-guardrail-draft":
            thread.join(max(0.0, deadline - time.monotonic()))


def test_a_tool_node_s_error_handling_never_turns_a_refusal_into_a_tool_result() -> None:
    """A tool that asks a guarded model (a sub-agent): its refusal is not an error message for the outer model."""
    from langchain_core.messages import AIMessage as Reply
    from langchain_core.tools import tool
    from langgraph.prebuilt import ToolNode

    guarded = guard_model(chat(DRAFT), outputs(), exit_behavior="error", **SEQUENTIAL)

    @tool
    def ask_expert(question: str) -> str:
        """Ask the expert model."""
        return str(guarded.invoke(question).content)

    builder = StateGraph(MessagesState)
    builder.add_node("tools", ToolNode([ask_expert], handle_tool_errors=True))
    graph = builder.add_edge(START, "tools").add_edge("tools", END).compile()
    call = {"name": "ask_expert", "args": {"question": "Tell me a story."}, "id": "c1", "type": "tool_call"}
    with pytest.raises(GuardrailRefusedError):
        graph.invoke({"messages": [Reply("", tool_calls=[call])]})
