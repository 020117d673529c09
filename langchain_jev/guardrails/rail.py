"""One guardrail rail: ask a battery about a conversation and decide the turn.

The rail is the I/O edge shared by the LangGraph nodes and the agent middleware:
it finds what to check in the messages, makes the battery's one request, decides
by its `GuardrailPolicy`, and returns the report with the message updates of a
refusal. Around that one request:

- **everything fails closed**: any exception while finding or judging the text
  (a model that cannot be reached, an answer that cannot be read, a bug) is a
  failed check, logged at WARNING on ``langchain_jev.guardrail`` and decided by
  ``on_error``; only LangGraph's own control flow passes through;
- **no stream sees it**: the battery's run (which carries the text judged) is
  started without the config's streaming handlers (see `hidden_config`) and
  tagged ``jev_guardrail`` / ``jev_guardrail:<check>``; tracers keep it;
- **every decision is recorded**: a run named ``jev_guardrail_decision`` carries
  the report in its metadata (``jev_guardrail_decision``), and ``on_flag`` (sync
  or async) is called once with the report of every check that did not come back
  clean, in every mode;
- **a human may decide**: with ``interrupt``, the rail calls its ``reviewer`` (the
  LangGraph spokes pass ``langgraph.types.interrupt``) with `review_request` and
  reads the answer with `read_review`.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import re
import threading
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_core.callbacks import BaseCallbackManager
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.runnables.config import ensure_config
from langchain_core.tracers.context import _tracing_v2_is_enabled

from langchain_jev.errors import (
    GuardrailRefusedError,
    GuardrailUndecidedError,
    JevConfigurationError,
    JevInputError,
)
from langchain_jev.guardrails.battery import HazardAssessment, HazardBattery
from langchain_jev.guardrails.catalog import Direction
from langchain_jev.guardrails.hidden import hidden_config
from langchain_jev.guardrails.policy import (
    Action,
    ExitBehavior,
    GuardrailPolicy,
    GuardrailReport,
    Mode,
    OnError,
    RefusalMessage,
    check_refusal_message,
    decide,
    default_refusal,
    read_review,
    refusal_messages,
    refusal_reply,
    refusal_text,
    review_request,
)
from langchain_jev.guardrails.subjects import (
    DEFAULT_CONTEXT_MESSAGES,
    Subject,
    output_subject,
    subject_for,
)
from langchain_jev.input import JevJudgeInput

__all__ = [
    "GuardrailRail",
    "OnFlag",
    "RailOutcome",
    "Reviewer",
    "hold_tokens",
    "rail_config",
    "redact",
    "require_battery",
    "require_strings",
    "state_messages",
]

logger = logging.getLogger("langchain_jev.guardrail")

OnFlag = Callable[[GuardrailReport], Any]
"""Called with the report of every check that did not come back clean (may be async)."""

Reviewer = Callable[[dict[str, Any]], Any]
"""Asks a human about a check (``langgraph.types.interrupt``) and returns the answer."""

_SECRETS = re.compile(r"(?i)\b(sk-|bearer\s+|api[_-]?key[=:]\s*)[A-Za-z0-9._\-]{4,}")


def redact(text: str) -> str:
    """``text`` with anything shaped like an API key or bearer token masked.

    Example:
        >>> redact("401: bad key sk-test-0123456789")
        '401: bad key sk-…'

    """
    return _SECRETS.sub(lambda match: f"{match.group(1)}…", text)


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
        langchain_jev.errors.JevConfigurationError: messages_key must be a non-empty string, got ''

    """
    for label, value in settings.items():
        if not isinstance(value, str) or not value:
            raise JevConfigurationError(f"{label} must be a non-empty string, got {value!r}")


def hold_tokens(config: RunnableConfig | None) -> RunnableConfig:
    """The config of a model call whose reply is checked before it is shown.

    The caller's config (or the enclosing run's) without streaming handlers and
    tagged ``nostream`` (see `hidden_config`): neither LangGraph's
    ``stream_mode="messages"`` nor ``astream_events`` shows the model's tokens or
    its reply; the step returns the reply once the output rail has checked it.
    """
    return hidden_config(config, "jev_guarded_draft")


