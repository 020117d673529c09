"""Guard a chat model at its door: what it reads and what it writes are judged inside its own step.

`guard_model` (a runnable) and `create_guarded_model_node` (a LangGraph model
node) put the model behind `GuardrailDoor`, given any of an input, an output
and a tool-result battery:

- **what the model reads**: the messages it is about to receive, every role
  (system, developer, user, assistant messages the caller wrote, tool and
  function results), every string they carry, are judged by the input battery
  at the moment of the call. What the battery judged before is found in its
  ledger by content and not judged again; anything new, edited, re-identified or
  moved is. So no route to the model (a ``Command(goto=...)``, ``Send``,
  ``update_state(..., as_node=...)``, a resumed interrupt, a reused message id)
  reaches it unjudged, whether or not an input node ran first. A refused request
  never reaches the model: the node replaces it in the thread by a placeholder
  (same id) and answers with the refusal.
- **what the model writes**: its reply (every block and key, metadata, name,
  tool calls; text-like media decoded; binary media through ``on_unjudgeable``)
  is judged before the step returns, so an unsafe draft never leaves the step:
  a flagged reply is swapped for the refusal, and a check that raises
  (``on_error="raise"``) fails the step, which then writes nothing.
- **nothing of the draft is seen**: the model runs as a hidden run that carries
  no handler of the caller's but the allowed tracers (LangSmith's, and
  ``allowed_tracers``), from the config, the context or the model's own
  ``callbacks=``, with LangGraph's stream writer removed, as the context config
  too, so no stream mode, ``astream_events``, handler, nested model call,
  ``get_stream_writer()`` or ``dispatch_custom_event`` shows it;
  ``stream_mode="messages"`` shows the checked reply (or the refusal) whole
  (``stream_tokens=True`` streams the tokens instead, and gives that up).

With ``on_error``/``on_inconclusive="interrupt"`` (which needs ``review_key``), a
resumed node runs again from its start, so the model is asked again: an
authenticated allow applies to the new reply only if it is the text reviewed
(the token is bound to its thread, its pause and its fingerprint).

``with_fallbacks`` and ``with_retry`` on what `guard_model` and
`create_guarded_model_node` return compose the *model* behind the same door: a
fallback model's reply is judged by the same batteries, and a refusal (a
`GuardrailStop`) is never handed to a fallback nor retried.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, convert_to_messages
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langchain_core.runnables.config import ensure_config
from langgraph.prebuilt import ToolNode
from typing_extensions import Unpack

from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev.graph._bindings import areturning_stops, kept, returning_stops
from langchain_jev.graph._guardrail import require_checkpointer, review_by_interrupt
from langchain_jev.graph._wiring import report_channel_warning, require_messages_reducer
from langchain_jev.guardrails._battery import HazardBattery
from langchain_jev.guardrails._blocks import reads_stored_responses, stored_references
from langchain_jev.guardrails._door import DoorOutcome, GuardrailDoor
from langchain_jev.guardrails._early import may_start_early
from langchain_jev.guardrails._hidden import hidden_runnable
from langchain_jev.guardrails._rail import GuardrailRail, require_battery, require_strings, state_messages
from langchain_jev.guardrails._settings import GuardrailOptions, GuardrailSettings
from langchain_jev.guardrails._tools import ToolGate

try:
    from langgraph._internal._constants import CONFIG_KEY_READ_STATE
except ImportError:  # pragma: no cover - the key's name where LangGraph does not export it
    CONFIG_KEY_READ_STATE = "__pregel_read_state"

__all__ = ["create_guarded_model_node", "create_guarded_tool_node", "guard_model", "in_thread", "model_door"]


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


def model_door(
    batteries: Sequence[HazardBattery],
    caller: str,
    settings: GuardrailSettings | None = None,
    **options: Unpack[GuardrailOptions],
) -> GuardrailDoor:
    """The door of a guarded model: a rail per battery (one of each side at most), reviewed by ``interrupt``.

    Raises:
        JevConfigurationError: no battery, something else than a battery, two of one side, or a bad setting.

    """
    chosen = GuardrailSettings.of(settings, **options)
    if not batteries:
        raise JevConfigurationError(
            f"{caller} needs at least one battery: HazardBattery.input() to judge what the model "
            "reads, HazardBattery.output() to judge what it writes"
        )
    rails: dict[str, GuardrailRail] = {}
    for battery in batteries:
        require_battery(battery, caller)
        if battery.direction in rails:
            raise JevConfigurationError(f"{caller} takes one {battery.direction} battery, got two")
        rails[battery.direction] = GuardrailRail(
            battery, battery.direction, reviewer=review_by_interrupt, settings=chosen
        )
    return GuardrailDoor(
        input=rails.get("input"),
        tool_results=rails.get("tool_results"),
        output=rails.get("output"),
        settings=chosen,
    )


def _runnable(model: Any, caller: str) -> Runnable[Any, Any]:
    if isinstance(model, Runnable):
        return model
    if callable(model):
        return RunnableLambda(model)
    raise JevConfigurationError(
        f"{caller} needs a chat model, a runnable or a function returning an AIMessage, "
        f"got {type(model).__name__}"
    )


class _ModelGuard:
    """A model behind its door: each call passes the door's one procedure."""

    def __init__(
        self,
        model: Runnable[Any, Any],
        door: GuardrailDoor,
        who: str,
        *,
        read: tuple[Runnable[Any, Any], ...] | None = None,
        name: str | None = None,
    ) -> None:
        self.model = model
        self.door = door
        self.who = who
        self.read = (model,) if read is None else read
        self.name = name or model.get_name()

    @property
    def early(self) -> bool:
        """Whether this call may start before its input is judged, read now (`may_start_early`).

        Read on every call, from the models themselves (``read``: the model, its fallbacks, a
        binding): a model given a built-in tool or a setting after guarding (``chat.model_kwargs =
        ...``) waits for its verdict from its next call on. No cache: the read costs about 0.2 ms,
        and a cache keyed on the model would keep a verdict an in-place edit changes.
        """
        return all(may_start_early(part) for part in self.read)

    def around(self, model: Runnable[Any, Any], *read: Runnable[Any, Any]) -> _ModelGuard:
        """The same door around ``model`` (with its fallbacks or retries); ``read`` are read too."""
        return _ModelGuard(model, self.door, self.who, read=(*self.read, *read), name=self.name)

    def _calls(self, messages: list[BaseMessage]) -> tuple[Any, Any]:
        model = self.model

        def invoke(config: RunnableConfig) -> Any:
            return hidden_runnable(model).invoke(messages, config)

        async def ainvoke(config: RunnableConfig) -> Any:
            return await hidden_runnable(model).ainvoke(messages, config)

        return invoke, ainvoke

    def _procedure(self, value: Any, config: RunnableConfig | None) -> Any:
        messages = _conversation(value)
        base = ensure_config(config)
        for rail in self.door.rails:
            require_checkpointer(rail, base, self.who)
        invoke, ainvoke = self._calls(messages)
        return self.door.passing(
            messages,
            invoke,
            ainvoke,
            _reply,
            base,
            self._calls,
            early=self.early,
            name=self.name,
            stored=stored_references(self.model),
            reads_stored=reads_stored_responses(self.model),
        )

    def pass_(self, value: Any, config: RunnableConfig | None) -> DoorOutcome:
        return self.door.run(self._procedure(value, config))

    async def apass(self, value: Any, config: RunnableConfig | None) -> DoorOutcome:
        return await self.door.arun(self._procedure(value, config))


