"""What a hazard battery looks at in a conversation: pure functions of the messages.

- input: the last human message, as ``user_question``;
- output: the final AI message, as ``assistant_answer``, with the tool calls it
  requests as ``tool_calls`` and the last human message before it as
  ``user_question``;
- tool results: the tool messages that end the conversation, as ``tool_calls``
  with their results, and the last human message as ``user_question``.

Each function returns None when the conversation has nothing of that kind to check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from langchain_jev.conversation import message_text
from langchain_jev.guardrails.catalog import Direction
from langchain_jev.input import JevJudgeInput, ToolCall

__all__ = [
    "Subject",
    "input_subject",
    "output_subject",
    "subject_for",
    "tool_results_subject",
]


@dataclass(frozen=True)
class Subject:
    """What one battery checks: the judge input, and the messages it was read from.

    ``messages`` are the messages a refusal replaces (the AI message for an output
    check, the tool messages for a tool-result check; the human message for an
    input check, which a refusal answers rather than replaces).
    """

    data: JevJudgeInput
    """The judge input sent to the battery."""
    messages: tuple[BaseMessage, ...]
    """The messages checked."""


def _last_human(messages: Sequence[BaseMessage], before: int | None = None) -> int:
    end = len(messages) if before is None else before
    for index in range(end - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            return index
    return -1


def input_subject(messages: Sequence[BaseMessage]) -> Subject | None:
    """The last human message, as ``user_question``; None without one.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> input_subject([HumanMessage("hi"), AIMessage("hello"), HumanMessage("bye")]).data.question
        'bye'

    """
    index = _last_human(messages)
    if index < 0:
        return None
    message = messages[index]
    return Subject(JevJudgeInput(question=message_text(message)), (message,))


def output_subject(messages: Sequence[BaseMessage]) -> Subject | None:
    """The final AI message with the tool calls it requests; None unless the last message is AI.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> subject = output_subject([HumanMessage("hi"), AIMessage("hello")])
        >>> subject.data.to_state()
        {'user_question': 'hi', 'assistant_answer': 'hello'}

    """
    if not messages or not isinstance(messages[-1], AIMessage):
        return None
    message = messages[-1]
    text = message_text(message)
    calls = [ToolCall(call["name"], call.get("args", {})) for call in message.tool_calls]
    if not text.strip() and not calls:
        return None
    human = _last_human(messages, len(messages) - 1)
    question = message_text(messages[human]) if human >= 0 else None
    return Subject(JevJudgeInput(question=question, answer=text, tool_calls=calls), (message,))


def tool_results_subject(messages: Sequence[BaseMessage]) -> Subject | None:
    """The tool messages that end the conversation, with their calls; None when it ends otherwise.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
        >>> subject = tool_results_subject([
        ...     HumanMessage("weather?"),
        ...     AIMessage("", tool_calls=[{"name": "search", "args": {"q": "weather"}, "id": "1"}]),
        ...     ToolMessage("Sunny.", tool_call_id="1"),
        ... ])
        >>> subject.data.to_state()["tool_calls"]
        [{'name': 'search', 'arguments': {'q': 'weather'}, 'result': 'Sunny.'}]

    """
    start = len(messages)
    while start > 0 and isinstance(messages[start - 1], ToolMessage):
        start -= 1
    results = [m for m in messages[start:] if isinstance(m, ToolMessage)]
    if not results:
        return None
    requested: dict[str, ToolCall] = {}
    for message in messages[:start]:
        if isinstance(message, AIMessage):
            for request in message.tool_calls:
                requested[request.get("id") or ""] = ToolCall(request["name"], request.get("args", {}))
    calls = []
    for result in results:
        call = requested.get(result.tool_call_id)
        name = call.name if call is not None else (result.name or "tool")
        arguments = call.arguments if call is not None else {}
        calls.append(ToolCall(name, arguments, message_text(result)))
    human = _last_human(messages, start)
    question = message_text(messages[human]) if human >= 0 else None
    return Subject(JevJudgeInput(question=question, tool_calls=calls), tuple(results))


def subject_for(direction: Direction, messages: Sequence[BaseMessage]) -> Subject | None:
    """The subject of a battery of ``direction`` in ``messages``, or None.

    Example:
        >>> from langchain_core.messages import HumanMessage
        >>> subject_for("output", [HumanMessage("hi")]) is None
        True

    """
    if direction == "input":
        return input_subject(messages)
    if direction == "output":
        return output_subject(messages)
    return tool_results_subject(messages)
