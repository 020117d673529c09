"""A LangGraph guardrail node: refuse a turn that a hazard battery flags.

The node always answers with a `Command`, so it routes the turn itself:

- a flagged turn goes to ``END`` with a refusal ``AIMessage`` (an output check
  first removes the unsafe AI message; a tool-result check withholds the flagged
  tool results) and the report, flagged categories with their probabilities, in
  the state under ``guardrail``;
- a safe turn goes on to ``next_node`` with the messages untouched and the
  report (``refused: false``) in the state.

Wiring: add the node with its destinations and give it **no outgoing edge**
(`add_guardrail` does both). LangGraph follows a node's static edges in addition
to ``Command.goto``, so an edge out of a guardrail node would carry a refused
turn on to the next node: the node refuses to run, on its first run, when it has
one (see `langchain_jev.graph._wiring`)::

    builder = StateGraph(GuardrailState)
    builder.add_node("input_guard", create_guardrail_node(HazardBattery.input(), next_node="agent"),
                     destinations=("agent", END))
    builder.add_node("agent", call_model)
    builder.add_node("output_guard", create_guardrail_node(HazardBattery.output()),
                     destinations=(END,))
    builder.add_edge(START, "input_guard")
    builder.add_edge("agent", "output_guard")     # no edge out of either guard

The messages must live in a channel with the ``add_messages`` reducer (as in
`MessagesState`), which is how a refusal replaces an unsafe message (the node
refuses to run over messages with no reducer or with ``operator.add``). Use
`GuardrailState`, or add a ``guardrail`` key to your own state, to keep the report:
LangGraph drops an update to a key its state does not declare, so the node gives
a `GuardrailWiringWarning` on its first run in a graph without one.

An input node is an **early router**: it refuses a flagged request before the
model's node runs, saving the model call. It is never the only gate: a route
around it (a ``Command(goto=...)``, ``update_state(..., as_node=...)``, ``Send``)
skips it, so put the input battery on the model's door too
(`create_guarded_model_node(model, HazardBattery.input(), HazardBattery.output())`),
which judges exactly what the model is about to receive. Given the same battery
object, the two share what they judged (the battery's ledger), so the door does
not ask again about what the node passed. An input node judges every message
its ledger has not seen judged, every role, with ``context_messages`` earlier
messages as context; a refused request is replaced in the thread by a
placeholder (same id), so no later turn shows it to the model.

An output node cannot keep a draft from being seen or saved. It runs after the
node that called the model, whose update (the draft) is already out when the
output node refuses: every stream mode and ``astream_events`` have shown it, a
checkpointer has saved it, and when the node raises (``on_error="raise"``,
``exit_behavior="error"``) it writes nothing, so the draft stays in the thread.
To check a model's reply before its step returns, guard the model itself:
`create_guarded_model_node` (a model node) or `guard_model` (a runnable to call
inside your node)::

    builder.add_node("agent", create_guarded_model_node(model, HazardBattery.input(),
                                                        HazardBattery.output()))
    builder.add_conditional_edges("agent", tools_condition)   # a refusal has no tool calls

Settings (`GuardrailSettings`, or the same as keyword arguments), shared with the
guarded model node and the middleware: ``mode="shadow"`` judges and records
without ever blocking; ``on_error`` / ``on_inconclusive="interrupt"`` pause the
graph with ``interrupt()`` for a human (they need ``review_key``, and the graph
a checkpointer: the node says so on its first run without one), resumed with
``Command(resume="refuse")`` or ``Command(resume={"decision": "allow", "token":
review_token(key, request)})`` (``request``: the interrupt's value; the token counts
once, for that thread, pause and text, within ``review_ttl``); ``exit_behavior`` is ``"end"``, ``"error"``
or ``"replace"``; ``on_flag`` is called with the report of every check that did
not come back clean; ``timeout`` bounds each check.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NotRequired

from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langgraph.config import get_config
from langgraph.graph import END, MessagesState
from langgraph.types import Command, interrupt
from typing_extensions import Unpack

from langchain_jev._errors import JevConfigurationError
from langchain_jev.graph._wiring import (
    report_channel_warning,
    require_messages_reducer,
    require_no_route_out,
)
from langchain_jev.guardrails._battery import HazardBattery
from langchain_jev.guardrails._catalog import DIRECTIONS, Direction
from langchain_jev.guardrails._rail import (
    GuardrailRail,
    RailOutcome,
    require_battery,
    require_strings,
    state_messages,
)
from langchain_jev.guardrails._review import ReviewAnswer
from langchain_jev.guardrails._settings import GuardrailOptions, GuardrailSettings

__all__ = ["GuardrailState", "create_guardrail_node", "require_checkpointer", "review_by_interrupt"]

_CHECKPOINTER_KEY = "__pregel_checkpointer"
"""Where LangGraph puts a run's checkpointer in the config (None when the graph has none)."""


