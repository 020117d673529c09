"""Agent middleware that refuses a turn a hazard battery flags (extra ``middleware``).

`JevGuardrailMiddleware` puts up to three rails around the model of a
``langchain.agents.create_agent`` agent, each one battery request:

- input rail (``before_model``, when a turn starts with a human message):
  a flagged message is answered with a refusal and the agent ends;
- output rail (``after_model``): a flagged response, its text and any tool calls
  it requests, is removed and replaced by a refusal, and the agent ends, so the
  unsafe answer never reaches the user or the tools;
- tool-result rail (``before_model``, after tools ran; off by default): tool
  results carrying instructions injected for the assistant are withheld, and
  the agent ends with a refusal before the model reads them.

Every rail writes its report (flagged categories with their probabilities) to
the agent state under ``guardrail``. The battery runs are tagged
``jev_guardrail`` / ``jev_guardrail:<check>`` in traces, with the assessment as
their output.

Streaming note: with ``stream_mode="messages"`` the model's tokens are streamed
before the output rail sees the finished response. Stream ``"updates"`` or
``"values"`` when an unsafe answer must never be shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated, Any

try:
    from langchain.agents.middleware.types import (
        AgentMiddleware,
        AgentState,
        OmitFromInput,
        hook_config,
    )
except ImportError as error:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "JevGuardrailMiddleware needs LangChain agents: install the 'middleware' extra, "
        "pip install 'langchain-jev[middleware]'"
    ) from error
from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage
from langgraph.runtime import Runtime
from typing_extensions import NotRequired

from langchain_jev.errors import JevConfigurationError
from langchain_jev.graph.guardrail_policy import (
    OnError,
    RefusalMessage,
    check_on_error,
    check_refusal_message,
)
from langchain_jev.graph.guardrail_rail import GuardrailRail, RailOutcome
from langchain_jev.graph.hazard_catalog import DEFAULT_STRICTNESS, HAZARDS
from langchain_jev.graph.hazards import HazardBattery, find_hazard, thresholds_for
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
        check_output: check each model response (text and requested tool calls);
            a flagged response is replaced by the refusal.
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
        on_error: what a decision model that cannot be reached (or leaves a
            category unanswered) means: ``"refuse"`` (default, fail closed),
            ``"allow"`` (log a warning and pass) or ``"raise"`` (re-raise).

    Attributes:
        input_rail, output_rail, tool_results_rail: the rails (each with its
            ``battery``), None for a rail that is off.

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
    ) -> None:
        super().__init__()
        if not (check_input or check_output or check_tool_results):
            raise JevConfigurationError(
                "JevGuardrailMiddleware needs at least one rail: check_input, check_output "
                "or check_tool_results"
            )
        thresholds_for(HAZARDS, strictness)  # validates the preset before any battery
        message = check_refusal_message(refusal_message)
        mode = check_on_error(on_error)
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
            return GuardrailRail(battery, battery.direction, refusal_message=message, on_error=mode)

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
        if outcome.report.refused:
            return {"jump_to": "end", "messages": outcome.messages, "guardrail": report}
        return {"guardrail": report}

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: JevGuardrailState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Check the user's message (or the tool results) before the model reads it."""
        rail = self._before(state["messages"])
        return None if rail is None else self._update(rail.run(state["messages"]))

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state: JevGuardrailState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Asynchronous `before_model`."""
        rail = self._before(state["messages"])
        return None if rail is None else self._update(await rail.arun(state["messages"]))

    @hook_config(can_jump_to=["end"])
    def after_model(self, state: JevGuardrailState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Check the model's response; replace it with the refusal when flagged."""
        if self.output_rail is None:
            return None
        return self._update(self.output_rail.run(state["messages"]))

    @hook_config(can_jump_to=["end"])
    async def aafter_model(self, state: JevGuardrailState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Asynchronous `after_model`."""
        if self.output_rail is None:
            return None
        return self._update(await self.output_rail.arun(state["messages"]))
