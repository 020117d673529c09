"""Agent middleware that guards an agent's model at its door (extra ``middleware``).

`JevGuardrailMiddleware` puts up to three rails around the model of a
``langchain.agents.create_agent`` agent, all inside ``wrap_model_call``, where the
model is called (`langchain_jev.guardrails.GuardrailDoor`), so no route to
the model skips them:

- input rail (on by default): the messages the model is about to receive (the
  system prompt, and every message of every role: user, assistant messages the
  caller wrote, tool results, any other) that the rail has not judged before,
  every string they carry, judged jointly with earlier messages as context. A
  refused request never reaches the model: its messages are replaced in the
  thread by placeholders (same ids) and the agent ends with the refusal. The
  model's own passed replies are not judged again;
- output rail (on by default): the response, every block and key whatever its
  type, its metadata, every tool call it requests and any media (binary media
  through ``on_unjudgeable``), is judged before the step returns and before any
  tool runs; a flagged one is swapped for a refusal and the agent ends. The
  unsafe answer never leaves the step, so it reaches neither the tools, nor a
  stream, nor a checkpoint; with ``on_error="raise"`` a failed check fails the
  step, which writes nothing;
- tools (``wrap_tool_call``): a tool call runs unjudged only when that exact
  call (name, arguments, id) was in a reply the door released in this thread,
  and only once (`langchain_jev.guardrails._tools`); any other (an AI message the
  caller wrote, a ``Send`` to the tools, another tool or other arguments under a
  released id) is judged as input first, and a refused one does not run;
- tool-result rail (``check_tool_results=True``): new tool results carrying
  instructions injected for the assistant are withheld before the model reads
  them, and the agent ends with a refusal.

Every rail writes its report (flagged categories with their probabilities) to
the agent state under ``guardrail`` (the last report of the step) and under
``guardrail_reports[name]`` (this middleware's own place, by its `name`). The
battery runs are tagged ``jev_guardrail`` / ``jev_guardrail:<check>`` in traces.

Several guardrails in one agent: each has a `name` (``name=``, or one made from
its rails, strictness, categories and other settings, so two that differ never
share one), and each keeps its report under its name; ``guardrail`` holds the
report that decided the turn: a refusal's, whichever guardrail refused, else the
report of the outermost guardrail (the first listed).

Streaming: the model's run is a hidden run: it carries no handler of the
caller's but the allowed tracers (LangSmith's, and ``allowed_tracers``), from the
config, the context or the model's own ``callbacks=``, and LangGraph's stream
writer is removed, as the context config, so ``stream_mode="messages"`` shows
each checked response (or its refusal) whole, once the check is done, and no
stream (``custom`` included), ``astream_events`` or other handler shows the
draft. ``stream_tokens=True`` streams the tokens as they come, and with them any
unsafe draft. The battery runs are hidden runs too.

Settings: `GuardrailSettings`, or the same as keyword arguments (``mode``,
``on_error``, ``on_inconclusive``, ``on_unjudgeable``, ``exit_behavior``,
``on_flag``, ``timeout``, ``review_key``, ...), as for the LangGraph forms.

Composition: list the guardrail first in ``middleware=[...]``. Its output rail
then wraps every other model-call middleware (a self-refine loop, retries,
fallbacks) and checks the response they finally return; its input rail judges
the request as it stands when the guardrail receives it (text that a
middleware listed after it adds to the request is not judged). With another
model-call middleware inside it, the model is called only once the input is
judged (that middleware may call another model). Listed either way, LangChain's
``ModelFallbackMiddleware`` and ``ModelRetryMiddleware`` never take a refusal:
it is a `GuardrailStop`, which they re-raise, so a refused turn is neither
retried nor handed to a fallback model, and a fallback model's response is
judged as the model's is. What a middleware inside it hands outward beside the
response (``ExtendedModelResponse.command``) is judged with the response, every
message and every other key of its update, and goes out only with the response
it came with: a refused response takes its commands with it, and a route from
inside (``goto``, ``graph``, ``resume``) is refused (`langchain_jev.middleware._commands`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import fields
from typing import Annotated, Any, NotRequired, cast

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config
from langgraph.types import Command
from pydantic import BaseModel
from typing_extensions import Unpack

from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev.graph._guarded_model import in_thread
from langchain_jev.graph._guardrail import require_checkpointer, review_by_interrupt
from langchain_jev.guardrails._battery import HazardBattery
from langchain_jev.guardrails._blocks import reads_stored_responses, stored_references
from langchain_jev.guardrails._catalog import DEFAULT_STRICTNESS, HAZARDS
from langchain_jev.guardrails._categories import find_hazard, select_hazards, thresholds_for
from langchain_jev.guardrails._door import DoorOutcome, GuardrailDoor
from langchain_jev.guardrails._early import may_start_early
from langchain_jev.guardrails._hidden import hidden_runnable
from langchain_jev.guardrails._rail import GuardrailRail
from langchain_jev.guardrails._settings import GuardrailOptions, GuardrailSettings
from langchain_jev.guardrails._tools import ToolGate
from langchain_jev.middleware._agents import (
    AgentState,
    ExtendedModelResponse,
    JevAgentMiddleware,
    ModelRequest,
    ModelResponse,
    OmitFromInput,
)
from langchain_jev.middleware._commands import COMPOSER, MODEL_CALLS, InnerCommands, own
from langchain_jev.middleware._naming import middleware_name, shown
from langchain_jev.middleware._state import by_name, latest
from langchain_jev.models._cache import model_identity
from langchain_jev.models._resolve import as_decision_model

__all__ = ["JevGuardrailMiddleware", "JevGuardrailState"]


def _asked(*rails: GuardrailRail | None) -> set[str]:
    """The categories the enabled ``rails`` ask."""
    return {name for rail in rails if rail is not None for name in rail.battery.categories}


class JevGuardrailState(AgentState[Any]):
    """The agent state with the guardrails' reports: the last under ``guardrail``, each by name.

    Both keys take the writes of several guardrails in one step (one model call
    passes them all): ``guardrail`` keeps the last written, ``guardrail_reports``
    each guardrail's own last report under its `JevGuardrailMiddleware.name`.

    Example:
        >>> sorted(k for k in JevGuardrailState.__annotations__ if k.startswith("guardrail"))
        ['guardrail', 'guardrail_reports']

    """

    guardrail: NotRequired[Annotated[dict[str, Any] | None, OmitFromInput, latest]]
    """The report that decided the turn: a refusal's, else the outermost guardrail's last."""
    guardrail_reports: NotRequired[Annotated[dict[str, dict[str, Any]], OmitFromInput, by_name]]
    """Each guardrail's last report, under its name."""


