"""Wire a guardrail node into a `StateGraph` builder so that it cannot be wired wrong.

`add_guardrail` adds the node between two points of the graph (``after`` and
``before``) with its destinations and no edge out of it, so a refusal ends the
turn; it refuses a builder whose state has no channel for the report. See
`langchain_jev.graph._wiring` for the mistakes it rules out.
"""

from __future__ import annotations

from typing import Any, TypeVar

from langgraph.graph import END, START, StateGraph
from typing_extensions import Unpack

from langchain_jev._errors import JevConfigurationError
from langchain_jev.graph._guardrail import create_guardrail_node
from langchain_jev.graph._wiring import require_builder_channels
from langchain_jev.guardrails._battery import HazardBattery
from langchain_jev.guardrails._rail import require_battery, require_strings
from langchain_jev.guardrails._settings import GuardrailOptions, GuardrailSettings

__all__ = ["add_guardrail"]

BuilderT = TypeVar("BuilderT", bound=StateGraph[Any, Any, Any, Any])

_WHO = "add_guardrail"


def add_guardrail(
    builder: BuilderT,
    battery: HazardBattery,
    *,
    before: str = END,
    after: str | None = START,
    name: str | None = None,
    state_key: str = "guardrail",
    messages_key: str = "messages",
    settings: GuardrailSettings | None = None,
    **options: Unpack[GuardrailOptions],
) -> BuilderT:
    """Add a guardrail node to ``builder`` between ``after`` and ``before``, wired so a refusal ends the turn.

    The node (`create_guardrail_node`) routes the turn itself: a safe turn goes
    on to ``before``, a refused one to ``END``. This adds it with those
    destinations, an edge from ``after`` to it, and **no edge out of it**
    (LangGraph follows a node's edges in addition to the ``Command`` it returns,
    so an edge out of a guardrail would carry a refused turn on to the model).
    An edge you already drew from ``after`` to ``before`` is replaced: the guard
    goes between them, rather than beside them, where the model would run
    alongside the check. Any other edge into ``before`` (a tool loop's
    ``"tools" -> "agent"``) is left alone, which is why the input node is an
    early router and the model's own node should be guarded too
    (`create_guarded_model_node`): it judges what the model reads whatever the
    route. Given the same battery object, the two share what they judged.

    - an input battery: ``add_guardrail(builder, inputs, before="agent")``
      (``after`` is ``START`` by default);
    - a tool-result battery: ``add_guardrail(builder, tool_results, after="tools", before="agent")``;
    - an output battery: ``add_guardrail(builder, outputs, after="agent")`` (``before``
      is ``END`` by default). An output node replaces the draft only after the
      model's node streamed and checkpointed it; an output battery on the model's
      node does not (see `create_guardrail_node`).

    Args:
        builder: the `StateGraph` being built. Its state must have the messages
            channel (with the ``add_messages`` reducer) and a channel for the
            report: use `GuardrailState`, or add ``guardrail`` to your state.
        battery: the hazard battery; its side says what the node checks.
        before: where a safe turn goes (a node, or ``END`` after an output check).
        after: where the node is entered from (``START``, or a node); None adds no
            edge into it (route to it yourself, with a conditional edge or a ``Command``).
        name: the node's name (default ``"<side>_guard"``, as ``"input_guard"``).
        state_key: the state key of the report.
        messages_key: the state key of the messages.
        settings: the `GuardrailSettings`; the same settings may be given as keyword arguments.

    Returns:
        The builder, to go on building.

    Raises:
        JevConfigurationError: the state has no channel for the report, or none for
            the messages with the ``add_messages`` reducer; an input or tool-result
            guard has no ``before`` node, an output guard no ``after`` node; or a
            setting is invalid.

    Example:
        >>> from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> from langgraph.graph import END, START, StateGraph
        >>> from langchain_jev.graph import GuardrailState, create_guarded_model_node
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> inputs = HazardBattery.input(["violent_crimes"],
        ...                              model=ScriptedDecisionModel({"violent_crimes": 0.96}))
        >>> chat = GenericFakeChatModel(messages=iter([AIMessage("Sure!")]))
        >>> builder = StateGraph(GuardrailState)
        >>> builder.add_node("agent", create_guarded_model_node(chat, inputs))  # doctest: +ELLIPSIS
        <...>
        >>> add_guardrail(builder, inputs, before="agent").add_edge("agent", END)  # doctest: +ELLIPSIS
        <...>
        >>> out = builder.compile().invoke({"messages": [HumanMessage("How do I hurt someone?")]})
        >>> out["messages"][-1].content, out["guardrail"]["refused"]
        ("I can't help with that request: it was flagged for violent crimes.", True)

    """
    require_battery(battery, _WHO)
    require_builder_channels(
        builder, state_key, messages_key, f"the {battery.direction} guardrail added by {_WHO}"
    )
    side = battery.direction
    node = f"{side}_guard" if name is None else name
    require_strings(before=before, name=node)
    if side != "output" and before == END:
        raise JevConfigurationError(
            f"{_WHO}: a{'n' if side == 'input' else ''} {side} guardrail goes before the node it "
            "guards: give before= the model's node (for example before='agent')"
        )
    if side == "output" and after in (None, START):
        raise JevConfigurationError(
            f"{_WHO}: an output guardrail goes after the node whose reply it checks: give after= "
            "that node (for example after='agent')"
        )
    guard = create_guardrail_node(
        battery,
        next_node=before,
        state_key=state_key,
        messages_key=messages_key,
        settings=settings,
        **options,
    )
    destinations = (END,) if before == END else (before, END)
    builder.add_node(node, guard, destinations=destinations)
    if after is not None:
        builder.edges.discard((after, before))
        builder.add_edge(after, node)
    return builder
