"""Reading a judge input out of a LangChain conversation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from langchain_jev._input import JevJudgeInput, ToolCall

__all__ = ["input_from_messages", "message_text", "tool_calls_from_messages"]


def message_text(message: BaseMessage) -> str:
    """The text of a message, whatever the shape of its content."""
    return message.text if isinstance(message.text, str) else str(message.text())


def tool_calls_from_messages(messages: Sequence[BaseMessage]) -> list[ToolCall]:
    """Pair each AI tool call with the tool message that answered it, in order.

    Each call records which AI message made it (``message``, counted from 0 over
    the AI messages given, those without calls included), so strict trajectory
    matching can tell calls made together from calls made one after another.

    Example:
        >>> from langchain_core.messages import AIMessage, ToolMessage
        >>> calls = tool_calls_from_messages([
        ...     AIMessage("", tool_calls=[{"name": "search", "args": {"q": "x"}, "id": "1"}]),
        ...     ToolMessage("found x", tool_call_id="1"),
        ... ])
        >>> calls[0].to_dict()
        {'name': 'search', 'arguments': {'q': 'x'}, 'result': 'found x', 'message': 0}

    """
    results: dict[str, Any] = {}
    for message in messages:
        if isinstance(message, ToolMessage):
            results[message.tool_call_id] = (
                message.content if not isinstance(message.content, list) else message_text(message)
            )
    calls: list[ToolCall] = []
    ordinal = 0
    for message in messages:
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                result = results.get(call.get("id") or "")
                calls.append(ToolCall(call["name"], call.get("args", {}), result, ordinal))
            ordinal += 1
    return calls


def input_from_messages(
    messages: Sequence[BaseMessage], *, context: Sequence[str] | None = None
) -> JevJudgeInput:
    """The judge input of a conversation's last turn.

    The last human message is the question, the final AI message (one without tool
    calls) is the answer, and the tool calls of the turn, paired with their tool
    messages, become ``tool_calls``.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> data = input_from_messages([HumanMessage("Hi?"), AIMessage("Hello!")])
        >>> data.question, data.answer
        ('Hi?', 'Hello!')

    """
    last_human = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    question = message_text(messages[last_human]) if last_human >= 0 else None
    turn = list(messages[last_human + 1 :])
    answer = None
    for message in reversed(turn):
        if isinstance(message, AIMessage) and not message.tool_calls:
            answer = message_text(message)
            break
    return JevJudgeInput(
        question=question,
        answer=answer,
        context=context,
        tool_calls=tool_calls_from_messages(turn),
    )
