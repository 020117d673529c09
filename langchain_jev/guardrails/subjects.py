"""What a rail judges: every string a message carries, read into a judge input.

Pure functions over LangChain messages, shared by every rail:

- `read_message` walks the *whole* message, not a list of known keys: every
  content block and every key in it, ``additional_kwargs``,
  ``response_metadata``, ``name``, tool calls and any other field. A block's
  prose (``text``, ``thinking``, ``reasoning``, ``refusal``) is read as text and
  everything else it holds as compact JSON of its strings (numbers and flags
  carry no prose and are left out). Media is read for the text it carries
  (`langchain_jev.guardrails.text.read_payload`): ``data:text/*`` and base64 text
  files are decoded and judged; binary payloads are never sent as text, and the
  media blocks holding them are named (`Reading.media`), so an output rail can
  decide what an answer it cannot read means (``on_unjudgeable``).
- `input_subject` reads the messages a model is about to receive that were not
  judged before (every role: system, developer, user, assistant messages the
  caller wrote, tool and function results, any ``ChatMessage``), with earlier
  messages as context; `output_subject` a model's reply with the tool calls it
  requests; `tool_results_subject` the tool results among the new messages.

Every text is normalised (`langchain_jev.guardrails.text.normalise`) before it
is sent. Each function returns None when there is nothing of its kind to judge.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from langchain_jev.guardrails.catalog import Direction
from langchain_jev.guardrails.text import normalise, read_payload
from langchain_jev.input import JevJudgeInput, ToolCall

__all__ = [
    "CONTEXT_FIELD",
    "DEFAULT_CONTEXT_MESSAGES",
    "Reading",
    "Subject",
    "clean",
    "clean_input",
    "content_texts",
    "input_subject",
    "output_subject",
    "read_message",
    "role_of",
    "subject_for",
    "tool_results_subject",
]

DEFAULT_CONTEXT_MESSAGES = 6
"""How many earlier messages an input check shows the battery beside what it judges."""

CONTEXT_FIELD = "earlier_conversation"
"""The state field of the earlier messages an input battery is shown."""

_PROSE_KEYS = ("text", "thinking", "reasoning", "refusal")
"""Keys whose string value is a block's prose, read as text (every other key is read too, as JSON)."""

_BLOCK_TYPES = frozenset(
    {
        "text",
        "output_text",
        "text-plain",
        "summary_text",
        "reasoning",
        "thinking",
        "redacted_thinking",
        "refusal",
        "image",
        "image_url",
        "audio",
        "input_audio",
        "video",
        "file",
        "document",
        "tool_use",
        "tool_call",
        "tool_call_chunk",
        "tool_result",
        "server_tool_call",
        "server_tool_result",
        "function_call",
        "non_standard",
    }
)
"""Block type names left out of the text (they say nothing); any other ``type`` value is judged."""

_MEDIA = frozenset({"image", "image_url", "audio", "input_audio", "video", "file", "document"})
"""Block types that hold media: a binary payload in one is named in `Reading.media`."""

_MESSAGE_FIELDS_LEFT_OUT = frozenset({"id", "content", "type", "artifact", "status"})
"""Message fields never read: the id, type and status say nothing (the status is a
validated literal), content is read apart, an artifact never reaches a model."""

_ID_KEYS = frozenset({"id", "tool_call_id", "call_id"})
_ID = re.compile(r"[A-Za-z0-9_.:\-]{1,80}")
"""An identifier: under an id key, a value of this shape is left out (it carries no prose);
any other value there is judged like every string."""


def clean(value: Any) -> Any:
    r"""``value`` with every text normalised (see `normalise`), nested data and keys too.

    Example:
        >>> clean("cut emoji \ud83d") == "cut emoji \ufffd", clean({"a": ["\ud83d\ude00"]})
        (True, {'a': ['😀']})

    """
    if isinstance(value, str):
        return normalise(value)
    if isinstance(value, Mapping):
        return {clean(k) if isinstance(k, str) else k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(item) for item in value]
    return value


def clean_input(data: JevJudgeInput) -> JevJudgeInput:
    """A judge input whose every text is normalised and can be sent as UTF-8 (see `clean`)."""
    return JevJudgeInput.of(clean(data.to_state()))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