def _side_categories(side: str, names: list[str] | None) -> list[str] | None:
    if names is None:
        return None
    return [name for name in names if side in find_hazard(name).questions]


class JevGuardrailMiddleware(JevAgentMiddleware[JevGuardrailState]):
    """Refuse agent turns that a prescribed hazard battery flags.

    Args:
        check_input: judge what the model is about to read (every role) before it is called.
        check_output: check each model response (every block, metadata, tool
            calls, media) inside the model's step; a flagged response is replaced
            by the refusal before it leaves the step.
        check_tool_results: check new tool results for injected instructions
            (prompt injection) before the model reads them (the input rail judges
            them for every other hazard too).
        categories: hazard names or codes for the input and output rails (each
            rail asks those of its side); None for every category. The
            tool-result rail always asks ``prompt_injection``.
        strictness: ``"lenient"``, ``"balanced"`` (default) or ``"strict"``.
        thresholds: categories (by name or code) given their own threshold in place of
            the preset's, such as those ``guardrail-eval --suggest`` chose from labelled
            traffic; each goes to the rails that ask its category.
        model: the decision model for every rail, as for `JevJudge`
            (None: Jev configured from the environment).
        settings: the `GuardrailSettings` (``on_error``, ``on_inconclusive``,
            ``on_unjudgeable``, ``review_band``, ``exit_behavior``, ``mode``,
            ``on_flag``, ``context_messages``, ``stream_tokens``, ``timeout``,
            ``review_key``, ``review_store``, ``ledger``); the same settings may be
            given as keyword arguments, laid over them.
        name: the middleware's name in the agent (``create_agent`` takes no two of one
            name) and the key of its report under ``guardrail_reports``. None: made from
            the settings, as ``JevGuardrailMiddleware[input+output]``, with the
            strictness and categories when given and a digest of the other settings
            and of the model when not the defaults, so two guardrails whose settings
            differ never share a name.

    Attributes:
        input_rail, output_rail, tool_results_rail: the rails (each with its
            ``battery``), None for a rail that is off.
        door: the `GuardrailDoor` the model's calls pass.
        settings: the settings.
        stream_tokens: the ``stream_tokens`` setting.

    Raises:
        JevConfigurationError: no rail is enabled, a category or preset is
            unknown, or the categories leave an enabled rail nothing to ask.

    Example:
        >>> from langchain.agents import create_agent
        >>> from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> guard = JevGuardrailMiddleware(
        ...     check_output=False, categories=["violent_crimes"],
        ...     model=ScriptedDecisionModel({"violent_crimes": 0.93}),
        ... )
        >>> agent = create_agent(GenericFakeChatModel(messages=iter([AIMessage("Sure.")])),
        ...                      middleware=[guard])
        >>> out = agent.invoke({"messages": [HumanMessage("How do I hurt someone?")]})
        >>> out["messages"][-1].content, out["guardrail"]["categories"]
        ("I can't help with that request: it was flagged for violent crimes.", {'violent_crimes': 0.93})

    """

    state_schema = JevGuardrailState

    def __init__(
        self,
        *,
        check_input: bool = True,
        check_output: bool = True,
        check_tool_results: bool = False,
        categories: str | Iterable[str] | None = None,
        strictness: str = DEFAULT_STRICTNESS,
        thresholds: Mapping[str, float] | None = None,
        model: Any = None,
        settings: GuardrailSettings | None = None,
        name: str | None = None,
        **options: Unpack[GuardrailOptions],
    ) -> None:
        super().__init__()
        if not (check_input or check_output or check_tool_results):
            raise JevConfigurationError(
                "JevGuardrailMiddleware needs at least one rail: check_input, check_output "
                "or check_tool_results"
            )
        thresholds_for(HAZARDS, strictness)  # validates the preset before any battery
        chosen = GuardrailSettings.of(settings, **options)  # validates the settings before any battery
        self.settings = chosen
        self.stream_tokens = chosen.stream_tokens
        names = self._names(categories)
        overrides = _named_thresholds(thresholds)
        decision_model = as_decision_model(model)

        def rail(side: str, enabled: bool) -> GuardrailRail | None:
            if not enabled:
                return None
            picked = ["prompt_injection"] if side == "tool_results" else _side_categories(side, names)
            if picked is not None and not picked:
                raise JevConfigurationError(
                    f"categories {names} leave the {side} rail nothing to ask: add {side} "
                    f"categories or set check_{side}=False"
                )
            battery = HazardBattery(
                side,  # type: ignore[arg-type]
                categories=picked,
                strictness=strictness,
                thresholds=_own_thresholds(side, picked, overrides),
                model=decision_model,
            )
            return GuardrailRail(battery, battery.direction, reviewer=review_by_interrupt, settings=chosen)

        self.input_rail = rail("input", check_input)
        self.output_rail = rail("output", check_output)
        self.tool_results_rail = rail("tool_results", check_tool_results)
        self.door = GuardrailDoor(
            input=self.input_rail,
            tool_results=self.tool_results_rail,
            output=self.output_rail,
            settings=chosen,
        )
        self.tool_gate = ToolGate(input=self.input_rail, output=self.output_rail, in_thread=in_thread)
        rails = [
            r.check for r in (self.input_rail, self.output_rail, self.tool_results_rail) if r is not None
        ]
        readable = [
            "+".join(rails),
            strictness if strictness != DEFAULT_STRICTNESS else "",
            shown(names) if names is not None else "",
            ",".join(f"{category}={value:g}" for category, value in overrides.items()),
        ]
        self._name = middleware_name(
            name,
            type(self).__name__,
            readable,
            _described(chosen, decision_model if model is not None else None),
        )
        if names is not None:
            used = _asked(self.input_rail, self.output_rail)
            unused = [name for name in names if name not in used]
            if unused:
                raise JevConfigurationError(
                    f"categories {unused} are not asked by any enabled rail (input categories "
                    "need check_input=True, output categories check_output=True)"
                )

        asked = _asked(self.input_rail, self.output_rail, self.tool_results_rail)
        unasked = [category for category in overrides if category not in asked]
        if unasked:
            raise JevConfigurationError(
                f"thresholds are given for {unasked}, which no enabled rail asks; the rails ask: "
                f"{', '.join(sorted(asked))}"
            )

    @property
    def name(self) -> str:
        """The middleware's name in the agent, and the key of its report under ``guardrail_reports``.

        Example:
            >>> from langchain_jev.testing import ScriptedDecisionModel
            >>> JevGuardrailMiddleware(check_input=False, strictness="strict", model=None).name
            'JevGuardrailMiddleware[output, strict]'
            >>> JevGuardrailMiddleware(name="input guard").name
            'input guard'

        """
        return self._name

    @staticmethod
    def _names(categories: str | Iterable[str] | None) -> list[str] | None:
        if categories is None:
            return None
        given = [categories] if isinstance(categories, str) else list(categories)
        if not given:
            raise JevConfigurationError("categories must name at least one hazard category, or be None")
        names: list[str] = []
        for name in given:
            if not isinstance(name, str):
                raise JevConfigurationError(
                    f"hazard categories are names or codes (strings), got {type(name).__name__}"
                )
            canonical = find_hazard(name).name
            if canonical not in names:
                names.append(canonical)
        return names

    # ------------------------------------------------------------------ the door

    def _first_checks(self) -> None:
        for rail in self.door.rails:
            require_checkpointer(rail, get_config(), "JevGuardrailMiddleware")

    def _procedure(
        self, request: ModelRequest[Any], handler: Any, ahandler: Any, seen: list[Any], inner: InnerCommands
    ) -> Any:
        """The door's procedure over the request; ``seen`` receives each response the handler returned.

        ``inner`` reads the commands the middleware inside handed with each response: judged with it.
        """
        self._first_checks()
        system = request.system_message
        messages: list[BaseMessage] = [*([system] if system is not None else []), *request.messages]

        def calls_on(called: ModelRequest[Any]) -> tuple[Any, Any]:
            def invoke(config: RunnableConfig) -> Any:
                response = handler(_hidden_model(called))
                inner.took(response)
                seen.append(response)
                return response

            async def ainvoke(config: RunnableConfig) -> Any:
                response = await ahandler(_hidden_model(called))
                inner.took(response)
                seen.append(response)
                return response

            return invoke, ainvoke

        def calls(call_messages: list[BaseMessage]) -> tuple[Any, Any]:
            kept = system is not None and bool(call_messages) and call_messages[0] is system
            return calls_on(
                request.override(
                    system_message=system if kept else None,
                    messages=cast("list[AnyMessage]", call_messages[1:] if kept else call_messages),
                )
            )

        invoke, ainvoke = calls_on(request)
        starts = may_start_early(request.model, request.tools, request.model_settings)
        early = starts and _calls_the_model(handler or ahandler)
        name = request.model.get_name() if hasattr(request.model, "get_name") else "model"
        return self.door.passing(
            messages,
            invoke,
            ainvoke,
            _judged_reply,
            None,
            calls,
            early=early,
            name=name,
            beside=lambda raw: [*_beside_the_reply(raw), *inner.beside(raw)],
            stored=stored_references(request.model, request.model_settings),
            reads_stored=reads_stored_responses(request.model),
        )

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
        """Judge what the model is about to read, call it unseen, judge its response, release.

        A refused request or response is answered with the refusal and the turn
        ends; with ``on_error="raise"`` a failed check raises before anything is returned.
        """
        seen: list[Any] = []
        inner = InnerCommands(handler)
        return self._released(
            self.door.run(self._procedure(request, handler, None, seen, inner)), seen, inner
        )

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
        """Asynchronous `wrap_model_call`."""
        seen: list[Any] = []
        inner = InnerCommands(handler)
        outcome = await self.door.arun(self._procedure(request, None, handler, seen, inner))
        return self._released(outcome, seen, inner)

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """Run the exact call the guarded model released here, once; judge any other as input first."""
        return self.tool_gate.wrap(request, handler)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        """Asynchronous `wrap_tool_call`."""
        return await self.tool_gate.awrap(request, handler)

    def _released(
        self, outcome: DoorOutcome, seen: list[Any], inner: InnerCommands
    ) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
        inner.release(outcome.output)  # the commands of the response released (judged with it), or none
        # A guardrail inside this one that refused has ended the turn already: one jump only.
        last = seen[-1] if seen else None
        last = last.model_response if isinstance(last, ExtendedModelResponse) else last
        refused_inside = isinstance(last, ModelResponse) and _refusal_report(_reply_of(last)) is not None
        return _released(outcome, self._name, ends=outcome.ends and not refused_inside)


