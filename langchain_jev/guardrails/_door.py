"""The model's door: judge what the model is about to read, call it unseen, judge what it wrote, release.

Every guarded model call goes through one procedure, `GuardrailDoor.passing`,
whatever the form (the guarded model node, `guard_model`, the agent
middleware's ``wrap_model_call``) and whatever route led to the call (an input
node, a ``Command``, ``update_state``, ``Send``, a resumed interrupt):

1. **judge input**: the input rail judges the messages the model is about to
   receive that its ledger has not seen judged (every role; see
   `langchain_jev.guardrails._judged`), and the tool-result rail (when there is
   one) the tool results among them. A refused request's messages get
   placeholders in the thread and the refusal is released;
2. **call the model hidden**: as a hidden run (`langchain_jev.guardrails._hidden`)
   that carries no handler of the caller's but the allowed tracers (LangSmith's,
   and ``allowed_tracers``), whether it comes in the config, the context or the
   model itself, with LangGraph's stream writer removed, as the context config
   too, so no stream, handler, nested model call, ``get_stream_writer()`` or
   ``dispatch_custom_event`` shows the draft (``stream_tokens=True`` gives that
   up). With ``concurrent_input`` (the
   default, where `may_start_early` says the model only writes a reply) the call
   starts *with* the input check, as a `Draft` held until the check is clean: a
   refused request drops it (its task cancelled when async), so nothing of it
   reaches a stream, the state, a checkpoint or a tool, and its latency hides
   behind the model's;
3. **judge output**: the output rail judges the reply (every string it carries,
   its tool calls, its media). With ``stream_chunks=N`` and someone streaming
   the model's tokens, it judges the reply as it streams instead, chunk by chunk
   (`langchain_jev.guardrails._chunks`), and shows each chunk judged clean
   (`langchain_jev.guardrails._release`); a flagged chunk stops the stream and the
   refusal takes the rest of the reply's place;
4. **release**: the reply, or the refusal in its place; the released message and
   the conversation before it enter the input-side ledgers as judged, so the
   model's own passed replies are never judged as input again (an AI message the
   caller writes is), and its tool calls are recorded for the tools' door, in this
   thread (`langchain_jev.guardrails._tools`), and its response id as one the model
   may read by reference (below). A turn in which a human allowed
   anything (the request or the reply) is recorded for its thread alone. Only what passed enters a ledger: a
   dropped draft never does.

**Stored responses.** A builder may send an AI message's response id as
``previous_response_id`` (langchain-openai with ``use_previous_response_id=True``)
and drop the messages before it, so the provider reads a conversation it stored.
The model reads by reference only what this door released: before the model is
called (and before a draft starts), each such id from the last back to the first
the door released in this thread (`langchain_jev.guardrails._calls.ReleasedResponses`)
is named unjudgeable in the first input check, and ``on_unjudgeable`` (refuse by
default) decides; a refusal withholds the message that carries it.

The procedure yields its I/O (`langchain_jev.guardrails._drive`), so the sync and
async forms are one code path.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig

from langchain_jev._errors import JevConfigurationError
from langchain_jev._input import JevJudgeInput
from langchain_jev.guardrails._blocks import STORED_OPTIONS, STORED_RESPONSE, stored_responses
from langchain_jev.guardrails._calls import ReleasedResponses, thread_of
from langchain_jev.guardrails._chunks import (
    chunk_window,
    refusal_tail,
    reply_text,
    rest_chunk,
    stopped_reply,
    text_chunk,
    with_text,
)
from langchain_jev.guardrails._draft import Draft, DraftView
from langchain_jev.guardrails._drive import (
    Await,
    Begin,
    Call,
    Claim,
    Drop,
    Grant,
    Procedure,
    Show,
    Step,
    adrive,
    drive,
)
from langchain_jev.guardrails._hidden import stream_handlers
from langchain_jev.guardrails._judged import Subject
from langchain_jev.guardrails._policy import GuardrailReport, refusal_reply
from langchain_jev.guardrails._rail import GuardrailRail, RailOutcome
from langchain_jev.guardrails._release import Release
from langchain_jev.guardrails._settings import GuardrailSettings
from langchain_jev.guardrails._tools import granting

__all__ = ["CallsFor", "DoorOutcome", "GuardrailDoor"]

CallsFor = Callable[
    [list[BaseMessage]],
    tuple[Callable[[RunnableConfig], Any], Callable[[RunnableConfig], Awaitable[Any]]],
]
"""Makes the model's sync and async calls on other messages (a refusal replaced some)."""