_BOUND_BEFORE_GUARDING = frozenset({"tools", "functions", "tool_choice", "response_format"})
"""What ``bind`` refuses after guarding, as ``bind_tools`` and ``with_structured_output`` are."""


class _Guarded(RunnableLambda[Any, Any]):
    """The runnable of a guarded model (or its node): its fallbacks and retries stay behind its door.

    ``with_fallbacks`` and ``with_retry`` compose the *model* and put the result
    behind the same door: a fallback model's reply is judged by the same
    batteries, and a refusal, decided outside the composed model, is never handed
    to a fallback nor retried. ``batch(..., return_exceptions=True)`` returns a
    `GuardrailStop` in its input's place, as it does an error.
    """

    def __init__(
        self,
        guard: _ModelGuard,
        make: Callable[[_ModelGuard], tuple[Callable[..., Any], Callable[..., Any]]],
        name: str,
        *,
        caught: bool = False,
    ) -> None:
        call, acall = make(guard)
        if caught:
            call, acall = returning_stops(call), areturning_stops(acall)
        super().__init__(call, afunc=acall, name=name)
        self._guard = guard
        self._make = make
        self._label = name

    def _around(self, model: Runnable[Any, Any], *read: Runnable[Any, Any]) -> _Guarded:
        return _Guarded(self._guard.around(model, *read), self._make, self._label)

    def with_fallbacks(  # type: ignore[override]
        self,
        fallbacks: Sequence[Runnable[Any, Any]],
        *,
        exceptions_to_handle: tuple[type[BaseException], ...] = (Exception,),
        exception_key: str | None = None,
    ) -> _Guarded:
        """The model with ``fallbacks`` (LangChain's ``with_fallbacks``), behind the same door.

        Raises:
            JevConfigurationError: ``exception_key`` is given (a guarded model takes messages, not a dict).

        """
        if exception_key is not None:
            raise JevConfigurationError(
                f"{self._guard.who}(...).with_fallbacks cannot take exception_key: a guarded model "
                "takes messages, not a dict to put the error in"
            )
        runnables = [_runnable(fallback, "with_fallbacks") for fallback in fallbacks]
        composed = self._guard.model.with_fallbacks(runnables, exceptions_to_handle=exceptions_to_handle)
        return self._around(composed, *runnables)

    def with_retry(self, **kwargs: Any) -> _Guarded:
        """The model with retries (LangChain's ``with_retry``, same arguments), behind the same door."""
        return self._around(self._guard.model.with_retry(**kwargs))

    def bind(self, **kwargs: Any) -> Runnable[Any, Any]:
        """The *model* bound to ``kwargs`` (``stop=``, ``temperature=``, ...), behind the same door.

        As a chat model's ``bind``: the arguments reach the model on every call, and
        its replies are judged by the same batteries. Whether the model may start
        before its input is judged is read again from the bound model (a binding
        that makes the provider act waits for the verdict). Tools and schemas are
        bound before guarding, as with ``bind_tools``. With no arguments, the
        guarded runnable as LangChain binds it, its ``with_fallbacks`` still behind
        the door.

        Raises:
            TypeError: ``tools``, ``functions``, ``tool_choice`` or ``response_format``
                is given: bind the model, then guard it.

        """
        if not kwargs:
            return kept(super().bind())
        tooling = sorted(set(kwargs) & _BOUND_BEFORE_GUARDING)
        if tooling:
            raise TypeError(
                f"{self._guard.who}(...).bind cannot take {', '.join(tooling)}: bind the model, then "
                f"guard it ({self._guard.who}(chat.bind_tools(...), ...))"
            )
        bound = self._guard.model.bind(**kwargs)
        return self._around(bound, bound)

    def with_config(self, config: RunnableConfig | None = None, **kwargs: Any) -> Runnable[Any, Any]:
        """As ``Runnable.with_config``; the binding's ``with_fallbacks`` stays behind the door too."""
        return kept(super().with_config(config, **kwargs))

    def with_listeners(self, **kwargs: Any) -> Runnable[Any, Any]:
        """As ``Runnable.with_listeners``; the binding's ``with_fallbacks`` stays behind the door too."""
        return kept(super().with_listeners(**kwargs))

    def with_alisteners(self, **kwargs: Any) -> Runnable[Any, Any]:
        """As ``Runnable.with_alisteners``; the binding's ``with_fallbacks`` stays behind the door too."""
        return kept(super().with_alisteners(**kwargs))

    def with_types(self, **kwargs: Any) -> Runnable[Any, Any]:
        """As ``Runnable.with_types``; the binding's ``with_fallbacks`` stays behind the door too."""
        return kept(super().with_types(**kwargs))

    def batch(
        self, inputs: list[Any], *args: Any, return_exceptions: bool = False, **kwargs: Any
    ) -> list[Any]:
        """As ``Runnable.batch``; with ``return_exceptions`` a `GuardrailStop` is returned in its place."""
        runner = self._catching() if return_exceptions else self
        return RunnableLambda.batch(runner, inputs, *args, return_exceptions=return_exceptions, **kwargs)

    async def abatch(
        self, inputs: list[Any], *args: Any, return_exceptions: bool = False, **kwargs: Any
    ) -> list[Any]:
        """Asynchronous `batch`."""
        runner = self._catching() if return_exceptions else self
        return await RunnableLambda.abatch(
            runner, inputs, *args, return_exceptions=return_exceptions, **kwargs
        )

    def _catching(self) -> _Guarded:
        """This runnable, returning a stop instead of raising it (what ``return_exceptions`` asks)."""
        return _Guarded(self._guard, self._make, self._label, caught=True)


