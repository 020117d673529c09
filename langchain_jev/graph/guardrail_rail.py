"""One guardrail rail: ask a battery about a conversation and decide the turn.

The rail is the I/O edge shared by the LangGraph node and the agent middleware:
it finds what to check in the messages, makes the battery's one request (traced
with the tags ``jev_guardrail`` and ``jev_guardrail:<check>``), applies the
``on_error`` policy, and returns the report with the message updates of a refusal.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config
from langgraph.errors import GraphBubbleUp

from langchain_jev.errors import JevConfigurationError, JevInputError
from langchain_jev.graph.guardrail_policy import (
    GuardrailReport,
    OnError,
    RefusalMessage,
    error_report,
    read_assessment,
    refusal_messages,
    refusal_text,
)
from langchain_jev.graph.hazard_catalog import Direction
from langchain_jev.graph.hazard_subjects import Subject, subject_for
from langchain_jev.graph.hazards import HazardAssessment, HazardBattery

__all__ = ["GuardrailRail", "RailOutcome", "rail_config"]

logger = logging.getLogger("langchain_jev.guardrail")

_NOT_MODEL_FAILURES = (JevConfigurationError, JevInputError, GraphBubbleUp)
"""Errors that are bugs or graph control flow, never an unreachable model: always raised."""


@dataclass(frozen=True)
class RailOutcome:
    """A rail's decision about a turn and, for a refusal, the message updates to apply."""

    report: GuardrailReport
    """What the rail decided."""
    messages: list[BaseMessage] = field(default_factory=list)
    """The refusal's message updates (empty when the turn passes)."""


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
        subject = subject_for(self.check, messages)
        if subject is None:
            return None
        try:
            assessment = self.battery.invoke(subject.data, rail_config(self.check, config))
        except _NOT_MODEL_FAILURES:
            raise
        except Exception as error:
            if self.on_error == "raise":
                raise
            return self._failed(subject, error)
        return self._decided(subject, assessment)

    async def arun(
        self, messages: Sequence[BaseMessage], config: RunnableConfig | None = None
    ) -> RailOutcome | None:
        """Asynchronous `run`."""
        subject = subject_for(self.check, messages)
        if subject is None:
            return None
        try:
            assessment = await self.battery.ainvoke(subject.data, rail_config(self.check, config))
        except _NOT_MODEL_FAILURES:
            raise
        except Exception as error:
            if self.on_error == "raise":
                raise
            return self._failed(subject, error)
        return self._decided(subject, assessment)

    def _failed(self, subject: Subject, error: Exception) -> RailOutcome:
        report = error_report(self.check, error, self.on_error)
        if not report.refused:
            logger.warning(
                "the %s safety check could not reach its decision model (%s); "
                "the turn passes because on_error='allow'",
                self.check,
                report.error,
            )
        return self._outcome(subject, report)

    def _decided(self, subject: Subject, assessment: HazardAssessment) -> RailOutcome:
        report = read_assessment(self.check, assessment, self.on_error)
        if report.undecided and not report.refused:
            logger.warning(
                "the %s safety check got no readable answer for %s; the turn passes because on_error='allow'",
                self.check,
                ", ".join(report.undecided),
            )
        return self._outcome(subject, report)

    def _outcome(self, subject: Subject, report: GuardrailReport) -> RailOutcome:
        if not report.refused:
            return RailOutcome(report)
        text = refusal_text(self.refusal_message, report)
        return RailOutcome(report, refusal_messages(subject, report, text))