DRAFT_TAG = "jev_guarded_draft"
"""The tag of the hidden model run whose reply is not checked yet."""

logger = logging.getLogger("langchain_jev.guardrail")


@dataclass(frozen=True)
class DoorOutcome:
    """What the door released, and what the thread should keep of the turn."""

    reply: AIMessage | None
    """The message released: the model's reply, or the refusal in its place (None when the
    model's output held no AI message)."""
    output: Any = None
    """The model's raw output, when the model was called and its reply released unchanged."""
    withheld: list[BaseMessage] = field(default_factory=list)
    """Placeholders (same ids) for the refused messages of the thread; empty when none was refused."""
    reports: tuple[GuardrailReport, ...] = ()
    """The report of every rail that judged something, in order."""
    ends: bool = False
    """True when a refusal ends the turn (``exit_behavior="end"``)."""

    @property
    def report(self) -> GuardrailReport | None:
        """The report of the last rail that judged something."""
        return self.reports[-1] if self.reports else None

    @property
    def refused(self) -> bool:
        """True when a rail refused (the released message is a refusal or the model answered one)."""
        return any(report.refused for report in self.reports)


def _refusal(checked: RailOutcome) -> AIMessage:
    refusal = checked.messages[-1]
    if not isinstance(refusal, AIMessage):  # pragma: no cover - a refusal is one
        raise TypeError("a refusal is an AI message")
    return refusal


BESIDE = "released beside the reply"
"""The key under which what a model's output releases beside its reply is judged with it."""


def _with_beside(reply: AIMessage, extras: Sequence[Any]) -> AIMessage:
    """``reply`` as the output rail judges it: with what is released beside it in a block of its own.

    Only the judge reads this copy; the reply released, recorded and run is ``reply``.
    """
    if not extras:
        return reply
    content = reply.content
    blocks: list[Any] = [content] if isinstance(content, str) and content else list(content or [])
    blocks.append({"type": "non_standard", "value": {BESIDE: list(extras)}})
    return reply.model_copy(update={"content": blocks})


def _replaced(
    messages: Sequence[BaseMessage], updates: Sequence[BaseMessage], judged: Sequence[BaseMessage]
) -> list[BaseMessage]:
    """``messages`` with each refused one in ``judged`` in its placeholder's place (by id, else dropped)."""
    by_id = {m.id: m for m in updates if m.id is not None}
    refused = {id(m) for m in judged}
    out: list[BaseMessage] = []
    for message in messages:
        if message.id is not None and message.id in by_id:
            out.append(by_id[message.id])
        elif id(message) in refused and message.id is None:
            continue  # a refused message without an id (a system prompt) is left out of the call
        else:
            out.append(message)
    return out


def _responses(rail: GuardrailRail) -> ReleasedResponses:
    return ReleasedResponses(rail.ledger.store, namespace=rail.ledger.namespace)


Reference = tuple[int, Any]
"""A stored response a message names: the message's index and its response id."""


def _unreleased(
    rail: GuardrailRail, messages: Sequence[BaseMessage], config: RunnableConfig | None
) -> Generator[Step, Any, list[Reference]]:
    """The stored responses ``messages`` name that the door did not release, from the last back.

    The walk stops at the first one the door released in this thread: the builder
    sends the last, and an earlier one only when every later one is withheld. A
    record that cannot be read counts as no release (fail closed).
    """
    found: list[Reference] = []
    thread = thread_of(config)
    for index, response in stored_responses(messages):
        try:
            released = bool((yield Claim(_responses(rail), thread, {"id": response})))
        except Exception as error:
            logger.warning("the guardrail could not read its released responses (%s)", type(error).__name__)
            released = False
        if released:
            break
        found.append((index, response))
    return found