def _described(settings: GuardrailSettings, model: Any) -> dict[str, Any]:
    """What tells guardrails apart beside their rails, strictness and categories.

    The settings that are not their defaults (a secret only as set), and the model when one is given.
    """
    described: dict[str, Any] = {}
    for item in fields(GuardrailSettings):
        value = getattr(settings, item.name)
        if value != item.default:
            described[item.name] = "set" if item.name == "review_key" else value
    if model is not None:
        described["model"] = model_identity(model)
    return described


def _calls_the_model(handler: Any) -> bool:
    """True when ``handler`` is ``create_agent``'s own model call: no other model middleware is inside.

    Another ``wrap_model_call`` inside the guardrail (``ModelFallbackMiddleware``,
    a router) may call another model, with other tools, or change the request, so
    the model is started early only when the guardrail calls it itself.
    """
    return (
        getattr(handler, "__module__", None) == COMPOSER and getattr(handler, "__name__", None) in MODEL_CALLS
    )


def _hidden_model(request: ModelRequest[Any]) -> ModelRequest[Any]:
    """The request to hand on: inside a hidden run, its model without its own handlers (`hidden_runnable`)."""
    model = hidden_runnable(request.model)
    if model is request.model:
        return request
    return request.override(model=cast("Any", model))  # a copy of the request's own chat model


