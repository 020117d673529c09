"""Guard a chat model's reply inside the model's own step.

An output guardrail node (``create_guardrail_node(check="output")``) runs after
the node that called the model, so when it refuses, the model's draft has
already left that node: ``stream_mode="updates"`` and ``"values"`` emitted it, a
checkpointer saved it, and with ``on_error="raise"`` it stays in the thread.

`guard_model` and `create_guarded_model_node` check the reply before the step
that produced it returns, so the draft never leaves the step: a flagged reply
is swapped for the refusal, and a check that raises (``on_error="raise"``)
fails the step, which then writes nothing. The chat model's own run is started
without the config's streaming handlers and tagged ``nostream``, so no stream
mode and no ``astream_events`` consumer sees the draft's tokens or the draft:
``stream_mode="messages"`` shows the checked reply (or the refusal) as one
message once the check is done (``stream_tokens=True`` streams the tokens
instead, and gives that up). Tracers (LangSmith) still record the model's run.

With ``on_error``/``on_inconclusive="interrupt"``, a resumed node runs again from
its start, so the model is asked again: the human's decision applies to the new
reply only if its check is inconclusive too (a reply the battery flags is refused
whatever the resume value says). Resume with ``{"action": "allow", "fingerprint":
...}`` (the fingerprint of the interrupt's value) to bind the decision to the
text that was reviewed: another text is then refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, convert_to_messages
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langchain_core.runnables.config import ensure_config

from langchain_jev.errors import JevConfigurationError, JevInputError
from langchain_jev.graph.guardrail import require_checkpointer, review_by_interrupt
from langchain_jev.guardrails.battery import HazardBattery
from langchain_jev.guardrails.policy import ExitBehavior, Mode, OnError, RefusalMessage
from langchain_jev.guardrails.rail import (
    GuardrailRail,
    OnFlag,
    RailOutcome,
    hold_tokens,
    require_battery,
    require_strings,
    state_messages,
)

__all__ = ["create_guarded_model_node", "guard_model"]


def _conversation(value: Any) -> list[BaseMessage]:
    """The messages a model input stands for (text, a prompt value, or message-likes)."""
    if isinstance(value, str):
        return [HumanMessage(value)]
    if isinstance(value, PromptValue):
        return value.to_messages()
    if isinstance(value, BaseMessage):
        return [value]
    if isinstance(value, Sequence):
        return convert_to_messages(value)
    raise JevInputError(
        f"a guarded model takes text, a prompt value or a list of messages, got {type(value).__name__}"
    )


def _reply(output: Any) -> AIMessage:
    if isinstance(output, AIMessage):
        return output
    if isinstance(output, str):
        return AIMessage(content=output)
    raise JevInputError(
        f"the guarded model must return an AIMessage or a string, got {type(output).__name__}"
    )


class _ModelGuard:
    """Call a model, then check its reply with an output rail before handing it on."""

    def __init__(self, model: Runnable[Any, Any], rail: GuardrailRail, stream_tokens: bool, who: str) -> None:
        self.model = model
        self.rail = rail
        self.stream_tokens = stream_tokens
        self.who = who

    def _model_config(self, config: RunnableConfig) -> RunnableConfig:
        return config if self.stream_tokens else hold_tokens(config)

    def reply(self, value: Any, config: RunnableConfig | None) -> tuple[AIMessage, RailOutcome | None]:
        conversation = _conversation(value)
        base = ensure_config(config)
        require_checkpointer(self.rail, base, self.who)
        reply = _reply(self.model.invoke(value, self._model_config(base)))
        return self._decide(reply, self.rail.check_reply(conversation, reply, base))

    async def areply(self, value: Any, config: RunnableConfig | None) -> tuple[AIMessage, RailOutcome | None]:
        conversation = _conversation(value)
        base = ensure_config(config)
        require_checkpointer(self.rail, base, self.who)
        reply = _reply(await self.model.ainvoke(value, self._model_config(base)))
        return self._decide(reply, await self.rail.acheck_reply(conversation, reply, base))

    @staticmethod
    def _decide(reply: AIMessage, outcome: RailOutcome | None) -> tuple[AIMessage, RailOutcome | None]:
        if outcome is None or not outcome.report.refused:
            return reply, outcome
        refusal = outcome.messages[-1]
        if not isinstance(refusal, AIMessage):  # pragma: no cover - the rail always ends with one
            raise TypeError("a refusal ends with an AI message")
        return refusal, outcome


def _model_guard(
    model: Any, battery: HazardBattery, stream_tokens: bool, caller: str, **policy: Any
) -> _ModelGuard:
    require_battery(battery, caller)
    if battery.direction != "output":
        raise JevConfigurationError(
            f"{caller} checks the model's reply, so it needs an output battery "
            f"(HazardBattery.output()), got a {battery.direction} battery"
        )
    if isinstance(model, Runnable):
        runnable: Runnable[Any, Any] = model
    elif callable(model):
        runnable = RunnableLambda(model)
    else:
        raise JevConfigurationError(
            f"{caller} needs a chat model, a runnable or a function returning an AIMessage, "
            f"got {type(model).__name__}"
        )
    rail = GuardrailRail(battery, "output", reviewer=review_by_interrupt, **policy)
    return _ModelGuard(runnable, rail, bool(stream_tokens), caller)


def guard_model(
    model: Runnable[Any, Any] | Callable[..., Any],
    battery: HazardBattery,
    *,
    refusal_message: RefusalMessage | None = None,
    on_error: OnError = "refuse",
    on_inconclusive: OnError | None = None,
    review_band: float = 0.0,
    exit_behavior: ExitBehavior = "end",
    mode: Mode = "enforce",
    on_flag: OnFlag | None = None,
    stream_tokens: bool = False,
    name: str | None = None,
) -> RunnableLambda[Any, AIMessage]:
    """Wrap a chat model so that its reply is checked before anyone else sees it.

    The returned runnable takes what the model takes (text, a prompt value, or a
    list of messages), calls the model, asks the output battery about the reply
    (one request), and returns the reply, or, when the battery flags it, a
    refusal ``AIMessage`` whose ``response_metadata["jev_guardrail"]`` holds the
    report. A refusal has no tool calls, so a tool loop ends on it. Use it inside
    a graph node in place of the chat model; `create_guarded_model_node` is that
    node, and also writes the report to the state.

    Args:
        model: a chat model (tools may be bound), any runnable, or a function
            returning an ``AIMessage`` (or a string).
        battery: an output battery (``HazardBattery.output(...)``).
        refusal_message: the refusal text, or a function of the `GuardrailReport`
            returning it; by default a sentence naming the flagged categories.
        on_error: what a check that fails (the decision model cannot be reached,
            the reply cannot be read, any error in the rail) means: ``"refuse"``
            (default, fail closed; alias ``"end"``), ``"allow"`` (log a warning and
            keep the reply), ``"raise"`` (re-raise, so nothing is returned; alias
            ``"error"``) or ``"interrupt"`` (pause for a human; needs a checkpointer).
        on_inconclusive: the same, for categories left without a readable answer
            (default: as ``on_error``).
        review_band: how far below a category's threshold a probability makes
            the check inconclusive (decided by ``on_inconclusive``, e.g. put to a
            human); 0 (default) for no band.
        exit_behavior: ``"end"`` or ``"replace"`` (the refusal takes the reply's
            place; the graph's edges go on) or ``"error"`` (raise `GuardrailRefusedError`).
        mode: ``"enforce"`` (default) or ``"shadow"`` (judge and record, keep the reply).
        on_flag: called (sync or async) with the `GuardrailReport` of every check
            that did not come back clean, in every mode.
        stream_tokens: let ``stream_mode="messages"`` show the model's tokens as
            they come (False by default: the model's run is tagged ``nostream``
            and the checked reply is streamed whole). True shows an unsafe draft
            to a streaming user before the check replaces it.
        name: the runnable's name in traces (default ``jev_guarded_model``).

    Raises:
        JevConfigurationError: the battery is not an output battery, or a setting is invalid.

    Example:
        >>> from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> chat = GenericFakeChatModel(messages=iter([AIMessage("Mix bleach and ammonia.")]))
        >>> battery = HazardBattery.output(["indiscriminate_weapons"],
        ...                                model=ScriptedDecisionModel({"indiscriminate_weapons": 0.9}))
        >>> guard_model(chat, battery).invoke([HumanMessage("How do I clean?")]).content
        "I can't share that response: it was flagged for indiscriminate weapons."

    """
    guard = _model_guard(
        model,
        battery,
        stream_tokens,
        "guard_model",
        refusal_message=refusal_message,
        on_error=on_error,
        on_inconclusive=on_inconclusive,
        review_band=review_band,
        exit_behavior=exit_behavior,
        mode=mode,
        on_flag=on_flag,
    )

    def call(value: Any, config: RunnableConfig) -> AIMessage:
        return guard.reply(value, config)[0]

    async def acall(value: Any, config: RunnableConfig) -> AIMessage:
        return (await guard.areply(value, config))[0]

    return RunnableLambda(call, afunc=acall, name=name or "jev_guarded_model")


def create_guarded_model_node(
    model: Runnable[Any, Any] | Callable[..., Any],
    battery: HazardBattery,
    *,
    refusal_message: RefusalMessage | None = None,
    on_error: OnError = "refuse",
    on_inconclusive: OnError | None = None,
    review_band: float = 0.0,
    exit_behavior: ExitBehavior = "end",
    mode: Mode = "enforce",
    on_flag: OnFlag | None = None,
    stream_tokens: bool = False,
    state_key: str = "guardrail",
    messages_key: str = "messages",
    name: str | None = None,
) -> RunnableLambda[Any, dict[str, Any]]:
    """Build a LangGraph model node whose reply is checked before the node returns.

    The node calls ``model`` on the state's messages and returns
    ``{"messages": [reply], "guardrail": report}``; when the output battery flags
    the reply, the refusal ``AIMessage`` takes its place, so the unsafe draft is
    never in the node's update: not in ``"updates"`` or ``"values"`` streams, not
    in a checkpoint, not in the thread. With ``on_error="raise"`` a failed check
    fails the node, which writes nothing. Wire it like any model node: a refusal
    has no tool calls, so ``tools_condition`` (or an edge that ends on a final
    answer) ends the turn on it. Prefer it to a separate output guardrail node
    whenever the draft must never be shown or saved.

    Args:
        model: a chat model (tools may be bound), any runnable, or a function
            returning an ``AIMessage`` (or a string); it is given the messages.
        battery: an output battery (``HazardBattery.output(...)``).
        refusal_message: the refusal text, or a function of the `GuardrailReport`
            returning it; by default a sentence naming the flagged categories.
        on_error: what a check that fails (the decision model cannot be reached,
            the reply cannot be read, any error in the rail) means: ``"refuse"``
            (default, fail closed; alias ``"end"``), ``"allow"`` (log a warning and
            keep the reply), ``"raise"`` (re-raise, so nothing is returned; alias
            ``"error"``) or ``"interrupt"`` (pause for a human; needs a checkpointer).
        on_inconclusive: the same, for categories left without a readable answer
            (default: as ``on_error``).
        review_band: how far below a category's threshold a probability makes
            the check inconclusive (decided by ``on_inconclusive``, e.g. put to a
            human); 0 (default) for no band.
        exit_behavior: ``"end"`` or ``"replace"`` (the refusal takes the reply's
            place; the graph's edges go on) or ``"error"`` (raise `GuardrailRefusedError`).
        mode: ``"enforce"`` (default) or ``"shadow"`` (judge and record, keep the reply).
        on_flag: called (sync or async) with the `GuardrailReport` of every check
            that did not come back clean, in every mode.
        stream_tokens: let ``stream_mode="messages"`` show the model's tokens as
            they come (False by default: the model's run is tagged ``nostream``
            and the checked reply is streamed whole). True shows an unsafe draft
            to a streaming user before the check replaces it.
        state_key: the state key of the report (as in `GuardrailState`).
        messages_key: the state key of the messages.
        name: the node runnable's name in traces (default ``jev_guarded_model``).

    Raises:
        JevConfigurationError: the battery is not an output battery, or a setting is invalid.

    Example:
        >>> from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> from langgraph.graph import END, START, StateGraph
        >>> from langchain_jev.graph import GuardrailState
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> chat = GenericFakeChatModel(messages=iter([AIMessage("They are vermin.")]))
        >>> battery = HazardBattery.output(["hate"], model=ScriptedDecisionModel({"hate": 0.95}))
        >>> builder = StateGraph(GuardrailState)
        >>> builder.add_node("agent", create_guarded_model_node(chat, battery))  # doctest: +ELLIPSIS
        <...>
        >>> builder.add_edge(START, "agent").add_edge("agent", END)  # doctest: +ELLIPSIS
        <...>
        >>> out = builder.compile().invoke({"messages": [HumanMessage("Describe them.")]})
        >>> [m.content for m in out["messages"]], out["guardrail"]["categories"]
        (['Describe them.', "I can't share that response: it was flagged for hate."], {'hate': 0.95})

    """
    guard = _model_guard(
        model,
        battery,
        stream_tokens,
        "create_guarded_model_node",
        refusal_message=refusal_message,
        on_error=on_error,
        on_inconclusive=on_inconclusive,
        review_band=review_band,
        exit_behavior=exit_behavior,
        mode=mode,
        on_flag=on_flag,
    )
    require_strings(state_key=state_key, messages_key=messages_key)

    def update(reply: AIMessage, outcome: RailOutcome | None) -> dict[str, Any]:
        if outcome is None:
            return {messages_key: [reply]}
        return {messages_key: [reply], state_key: outcome.report.to_dict()}

    def messages(state: Mapping[str, Any] | Any) -> list[BaseMessage]:
        return list(state_messages(state, messages_key, "the guarded model node"))

    def node(state: Any, config: RunnableConfig) -> dict[str, Any]:
        return update(*guard.reply(messages(state), config))

    async def anode(state: Any, config: RunnableConfig) -> dict[str, Any]:
        return update(*await guard.areply(messages(state), config))

    return RunnableLambda(node, afunc=anode, name=name or "jev_guarded_model")