def guard_model(
    model: Runnable[Any, Any] | Callable[..., Any],
    *batteries: HazardBattery,
    name: str | None = None,
    settings: GuardrailSettings | None = None,
    **options: Unpack[GuardrailOptions],
) -> RunnableLambda[Any, AIMessage]:
    """Wrap a chat model so that what it reads and what it writes are judged at its door.

    The returned runnable takes what the model takes (text, a prompt value, or a
    list of messages). With an input battery, the messages (every role) are
    judged before the model is called, each once (see the module docs): a
    refused request is answered with the refusal and the model is not called.
    With an output battery, the reply is judged before it is returned: a flagged
    one is replaced by a refusal ``AIMessage`` whose
    ``response_metadata["jev_guardrail"]`` holds the report. A refusal has no
    tool calls, so a tool loop ends on it. `create_guarded_model_node` is the
    same as a graph node, which also writes the report and the placeholders of
    refused messages to the state.

    Args:
        model: a chat model (tools may be bound), any runnable, or a function
            returning an ``AIMessage`` (or a string).
        batteries: up to one of each side: ``HazardBattery.input(...)`` (what the
            model reads), ``HazardBattery.output(...)`` (what it writes),
            ``HazardBattery.tool_results(...)`` (injected instructions in tool results).
        name: the runnable's name in traces (default ``jev_guarded_model``).
        settings: the `GuardrailSettings`; the same settings may be given as keyword
            arguments (``on_error=``, ``mode=``, ``timeout=``, ...), laid over them.

    Raises:
        JevConfigurationError: no battery, two of one side, or a setting is invalid.

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
    guard = _ModelGuard(
        _runnable(model, "guard_model"),
        model_door(batteries, "guard_model", settings, **options),
        "guard_model",
    )
    return _Guarded(guard, _model_calls, name or "jev_guarded_model")


def _model_calls(guard: _ModelGuard) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """What `guard_model` runs: the door's procedure, returning the message released."""

    def call(value: Any, config: RunnableConfig) -> AIMessage:
        return _released(guard.pass_(value, config))

    async def acall(value: Any, config: RunnableConfig) -> AIMessage:
        return _released(await guard.apass(value, config))

    return call, acall


