"""One guardrail rail: ask a battery about a conversation and decide the turn.

The rail is the check shared by the LangGraph nodes, the model's door
(`langchain_jev.guardrails._door`) and the agent middleware: it finds what to
check, makes the battery's one request, decides by its settings, and returns
the report with the message updates of a refusal. Around that one request:

- **judged by content, once**: an input or tool-result rail judges only what its
  `Ledger` has not seen judged (the messages after the longest judged prefix,
  with earlier ones as context), and records what passed;
- **everything fails closed**: any exception while finding or judging the text
  (a model that cannot be reached, an answer that cannot be read, the deadline
  passing, a bug) is a failed check, decided by ``on_error``; the report and any
  raised error name the error's class and a fixed description, never its text;
  the detail, redacted, is logged at WARNING on ``langchain_jev.guardrail``;
  only LangGraph's own control flow passes through;
- **nobody but the trace sees it**: the battery's run (which carries the text
  judged) is a hidden run (see `langchain_jev.guardrails._hidden`): of the
  caller's handlers it carries only the allowed tracers (LangSmith's, and
  ``allowed_tracers``), tagged ``jev_guardrail`` / ``jev_guardrail:<check>``;
- **every decision is recorded**: a run named ``jev_guardrail_decision`` carries
  the report in its metadata, and ``on_flag`` (sync or async) is called with the
  report of every check that did not come back clean, in every mode;
- **a human may decide**: with ``interrupt``, the text goes to the review store
  and the rail calls its ``reviewer`` (``langgraph.types.interrupt``) with a
  request that carries no text; only an authenticated allow counts (see
  `langchain_jev.guardrails._review`).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import BaseCallbackManager
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config
from langchain_core.tracers.context import _tracing_v2_is_enabled
from typing_extensions import Unpack

from langchain_jev._errors import (
    GuardrailCheckError,
    GuardrailRefusedError,
    GuardrailUndecidedError,
    JevConfigurationError,
    JevInputError,
)
from langchain_jev._input import JevJudgeInput
from langchain_jev.guardrails._battery import HazardAssessment, HazardBattery
from langchain_jev.guardrails._catalog import Direction
from langchain_jev.guardrails._drive import Ask, Mark, Prefix, Procedure, Step, Trace, adrive, drive
from langchain_jev.guardrails._hidden import DEFAULT_TRACERS, Tracers, check_hidden_runs, hidden_config
from langchain_jev.guardrails._judged import Subject, input_subject, output_subject, tool_results_subject
from langchain_jev.guardrails._ledger import Ledger
from langchain_jev.guardrails._policy import Action, GuardrailReport, decide, fingerprint, stop_error
from langchain_jev.guardrails._refusal import default_refusal, refusal_messages, refusal_reply, refusal_text
from langchain_jev.guardrails._review import (
    ReviewBinding,
    review_id,
    reviewed,
)
from langchain_jev.guardrails._settings import GuardrailOptions, GuardrailSettings, OnFlag
from langchain_jev.guardrails._text import redact

__all__ = [
    "GuardrailRail",
    "OnFlag",
    "RailOutcome",
    "Reviewer",
    "rail_config",
    "redact",
    "require_battery",
    "require_strings",
    "state_messages",
]

logger = logging.getLogger("langchain_jev.guardrail")

Reviewer = Callable[[dict[str, Any]], Any]
"""Asks a human about a check (``langgraph.types.interrupt``) and returns the answer (the
resume value, or a `ReviewAnswer` that says whether LangGraph replays it)."""


def _thread_of(config: RunnableConfig | None) -> str:
    """The thread of ``config`` (or of the context's config): ``configurable["thread_id"]``, or ""."""
    thread = (ensure_config(config).get("configurable") or {}).get("thread_id")
    return "" if thread is None else str(thread)


def _is_graph_control(error: BaseException) -> bool:
    """True for LangGraph's control flow (interrupts, commands to a parent), which must pass through."""
    return any(kind.__name__ == "GraphBubbleUp" for kind in type(error).__mro__)


@dataclass(frozen=True)
class RailOutcome:
    """A rail's decision about a turn and, for a refusal, the message updates to apply."""

    report: GuardrailReport
    """What the rail decided."""
    messages: list[BaseMessage] = field(default_factory=list)
    """The refusal's message updates (empty when the turn passes): for a reply checked
    before it joined the conversation, the refusal alone, which takes the reply's place."""
    ends: bool = False
    """True when the refusal ends the turn (``exit_behavior="end"``); with ``"replace"``
    the run goes on with the replacement."""
    subject: Subject | None = field(default=None, repr=False, compare=False)
    """What was judged."""


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


def require_battery(battery: object, who: str) -> HazardBattery:
    """``battery``, checked to be a `HazardBattery` (a node or a guarded model is built on one).

    Raises:
        JevConfigurationError: it is not; the message names ``who`` and what it got.

    """
    if not isinstance(battery, HazardBattery):
        raise JevConfigurationError(f"{who} needs a HazardBattery, got {type(battery).__name__}")
    return battery


def require_strings(**settings: object) -> None:
    """Check that each setting (a state key, a node name) is a non-empty string, in the order given.

    Raises:
        JevConfigurationError: naming the first setting that is not, with its value.

    Example:
        >>> require_strings(state_key="guardrail", messages_key="")
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JevConfigurationError: messages_key must be a non-empty string, got ''

    """
    for label, value in settings.items():
        if not isinstance(value, str) or not value:
            raise JevConfigurationError(f"{label} must be a non-empty string, got {value!r}")


def rail_config(
    check: Direction, config: RunnableConfig | None, tracers: Tracers = DEFAULT_TRACERS
) -> RunnableConfig:
    """The config of a rail's battery run: the caller's, hidden (only ``tracers`` see it), tagged.

    Without a config, the one of the enclosing run (a graph node, a middleware hook)
    is used, so the battery's run nests under it in the trace.
    """
    base = ensure_config(config)
    metadata = {**(base.get("metadata") or {}), "jev_guardrail": check}
    tags = ("jev_guardrail", f"jev_guardrail:{check}")
    return hidden_config({**base, "metadata": metadata}, *tags, tracers=tracers)


def _observed(config: RunnableConfig) -> bool:
    """True when a handler would see a run started with ``config`` (a callback, or tracing on)."""
    callbacks = config.get("callbacks")
    if isinstance(callbacks, BaseCallbackManager):
        callbacks = callbacks.handlers
    return bool(callbacks) or bool(_tracing_v2_is_enabled())


def _has_text(data: JevJudgeInput) -> bool:
    return bool(data.question or data.answer or data.tool_calls)


class GuardrailRail:
    """Check one side of a turn with a battery; decide by the settings.

    Args:
        battery: the hazard battery to ask.
        check: the side (must be the battery's).
        reviewer: asks a human (``interrupt`` policies need one).
        settings: the `GuardrailSettings` (the keyword options are laid over them).

    Example:
        >>> from langchain_core.messages import HumanMessage
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> battery = HazardBattery.input(["hate"], model=ScriptedDecisionModel({"hate": 0.97}))
        >>> outcome = GuardrailRail(battery, "input").run([HumanMessage("...", id="1")])
        >>> outcome.report.refused, outcome.messages[-1].content
        (True, "I can't help with that request: it was flagged for hate.")

    """

    def __init__(
        self,
        battery: HazardBattery,
        check: Direction,
        *,
        reviewer: Reviewer | None = None,
        settings: GuardrailSettings | None = None,
        **options: Unpack[GuardrailOptions],
    ) -> None:
        self.battery = battery
        self.check = check
        self.settings = GuardrailSettings.of(settings, **options)
        self.policy = self.settings.policy
        if self.policy.reviews and reviewer is None:
            raise JevConfigurationError(
                "on_error/on_inconclusive='interrupt' needs a reviewer: use the LangGraph guardrail "
                "node or the agent middleware, which pause the graph with interrupt()"
            )
        self.reviewer = reviewer
        store = self.settings.ledger if self.settings.ledger is not None else battery.ledger_store
        self.ledger = Ledger(store, namespace=f"{battery.fingerprint}:{self.policy.mode}")

    @property
    def on_error(self) -> str:
        """The canonical ``on_error`` policy."""
        return self.policy.on_error

    @property
    def on_flag(self) -> OnFlag | None:
        """The ``on_flag`` callback."""
        return self.settings.on_flag

    # ------------------------------------------------------------------ checking

    def run(
        self, messages: Sequence[BaseMessage], config: RunnableConfig | None = None
    ) -> RailOutcome | None:
        """Check ``messages``; None when they hold nothing of this side to check.

        Raises:
            GuardrailCheckError: with ``on_error="raise"``, the check failed.
            GuardrailUndecidedError: with ``on_inconclusive="raise"``, categories went unanswered.
            GuardrailRefusedError: a refusal with ``exit_behavior="error"``.

        """
        return drive(self.judging(messages, config))

    async def arun(
        self, messages: Sequence[BaseMessage], config: RunnableConfig | None = None
    ) -> RailOutcome | None:
        """Asynchronous `run`."""
        return await adrive(self.judging(messages, config))

    def check_reply(
        self, messages: Sequence[BaseMessage], reply: AIMessage, config: RunnableConfig | None = None
    ) -> RailOutcome | None:
        """Check a model's ``reply`` to ``messages`` before it joins them (an output rail).

        The reply is not in the conversation yet, so a refusal's messages are the
        refusal alone: it takes the reply's place instead of removing it. None when
        the reply carries nothing to check.

        Raises:
            JevConfigurationError: the rail is not an output rail.
            Exception: as `run`.

        """
        self._output_only()
        return drive(self.reply_judging(messages, reply, config))

    async def acheck_reply(
        self, messages: Sequence[BaseMessage], reply: AIMessage, config: RunnableConfig | None = None
    ) -> RailOutcome | None:
        """Asynchronous `check_reply`."""
        self._output_only()
        return await adrive(self.reply_judging(messages, reply, config))

    def _output_only(self) -> None:
        if self.check != "output":
            raise JevConfigurationError(
                f"only an output rail checks a model's reply; this is a {self.check} rail"
            )

    # ------------------------------------------------------------------ the procedures

    def judging(
        self, messages: Sequence[BaseMessage], config: RunnableConfig | None, *, in_thread: bool = True
    ) -> Procedure[RailOutcome | None]:
        """The check of ``messages`` as they stand: what a driver runs (see `drive`).

        ``in_thread``: the messages are a thread's, so a refused one without an id
        (which could not be replaced) is an error; the door's call messages may
        hold some that are not in a thread (a system prompt added at the call).
        Not in a thread, a human's allow is not recorded here: the door records
        the turn once its step is done (LangGraph runs a paused step again from its
        start, and each review it passed must ask again, to be given its answer).
        """
        if self.check == "output":
            return self._procedure(
                lambda _: output_subject(messages), messages, config, joined=True, strict=in_thread
            )
        return self._procedure(
            self._finder(messages),
            messages,
            config,
            joined=True,
            ledgered=True,
            strict=in_thread,
            keeps_reviews=in_thread,
        )

    def reply_judging(
        self, messages: Sequence[BaseMessage], reply: AIMessage, config: RunnableConfig | None
    ) -> Procedure[RailOutcome | None]:
        """The check of a ``reply`` that has not joined ``messages`` yet."""
        return self._procedure(lambda _: output_subject(messages, reply), [reply], config, joined=False)

    def call_judging(
        self, context: Sequence[BaseMessage], asking: AIMessage, config: RunnableConfig | None
    ) -> Procedure[RailOutcome | None]:
        """The check of a tool call about to run that the door did not release (``asking`` carries it).

        It is judged whatever the ledger holds, as new input after ``context`` (an
        output rail judges it as a reply), and nothing is recorded.
        """
        if self.check == "output":
            return self.reply_judging(context, asking, config)
        messages = [*context, asking]
        find = self._finder(messages)
        return self._procedure(lambda _: find(len(context)), messages, config, joined=False)

    def _finder(self, messages: Sequence[BaseMessage]) -> Callable[[int], Subject | None]:
        if self.check == "input":
            return lambda start: input_subject(messages, start, self.settings.context_messages)
        return lambda start: tool_results_subject(messages, start)

    def _procedure(
        self,
        find: Callable[[int], Subject | None],
        messages: Sequence[BaseMessage],
        config: RunnableConfig | None,
        *,
        joined: bool,
        ledgered: bool = False,
        strict: bool = True,
        keeps_reviews: bool = True,
    ) -> Generator[Step, Any, RailOutcome | None]:
        """The whole check, sync or async alike: it yields its I/O and a driver does it."""
        check_hidden_runs(self.settings.tracers)  # a setup error: raised, never a check that failed
        start = 0
        if ledgered:
            try:
                start = yield Prefix(self.ledger, messages)
                own = self._thread_ledger(config)
                if own is not None:  # what a human allowed counts as judged in its thread only
                    start = max(start, (yield Prefix(own, messages)))
            except Exception as error:  # a ledger that cannot be read: judge everything
                what = type(error).__name__
                logger.warning("the %s safety check could not read its ledger (%s)", self.check, what)
        subject: Subject | None = None
        assessment: HazardAssessment | None = None
        failure: Exception | None = None
        try:
            subject = find(start)
            if subject is None:
                if ledgered and len(messages) > start:
                    yield from self.marking(messages, start, config)
                return None
            if _has_text(subject.data):
                tracers = self.settings.tracers
                asked = rail_config(self.check, config, tracers)
                # the subject, not its data: its every leaf is revealed once (revealing a revealed
                # text again, JSON-escaped, would read its readings as new encodings)
                battery = self.battery  # the request runs HazardBattery.invoke (sync) or .ainvoke
                timeout = self.settings.timeout
                assessment = yield Ask(battery.invoke, battery.ainvoke, subject, asked, timeout, tracers)
        except Exception as error:
            if _is_graph_control(error):
                raise
            failure = error
        if subject is None:
            subject = Subject(JevJudgeInput(), self._fallback(messages, start, joined=joined))
        report, action = self._rule(subject, assessment, failure, config)
        yield from self._notifying(report, config)
        outcome = self._act(report, action, failure, subject, joined=joined, strict=strict, config=config)
        reviewed = report.review == "allow"
        if ledgered and self.settled(report) and (keeps_reviews or not reviewed):
            yield from self.marking(messages, start, config, reviewed=reviewed)
        return outcome

    def _fallback(
        self, messages: Sequence[BaseMessage], start: int, *, joined: bool
    ) -> tuple[BaseMessage, ...]:
        """What a refusal replaces when the subject itself could not be read."""
        if self.check == "input":
            return tuple(messages[start:])
        if self.check == "tool_results":
            return tuple(m for m in messages[start:] if isinstance(m, ToolMessage))
        if not joined:
            return tuple(messages)
        return (messages[-1],) if messages and isinstance(messages[-1], AIMessage) else ()

    def marking(
        self,
        messages: Sequence[BaseMessage],
        start: int,
        config: RunnableConfig | None = None,
        *,
        reviewed: bool = False,
    ) -> Generator[Step, Any, None]:
        """Record ``messages`` in the ledger as judged (from ``start`` on); a failure is logged.

        What a human allowed (``reviewed``), and any conversation that goes on from
        it, is recorded for its thread alone (the thread of ``config``, or of the
        context's config): the same text in another thread is judged, and put to
        review, anew. Without a thread a reviewed allow is not recorded at all.
        """
        try:
            ledger: Ledger | None = self.ledger
            own = self._thread_ledger(config)
            if own is not None and (reviewed or (yield Prefix(own, messages)) > 0):
                ledger = own
            elif reviewed:
                ledger = None
            if ledger is not None:
                yield Mark(ledger, messages, start)
        except Exception as error:  # the next check judges it again
            what = type(error).__name__
            logger.warning("the %s safety check could not write its ledger (%s)", self.check, what)

    def _thread_ledger(self, config: RunnableConfig | None) -> Ledger | None:
        """The ledger of what a human allowed in the thread of ``config`` (None: no review, or no thread)."""
        if not self.policy.reviews:
            return None
        thread = _thread_of(config)
        return self.ledger.within(f"{self.ledger.namespace}:thread:{thread}") if thread else None

    @staticmethod
    def settled(report: GuardrailReport) -> bool:
        """True when what was judged may count as judged: it passed on an answer, not on an error."""
        if report.refused or report.error is not None:
            return False
        return report.review == "allow" or report.mode == "shadow" or not report.flagged

    # ------------------------------------------------------------------ deciding

    def _rule(
        self,
        subject: Subject,
        assessment: HazardAssessment | None,
        error: Exception | None,
        config: RunnableConfig | None,
    ) -> tuple[GuardrailReport, Action]:
        report, action = decide(self.check, self.policy, assessment, error, subject.media)
        self._log(report, action, error)
        if action == "review":
            report = self._review(report, subject, config)
            action = "refuse" if report.refused else "pass"
        return report, action

    def _log(self, report: GuardrailReport, action: Action, error: Exception | None) -> None:
        if report.error is None and not (report.undecided and not report.categories):
            return
        if report.error is not None:
            detail = redact(str(error))[:300] if error is not None else ""
            what = f"failed ({report.error}; detail: {detail})" if detail else f"failed ({report.error})"
            setting = f"on_error={self.policy.on_error!r}"
        else:
            what = f"got no readable answer for {', '.join(report.undecided)}"
            setting = f"on_inconclusive={self.policy.on_inconclusive!r}"
        outcome = {
            "pass": "the turn passes",
            "refuse": "the turn is refused",
            "raise": "the error is raised",
            "review": "the turn is put to a human",
        }[action]
        if report.mode == "shadow":
            outcome, setting = "the turn passes", "mode='shadow'"
        logger.warning("the %s safety check %s; %s because %s", self.check, what, outcome, setting)

    def _review(
        self, report: GuardrailReport, subject: Subject, config: RunnableConfig | None
    ) -> GuardrailReport:
        """Put the check to a human (see `langchain_jev.guardrails._review`): one pause, one decision."""
        if self.reviewer is None:  # pragma: no cover - checked when the rail is built
            raise JevConfigurationError("interrupt needs a reviewer")
        data = subject.data.to_state()
        configurable = ensure_config(config).get("configurable") or {}
        binding = ReviewBinding(
            _thread_of(config),
            review_id(_thread_of(config), str(configurable.get("checkpoint_ns", "")), self.check),
            fingerprint(data),
        )
        return reviewed(
            report, binding, data, self.reviewer, self.settings, self.ledger.store, check=self.check
        )

    def _recorded(self, report: GuardrailReport, config: RunnableConfig | None) -> RunnableConfig | None:
        """The config of the decision's run, or None when no handler would see it (no bookkeeping)."""
        base = rail_config(self.check, config, self.settings.tracers)
        if not _observed(base):
            return None
        metadata = {**(base.get("metadata") or {}), "jev_guardrail_decision": report.to_dict()}
        return {**base, "metadata": metadata}

    def _notifying(
        self, report: GuardrailReport, config: RunnableConfig | None
    ) -> Generator[Step, Any, None]:
        """Record the decision and call ``on_flag``; neither one's failure decides the turn."""
        try:
            recorded = self._recorded(report, config)
            if recorded is not None:
                yield Trace(report.to_dict(), recorded, self.settings.tracers)
        except Exception as error:  # a tracer's fault must not decide the turn
            logger.warning(
                "could not record the %s safety check's decision (%s)", self.check, type(error).__name__
            )
        on_flag = self.settings.on_flag
        if on_flag is None or not report.flagged:
            return
        try:
            result = on_flag(report)
            if inspect.isawaitable(result):
                yield result
        except Exception as error:
            logger.warning(
                "on_flag raised %s: %s; the decision stands", type(error).__name__, redact(str(error))
            )

    def _act(
        self,
        report: GuardrailReport,
        action: Action,
        error: Exception | None,
        subject: Subject,
        *,
        joined: bool,
        strict: bool = True,
        config: RunnableConfig | None = None,
    ) -> RailOutcome:
        if action == "raise":
            if error is not None:
                raise stop_error(GuardrailCheckError, config, report, type(error).__name__) from None
            raise stop_error(GuardrailUndecidedError, config, report)
        if action != "refuse":
            return RailOutcome(report, subject=subject)
        exit_behavior = self.policy.exit_behavior
        if exit_behavior == "error":
            raise stop_error(GuardrailRefusedError, config, report)
        text = self._refusal_text(report)
        ends = exit_behavior == "end"
        if not joined:
            return RailOutcome(report, [refusal_reply(report, text)], ends, subject)
        updates = refusal_messages(subject, report, text, exit_behavior, strict=strict)
        return RailOutcome(report, updates, ends, subject)

    def refusal_text(self, report: GuardrailReport) -> str:
        """The refusal wording for ``report`` (the default wording when ``refusal_message`` raises)."""
        return self._refusal_text(report)

    def _refusal_text(self, report: GuardrailReport) -> str:
        try:
            return refusal_text(self.settings.refusal_message, report)
        except Exception as error:
            logger.warning("refusal_message raised %s; the default refusal is used", type(error).__name__)
            return default_refusal(report)