def _unreleased_options(
    rail: GuardrailRail, stored: Sequence[tuple[str, str, Any]], config: RunnableConfig | None
) -> Generator[Step, Any, tuple[str, ...]]:
    """Where the call's options name stored content the door did not release (`STORED_OPTIONS`).

    A ``previous_response_id`` the door released in this thread passes; a conversation never does.
    """
    named: list[str] = []
    thread = thread_of(config)
    for where, option, value in stored:
        released = False
        if option == "previous_response_id":
            try:
                released = bool((yield Claim(_responses(rail), thread, {"id": value})))
            except Exception as error:
                logger.warning(
                    "the guardrail could not read its released responses (%s)", type(error).__name__
                )
        if not released:
            named.append(f"{where}: {STORED_OPTIONS.get(option, 'stored content')}")
    return tuple(named)


def _judging(
    rail: GuardrailRail,
    messages: Sequence[BaseMessage],
    config: RunnableConfig | None,
    references: Sequence[Reference],
    options: tuple[str, ...] = (),
) -> Procedure[RailOutcome | None]:
    """The rail's check of ``messages``, with the stored content it cannot read named unjudgeable.

    ``references`` are the messages' (a refusal withholds each message carrying
    one, judged with what is new), ``options`` the call options' (named).
    """
    if not references and not options:
        return rail.judging(messages, config, in_thread=False)
    find = rail._finder(messages)
    named = (
        *(f"messages[{index}].response_metadata.id: {STORED_RESPONSE}" for index, _ in references),
        *options,
    )
    holders = {index for index, _ in references}

    def finding(start: int) -> Subject:
        subject = find(start)
        judged = {id(m) for m in subject.messages} if subject is not None else set()
        kept = tuple(m for i, m in enumerate(messages) if id(m) in judged or i in holders)
        if subject is None:
            return Subject(JevJudgeInput(), kept, named)
        return replace(subject, messages=kept, media=(*subject.media, *named))

    return rail._procedure(
        finding, messages, config, joined=True, ledgered=True, strict=False, keeps_reviews=False
    )


def _granting_response(
    rails: Sequence[GuardrailRail], released: AIMessage, config: RunnableConfig | None
) -> Generator[Step, Any, None]:
    """Record the response id of a reply the door released (a refusal has none), in this thread."""
    response = released.response_metadata.get("id")
    if type(response) is not str or not response:
        return
    thread = thread_of(config)
    for rail in rails:
        try:
            yield Grant(_responses(rail), thread, ({"id": response},))
        except Exception as error:
            logger.warning("the guardrail could not record a released response (%s)", type(error).__name__)