def rail_config(check: Direction, config: RunnableConfig | None) -> RunnableConfig:
    """The config of a rail's battery run: the caller's, hidden from streams, tagged with the check.

    Without a config, the one of the enclosing run (a graph node, a middleware hook)
    is used, so the battery's run nests under it in the trace.
    """
    base = ensure_config(config)
    metadata = {**(base.get("metadata") or {}), "jev_guardrail": check}
    return hidden_config({**base, "metadata": metadata}, "jev_guardrail", f"jev_guardrail:{check}")


def _observed(config: RunnableConfig) -> bool:
    """True when a handler would see a run started with ``config`` (a callback, or tracing on)."""
    callbacks = config.get("callbacks")
    if isinstance(callbacks, BaseCallbackManager):
        callbacks = callbacks.handlers
    return bool(callbacks) or bool(_tracing_v2_is_enabled())


def _record(report: dict[str, Any]) -> dict[str, Any]:
    return report


async def _arecord(report: dict[str, Any]) -> dict[str, Any]:
    return report


_DECISION = RunnableLambda(_record, afunc=_arecord, name="jev_guardrail_decision")


def _run_coroutine(awaitable: Awaitable[Any]) -> None:
    """Wait for an async callback from sync code (in a thread when a loop is running here)."""

    async def wait() -> None:
        await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(wait())
        return
    failure: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(wait())
        except BaseException as error:
            failure.append(error)

    thread = threading.Thread(target=target, name="jev-guardrail-on-flag")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


_Found = tuple[Subject, HazardAssessment | None, Exception | None]
"""What a check found: the subject, and the assessment or the error that kept the rail from one."""


@dataclass(frozen=True)
class _Ask:
    """A check's one battery request."""

    data: JevJudgeInput
    config: RunnableConfig


@dataclass(frozen=True)
class _Record:
    """The decision's trace run (`_DECISION`), with its report."""

    report: dict[str, Any]
    config: RunnableConfig


_Step = _Ask | _Record | Awaitable[Any]
"""What a check asks of its driver: the battery's request, the decision's run, or an ``on_flag`` to await."""
_Procedure = Generator[_Step, Any, RailOutcome | None]


@dataclass(frozen=True)
class _Done:
    """A procedure's end: the rail's outcome."""

    outcome: RailOutcome | None


def _advance(procedure: _Procedure, sent: Any, failed: Exception | None) -> _Step | _Done:
    """Send a step's result into the procedure (or throw its error in); the next step, or the end."""
    try:
        return procedure.send(sent) if failed is None else procedure.throw(failed)
    except StopIteration as stop:
        return _Done(stop.value)


def _fallback_subject(check: Direction, messages: Sequence[BaseMessage]) -> Subject:
    """What a refusal replaces when the subject itself could not be read."""
    if check == "input":
        start = max((i + 1 for i, m in enumerate(messages) if isinstance(m, AIMessage)), default=0)
        found: tuple[BaseMessage, ...] = tuple(m for m in messages[start:] if isinstance(m, HumanMessage))
    elif check == "output":
        found = (messages[-1],) if messages and isinstance(messages[-1], AIMessage) else ()
    else:
        end = len(messages)
        while end > 0 and isinstance(messages[end - 1], ToolMessage):
            end -= 1
        found = tuple(messages[end:])
    return Subject(JevJudgeInput(), found)


