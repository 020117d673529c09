"""The tool calls of a run: its tool child runs, else the tool calls of its messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage
from langsmith.schemas import RunBase

from langchain_jev._conversation import input_from_messages
from langchain_jev._input import ToolCall
from langchain_jev._runs.values import descendants, to_plain

__all__ = ["tool_calls_from_run", "tool_calls_of"]


def tool_calls_from_run(run: RunBase) -> list[ToolCall]:
    """The tool runs under ``run``, as tool calls: name, inputs as arguments, output as result.

    A tool run that failed has ``{"error": ...}`` as its result.

    Example:
        >>> from langsmith.run_trees import RunTree
        >>> root = RunTree(name="agent", run_type="chain", inputs={"question": "q"})
        >>> tool = root.create_child(name="search", run_type="tool", inputs={"q": "Dublin"})
        >>> tool.end(outputs={"output": "Rain, 12C"})
        >>> tool_calls_from_run(root)[0].to_dict()
        {'name': 'search', 'arguments': {'q': 'Dublin'}, 'result': 'Rain, 12C'}

    """
    calls: list[ToolCall] = []
    for child in descendants(run, stop_at=("tool",)):
        if child.run_type != "tool":
            continue
        outputs = child.outputs or {}
        result: Any = outputs.get("output", outputs) if outputs else None
        if result is None and child.error:
            result = {"error": child.error}
        calls.append(ToolCall(child.name, to_plain(dict(child.inputs or {})), to_plain(result)))
    return calls


def tool_calls_of(messages: Sequence[BaseMessage]) -> list[ToolCall]:
    """The tool calls of the conversation's last turn, paired with their results, as plain data."""
    calls = input_from_messages(messages).tool_calls
    return [ToolCall(c.name, to_plain(c.arguments), to_plain(c.result)) for c in calls]