_SCRATCHPAD_KEY = "__pregel_scratchpad"
"""Where LangGraph keeps a task's resume values in its config (the answers it already took)."""


def review_by_interrupt(request: dict[str, Any]) -> ReviewAnswer:
    """Pause the graph with ``interrupt(request)``; return the human's ``Command(resume=...)`` value.

    The answer says whether LangGraph replays it: a task runs again from its start
    on each resume, and hands every ``interrupt`` it passed again the answer it
    took then (a replay), which a spent review token still counts for.
    """
    configurable = get_config().get("configurable") or {}
    answers = getattr(configurable.get(_SCRATCHPAD_KEY), "resume", None)
    before = len(answers) if isinstance(answers, list) else None
    value = interrupt(request)
    replayed = before is not None and isinstance(answers, list) and len(answers) == before
    return ReviewAnswer(value, replayed)


def require_checkpointer(rail: GuardrailRail, config: RunnableConfig | None, who: str) -> None:
    """Fail before any check when ``rail`` may pause the graph but the graph has no checkpointer.

    A node cannot see the graph it is compiled into, so this is checked on its
    first run rather than when it is built.

    Raises:
        JevConfigurationError: the policy may interrupt and there is no checkpointer.

    """
    if not rail.policy.reviews:
        return
    configurable = (config or {}).get("configurable") or {}
    if configurable.get(_CHECKPOINTER_KEY) is None:
        raise JevConfigurationError(
            f"{who} has on_error or on_inconclusive='interrupt', which pauses the graph for a "
            "human, and a paused graph can only be resumed from a checkpoint: compile the graph "
            "with a checkpointer (for example checkpointer=InMemorySaver()) and run it with a "
            "thread_id. (A node cannot see its graph when it is built, so this is checked on "
            "its first run.)"
        )


class GuardrailState(MessagesState):
    """`MessagesState` with the guardrail's report under ``guardrail``.

    The report is ``{"check", "refused", "categories", "undecided", "error",
    "strictness"}``; ``categories`` maps each flagged category to its probability.

    Example:
        >>> sorted(GuardrailState.__annotations__)
        ['guardrail', 'messages']

    """

    guardrail: NotRequired[dict[str, Any] | None]