class GuardrailRail:
    """Check one side of a turn with a battery; decide by the policy.

    Args:
        battery: the hazard battery to ask.
        check: the side (must be the battery's).
        refusal_message: the refusal text, or a function of the report returning it.
        on_error, on_inconclusive, review_band, exit_behavior, mode: the `GuardrailPolicy`.
        on_flag: called (sync or async) with the report of every check that did not
            come back clean, in every mode; an error in it is logged, never raised.
        context_messages: how many earlier messages an input check is shown.
        reviewer: asks a human (``interrupt`` policies need one).

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
        refusal_message: RefusalMessage | None = None,
        on_error: OnError = "refuse",
        on_inconclusive: OnError | None = None,
        review_band: float = 0.0,
        exit_behavior: ExitBehavior = "end",
        mode: Mode = "enforce",
        on_flag: OnFlag | None = None,
        context_messages: int = DEFAULT_CONTEXT_MESSAGES,
        reviewer: Reviewer | None = None,
    ) -> None:
        self.battery = battery
        self.check = check
        self.refusal_message = check_refusal_message(refusal_message)
        self.policy = GuardrailPolicy.of(
            mode=mode,
            on_error=on_error,
            on_inconclusive=on_inconclusive,
            exit_behavior=exit_behavior,
            review_band=review_band,
        )
        if on_flag is not None and not callable(on_flag):
            raise JevConfigurationError(
                f"on_flag must be a function of the report, got {type(on_flag).__name__}"
            )
        self.on_flag = on_flag
        if (
            isinstance(context_messages, bool)
            or not isinstance(context_messages, int)
            or context_messages < 0
        ):
            raise JevConfigurationError(
                f"context_messages must be a whole number of messages >= 0, got {context_messages!r}"
            )
        self.context_messages = context_messages
        if self.policy.reviews and reviewer is None:
            raise JevConfigurationError(
                "on_error/on_inconclusive='interrupt' needs a reviewer: use the LangGraph guardrail "
                "node or the agent middleware, which pause the graph with interrupt()"
            )
        self.reviewer = reviewer

    @property
    def on_error(self) -> str:
        """The canonical ``on_error`` policy."""
        return self.policy.on_error

    # ------------------------------------------------------------------ checking

    def run(
        self, messages: Sequence[BaseMessage], config: RunnableConfig | None = None
    ) -> RailOutcome | None:
        """Check ``messages``; None when they hold nothing of this side to check.

        Raises:
            Exception: with ``on_error="raise"``, the check's error, or
                `GuardrailUndecidedError` when categories went unanswered.
            GuardrailRefusedError: a refusal with ``exit_behavior="error"``.

        """
        return self._drive(self._checking(messages, config))

    async def arun(
        self, messages: Sequence[BaseMessage], config: RunnableConfig | None = None
    ) -> RailOutcome | None:
        """Asynchronous `run`."""
        return await self._adrive(self._checking(messages, config))

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
        return self._drive(self._reply_checking(messages, reply, config))

    async def acheck_reply(
        self, messages: Sequence[BaseMessage], reply: AIMessage, config: RunnableConfig | None = None
    ) -> RailOutcome | None:
        """Asynchronous `check_reply`."""
        self._output_only()
        return await self._adrive(self._reply_checking(messages, reply, config))

    def _output_only(self) -> None:
        if self.check != "output":
            raise JevConfigurationError(
                f"only an output rail checks a model's reply; this is a {self.check} rail"
            )

    # ------------------------------------------------------------------ one check, two drivers

    def _checking(self, messages: Sequence[BaseMessage], config: RunnableConfig | None) -> _Procedure:
        """A check of ``messages`` as they stand (the subject is already in the conversation)."""
        return self._procedure(
            lambda: subject_for(self.check, messages, self.context_messages), messages, config, joined=True
        )

    def _reply_checking(
        self, messages: Sequence[BaseMessage], reply: AIMessage, config: RunnableConfig | None
    ) -> _Procedure:
        """A check of a ``reply`` that has not joined ``messages`` yet."""
        return self._procedure(lambda: output_subject([*messages, reply]), [reply], config, joined=False)

    def _procedure(
        self,
        find: Callable[[], Subject | None],
        messages: Sequence[BaseMessage],
        config: RunnableConfig | None,
        *,
        joined: bool,
    ) -> _Procedure:
        """The whole check, sync or async alike: it yields its I/O and a driver does it.

        It yields `_Ask` (the battery's one request; the assessment is sent back),
        `_Record` (the decision's trace run) and an awaitable ``on_flag`` result;
        a driver throws an I/O step's error back in, where it is decided.
        """
        subject: Subject | None = None
        found: _Found
        try:
            subject = find()
            if subject is None:
                return None
            assessment: HazardAssessment = yield _Ask(subject.data, rail_config(self.check, config))
            found = subject, assessment, None
        except Exception as failure:
            if _is_graph_control(failure):
                raise
            found = subject or _fallback_subject(self.check, messages), None, failure
        report, action, error, subject = self._rule(*found)
        yield from self._notifying(report, config)
        return self._act(report, action, error, subject, joined=joined)

    def _drive(self, procedure: _Procedure) -> RailOutcome | None:
        """Do a procedure's I/O synchronously (an async ``on_flag`` is waited for)."""
        step = _advance(procedure, None, None)
        while not isinstance(step, _Done):
            sent: Any = None
            failed: Exception | None = None
            try:
                if isinstance(step, _Ask):
                    sent = self.battery.invoke(step.data, step.config)
                elif isinstance(step, _Record):
                    _DECISION.invoke(step.report, step.config)
                else:
                    _run_coroutine(step)
            except Exception as error:
                failed = error
            step = _advance(procedure, sent, failed)
        return step.outcome

    async def _adrive(self, procedure: _Procedure) -> RailOutcome | None:
        """Do a procedure's I/O asynchronously."""
        step = _advance(procedure, None, None)
        while not isinstance(step, _Done):
            sent: Any = None
            failed: Exception | None = None
            try:
                if isinstance(step, _Ask):
                    sent = await self.battery.ainvoke(step.data, step.config)
                elif isinstance(step, _Record):
                    await _DECISION.ainvoke(step.report, step.config)
                else:
                    await step
            except Exception as error:
                failed = error
            step = _advance(procedure, sent, failed)
        return step.outcome

    # ------------------------------------------------------------------ deciding

    def _rule(
        self, subject: Subject, assessment: HazardAssessment | None, error: Exception | None
    ) -> tuple[GuardrailReport, Action, Exception | None, Subject]:
        report, action = decide(self.check, self.policy, assessment, error)
        if report.error is not None:
            report = replace(report, error=redact(report.error))
        self._log(report, action)
        if action == "review":
            report = self._review(report, subject)
            action = "refuse" if report.refused else "pass"
        return report, action, error, subject

    def _log(self, report: GuardrailReport, action: Action) -> None:
        if report.error is None and not (report.undecided and not report.categories):
            return
        if report.error is not None:
            what, setting = f"failed ({report.error})", f"on_error={self.policy.on_error!r}"
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

    def _review(self, report: GuardrailReport, subject: Subject) -> GuardrailReport:
        if self.reviewer is None:  # pragma: no cover - checked when the rail is built
            raise JevConfigurationError("interrupt needs a reviewer")
        data = subject.data.to_state()
        answer = self.reviewer(review_request(report, data))
        allowed, problem = read_review(answer, data)
        if problem is not None:
            logger.warning("the %s safety check's review refuses the turn: %s", self.check, problem)
        return replace(report, refused=not allowed, review="allow" if allowed else "refuse")

    def _recorded(self, report: GuardrailReport, config: RunnableConfig | None) -> RunnableConfig | None:
        """The config of the decision's run, or None when no handler would see it (no bookkeeping)."""
        base = rail_config(self.check, config)
        if not _observed(base):
            return None
        metadata = {**(base.get("metadata") or {}), "jev_guardrail_decision": report.to_dict()}
        return {**base, "metadata": metadata}

    def _notifying(
        self, report: GuardrailReport, config: RunnableConfig | None
    ) -> Generator[_Step, Any, None]:
        """Record the decision and call ``on_flag``; neither one's failure decides the turn."""
        try:
            recorded = self._recorded(report, config)
            if recorded is not None:
                yield _Record(report.to_dict(), recorded)
        except Exception as error:  # a tracer's fault must not decide the turn
            logger.warning(
                "could not record the %s safety check's decision (%s)", self.check, type(error).__name__
            )
        if self.on_flag is None or not report.flagged:
            return
        try:
            result = self.on_flag(report)
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
    ) -> RailOutcome:
        if action == "raise":
            if error is not None:
                raise error
            raise GuardrailUndecidedError(report)
        if action != "refuse":
            return RailOutcome(report)
        exit_behavior = self.policy.exit_behavior
        if exit_behavior == "error":
            raise GuardrailRefusedError(report)
        text = self._refusal_text(report)
        ends = exit_behavior == "end"
        if not joined:
            return RailOutcome(report, [refusal_reply(report, text)], ends)
        return RailOutcome(report, refusal_messages(subject, report, text, exit_behavior), ends)

    def _refusal_text(self, report: GuardrailReport) -> str:
        try:
            return refusal_text(self.refusal_message, report)
        except Exception as error:
            logger.warning("refusal_message raised %s; the default refusal is used", type(error).__name__)
            return default_refusal(report)