def _released(outcome: DoorOutcome) -> AIMessage:
    if outcome.reply is None:  # pragma: no cover - _reply reads every output or raises
        raise JevInputError("the guarded model returned no reply")
    return outcome.reply


def create_guarded_model_node(
    model: Runnable[Any, Any] | Callable[..., Any],
    *batteries: HazardBattery,
    state_key: str = "guardrail",
    messages_key: str = "messages",
    name: str | None = None,
    settings: GuardrailSettings | None = None,
    **options: Unpack[GuardrailOptions],
) -> RunnableLambda[Any, dict[str, Any]]:
    """Build a LangGraph model node whose model is judged at its door (what it reads and writes).

    The node calls ``model`` on the state's messages and returns
    ``{"messages": [reply], "guardrail": report}``. With an input battery, the
    messages the model is about to receive are judged first, each once, however
    the graph got here (an input node, a ``Command``, ``update_state``, ``Send``,
    a reused id): a refused request is replaced in the thread by a placeholder
    and answered with the refusal, and the model is not called. With an output
    battery, the reply is judged before the node returns: a flagged one is never
    in the node's update (not in ``"updates"`` or ``"values"`` streams, not in a
    checkpoint, not in the thread); with ``on_error="raise"`` a failed check
    fails the node, which writes nothing. Wire it like any model node: a refusal
    has no tool calls, so ``tools_condition`` ends the turn on it.

    Args:
        model: a chat model (tools may be bound), any runnable, or a function
            returning an ``AIMessage`` (or a string); it is given the messages.
        batteries: up to one of each side (input, output, tool results), as for `guard_model`.
        state_key: the state key of the report (as in `GuardrailState`).
        messages_key: the state key of the messages.
        name: the node runnable's name in traces (default ``jev_guarded_model``).
        settings: the `GuardrailSettings`; the same settings may be given as keyword arguments.

    Raises:
        JevConfigurationError: no battery, two of one side, or a setting is invalid.

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
    who = "create_guarded_model_node"
    guard = _ModelGuard(_runnable(model, who), model_door(batteries, who, settings, **options), who)
    require_strings(state_key=state_key, messages_key=messages_key)

    def update(outcome: DoorOutcome) -> dict[str, Any]:
        written: dict[str, Any] = {
            messages_key: [*outcome.withheld, *([outcome.reply] if outcome.reply else [])]
        }
        if outcome.report is not None:
            written[state_key] = outcome.report.to_dict()
        return written

    def messages(state: Mapping[str, Any] | Any) -> list[BaseMessage]:
        return list(state_messages(state, messages_key, "the guarded model node"))

    warn_once = report_channel_warning(state_key, "the guarded model node")

    def wired(config: RunnableConfig) -> None:
        require_messages_reducer(config, messages_key, "the guarded model node")
        warn_once(config)

    def node_calls(guard: _ModelGuard) -> tuple[Callable[..., Any], Callable[..., Any]]:
        def node(state: Any, config: RunnableConfig) -> dict[str, Any]:
            wired(config)
            return update(guard.pass_(messages(state), config))

        async def anode(state: Any, config: RunnableConfig) -> dict[str, Any]:
            wired(config)
            return update(await guard.apass(messages(state), config))

        return node, anode

    return _Guarded(guard, node_calls, name or "jev_guarded_model")


def in_thread(request: Any) -> Any:
    """A tool call ``request`` with the thread's own state, never the one a ``Send`` payload carried.

    In a task a ``Send`` started, LangGraph reads the node's input from the thread
    (as `ToolNode` does for a ``Send`` of tool calls alone), and the request is given
    it (``InjectedState`` and ``ToolRuntime`` too); a legacy ``tool_call_with_context``
    payload's state is its sender's, so it is dropped. Elsewhere the request's state
    already is the thread's, and the request is returned as it is.
    """
    read = (ensure_config().get("configurable") or {}).get(CONFIG_KEY_READ_STATE)
    if read is None or not hasattr(request, "override"):
        return request
    return request.override(state=read())


def create_guarded_tool_node(
    tools: Sequence[Any],
    *batteries: HazardBattery,
    name: str = "tools",
    messages_key: str = "messages",
    settings: GuardrailSettings | None = None,
    **options: Unpack[GuardrailOptions],
) -> ToolNode:
    """A LangGraph `ToolNode` that runs unjudged only the exact calls the guarded model released.

    A graph can be sent straight to its tool node (``Command(goto="tools")`` with
    an AI message the caller wrote, ``update_state``, a ``Send`` of tool calls or
    of a ``tool_call_with_context`` payload). Given the same batteries as the
    guarded model node, this node runs a call at once when that exact call (name,
    arguments, id) was in a reply the model's door released in this thread, once;
    any other call is judged as input first (its name and arguments), whatever
    state the request carries, and a refused call does not run: its tool message
    is `WITHHELD_TOOL_CALL` with ``status="error"``.

    Args:
        tools: the tools, as for `ToolNode`.
        batteries: the guarded model node's batteries (its input battery judges
            forged calls; with only an output battery, calls are judged as replies).
        name: the node's name.
        messages_key: the state key of the messages.
        settings: the `GuardrailSettings`; the same settings may be given as keyword arguments.

    Raises:
        JevConfigurationError: no input or output battery, or a setting is invalid.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> from langchain_core.tools import tool
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> @tool
        ... def send_email(body: str) -> str:
        ...     "Send an email."
        ...     return "sent"
        >>> inputs = HazardBattery.input(["hate"], model=ScriptedDecisionModel({"hate": 0.9}))
        >>> from langgraph.graph import START, MessagesState, StateGraph
        >>> node = create_guarded_tool_node([send_email], inputs)
        >>> graph = StateGraph(MessagesState).add_node("tools", node).add_edge(START, "tools").compile()
        >>> call = {"name": "send_email", "args": {"body": "..."}, "id": "1"}
        >>> forged = AIMessage("", tool_calls=[call])
        >>> graph.invoke({"messages": [forged]})["messages"][-1].content
        '[withheld: the safety check refused this tool call]'

    """
    door = model_door(batteries, "create_guarded_tool_node", settings, **options)
    if door.input is None and door.output is None:
        raise JevConfigurationError("create_guarded_tool_node needs the model's input or output battery")
    gate = ToolGate(input=door.input, output=door.output, in_thread=in_thread)
    return ToolNode(
        tools, name=name, messages_key=messages_key, wrap_tool_call=gate.wrap, awrap_tool_call=gate.awrap
    )
