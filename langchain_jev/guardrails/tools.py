"""The tools' door: a tool runs only on a call the guarded model made, or one judged as input.

A graph can be driven straight to its tool node (``Command(goto="tools")`` with
an AI message the caller wrote, ``update_state``), so the model's door alone
cannot keep a forged tool call from running. `ToolGate` sits where a tool is
called (the agent middleware's ``wrap_tool_call``, or a `ToolNode`'s
``wrap_tool_call`` in a graph): before a call runs, the conversation up to the
AI message that asks for it is looked up in the ledger. A reply the door
released is found there and runs at once; anything else (an AI message the
caller wrote, an edited one) is judged by content, as input, and a refused call
does not run: its tool message says it was withheld.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.runnables.config import ensure_config

from langchain_jev.guardrails.drive import Prefix, Procedure, adrive, drive
from langchain_jev.guardrails.rail import GuardrailRail

__all__ = ["WITHHELD_TOOL_CALL", "ToolGate"]

WITHHELD_TOOL_CALL = "[withheld: the safety check refused this tool call]"
"""The content of the tool message of a call that was refused (the tool did not run)."""


def _messages_of(state: Any) -> list[BaseMessage]:
    if isinstance(state, Mapping):
        state = state.get("messages", [])
    if isinstance(state, Sequence):
        return [m for m in state if isinstance(m, BaseMessage)]
    return list(getattr(state, "messages", []) or [])


def _asking(messages: Sequence[BaseMessage], call: Mapping[str, Any]) -> list[BaseMessage]:
    """The conversation up to the AI message that asks for ``call`` (one is made when none does)."""
    call_id = call.get("id")
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, AIMessage) and any(c.get("id") == call_id for c in message.tool_calls):
            return list(messages[: index + 1])
    forged = AIMessage(
        "", tool_calls=[{"name": call.get("name", ""), "args": call.get("args", {}), "id": call_id}]
    )
    return [*messages, forged]


class ToolGate:
    """Let a tool call run when the guarded model made it; judge any other as input.

    Args:
        input: the input rail (judges an AI message the door did not release, every string it carries).
        output: the output rail, used when there is no input rail (a call is then judged as a reply).

    """

    def __init__(self, *, input: GuardrailRail | None = None, output: GuardrailRail | None = None) -> None:
        self.input = input
        self.output = output

    def checking(self, request: Any) -> Procedure[ToolMessage | None]:
        """The check of a tool call request (``tool_call``, ``state``): None to run it, else its refusal."""
        call: Mapping[str, Any] = request.tool_call
        asked = _asking(_messages_of(request.state), call)
        config = ensure_config()
        refused = False
        if self.input is not None:
            outcome = yield from self.input.judging(asked, config, in_thread=False)
            refused = outcome is not None and outcome.report.refused
        elif self.output is not None:
            released = yield Prefix(self.output.ledger, asked)
            if released < len(asked):
                reply = asked[-1]
                if isinstance(reply, AIMessage):
                    outcome = yield from self.output.reply_judging(asked[:-1], reply, config)
                    refused = outcome is not None and outcome.report.refused
        if not refused:
            return None
        return ToolMessage(
            content=WITHHELD_TOOL_CALL,
            tool_call_id=str(call.get("id") or ""),
            name=call.get("name"),
            status="error",
        )

    def wrap(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """``wrap_tool_call``: the refusal, or what the tool returns."""
        refusal = drive(self.checking(request))
        return refusal if refusal is not None else handler(request)

    async def awrap(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        """``awrap_tool_call``: asynchronous `wrap`."""
        refusal = await adrive(self.checking(request))
        return refusal if refusal is not None else await handler(request)