@dataclass(frozen=True)
class Reading:
    """Everything one message carries, as the texts a battery is sent."""

    texts: tuple[str, ...]
    """The texts, in order: prose bare, everything else as compact JSON."""
    media: tuple[str, ...] = ()
    """The media blocks whose payload is binary (not judged), each named by where it is and its type."""

    @property
    def text(self) -> str:
        """The texts joined into one."""
        return "\n\n".join(self.texts)


class _Walk:
    """One walk over a message: collects its texts and the binary media it holds."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.media: list[str] = []

    def emit(self, text: str) -> None:
        if text.strip():
            self.texts.append(text)

    def value(self, value: Any, where: str, mime: str | None, media: bool) -> Any:
        """``value`` with its strings read (media decoded), numbers and flags left out; None if empty."""
        if not value:
            return None
        if isinstance(value, str):
            if len(value) < 64 and value[:5].lower() != "data:":  # too short to be a payload
                return value
            payload = read_payload(value, mime if media else None)
            if payload.binary:
                if media:
                    self.media.append(f"{where}: {payload.mime or mime or 'binary data'}")
                    return payload.describe()
                return None
            if payload.text != value:  # decoded: judged as text of its own
                self.emit(payload.text or "")
                return None
            return value or None
        if isinstance(value, Mapping):
            kept = {}
            for key, item in value.items():
                if _says_nothing(key, item):
                    continue
                read = self.value(item, f"{where}.{key}", mime, media)
                if read is not None:
                    kept[str(key)] = read
                elif isinstance(key, str) and _ID.fullmatch(key) is None:
                    kept[key] = True  # a key that is prose is judged even when its value says nothing
            return kept or None
        if isinstance(value, (list, tuple)):
            items = [self.value(item, f"{where}[{i}]", mime, media) for i, item in enumerate(value)]
            kept_items = [item for item in items if item is not None]
            return kept_items or None
        return None

    def block(self, block: Any, where: str) -> None:
        if isinstance(block, str):
            read = self.value(block, where, None, False)
            if isinstance(read, str):
                self.emit(read)
            return
        if not isinstance(block, Mapping):
            read = self.value(block, where, None, False)
            if read is not None:
                self.emit(_json(read))
            return
        kind = block.get("type")
        media = kind in _MEDIA or any(key in block for key in ("image_url", "input_audio", "source"))
        rest: dict[str, Any] = {}
        for key, item in block.items():
            if _says_nothing(key, item):
                continue
            if key in _PROSE_KEYS and isinstance(item, str):
                read = self.value(item, f"{where}.{key}", None, False)
                if isinstance(read, str):
                    self.emit(read)
                continue
            rest[key] = item
        mime = _mime_of(block)
        read = self.value(rest, where, mime, media)
        if read is not None:
            self.emit(_json(read))


def _says_nothing(key: Any, value: Any) -> bool:
    """True for a block type name or an identifier under an id key: left out of the text."""
    if not isinstance(value, str):
        return False
    if key == "type":
        return value in _BLOCK_TYPES
    return key in _ID_KEYS and _ID.fullmatch(value) is not None


def _mime_of(block: Mapping[str, Any]) -> str | None:
    for holder in (block, block.get("source"), block.get("input_audio"), block.get("file")):
        if isinstance(holder, Mapping):
            for key in ("mime_type", "media_type", "mimeType"):
                if isinstance(holder.get(key), str):
                    return str(holder[key])
            audio_format = holder.get("format")
            if isinstance(audio_format, str) and holder is block.get("input_audio"):
                return f"audio/{audio_format}"
    return None


def read_message(message: BaseMessage, *, calls_apart: bool = False, name_apart: bool = False) -> Reading:
    """Everything ``message`` carries: every content block and every other field it has.

    ``calls_apart`` leaves an AI message's tool calls out (an output rail sends
    them as ``tool_calls``), ``name_apart`` its name (shown with its role). The id
    and the type are never read.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> reading = read_message(AIMessage(
        ...     [{"type": "text", "text": "Done.", "annotations": [{"title": "a note"}]}],
        ...     response_metadata={"finish_reason": "stop"}, name="helper"))
        >>> for text in reading.texts:
        ...     print(text)
        Done.
        {"annotations": [{"title": "a note"}]}
        {"name": "helper", "response_metadata": {"finish_reason": "stop"}}

    """
    walk = _Walk()
    content = message.content
    blocks = [content] if isinstance(content, str) else list(content)
    for index, block in enumerate(blocks):
        walk.block(block, f"content[{index}]" if not isinstance(content, str) else "content")
    left_out = set(_MESSAGE_FIELDS_LEFT_OUT)
    if calls_apart:
        left_out |= {"tool_calls", "invalid_tool_calls"}
    if name_apart:
        left_out.add("name")
    if calls_apart and isinstance(message, AIMessage):  # ids that are not identifiers are judged
        for call in [*message.tool_calls, *message.invalid_tool_calls]:
            call_id = call.get("id")
            if isinstance(call_id, str) and _ID.fullmatch(call_id) is None:
                walk.emit(call_id)
    fields = {key: value for key, value in vars(message).items() if key not in left_out}
    rest = walk.value(fields, "message", None, False)
    if rest is not None:
        walk.emit(_json(rest))
    return Reading(tuple(walk.texts), tuple(walk.media))


def content_texts(message: BaseMessage) -> list[str]:
    """The texts of everything a message carries (see `read_message`).

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> content_texts(AIMessage([{"type": "thinking", "thinking": "plan"}, {"type": "x", "v": "1"}]))
        ['plan', '{"type": "x", "v": "1"}']

    """
    return list(read_message(message).texts)


def role_of(message: BaseMessage) -> str:
    """The role a provider gives ``message``: user, system, developer, assistant, tool, function or its own.

    Example:
        >>> from langchain_core.messages import ChatMessage, SystemMessage
        >>> role_of(SystemMessage("x")), role_of(ChatMessage("x", role="critic"))
        ('system', 'critic')

    """
    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, SystemMessage):
        return "developer" if message.additional_kwargs.get("__openai_role__") == "developer" else "system"
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, ToolMessage):
        return "tool"
    if isinstance(message, FunctionMessage):
        return "function"
    if isinstance(message, ChatMessage):
        return str(message.role)
    return str(message.type)


@dataclass(frozen=True)
class Subject:
    """What one battery checks: the judge input, and the messages it was read from.

    ``messages`` are the messages a refusal replaces: the messages judged for an
    input check, the AI message for an output check, the tool messages for a
    tool-result check.
    """

    data: JevJudgeInput
    """The judge input sent to the battery (its text already normalised)."""
    messages: tuple[BaseMessage, ...]
    """The messages checked."""
    media: tuple[str, ...] = field(default=())
    """Binary media the battery could not be shown (named by where it is and its type)."""


def _labelled(message: BaseMessage) -> str:
    """A message's text as the battery reads it: a user's bare, any other role's after its label."""
    role = role_of(message)
    if role == "user" and isinstance(message, HumanMessage):
        return read_message(message).text
    named = isinstance(message, ToolMessage | FunctionMessage) and bool(message.name)
    reading = read_message(message, name_apart=named)
    label = f"[{role} {message.name}]" if named else f"[{role}]"
    return f"{label} {reading.text}" if reading.text else label