def create_guardrail_node(
    battery: HazardBattery,
    *,
    check: Direction | None = None,
    next_node: str = END,
    state_key: str = "guardrail",
    messages_key: str = "messages",
    name: str | None = None,
    settings: GuardrailSettings | None = None,
    **options: Unpack[GuardrailOptions],
) -> RunnableLambda[Any, Command[str]]:
    """Build a LangGraph node that refuses a turn the battery flags.

    The node makes one battery request per run, under ``invoke`` and ``ainvoke``.
    It returns ``Command(goto=END, update=...)`` on a refusal and
    ``Command(goto=next_node, update=...)`` otherwise (``exit_behavior="replace"``
    goes on to ``next_node`` with the replacement); add it with
    ``destinations=(next_node, END)`` and no outgoing edge (see the module docs).
    With nothing of its side to check (no human message, no final AI message,
    no trailing tool messages), it goes on to ``next_node`` without an update.

    Args:
        battery: the hazard battery to ask.
        check: ``"input"`` (the turn: every human message since the model last
            spoke, with earlier messages as context; a refusal replaces them in the
            thread by a placeholder), ``"output"`` (everything the final AI
            message, which a refusal replaces) or ``"tool_results"`` (the tool
            messages that end the conversation, which a refusal withholds).
            Defaults to the battery's side, and must match it. An output node
            replaces the draft only after the model's node emitted and
            checkpointed it; use `create_guarded_model_node` or `guard_model`
            when the draft must never be streamed or saved (see the module docs).
        next_node: where a safe turn goes (``END`` by default, for a last check).
        settings: the `GuardrailSettings` (``on_error``, ``mode``, ``exit_behavior``,
            ``timeout``, ...); the same settings may be given as keyword arguments,
            laid over them. ``exit_behavior="replace"`` replaces the flagged
            messages and goes on to ``next_node``.
        state_key: the state key of the report.
        messages_key: the state key of the messages.
        name: the node runnable's name in traces (default ``jev_guardrail_<check>``).

    Raises:
        JevConfigurationError: a setting is invalid, or ``check`` does not match the battery.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> from langgraph.graph import START, StateGraph
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> battery = HazardBattery.input(["violent_crimes"],
        ...                               model=ScriptedDecisionModel({"violent_crimes": 0.96}))
        >>> builder = StateGraph(GuardrailState)
        >>> builder.add_node("guard", create_guardrail_node(battery, next_node="agent"),
        ...                  destinations=("agent", END))  # doctest: +ELLIPSIS
        <...>
        >>> builder.add_node("agent", lambda state: {"messages": [AIMessage("Sure!")]})  # doctest: +ELLIPSIS
        <...>
        >>> builder.add_edge(START, "guard").add_edge("agent", END)  # doctest: +ELLIPSIS
        <...>
        >>> out = builder.compile().invoke({"messages": [HumanMessage("How do I hurt someone?")]})
        >>> out["messages"][-1].content, out["guardrail"]["categories"]
        ("I can't help with that request: it was flagged for violent crimes.", {'violent_crimes': 0.96})

    """
    require_battery(battery, "create_guardrail_node")
    side = battery.direction if check is None else check
    if side not in DIRECTIONS:
        raise JevConfigurationError(f"check must be one of {', '.join(DIRECTIONS)}; got {check!r}")
    if side != battery.direction:
        raise JevConfigurationError(
            f"check={side!r} needs a {side} battery, got a {battery.direction} battery "
            f"(build it with HazardBattery.{side}())"
        )
    require_strings(next_node=next_node, state_key=state_key, messages_key=messages_key)
    rail = GuardrailRail(battery, side, reviewer=review_by_interrupt, settings=settings, **options)
    who = f"the {side} guardrail node"

    def messages_of(state: Any) -> Sequence[BaseMessage]:
        return state_messages(state, messages_key, "the guardrail node")

    def command(outcome: RailOutcome | None) -> Command[str]:
        if outcome is None:
            return Command(goto=next_node)
        update: dict[str, Any] = {state_key: outcome.report.to_dict()}
        if outcome.report.refused:
            update[messages_key] = outcome.messages
            return Command(goto=END if outcome.ends else next_node, update=update)
        return Command(goto=next_node, update=update)

    warn_once = report_channel_warning(state_key, who)

    def wired(config: RunnableConfig) -> None:
        require_no_route_out(config, (guard, aguard), who, next_node)
        require_messages_reducer(config, messages_key, who)
        require_checkpointer(rail, config, who)
        warn_once(config)

    def guard(state: Any, config: RunnableConfig) -> Command[str]:
        wired(config)
        return command(rail.run(messages_of(state), config))

    async def aguard(state: Any, config: RunnableConfig) -> Command[str]:
        wired(config)
        return command(await rail.arun(messages_of(state), config))

    return RunnableLambda(guard, afunc=aguard, name=name or f"jev_guardrail_{side}")
