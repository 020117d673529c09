"""One guardrail rail: ask a battery about a conversation and decide the turn.

The rail is the I/O edge shared by the LangGraph node and the agent middleware:
it finds what to check in the messages, makes the battery's one request (traced
with the tags ``jev_guardrail`` and ``jev_guardrail:<check>``), applies the
``on_error`` policy, and returns the report with the message updates of a refusal.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config
from langgraph.constants import TAG_NOSTREAM
from langgraph.errors import GraphBubbleUp

from langchain_jev.errors import JevConfigurationError, JevInputError
from langchain_jev.guardrails.battery import HazardAssessment, HazardBattery
from langchain_jev.guardrails.catalog import Direction
from langchain_jev.guardrails.policy import (
    GuardrailReport,
    OnError,
    RefusalMessage,
    error_report,
    read_assessment,
    refusal_messages,
    refusal_reply,
    refusal_text,
)
from langchain_jev.guardrails.subjects import Subject, output_subject, subject_for

__all__ = ["GuardrailRail", "RailOutcome", "hold_tokens", "rail_config", "state_messages"]

logger = logging.getLogger("langchain_jev.guardrail")

_NOT_MODEL_FAILURES = (JevConfigurationError, JevInputError, GraphBubbleUp)
"""Errors that are bugs or graph control flow, never an unreachable model: always raised."""


@dataclass(frozen=True)
class RailOutcome:
    """A rail's decision about a turn and, for a refusal, the message updates to apply."""

    report: GuardrailReport
    """What the rail decided."""
    messages: list[BaseMessage] = field(default_factory=list)
    """The refusal's message updates (empty when the turn passes): for a reply checked
    before it joined the conversation, the refusal alone, which takes the reply's place."""


def state_messages(state: Any, key: str, reader: str) -> Sequence[BaseMessage]:
    """The messages under ``key`` of a graph state (a mapping or an object).

    Raises:
        JevInputError: the state has no such key; the message names it and the ``reader``.

    """
    value = state.get(key) if isinstance(state, Mapping) else getattr(state, key, None)
    if value is None:
        raise JevInputError(
            f"{reader} reads the messages from state key {key!r}, which the state does not have"
        )
    messages: Sequence[BaseMessage] = value
    return messages


def hold_tokens(config: RunnableConfig | None) -> RunnableConfig:
    """The config of a model call whose reply is checked before it is shown.

    The caller's config (or the enclosing run's), tagged ``nostream``: LangGraph's
    ``stream_mode="messages"`` then skips the model's tokens and shows the reply
    the step returns, once the output rail has checked it.
    """
    base = ensure_config(config)
    return {**base, "tags": [*(base.get("tags") or []), TAG_NOSTREAM]}


def rail_config(check: Direction, config: RunnableConfig | None) -> RunnableConfig:
    """The config of a rail's battery run: the caller's, tagged and labelled with the check.

    Without a config, the one of the enclosing run (a graph node, a middleware hook)
    is used, so the battery's run nests under it in the trace.
    """
    base = ensure_config(config)
    tags = [*(base.get("tags") or []), "jev_guardrail", f"jev_guardrail:{check}"]
    metadata = {**(base.get("metadata") or {}), "jev_guardrail": check}
    return {**base, "tags": tags, "metadata": metadata}


