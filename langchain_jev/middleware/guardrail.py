"""Agent middleware that refuses a turn a hazard battery flags (extra ``middleware``).

`JevGuardrailMiddleware` puts up to three rails around the model of a
``langchain.agents.create_agent`` agent, each one battery request:

- input rail (``before_model``, when a turn starts with a human message): the
  turn (every human message since the model last spoke, with earlier messages
  as context) is judged whole; a flagged turn is answered with a refusal, its
  messages are replaced in the thread by a placeholder (so no later turn shows
  them to the model), and the agent ends;
- output rail (``wrap_model_call``, inside the model's step): the response,
  every content block whatever its type and every tool call it requests, is
  checked before the step returns and before any tool runs; a flagged one is
  swapped for a refusal and the agent ends. The unsafe answer
  never leaves the step, so it reaches neither the tools, nor a stream
  (``"updates"``, ``"values"``, ``"messages"``), nor a checkpoint; with
  ``on_error="raise"`` a failed check fails the step, which writes nothing;
- tool-result rail (``before_model``, after tools ran; off by default): tool
  results carrying instructions injected for the assistant are withheld, and
  the agent ends with a refusal before the model reads them.

Every rail writes its report (flagged categories with their probabilities) to
the agent state under ``guardrail``. The battery runs are tagged
``jev_guardrail`` / ``jev_guardrail:<check>`` in traces, with the assessment as
their output.

Streaming: with the output rail on, the model's run is started without the
config's streaming handlers and tagged ``nostream``, so ``stream_mode="messages"``
shows each checked response (or its refusal) whole, once the check is done, and
``astream_events`` never shows the draft. ``stream_tokens=True`` streams the
tokens as they come, and with them any unsafe draft. The battery runs are hidden
from streams too; tracers (LangSmith) keep all of them.

Roll-out: ``mode="shadow"`` judges and records (the report's ``would_refuse``
and probabilities, the trace's ``jev_guardrail_decision`` run) without ever
blocking; ``on_error``/``on_inconclusive="interrupt"`` pause the agent with
``interrupt()`` for a human (resume with ``Command(resume="allow")`` or
``"refuse"``; the agent needs a checkpointer, which is checked on its first
run); ``exit_behavior`` is ``"end"``, ``"error"`` or ``"replace"``, as in
``OpenAIModerationMiddleware``; ``on_flag`` is called with the report of every
check that did not come back clean.

Composition: list the guardrail first in ``middleware=[...]``. Its output rail
then wraps every other model-call middleware (a self-refine loop, retries,
fallbacks) and checks the response they finally return.

The tool-result rail runs after the tools' step, so the raw tool results are
in that step's stream update and checkpoint before the rail withholds them: it
keeps injected instructions from the model, not from a stream. With
``on_error="raise"`` a failed tool-result check leaves the thread paused before
the model (``state.next``); resume it with ``invoke(None, config)`` to check
again, as a new message on that thread would let the model read the results.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Annotated, Any, NotRequired

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables.config import set_config_context
from langchain_core.runnables.utils import coro_with_context
from langgraph.config import get_config
from langgraph.runtime import Runtime
from langgraph.types import Command

from langchain_jev.errors import JevConfigurationError
from langchain_jev.graph.guardrail import require_checkpointer, review_by_interrupt
from langchain_jev.guardrails.battery import HazardBattery, find_hazard, thresholds_for
from langchain_jev.guardrails.catalog import DEFAULT_STRICTNESS, HAZARDS
from langchain_jev.guardrails.policy import ExitBehavior, GuardrailPolicy, Mode, OnError, RefusalMessage
from langchain_jev.guardrails.rail import GuardrailRail, OnFlag, RailOutcome, hold_tokens
from langchain_jev.guardrails.subjects import DEFAULT_CONTEXT_MESSAGES
from langchain_jev.middleware._agents import (
    AgentMiddleware,
    AgentState,
    ExtendedModelResponse,
    ModelRequest,
    ModelResponse,
    OmitFromInput,
    hook_config,
)
from langchain_jev.models.resolve import as_decision_model

__all__ = ["JevGuardrailMiddleware", "JevGuardrailState"]


class JevGuardrailState(AgentState[Any]):
    """The agent state with the guardrail's last report under ``guardrail``.

    Example:
        >>> "guardrail" in JevGuardrailState.__annotations__
        True

    """

    guardrail: NotRequired[Annotated[dict[str, Any] | None, OmitFromInput]]


def _side_categories(side: str, names: list[str] | None) -> list[str] | None:
    if names is None:
        return None
    return [name for name in names if side in find_hazard(name).questions]


class JevGuardrailMiddleware(AgentMiddleware[JevGuardrailState, Any, Any]):
    """Refuse agent turns that a prescribed hazard battery flags.

    Args:
        check_input: check the user's message before the model answers it.
        check_output: check each model response (text and requested tool calls)
            inside the model's step; a flagged response is replaced by the
            refusal before it leaves the step.
        check_tool_results: check tool results for injected instructions
            (prompt injection) before the model reads them.
        categories: hazard names or codes for the input and output rails (each
            rail asks those of its side); None for every category. The
            tool-result rail always asks ``prompt_injection``.
        strictness: ``"lenient"``, ``"balanced"`` (default) or ``"strict"``.
        model: the decision model for every rail, as for `JevJudge`
            (None: Jev configured from the environment).
        refusal_message: the refusal text, or a function of the `GuardrailReport`
            returning it; by default a sentence naming the flagged categories.
        on_error: what a check that fails (the decision model cannot be reached,
            the text cannot be read, any error in the rail) means: ``"refuse"``
            (default, fail closed; alias ``"end"``), ``"allow"`` (log a warning and
            pass), ``"raise"`` (re-raise; alias ``"error"``) or ``"interrupt"``
            (pause for a human; needs a checkpointer).
        on_inconclusive: the same, for categories left without a readable answer
            (default: as ``on_error``).
        review_band: how far below a category's threshold a probability makes
            the check inconclusive (decided by ``on_inconclusive``, e.g. put to a
            human); 0 (default) for no band.
        exit_behavior: how a refusal leaves a rail, as in ``OpenAIModerationMiddleware``:
            ``"end"`` (default: the refusal ends the agent's run), ``"error"``
            (raise `GuardrailRefusedError`) or ``"replace"`` (the flagged content is
            replaced by the refusal and the run goes on).
        mode: ``"enforce"`` (default) or ``"shadow"``: judge and record in the
            report (``would_refuse``, the probabilities) and the trace, never block.
        on_flag: called (sync or async) with the `GuardrailReport` of every check
            that did not come back clean, in every mode.
        context_messages: how many earlier messages the input rail is shown.
        stream_tokens: let ``stream_mode="messages"`` show the model's tokens
            before the output rail has checked the response (False by default:
            each response is streamed whole once checked). True shows an unsafe
            draft to a streaming user before the refusal replaces it.

    Attributes:
        input_rail, output_rail, tool_results_rail: the rails (each with its
            ``battery``), None for a rail that is off.
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
        model: Any = None,
        refusal_message: RefusalMessage | None = None,
        on_error: OnError = "refuse",
        on_inconclusive: OnError | None = None,
        review_band: float = 0.0,
        exit_behavior: ExitBehavior = "end",
        mode: Mode = "enforce",
        on_flag: OnFlag | None = None,
        context_messages: int = DEFAULT_CONTEXT_MESSAGES,
        stream_tokens: bool = False,
    ) -> None:
        super().__init__()
        self.stream_tokens = bool(stream_tokens)
        if not (check_input or check_output or check_tool_results):
            raise JevConfigurationError(
                "JevGuardrailMiddleware needs at least one rail: check_input, check_output "
                "or check_tool_results"
            )
        thresholds_for(HAZARDS, strictness)  # validates the preset before any battery
        GuardrailPolicy.of(
            mode=mode,
            on_error=on_error,
            on_inconclusive=on_inconclusive,
            exit_behavior=exit_behavior,
            review_band=review_band,
        )  # validates the policy before any battery
        names = self._names(categories)
        decision_model = as_decision_model(model)

        def rail(side: str, enabled: bool) -> GuardrailRail | None:
            if not enabled:
                return None
            chosen = ["prompt_injection"] if side == "tool_results" else _side_categories(side, names)
            if chosen is not None and not chosen:
                raise JevConfigurationError(
                    f"categories {names} leave the {side} rail nothing to ask: add {side} "
                    f"categories or set check_{side}=False"
                )
            battery = HazardBattery(
                side,  # type: ignore[arg-type]
                categories=chosen,
                strictness=strictness,
                model=decision_model,
            )
            return GuardrailRail(
                battery,
                battery.direction,
                refusal_message=refusal_message,
                on_error=on_error,
                on_inconclusive=on_inconclusive,
                review_band=review_band,
                exit_behavior=exit_behavior,
                mode=mode,
                on_flag=on_flag,
                context_messages=context_messages,
                reviewer=review_by_interrupt,
            )

        self.input_rail = rail("input", check_input)
        self.output_rail = rail("output", check_output)
        self.tool_results_rail = rail("tool_results", check_tool_results)
        if names is not None:
            used = {
                name
                for r in (self.input_rail, self.output_rail)
                if r is not None
                for name in r.battery.categories
            }
            unused = [name for name in names if name not in used]
            if unused:
                raise JevConfigurationError(
                    f"categories {unused} are not asked by any enabled rail (input categories "
                    "need check_input=True, output categories check_output=True)"
                )

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

    # ------------------------------------------------------------------ the rails

    def _before(self, messages: Sequence[BaseMessage]) -> GuardrailRail | None:
        """The rail due before a model call: input at a turn's start, tool results after tools."""
        if not messages:
            return None
        last = messages[-1]
        if isinstance(last, HumanMessage):
            return self.input_rail
        if isinstance(last, ToolMessage):
            return self.tool_results_rail
        return None

    @staticmethod
    def _update(outcome: RailOutcome | None) -> dict[str, Any] | None:
        if outcome is None:
            return None
        report = outcome.report.to_dict()
        if not outcome.report.refused:
            return {"guardrail": report}
        update: dict[str, Any] = {"messages": outcome.messages, "guardrail": report}
        return {"jump_to": "end", **update} if outcome.ends else update

    def _first_checks(self) -> None:
        for rail in (self.input_rail, self.output_rail, self.tool_results_rail):
            if rail is not None:
                require_checkpointer(rail, get_config(), "JevGuardrailMiddleware")

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: JevGuardrailState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Check the user's turn (or the tool results) before the model reads it."""
        self._first_checks()
        rail = self._before(state["messages"])
        return None if rail is None else self._update(rail.run(state["messages"]))

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state: JevGuardrailState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Asynchronous `before_model`."""
        self._first_checks()
        rail = self._before(state["messages"])
        return None if rail is None else self._update(await rail.arun(state["messages"]))

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
        """Check the model's response inside the model step; a flagged one never leaves it.

        The refusal takes the response's place and the turn ends; with
        ``on_error="raise"`` a failed check raises before anything is returned.
        """
        if self.output_rail is None:
            return handler(request)
        if self.stream_tokens:
            response = handler(request)
        else:
            with set_config_context(hold_tokens(None)) as context:
                response = context.run(handler, request)
        reply = _reply_of(response)
        if reply is None:
            return response
        return _checked(response, self.output_rail.check_reply(request.messages, reply))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
        """Asynchronous `wrap_model_call`."""
        if self.output_rail is None:
            return await handler(request)
        if self.stream_tokens:
            response = await handler(request)
        else:
            with set_config_context(hold_tokens(None)) as context:
                response = await coro_with_context(handler(request), context)
        reply = _reply_of(response)
        if reply is None:
            return response
        return _checked(response, await self.output_rail.acheck_reply(request.messages, reply))


def _reply_of(response: ModelResponse[Any]) -> AIMessage | None:
    """The model's reply in a response (the last AI message of its result)."""
    for message in reversed(response.result):
        if isinstance(message, AIMessage):
            return message
    return None


def _checked(
    response: ModelResponse[Any], outcome: RailOutcome | None
) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
    """The model step's result after the output rail: as is, with the report, or the refusal.

    A refusal replaces the whole result (reply, structured output and its tool
    message) and jumps to the end, so neither tools nor another model call follow.
    """
    if outcome is None:
        return response
    report = outcome.report.to_dict()
    if not outcome.report.refused:
        return ExtendedModelResponse(model_response=response, command=Command(update={"guardrail": report}))
    update: dict[str, Any] = (
        {"guardrail": report, "jump_to": "end"} if outcome.ends else {"guardrail": report}
    )
    return ExtendedModelResponse(
        model_response=ModelResponse(result=list(outcome.messages)),
        command=Command(update=update),
    )
