"""The model's door: judge what the model is about to read, call it unseen, judge what it wrote, release.

Every guarded model call goes through one procedure, `GuardrailDoor.passing`,
whatever the form (the guarded model node, `guard_model`, the agent
middleware's ``wrap_model_call``) and whatever route led to the call (an input
node, a ``Command``, ``update_state``, ``Send``, a resumed interrupt):

1. **judge input**: the input rail judges the messages the model is about to
   receive that its ledger has not seen judged (every role; see
   `langchain_jev.guardrails.subjects`), and the tool-result rail (when there is
   one) the tool results among them. A refusal never calls the model: the refused
   messages get placeholders in the thread and the refusal is released;
2. **call the model hidden**: with the streaming handlers and LangGraph's stream
   writer removed, as the context config too, so no stream, nested model call,
   ``get_stream_writer()`` or ``dispatch_custom_event`` shows the draft
   (``stream_tokens=True`` gives that up);
3. **judge output**: the output rail judges the reply (every string it carries,
   its tool calls, its media);
4. **release**: the reply, or the refusal in its place; the released message and
   the conversation before it enter the input-side ledgers as judged, so the
   model's own passed replies are never judged as input again (an AI message the
   caller writes is).

The procedure yields its I/O (`langchain_jev.guardrails.drive`), so the sync and
async forms are one code path, and a later step (an input check that runs
beside the model call, an output check per streamed chunk) replaces one stage
without touching the others.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig

from langchain_jev.errors import JevConfigurationError
from langchain_jev.guardrails.drive import Call, Procedure, adrive, drive
from langchain_jev.guardrails.policy import GuardrailReport
from langchain_jev.guardrails.rail import GuardrailRail, RailOutcome

__all__ = ["CallsFor", "DoorOutcome", "GuardrailDoor"]

CallsFor = Callable[
    [list[BaseMessage]],
    tuple[Callable[[RunnableConfig], Any], Callable[[RunnableConfig], Awaitable[Any]]],
]
"""Makes the model's sync and async calls on other messages (a refusal replaced some)."""

DRAFT_TAG = "jev_guarded_draft"
"""The tag of the hidden model run whose reply is not checked yet."""


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


class GuardrailDoor:
    """Guard one model's calls: the input, tool-result and output rails around it (any may be None).

    Args:
        input: the rail judging what the model is about to read (an input battery's).
        tool_results: the rail judging tool results the model is about to read.
        output: the rail judging the model's reply.
        stream_tokens: let the model's tokens stream before its reply is checked.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> from langchain_jev.guardrails.battery import HazardBattery
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
        stream_tokens: bool = False,
    ) -> None:
        for rail, side in ((input, "input"), (tool_results, "tool_results"), (output, "output")):
            if rail is not None and rail.check != side:
                raise JevConfigurationError(f"the door's {side} rail must check {side}, not {rail.check}")
        if input is None and tool_results is None and output is None:
            raise JevConfigurationError("a guarded model needs at least one battery")
        self.input = input
        self.tool_results = tool_results
        self.output = output
        self.stream_tokens = bool(stream_tokens)

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
        call_with: Callable[
            [list[BaseMessage]],
            tuple[Callable[[RunnableConfig], Any], Callable[[RunnableConfig], Awaitable[Any]]],
        ]
        | None = None,
    ) -> Procedure[DoorOutcome]:
        """The door's one procedure over the ``messages`` the model is about to receive.

        ``invoke`` / ``ainvoke`` call the model (given the config to run with) on
        ``messages``; ``call_with`` makes them for other messages (when a refusal
        replaced some, ``exit_behavior="replace"``). ``read`` finds the reply in
        the model's output.
        """
        call_messages = list(messages)
        reports: list[GuardrailReport] = []
        withheld: list[BaseMessage] = []
        settled = True
        for rail in (self.input, self.tool_results):
            if rail is None:
                continue
            outcome: RailOutcome | None = yield from rail.judging(call_messages, config, in_thread=False)
            if outcome is None:
                continue
            reports.append(outcome.report)
            settled = settled and rail.settled(outcome.report)
            if not outcome.report.refused:
                continue
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
        hidden = (
            self.output is not None and not self.stream_tokens
        )  # without an output check: nothing to hide
        raw = yield Call(invoke, ainvoke, config, hidden=hidden, tags=(DRAFT_TAG,))
        reply = read(raw)
        if reply is None:
            return DoorOutcome(None, raw, withheld, tuple(reports))
        released, output, ends = reply, raw, False
        if self.output is not None:
            checked = yield from self.output.reply_judging(call_messages, reply, config)
            if checked is not None:
                reports.append(checked.report)
                if checked.report.refused:
                    refusal = checked.messages[-1]
                    if not isinstance(refusal, AIMessage):  # pragma: no cover - a refusal is one
                        raise TypeError("a refusal is an AI message")
                    released, output, ends = refusal, None, checked.ends
        if settled or withheld:
            for rail in (self.input, self.tool_results):
                if rail is not None:
                    start = 0 if withheld else len(call_messages)
                    yield from rail.marking([*call_messages, released], start)
        if self.output is not None:  # what the door released (the tools' door runs its calls)
            yield from self.output.marking([*call_messages, released], len(call_messages))
        return DoorOutcome(released, output, withheld, tuple(reports), ends)

    def run(self, procedure: Procedure[DoorOutcome]) -> DoorOutcome:
        """Do the procedure synchronously."""
        return drive(procedure)

    async def arun(self, procedure: Procedure[DoorOutcome]) -> DoorOutcome:
        """Do the procedure asynchronously."""
        return await adrive(procedure)