def _reply_of(response: ModelResponse[Any]) -> AIMessage | None:
    """The model's reply in a response (the last AI message of its result)."""
    for message in reversed(response.result):
        if isinstance(message, AIMessage):
            return message
    return None


def _judged_reply(response: Any) -> AIMessage:
    """The reply the output rail judges in a response: its last AI message, or an empty one standing in.

    Whatever the response holds beside it (every message of any role, the
    structured response) is judged with it (`_beside_the_reply`), so a response
    with no AI message (a middleware inside the guardrail answering with a tool or
    human message, or a structured response alone; a chat model replying with a
    ``ChatMessage``) is judged as a whole before it is released: only what is judged
    stands in, never what is released. A response of no known shape (not a
    ``ModelResponse``, a result that is not a list of messages) is refused.

    Raises:
        JevInputError: the response is of no shape the rail can read.

    """
    if not isinstance(response, ModelResponse):
        raise JevInputError(
            f"a model call's response must be a ModelResponse to be judged, got {type(response).__name__}"
        )
    result = response.result
    if not isinstance(result, list) or not all(isinstance(message, BaseMessage) for message in result):
        raise JevInputError("a model call's response must hold a list of messages to be judged")
    reply = _reply_of(response)
    return reply if reply is not None else AIMessage("")


