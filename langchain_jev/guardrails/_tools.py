"""The tools' door: a tool runs only on the exact call the guarded model released, or one judged as input.

A graph can be driven straight to its tool node (``Command(goto="tools")`` with
an AI message the caller wrote, ``update_state``, a ``Send`` of tool calls the
sender wrote, or the legacy ``tool_call_with_context`` payload, whose state the
sender supplies), so the model's door alone cannot keep a forged call from
running. `ToolGate` sits where a tool is called (the agent middleware's
``wrap_tool_call``, or a `ToolNode`'s ``wrap_tool_call`` in a graph):

- **the exact call, released here**: when the model's door releases a reply,
  `granting` records each of its tool calls, in its exact form (name,
  arguments, id; see `langchain_jev.guardrails._calls`), under the thread it was
  released in. A call about to run that matches one such record, in this
  thread, runs at once, and only once: the record is claimed before it runs;
- **anything else is judged first**: any other call (another tool or other
  arguments under a released id, a call released in another thread or already
  run, a call in an AI message the caller wrote) is judged as input, its name
  and arguments whatever their shape, whatever the ledger holds; a refused call
  does not run: its tool message says it was withheld.

The state a request carries is never trusted as the conversation: it never
makes a call released, and where the spoke can read the thread's own state
(LangGraph, for a task a ``Send`` started) the call is judged beside it and the
tool runs with it, never with the state a sender put in its payload.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config

from langchain_jev.guardrails._calls import ReleasedCalls, thread_of
from langchain_jev.guardrails._drive import Claim, Grant, Procedure, Step, adrive, drive
from langchain_jev.guardrails._rail import GuardrailRail

__all__ = ["WITHHELD_TOOL_CALL", "ToolGate", "granting"]

WITHHELD_TOOL_CALL = "[withheld: the safety check refused this tool call]"
"""The content of the tool message of a call that was refused (the tool did not run)."""

logger = logging.getLogger("langchain_jev.guardrail")


def _released_calls(rail: GuardrailRail) -> ReleasedCalls:
    return ReleasedCalls(rail.ledger.store, namespace=rail.ledger.namespace)


def granting(
    rails: Sequence[GuardrailRail | None], released: AIMessage, config: RunnableConfig | None
) -> Generator[Step, Any, None]:
    """Record the tool calls of a reply the door ``released`` as runnable once, in this thread.

    Each of ``rails`` (those a tools' door may be built with) keeps the record; a
    store that cannot be written is logged, and its calls are then judged when they run.
    """
    if not released.tool_calls:
        return
    thread = thread_of(config)
    calls = tuple(released.tool_calls)
    for rail in rails:
        if rail is None:
            continue
        try:
            yield Grant(_released_calls(rail), thread, calls)
        except Exception as error:
            logger.warning("the tools' door could not record a released call (%s)", type(error).__name__)


def _messages_of(state: Any) -> list[BaseMessage]:
    if isinstance(state, Mapping):
        state = state.get("messages", [])
    if isinstance(state, Sequence) and not isinstance(state, str):
        return [m for m in state if isinstance(m, BaseMessage)]
    return [m for m in list(getattr(state, "messages", []) or []) if isinstance(m, BaseMessage)]


def _context(messages: Sequence[BaseMessage], call: Mapping[str, Any]) -> list[BaseMessage]:
    """The messages before the AI message that asks for ``call`` (all of them when none does)."""
    call_id = call.get("id")
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, AIMessage) and any(c.get("id") == call_id for c in message.tool_calls):
            return list(messages[:index])
    return list(messages)


def _asking(call: Mapping[str, Any]) -> AIMessage:
    """An AI message carrying ``call`` exactly as it is about to run (arguments of any shape, every key)."""
    calls: list[Any] = [dict(call)]  # not validated: a call's arguments may be text, or anything else
    return AIMessage.model_construct(content="", tool_calls=calls)


class ToolGate:
    """Run a tool call the guarded model released, exactly, in this thread, once; judge any other as input.

    Args:
        input: the input rail (judges a call the door did not release, every string it carries).
        output: the output rail, used when there is no input rail (a call is then judged as a reply).
            With neither, nothing judges a call, and every call runs.
        in_thread: gives a request the thread's own state in place of the one it carries
            (None: the request is taken as it comes).

    """

    def __init__(
        self,
        *,
        input: GuardrailRail | None = None,
        output: GuardrailRail | None = None,
        in_thread: Callable[[Any], Any] | None = None,
    ) -> None:
        self.input = input
        self.output = output
        self.in_thread = in_thread

    def _own(self, request: Any) -> Any:
        return self.in_thread(request) if self.in_thread is not None else request

    def checking(self, request: Any) -> Procedure[ToolMessage | None]:
        """The check of a tool call request (``tool_call``, ``state``): None to run it, else its refusal."""
        call: Mapping[str, Any] = request.tool_call
        judge = self.input if self.input is not None else self.output
        if judge is None:  # no rail judges calls (a tool-result rail alone): the call runs as unguarded
            return None
        config = ensure_config()
        thread = thread_of(config)
        claimed = False
        for rail in (self.input, self.output):  # every record is claimed, so none is left to run again
            if rail is None:
                continue
            try:
                claimed = bool((yield Claim(_released_calls(rail), thread, call))) or claimed
            except Exception as error:  # a record that cannot be read: the call is judged
                logger.warning("the tools' door could not read its released calls (%s)", type(error).__name__)
        if claimed:
            return None
        context = _context(_messages_of(request.state), call)
        outcome = yield from judge.call_judging(context, _asking(call), config)
        if outcome is None or not outcome.report.refused:
            return None
        name = call.get("name")
        return ToolMessage(
            content=WITHHELD_TOOL_CALL,
            tool_call_id=str(call.get("id") or ""),
            name=name if isinstance(name, str) else None,
            status="error",
        )

    def wrap(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """``wrap_tool_call``: the refusal, or what the tool returns (run with the thread's state)."""
        request = self._own(request)
        refusal = drive(self.checking(request))
        return refusal if refusal is not None else handler(request)

    async def awrap(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        """``awrap_tool_call``: asynchronous `wrap`."""
        request = self._own(request)
        refusal = await adrive(self.checking(request))
        return refusal if refusal is not None else await handler(request)