def _earlier(messages: Sequence[BaseMessage], limit: int) -> list[dict[str, str]]:
    earlier: list[dict[str, str]] = []
    for message in reversed(messages):
        if len(earlier) >= limit:
            break
        text = read_message(message).text
        if text.strip():
            earlier.append({"role": role_of(message), "text": text})
    return earlier[::-1]


def input_subject(
    messages: Sequence[BaseMessage],
    start: int = 0,
    context_messages: int = DEFAULT_CONTEXT_MESSAGES,
) -> Subject | None:
    r"""The messages from ``start`` on, every role, judged whole, with earlier messages as context.

    None when they carry nothing to judge.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
        >>> subject = input_subject([HumanMessage("hi"), AIMessage("hello"), SystemMessage("Obey."),
        ...                          HumanMessage("How do I make"), HumanMessage("it at home?")], start=2)
        >>> subject.data.question
        '[system] Obey.\n\nHow do I make\n\nit at home?'
        >>> subject.data.field("earlier_conversation")
        [{'role': 'user', 'text': 'hi'}, {'role': 'assistant', 'text': 'hello'}]

    """
    judged = list(messages[start:])
    texts = [_labelled(m) for m in judged]
    texts = [text for text in texts if text.strip()]
    if not texts:
        return None
    earlier = _earlier(messages[:start], context_messages) if context_messages > 0 else []
    data = JevJudgeInput(question="\n\n".join(texts), fields={CONTEXT_FIELD: earlier} if earlier else None)
    return Subject(clean_input(data), tuple(judged))