class GuardrailRail:
    """Check one side of a turn with a battery; refuse, pass, or raise by the policy.

    Example:
        >>> from langchain_core.messages import HumanMessage
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> battery = HazardBattery.input(["hate"], model=ScriptedDecisionModel({"hate": 0.97}))
        >>> outcome = GuardrailRail(battery, "input").run([HumanMessage("...")])
        >>> outcome.report.refused, outcome.messages[-1].content
        (True, "I can't help with that request: it was flagged for hate.")

    """

    def __init__(
        self,
        battery: HazardBattery,
        check: Direction,
        *,
        refusal_message: RefusalMessage | None = None,
        on_error: OnError = "refuse",
    ) -> None:
        self.battery = battery
        self.check = check
        self.refusal_message = refusal_message
        self.on_error = on_error

    def run(
        self, messages: Sequence[BaseMessage], config: RunnableConfig | None = None
    ) -> RailOutcome | None:
        """Check ``messages``; None when they hold nothing of this side to check.

        Raises:
            Exception: with ``on_error="raise"``, the decision model's error, or
                `GuardrailUndecidedError` when it left categories unanswered.

        """
        return self._check(subject_for(self.check, messages), config, joined=True)

    async def arun(
        self, messages: Sequence[BaseMessage], config: RunnableConfig | None = None
    ) -> RailOutcome | None:
        """Asynchronous `run`."""
        return await self._acheck(subject_for(self.check, messages), config, joined=True)

    def check_reply(
        self, messages: Sequence[BaseMessage], reply: AIMessage, config: RunnableConfig | None = None
    ) -> RailOutcome | None:
        """Check a model's ``reply`` to ``messages`` before it joins them (an output rail).

        The reply is not in the conversation yet, so a refusal's messages are the
        refusal alone: it takes the reply's place instead of removing it. None when
        the reply has nothing to check (no text and no tool calls).

        Raises:
            JevConfigurationError: the rail is not an output rail.
            Exception: with ``on_error="raise"``, as `run`.

        """
        return self._check(self._reply_subject(messages, reply), config, joined=False)

    async def acheck_reply(
        self, messages: Sequence[BaseMessage], reply: AIMessage, config: RunnableConfig | None = None
    ) -> RailOutcome | None:
        """Asynchronous `check_reply`."""
        return await self._acheck(self._reply_subject(messages, reply), config, joined=False)

    def _reply_subject(self, messages: Sequence[BaseMessage], reply: AIMessage) -> Subject | None:
        if self.check != "output":
            raise JevConfigurationError(
                f"only an output rail checks a model's reply; this is a {self.check} rail"
            )
        return output_subject([*messages, reply])

    def _check(
        self, subject: Subject | None, config: RunnableConfig | None, *, joined: bool
    ) -> RailOutcome | None:
        if subject is None:
            return None
        try:
            assessment = self.battery.invoke(subject.data, rail_config(self.check, config))
        except Exception as error:
            return self._failed(subject, error, joined)
        return self._decided(subject, assessment, joined)

    async def _acheck(
        self, subject: Subject | None, config: RunnableConfig | None, *, joined: bool
    ) -> RailOutcome | None:
        if subject is None:
            return None
        try:
            assessment = await self.battery.ainvoke(subject.data, rail_config(self.check, config))
        except Exception as error:
            return self._failed(subject, error, joined)
        return self._decided(subject, assessment, joined)

    def _failed(self, subject: Subject, error: Exception, joined: bool) -> RailOutcome:
        """The outcome of a battery call that raised ``error``; re-raised unless the policy decides it."""
        if isinstance(error, _NOT_MODEL_FAILURES) or self.on_error == "raise":
            raise error
        report = error_report(self.check, error, self.on_error)
        logger.warning(
            "the %s safety check could not reach its decision model (%s); %s",
            self.check,
            report.error,
            "the turn is refused (on_error='refuse')"
            if report.refused
            else "the turn passes because on_error='allow'",
        )
        return self._outcome(subject, report, joined)

    def _decided(self, subject: Subject, assessment: HazardAssessment, joined: bool) -> RailOutcome:
        report = read_assessment(self.check, assessment, self.on_error)
        if report.undecided and not report.refused:
            logger.warning(
                "the %s safety check got no readable answer for %s; the turn passes because on_error='allow'",
                self.check,
                ", ".join(report.undecided),
            )
        return self._outcome(subject, report, joined)

    def _outcome(self, subject: Subject, report: GuardrailReport, joined: bool) -> RailOutcome:
        if not report.refused:
            return RailOutcome(report)
        text = refusal_text(self.refusal_message, report)
        if not joined:
            return RailOutcome(report, [refusal_reply(report, text)])
        return RailOutcome(report, refusal_messages(subject, report, text))