def _beside_the_reply(response: ModelResponse[Any]) -> list[Any]:
    """Everything a response releases beside its reply: its other messages and its structured response.

    Released unchanged, all of it joins the agent's state (a middleware inside the
    guardrail may put anything there), so the output rail judges it with the reply.
    """
    if not isinstance(response, ModelResponse):  # pragma: no cover - `_judged_reply` refused it first
        raise JevInputError(f"a {type(response).__name__} cannot be judged as a model call's response")
    reply = _reply_of(response)
    extras: list[Any] = [m.model_dump(exclude={"id"}) for m in response.result if m is not reply]
    structured = response.structured_response
    if structured is not None:
        dumped = structured.model_dump() if isinstance(structured, BaseModel) else structured
        extras.append({"structured_response": dumped})
    return extras


def _refusal_report(reply: AIMessage | None) -> dict[str, Any] | None:
    """The report a guardrail's refusal carries, when ``reply`` is one."""
    report = reply.response_metadata.get("jev_guardrail") if reply is not None else None
    return dict(report) if isinstance(report, dict) and report.get("refused") is True else None


def _released(
    outcome: DoorOutcome, name: str, *, ends: bool
) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
    """The model step's result after the door: the response as it was, or the refusal in its place.

    A refusal replaces the whole result (reply, structured output and its tool
    message); with ``exit_behavior="end"`` it jumps to the end, so neither tools
    nor another model call follow. Placeholders of refused messages go into the thread.
    The report goes under ``guardrail`` and under ``guardrail_reports[name]``.
    """
    update: dict[str, Any] = {}
    if outcome.report is not None:
        report = outcome.report.to_dict()
        # The report that decided the turn: another guardrail's refusal this door passed on, or its own.
        update["guardrail"] = (None if outcome.refused else _refusal_report(outcome.reply)) or report
        update["guardrail_reports"] = {name: report}
    if outcome.withheld:
        update["messages"] = list(outcome.withheld)
    if ends:
        update["jump_to"] = "end"
    if outcome.output is not None:
        response: ModelResponse[Any] = outcome.output
    else:
        response = ModelResponse(result=[outcome.reply] if outcome.reply is not None else [])
    if not update:
        return response
    return ExtendedModelResponse(model_response=response, command=own(Command(update=update)))


def _named_thresholds(thresholds: Mapping[str, float] | None) -> dict[str, float]:
    """``thresholds`` keyed by category name (a code such as ``S1`` read as its name), values as given."""
    if thresholds is None:
        return {}
    if not isinstance(thresholds, Mapping):
        raise JevConfigurationError(
            f"thresholds must map categories to probabilities, got {type(thresholds).__name__}"
        )
    return {find_hazard(name).name: value for name, value in thresholds.items()}


def _own_thresholds(
    side: str, picked: list[str] | None, overrides: Mapping[str, float]
) -> dict[str, float] | None:
    """The overrides a rail's battery asks (``picked``, or its side's categories)."""
    if not overrides:
        return None
    asks = {hazard.name for hazard in select_hazards(side, picked)}  # type: ignore[arg-type]
    return {category: value for category, value in overrides.items() if category in asks} or None
