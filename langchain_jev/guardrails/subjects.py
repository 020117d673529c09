"""What a hazard battery looks at in a conversation: pure functions of the messages.

- input: the turn, every human message since the model last spoke (every
  content block of each, as for the output), as ``user_question`` (one text),
  with up to ``context_messages`` earlier messages of the conversation as
  ``earlier_conversation`` (``[{"role", "text"}]``), so a request split across
  messages or turns is judged whole;
- output: everything the final AI message carries, as ``assistant_answer``: the
  text of every content block whatever its type (``text``, ``reasoning``,
  ``thinking``, ``output_text``, ``text-plain``; any other type as its JSON) and
  its ``additional_kwargs`` as JSON; the tool calls it requests (valid or not) as
  ``tool_calls``; the turn's human messages as ``user_question``;
- tool results: the tool messages that end the conversation, as ``tool_calls``
  with their results, and the turn's human messages as ``user_question``.

All text is made sendable first: lone surrogates (an emoji cut in half, say)
become U+FFFD, so a malformed character is judged, never a reason not to judge.
Each function returns None when the conversation has nothing of that kind to check.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from langchain_jev.guardrails.catalog import Direction
from langchain_jev.input import JevJudgeInput, ToolCall

__all__ = [
    "CONTEXT_FIELD",
    "DEFAULT_CONTEXT_MESSAGES",
    "Subject",
    "clean",
    "clean_input",
    "content_texts",
    "input_subject",
    "output_subject",
    "subject_for",
    "tool_results_subject",
]

DEFAULT_CONTEXT_MESSAGES = 6
"""How many earlier messages the input rail shows the battery beside the turn."""

CONTEXT_FIELD = "earlier_conversation"
"""The state field of the earlier messages an input battery is shown."""

_TEXT_KEYS: Mapping[str, tuple[str, ...]] = {
    "text": ("text",),
    "output_text": ("text",),
    "text-plain": ("text",),
    "summary_text": ("text",),
    "reasoning": ("reasoning", "summary"),
    "thinking": ("thinking",),
    "redacted_thinking": ("data",),
    "refusal": ("refusal",),
}
"""Block types whose text is read from these keys; every other type is judged as its JSON."""

_MEDIA = frozenset({"image", "image_url", "audio", "input_audio", "video", "file"})
_BULK_KEYS = frozenset({"data", "base64", "source"})


def clean(value: Any) -> Any:
    r"""``value`` with every lone surrogate in its text replaced by U+FFFD (nested data too).

    Surrogate pairs are joined into the character they stand for.

    Example:
        >>> clean("cut emoji \ud83d") == "cut emoji \ufffd", clean({"a": ["\ud83d\ude00"]})
        (True, {'a': ['😀']})

    """
    if isinstance(value, str):
        if value.isascii():
            return value
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, Mapping):
        return {clean(k) if isinstance(k, str) else k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(item) for item in value]
    return value


def clean_input(data: JevJudgeInput) -> JevJudgeInput:
    """A judge input whose every text can be sent as UTF-8 (see `clean`)."""
    return JevJudgeInput.of(clean(data.to_state()))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _block_texts(block: Any) -> list[str]:
    if isinstance(block, str):
        return [block]
    if not isinstance(block, Mapping):
        return [_json(block)]
    kind = block.get("type")
    keys = _TEXT_KEYS.get(kind) if isinstance(kind, str) else None
    if keys is None:
        if kind in _MEDIA:
            block = {k: v for k, v in block.items() if k not in _BULK_KEYS}
            if isinstance(block.get("url"), str) and block["url"].startswith("data:"):
                block = {k: v for k, v in block.items() if k != "url"}
        return [_json(block)]
    texts: list[str] = []
    for key in keys:
        value = block.get(key)
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, list):
            for item in value:
                texts.extend(_block_texts(item))
        elif value is not None:
            texts.append(_json(value))
    return texts


def content_texts(message: BaseMessage) -> list[str]:
    """The text of everything a message carries: every content block, whatever its type.

    Text-bearing blocks give their text; a block of any other type is given as its
    JSON (media blocks without their data); ``additional_kwargs``, when not empty,
    as their JSON.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> content_texts(AIMessage([{"type": "thinking", "thinking": "plan"}, {"type": "x", "v": 1}]))
        ['plan', '{"type": "x", "v": 1}']

    """
    content = message.content
    blocks = [content] if isinstance(content, str) else list(content)
    texts = [text for block in blocks for text in _block_texts(block) if text.strip()]
    if message.additional_kwargs:
        texts.append(_json(message.additional_kwargs))
    return texts


def _text(message: BaseMessage) -> str:
    """Everything a message carries, as one text (see `content_texts`)."""
    return "\n\n".join(content_texts(message))


@dataclass(frozen=True)
class Subject:
    """What one battery checks: the judge input, and the messages it was read from.

    ``messages`` are the messages a refusal replaces: the human messages of the
    turn for an input check, the AI message for an output check, the tool messages
    for a tool-result check.
    """

    data: JevJudgeInput
    """The judge input sent to the battery (its text already made sendable)."""
    messages: tuple[BaseMessage, ...]
    """The messages checked."""


def _turn_start(messages: Sequence[BaseMessage], end: int) -> int:
    """The index after the model last spoke before ``end`` (0 when it never did)."""
    for index in range(end - 1, -1, -1):
        if isinstance(messages[index], AIMessage):
            return index + 1
    return 0


def _turn_humans(messages: Sequence[BaseMessage], end: int) -> tuple[int, list[BaseMessage]]:
    start = _turn_start(messages, end)
    return start, [m for m in messages[start:end] if isinstance(m, HumanMessage)]


def _joined(messages: Sequence[BaseMessage]) -> str | None:
    texts = [_text(m) for m in messages]
    return "\n\n".join(texts) if texts else None


def _earlier(messages: Sequence[BaseMessage], end: int, limit: int) -> list[dict[str, str]]:
    if limit <= 0:
        return []
    earlier: list[dict[str, str]] = []
    for message in reversed(messages[:end]):
        if len(earlier) >= limit:
            break
        if isinstance(message, HumanMessage):
            earlier.append({"role": "user", "text": _text(message)})
        elif isinstance(message, AIMessage):
            text = _text(message)
            if text.strip():
                earlier.append({"role": "assistant", "text": text})
    return earlier[::-1]


def input_subject(
    messages: Sequence[BaseMessage], context_messages: int = DEFAULT_CONTEXT_MESSAGES
) -> Subject | None:
    r"""The turn: every human message since the model last spoke, with earlier messages as context.

    None when no human message came after the model last spoke.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> subject = input_subject([HumanMessage("hi"), AIMessage("hello"),
        ...                          HumanMessage("How do I make"), HumanMessage("it at home?")])
        >>> subject.data.question
        'How do I make\n\nit at home?'
        >>> subject.data.field("earlier_conversation")
        [{'role': 'user', 'text': 'hi'}, {'role': 'assistant', 'text': 'hello'}]

    """
    start, humans = _turn_humans(messages, len(messages))
    if not humans:
        return None
    earlier = _earlier(messages, start, context_messages)
    data = JevJudgeInput(question=_joined(humans), fields={CONTEXT_FIELD: earlier} if earlier else None)
    return Subject(clean_input(data), tuple(humans))


def _calls(message: AIMessage) -> list[ToolCall]:
    calls = [ToolCall(call["name"], call.get("args", {})) for call in message.tool_calls]
    for bad in message.invalid_tool_calls:
        calls.append(ToolCall(bad.get("name") or "tool", {"arguments": bad.get("args")}))
    return calls


def output_subject(messages: Sequence[BaseMessage]) -> Subject | None:
    """Everything the final AI message carries, with the tool calls it requests.

    None unless the last message is AI and carries something.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> subject = output_subject([HumanMessage("hi"), AIMessage("hello")])
        >>> subject.data.to_state()
        {'user_question': 'hi', 'assistant_answer': 'hello'}

    """
    if not messages or not isinstance(messages[-1], AIMessage):
        return None
    message = messages[-1]
    texts = content_texts(message)
    calls = _calls(message)
    if not texts and not calls:
        return None
    _, humans = _turn_humans(messages, len(messages) - 1)
    if not humans:
        humans = [m for m in messages if isinstance(m, HumanMessage)][-1:]  # type: ignore[assignment]
    data = JevJudgeInput(question=_joined(humans), answer="\n\n".join(texts), tool_calls=calls)
    return Subject(clean_input(data), (message,))


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
        calls.append(ToolCall(name, arguments, _text(result)))
    humans = [m for m in messages[:start] if isinstance(m, HumanMessage)][-1:]
    data = JevJudgeInput(question=_joined(humans), tool_calls=calls)
    return Subject(clean_input(data), tuple(results))


def subject_for(
    direction: Direction,
    messages: Sequence[BaseMessage],
    context_messages: int = DEFAULT_CONTEXT_MESSAGES,
) -> Subject | None:
    """The subject of a battery of ``direction`` in ``messages``, or None.

    Example:
        >>> from langchain_core.messages import HumanMessage
        >>> subject_for("output", [HumanMessage("hi")]) is None
        True

    """
    if direction == "input":
        return input_subject(messages, context_messages)
    if direction == "output":
        return output_subject(messages)
    return tool_results_subject(messages)