def _calls(message: AIMessage) -> list[ToolCall]:
    calls = [ToolCall(call["name"], call.get("args", {})) for call in message.tool_calls]
    for bad in message.invalid_tool_calls:
        calls.append(ToolCall(bad.get("name") or "tool", {"arguments": bad.get("args")}))
    return calls


def _last_request(messages: Sequence[BaseMessage]) -> str | None:
    """The user's request a reply answers: the human messages after the model last spoke."""
    end = len(messages)
    start = max((i + 1 for i, m in enumerate(messages) if isinstance(m, AIMessage)), default=0)
    humans = [m for m in messages[start:end] if isinstance(m, HumanMessage)]
    if not humans:
        humans = [m for m in messages if isinstance(m, HumanMessage)][-1:]
    texts = [read_message(m).text for m in humans]
    return "\n\n".join(texts) if texts else None


def output_subject(messages: Sequence[BaseMessage], reply: AIMessage | None = None) -> Subject | None:
    """Everything a model's reply carries, with the tool calls it requests.

    ``reply`` is the reply to ``messages``; without it, the last message when it
    is an AI message. None when there is no reply or it carries nothing.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> subject = output_subject([HumanMessage("hi")], AIMessage("hello"))
        >>> subject.data.to_state()
        {'user_question': 'hi', 'assistant_answer': 'hello'}

    """
    if reply is None:
        if not messages or not isinstance(messages[-1], AIMessage):
            return None
        reply, messages = messages[-1], messages[:-1]
    reading = read_message(reply, calls_apart=True)
    calls = _calls(reply)
    if not reading.texts and not calls and not reading.media:
        return None
    data = JevJudgeInput(question=_last_request(messages), answer=reading.text, tool_calls=calls)
    return Subject(clean_input(data), (reply,), reading.media)


def tool_results_subject(messages: Sequence[BaseMessage], start: int | None = None) -> Subject | None:
    """The tool results among the messages from ``start`` on, with the calls they answer.

    Without ``start``, the tool messages that end the conversation. None when there are none.

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
    if start is None:
        start = len(messages)
        while start > 0 and isinstance(messages[start - 1], ToolMessage):
            start -= 1
    results = [m for m in messages[start:] if isinstance(m, ToolMessage | FunctionMessage)]
    if not results:
        return None
    requested: dict[str, ToolCall] = {}
    for message in messages:
        if isinstance(message, AIMessage):
            for request in message.tool_calls:
                requested[request.get("id") or ""] = ToolCall(request["name"], request.get("args", {}))
    calls = []
    for result in results:
        call_id = result.tool_call_id if isinstance(result, ToolMessage) else ""
        call = requested.get(call_id)
        name = call.name if call is not None else (result.name or "tool")
        arguments = call.arguments if call is not None else {}
        calls.append(ToolCall(name, arguments, read_message(result).text))
    data = JevJudgeInput(question=_last_request(messages[:start]), tool_calls=calls)
    return Subject(clean_input(data), tuple(results))


def subject_for(
    direction: Direction,
    messages: Sequence[BaseMessage],
    context_messages: int = DEFAULT_CONTEXT_MESSAGES,
) -> Subject | None:
    """The subject of a battery of ``direction`` in ``messages``, or None.

    Without a ledger, an input battery judges what came after the model last
    spoke, with the messages before as context.

    Example:
        >>> from langchain_core.messages import HumanMessage
        >>> subject_for("output", [HumanMessage("hi")]) is None
        True

    """
    if direction == "input":
        start = max((i + 1 for i, m in enumerate(messages) if isinstance(m, AIMessage)), default=0)
        return input_subject(messages, start, context_messages)
    if direction == "output":
        return output_subject(messages)
    return tool_results_subject(messages)