class GuardrailDoor:
    """Guard one model's calls: the input, tool-result and output rails around it (any may be None).

    Args:
        input: the rail judging what the model is about to read (an input battery's).
        tool_results: the rail judging tool results the model is about to read.
        output: the rail judging the model's reply.
        stream_tokens: let the model's tokens stream before its reply is checked
            (None: as ``settings`` say).
        settings: the `GuardrailSettings` of the door (``concurrent_input``,
            ``stream_chunks``, ``chunk_context``, ``final_check``); None: the first rail's.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> from langchain_jev.guardrails import HazardBattery
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> battery = HazardBattery.output(["hate"], model=ScriptedDecisionModel({"hate": 0.9}))
        >>> door = GuardrailDoor(output=GuardrailRail(battery, "output"))
        >>> def call(config):
        ...     return AIMessage("a hateful draft")
        >>> async def acall(config):
        ...     return call(config)
        >>> outcome = door.run(door.passing([HumanMessage("hi")], call, acall, lambda reply: reply, None))
        >>> outcome.reply.content, outcome.refused
        ("I can't share that response: it was flagged for hate.", True)

    """

    def __init__(
        self,
        *,
        input: GuardrailRail | None = None,
        tool_results: GuardrailRail | None = None,
        output: GuardrailRail | None = None,
        stream_tokens: bool | None = None,
        settings: GuardrailSettings | None = None,
    ) -> None:
        for rail, side in ((input, "input"), (tool_results, "tool_results"), (output, "output")):
            if rail is not None and rail.check != side:
                raise JevConfigurationError(f"the door's {side} rail must check {side}, not {rail.check}")
        if input is None and tool_results is None and output is None:
            raise JevConfigurationError("a guarded model needs at least one battery")
        self.input = input
        self.tool_results = tool_results
        self.output = output
        if settings is None:
            settings = next(rail.settings for rail in (input, tool_results, output) if rail is not None)
        self.settings = settings
        self.stream_tokens = settings.stream_tokens if stream_tokens is None else bool(stream_tokens)

    @property
    def rails(self) -> tuple[GuardrailRail, ...]:
        """The rails of the door, in the order they judge."""
        return tuple(r for r in (self.input, self.tool_results, self.output) if r is not None)

    def passing(
        self,
        messages: Sequence[BaseMessage],
        invoke: Callable[[RunnableConfig], Any],
        ainvoke: Callable[[RunnableConfig], Awaitable[Any]],
        read: Callable[[Any], AIMessage | None],
        config: RunnableConfig | None,
        call_with: CallsFor | None = None,
        *,
        early: bool = False,
        name: str = "jev_guarded_model",
        beside: Callable[[Any], Sequence[Any]] | None = None,
        stored: Sequence[tuple[str, str, Any]] = (),
        reads_stored: bool = True,
    ) -> Procedure[DoorOutcome]:
        """The door's one procedure over the ``messages`` the model is about to receive.

        ``invoke`` / ``ainvoke`` call the model (given the config to run with) on
        ``messages``; ``call_with`` makes them for other messages (when a refusal
        replaced some, ``exit_behavior="replace"``). ``read`` finds the reply in
        the model's output. ``early``: the form's model may be called before its
        input is judged (`may_start_early`), which ``concurrent_input`` then does.
        ``name`` names the run that shows a reply released chunk by chunk.
        ``beside`` finds what else the model's output releases with its reply (an
        agent's structured response, other messages): the output rail judges it
        with the reply, so nothing released goes unjudged. ``stored``: the stored
        content the call's options name (`langchain_jev.guardrails._blocks.stored_references`),
        judged as the messages' stored responses are. ``reads_stored``: the model may
        send a message's response id (`langchain_jev.guardrails._blocks.reads_stored_responses`;
        False only for a model known never to, whose messages' response ids are then not judged).
        """
        call_messages = list(messages)
        reports: list[GuardrailReport] = []
        withheld: list[BaseMessage] = []
        settled = True
        visible = not self.stream_tokens and bool(stream_handlers(config))
        chunked = visible and self.output is not None and self.settings.stream_chunks is not None
        capture = visible and (self.output is None or chunked)
        checks = [rail for rail in (self.input, self.tool_results) if rail is not None]
        # the stored responses the model would read by reference that this door did not release
        reads = bool(checks) and reads_stored
        references = (yield from _unreleased(checks[0], call_messages, config)) if reads else []
        options = (yield from _unreleased_options(checks[0], stored, config)) if checks else ()
        named = {id(call_messages[index]) for index, _ in references}
        draft: Draft | None = None
        unverified = bool(references or options)  # the draft would send them: it waits
        if checks and early and self.settings.concurrent_input and not self.stream_tokens and not unverified:
            draft = yield Begin(self._draft_call(invoke, ainvoke, config), capture)
        for rail in checks:
            outcome: RailOutcome | None = yield from _judging(
                rail, call_messages, config, references, options
            )
            references, options = [], ()  # named in the first check only
            if outcome is None:
                continue
            reports.append(outcome.report)
            settled = settled and rail.settled(outcome.report)
            if not outcome.report.refused:
                continue
            if draft is not None:  # the draft answered what was refused: it goes nowhere
                yield Drop(draft)
                draft = None
            if rail.policy.exit_behavior != "replace":
                refusal = outcome.messages[-1]
                if not isinstance(refusal, AIMessage):  # pragma: no cover - a refusal ends with one
                    raise TypeError("a refusal ends with an AI message")
                return DoorOutcome(refusal, None, list(outcome.messages[:-1]), tuple(reports), outcome.ends)
            judged = outcome.subject.messages if outcome.subject is not None else ()
            call_messages = _replaced(call_messages, outcome.messages, judged)
            withheld = [*withheld, *outcome.messages]
            if call_with is None:
                raise JevConfigurationError(
                    "exit_behavior='replace' on the input side needs the messages to call with"
                )
            invoke, ainvoke = call_with(call_messages)
            later = (yield from _unreleased(checks[0], call_messages, config)) if reads else []
            if any(id(call_messages[index]) not in named for index, _ in later):
                # a released reply withheld lets an earlier stored response be read, one not judged
                report = outcome.report
                return DoorOutcome(
                    refusal_reply(report, rail.refusal_text(report)), None, withheld, (*reports,)
                )
        release = Release(config, call_messages, name) if capture else None
        if draft is None and chunked:
            draft = yield Begin(self._draft_call(invoke, ainvoke, config), capture)
        released: AIMessage | None
        if chunked and draft is not None and release is not None:
            released, output, ends = yield from self._streamed(
                draft, release, call_messages, read, config, reports, beside
            )
        else:
            if draft is None:
                hidden = self.output is not None and not self.stream_tokens  # no output check: no secret
                raw = yield Call(invoke, ainvoke, config, hidden, (DRAFT_TAG,), self.settings.tracers)
            elif release is not None:  # no output check: the draft's tokens flow once its input passed
                raw = yield from self._flowing(draft, release, read)
            else:
                raw = (yield Await(draft)).output
            reply = read(raw)
            if reply is None:
                return DoorOutcome(None, raw, withheld, tuple(reports))
            released, output, ends = reply, raw, False
            if self.output is not None:
                shown = _with_beside(reply, beside(raw) if beside is not None else ())
                checked = yield from self.output.reply_judging(call_messages, shown, config)
                if checked is not None:
                    reports.append(checked.report)
                    if checked.report.refused:
                        released, output, ends = _refusal(checked), None, checked.ends
        if released is None:
            return DoorOutcome(None, output, withheld, tuple(reports))
        if settled or withheld:
            # what a human allowed in this turn, on any side (a reviewed reply too), counts as
            # judged in this thread alone: the turn is recorded in the thread's own ledger
            reviewed = any(report.review == "allow" for report in reports)
            for rail in checks:
                start = 0 if withheld else len(call_messages)
                marked = [*call_messages, released]
                yield from rail.marking(marked, start, config, reviewed=reviewed)
        yield from granting((self.input, self.output), released, config)  # the calls the tools' door runs
        yield from _granting_response(checks, released, config)  # a stored response the model may read
        return DoorOutcome(released, output, withheld, tuple(reports), ends)

    def _draft_call(
        self,
        invoke: Callable[[RunnableConfig], Any],
        ainvoke: Callable[[RunnableConfig], Awaitable[Any]],
        config: RunnableConfig | None,
    ) -> Call:
        return Call(invoke, ainvoke, config, True, (DRAFT_TAG,), self.settings.tracers)

    def _flowing(
        self, draft: Draft, release: Release, read: Callable[[Any], AIMessage | None]
    ) -> Generator[Step, Any, Any]:
        """Show the draft's chunks as they come (its input passed; nothing judges its output)."""
        shown = 0
        while True:
            view: DraftView = yield Await(draft, chunks=shown + 1)
            for chunk in view.chunks[shown:]:
                yield Show(release, chunk)
            shown = len(view.chunks)
            if view.done:
                break
        reply = read(view.output)
        if reply is not None:
            yield Show(release, end=reply)
        return view.output

    def _streamed(
        self,
        draft: Draft,
        release: Release,
        messages: list[BaseMessage],
        read: Callable[[Any], AIMessage | None],
        config: RunnableConfig | None,
        reports: list[GuardrailReport],
        beside: Callable[[Any], Sequence[Any]] | None = None,
    ) -> Generator[Step, Any, tuple[AIMessage | None, Any, bool]]:
        """Judge the draft chunk by chunk as it streams, showing each chunk judged clean (see `chunks`).

        Returns the reply released (the model's, or what was shown followed by the
        refusal), the model's output when its reply is released unchanged, and
        whether a refusal ends the turn.
        """
        rail = self.output
        if rail is None:  # pragma: no cover - a chunked door has an output rail
            raise JevConfigurationError("stream_chunks needs an output battery")
        size = self.settings.stream_chunks or 1
        overlap = self.settings.context_characters
        shown = 0  # tokens shown
        while True:
            view: DraftView = yield Await(draft, tokens=shown + size)
            if view.done:
                break
            context, text = chunk_window(view.tokens, shown, overlap)
            checked = yield from rail.reply_judging(messages, AIMessage(context + text), config)
            if checked is not None:
                reports.append(checked.report)
                if checked.report.refused:
                    yield Drop(draft)
                    kept = "".join(view.tokens[:shown])
                    return (yield from self._stopped(release, kept, kept, checked, view.message_id))
            yield Show(release, text_chunk(text, view.message_id))
            shown = len(view.tokens)
        raw = view.output
        reply = read(raw)
        kept = "".join(view.tokens[:shown])
        if reply is None:
            yield Show(release, end=AIMessage(kept, id=view.message_id))
            return None, raw, False
        same = view.message_id is None or reply.id == view.message_id
        whole = self.settings.final_check or not same or reply_text(reply) != "".join(view.tokens)
        if whole:
            judged = reply
        else:
            context, tail = chunk_window(view.tokens, shown, overlap)
            judged = with_text(reply, context + tail)
        judged = _with_beside(judged, beside(raw) if beside is not None else ())
        checked = yield from rail.reply_judging(messages, judged, config)
        if checked is not None:
            reports.append(checked.report)
            if checked.report.refused:
                return (yield from self._stopped(release, kept, "" if whole else kept, checked, reply.id))
        text = reply_text(reply)
        if not release.opened:  # nothing shown yet: the step's output shows the reply whole
            return reply, raw, False
        if same and text.startswith(kept):
            if len(text) > len(kept):
                yield Show(release, text_chunk(text[len(kept) :], reply.id))
            rest = rest_chunk(reply)
            if rest is not None:
                yield Show(release, rest)
            yield Show(release, end=reply)
        else:  # the reply is not what streamed (a wrapper rewrote it): the step's output shows it whole
            yield Show(release, end=AIMessage(kept, id=view.message_id))
        return reply, raw, False

    @staticmethod
    def _stopped(
        release: Release, shown: str, kept: str, checked: RailOutcome, message_id: str | None
    ) -> Generator[Step, Any, tuple[AIMessage, None, bool]]:
        """A check stopped the stream: the refusal follows what was ``shown``.

        The thread keeps ``kept`` (what was shown, or nothing when the whole reply was
        flagged) followed by the refusal.
        """
        refusal = _refusal(checked)
        reply = stopped_reply(kept, refusal, message_id)
        if release.opened:
            tail = text_chunk(refusal_tail(shown, str(refusal.content)), message_id)
            yield Show(release, tail, end=reply)
        return reply, None, checked.ends

    def run(self, procedure: Procedure[DoorOutcome]) -> DoorOutcome:
        """Do the procedure synchronously."""
        return drive(procedure)

    async def arun(self, procedure: Procedure[DoorOutcome]) -> DoorOutcome:
        """Do the procedure asynchronously."""
        return await adrive(procedure)
