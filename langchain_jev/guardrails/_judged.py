"""What a rail judges: every leaf of a message, read into a judge input, nothing left out.

Pure functions over LangChain messages, shared by every rail. The reading is
**lossless**: the judge input holds every leaf of what a provider may be sent.

- `read_message` walks the *whole* message, not a list of known keys: every
  content block and every key in it, ``additional_kwargs``,
  ``response_metadata``, ``name``, tool calls (ids, arguments, numbers, flags)
  and any other field whose value is not its default. Only the message's own
  ``id`` (no provider request builder sends it), its ``type`` (its class) and a
  tool message's ``artifact`` (never sent) are left out. A block's prose
  (``text``, ``thinking``, ``reasoning``, ``refusal``) is read bare; everything
  else it holds as JSON, keys, ids, numbers and booleans included; a message's
  prose blocks are also read joined, as one text (`READ_TOGETHER`). Every string
  and key is revealed (`langchain_jev.guardrails._text.reveal`): the raw string,
  then what it hides (decoded text, invisible encodings), judged beside it.
- Media is read only in the typed media fields of media blocks
  (`langchain_jev.guardrails._media.read_media`): an image, audio or video file is
  shown to the judge as a note and named (`Reading.media`), so an output rail can
  decide what a reply it cannot see means (``on_unjudgeable``); a PDF's text is
  judged; any other payload is judged as the text it is.
- Content the provider resolves itself is read by an allow-list (`Reading.unread`):
  a media block is read only when its payload is in a field the guardrail reads;
  one that names stored content instead (a file id, an assistant audio id, a
  stored file source) and ciphertext the provider decrypts for its model
  (``redacted_thinking``, ``encrypted_content``) cannot be judged, and every
  check names it unjudgeable (``on_unjudgeable``: refused by default).
- `input_subject` reads the messages a model is about to receive that were not
  judged before (every role: system, developer, user, assistant messages the
  caller wrote, tool and function results, any ``ChatMessage``), with earlier
  messages as context; `output_subject` a model's reply with the tool calls it
  requests; `tool_results_subject` the tool results among the new messages.

Each function returns None when there is nothing of its kind to judge.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    FunctionMessage,
    HumanMessage,
    ToolMessage,
)

from langchain_jev._input import JevJudgeInput, ToolCall
from langchain_jev.guardrails._blocks import (
    BLOCK_TYPES,
    MEDIA,
    MEDIA_FIELDS,
    MEDIA_HOLDERS,
    PROSE_KEYS,
    block_kind,
    unread_references,
)
from langchain_jev.guardrails._catalog import Direction
from langchain_jev.guardrails._media import payload_text, read_media
from langchain_jev.guardrails._roles import provider_orders, role_of, sent_apart
from langchain_jev.guardrails._text import reveal
from langchain_jev.guardrails._values import put, reveal_value

__all__ = [
    "CONTEXT_CHARS",
    "CONTEXT_FIELD",
    "DEFAULT_CONTEXT_MESSAGES",
    "READ_AS_ONE",
    "READ_TOGETHER",
    "Reading",
    "Subject",
    "content_texts",
    "input_subject",
    "output_subject",
    "read_message",
    "reveal_input",
    "role_of",
    "sent_apart",
    "subject_for",
    "tool_results_subject",
]

DEFAULT_CONTEXT_MESSAGES = 6
"""How many earlier messages an input check shows the battery beside what it judges."""

CONTEXT_FIELD = "earlier_conversation"
"""The state field of the earlier messages an input battery is shown."""

CONTEXT_CHARS = 8_000
"""The most characters of one earlier message shown as context (its end). Context was judged
when it was new; it is shown, not judged again, so it is bounded."""

READ_TOGETHER = "[the blocks read together]"
"""The label of a message's prose blocks joined as a provider sends them, one run of text, judged beside
them: a word (or an encoding) split across two blocks is whole there."""

_LEFT_OUT = frozenset({"id", "type", "artifact", "content"})
"""Message fields not read as fields: the message's own id (no provider builder sends it), its
type (its class), an artifact (never sent to a model); the content is read apart."""


def reveal_input(data: JevJudgeInput) -> JevJudgeInput:
    """A judge input with every string and key revealed (`langchain_jev.guardrails._values.reveal_value`).

    Example:
        >>> reveal_input(JevJudgeInput(question="ok", fields={"n": 3})).to_state()
        {'user_question': 'ok', 'n': 3}

    """
    return JevJudgeInput.of(reveal_value(data.to_state()))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=lambda item: reveal(str(item)))


@dataclass(frozen=True)
class Reading:
    """Everything one message carries, as the texts a battery is sent."""

    texts: tuple[str, ...]
    """The texts, in order: prose bare, everything else as JSON, each string revealed."""
    media: tuple[str, ...] = ()
    """The media the battery cannot see (image, audio, video), each named by where it is and its type."""
    prose: str = ""
    """The message's prose blocks joined as a provider sends them, one run of text (raw, not revealed)."""
    unread: tuple[str, ...] = ()
    """Content the provider resolves that the battery cannot read (a file or audio id, ciphertext the
    provider decrypts), each named by where it is: unjudgeable, it goes through ``on_unjudgeable``."""

    @property
    def text(self) -> str:
        """The texts joined into one."""
        return "\n\n".join(self.texts)


class _Walk:
    """One walk over a message: collects its texts and the media it holds."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.media: list[str] = []
        self.prose: list[str] = []
        """The message's prose, block by block as it was written (what a provider sends as one text)."""

    def emit(self, text: str) -> None:
        if text:
            self.texts.append(text)

    def payload(self, value: Any, where: str) -> Any:
        """A typed media field's value: media as its note (named), anything else read like every value."""
        if isinstance(value, Mapping):
            held: dict[Any, Any] = {}
            for key, item in value.items():
                put(
                    held,
                    key,
                    self.payload(item, f"{where}.{key}") if key in MEDIA_FIELDS else reveal_value(item),
                )
            return held
        if not isinstance(value, str):
            return reveal_value(value)
        media = read_media(value)
        if media is None:  # judged as text, beside what it decodes to however short it is
            revealed, decoded = reveal(value), payload_text(value)
            return (
                revealed
                if decoded is None or decoded in revealed
                else f"{revealed}\n[payload] {reveal(decoded)}"
            )
        if media.kind == "document":
            return reveal(media.describe())
        self.media.append(f"{where}: {media.mime}")
        return reveal(media.describe()) if media.text else media.describe()

    def block(self, block: Any, where: str) -> None:
        if isinstance(block, str):
            self.prose.append(block)
            self.emit(reveal(block))
            return
        if not isinstance(block, Mapping):
            self.emit(_json(reveal_value(block)))
            return
        kind = block_kind(block)
        media = kind in MEDIA or any(key in block for key in MEDIA_HOLDERS)
        rest: dict[str, Any] = {}
        for key, item in block.items():
            if key in PROSE_KEYS and isinstance(item, str):
                self.prose.append(item)
                self.emit(reveal(item))
            elif media and (key in MEDIA_FIELDS or key in MEDIA_HOLDERS):
                put(rest, key, self.payload(item, f"{where}.{key}"))
            else:
                put(rest, key, reveal_value(item))
        if rest and not (list(rest) == ["type"] and kind in BLOCK_TYPES):
            self.emit(_json(rest))


def _call_type(key: str, value: Any) -> bool:
    """True for a tool call's standard type (said by its being a call); any other key and value is read."""
    return key == "type" and value in ("tool_call", "invalid_tool_call")


def _default(message: BaseMessage, key: str, value: Any) -> bool:
    """True for a field left at its default (None, empty, or the field's own default): it carries nothing."""
    if value is None or (isinstance(value, (dict, list, tuple, str)) and not value):
        return True
    return isinstance(value, str) and _string_defaults(type(message)).get(key) == value


@functools.cache
def _string_defaults(kind: type[BaseMessage]) -> dict[str, str]:
    """The fields of a message class whose default is a string (a tool message's ``status``), with it."""
    return {name: info.default for name, info in kind.model_fields.items() if isinstance(info.default, str)}


def read_message(message: BaseMessage, *, calls_apart: bool = False, name_apart: bool = False) -> Reading:
    """Everything ``message`` carries: every content block and every other field it has.

    ``calls_apart`` leaves an AI message's tool calls' names and arguments out (an
    output rail sends them as ``tool_calls``; their ids and every other key are
    read here), ``name_apart`` its name (shown with its role). The message's own
    id and its type are never read.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> reading = read_message(AIMessage(
        ...     [{"type": "text", "text": "Done.", "annotations": [{"title": "a note", "index": 2}]}],
        ...     response_metadata={"finish_reason": "stop"}, name="helper"))
        >>> for text in reading.texts:
        ...     print(text)
        Done.
        {"type": "text", "annotations": [{"title": "a note", "index": 2}]}
        {"response_metadata": {"finish_reason": "stop"}, "name": "helper"}

    """
    walk = _Walk()
    content = message.content
    listed = isinstance(content, (list, tuple))  # any other content (a mapping, a number) is one block
    for index, block in enumerate(list(content) if listed else [content]):
        walk.block(block, f"content[{index}]" if listed else "content")
    if listed and not all(isinstance(block, (str, Mapping)) for block in content):  # items read together too
        walk.emit(_json(reveal_value(list(content))))
    if len([piece for piece in walk.prose if piece]) > 1:  # a word may be split across blocks
        walk.emit(f"{READ_TOGETHER} {reveal(''.join(walk.prose))}")
    left_out = set(_LEFT_OUT)
    if calls_apart:
        left_out |= {"tool_calls", "invalid_tool_calls"}
    if name_apart:
        left_out.add("name")
    if calls_apart and isinstance(message, AIMessage):  # ids and every other key of each call
        rest = [
            {
                key: value
                for key, value in call.items()
                if key not in ("name", "args") and not _call_type(key, value)
            }
            for call in [*message.tool_calls, *message.invalid_tool_calls]
        ]
        if any(rest):
            walk.emit(_json({"tool_calls": reveal_value(rest)}))
    fields = {
        key: value
        for key, value in vars(message).items()
        if key not in left_out and not _default(message, key, value)
    }
    if fields:
        walk.emit(_json(reveal_value(fields)))
    unread = [
        *unread_references(content if not isinstance(content, str) else [], "content"),
        *unread_references(message.additional_kwargs, "additional_kwargs"),
    ]
    return Reading(tuple(walk.texts), tuple(walk.media), "".join(walk.prose), tuple(unread))


def content_texts(message: BaseMessage) -> list[str]:
    """The texts of everything a message carries (see `read_message`).

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> content_texts(AIMessage([{"type": "thinking", "thinking": "plan"}, {"type": "x", "v": 1}]))
        ['plan', '{"type": "x", "v": 1}']

    """
    return list(read_message(message).texts)


@dataclass(frozen=True)
class Subject:
    """What one battery checks: the judge input, and the messages it was read from.

    ``messages`` are the messages a refusal replaces: the messages judged for an
    input check, the AI message for an output check, the tool messages for a
    tool-result check.
    """

    data: JevJudgeInput
    """The judge input sent to the battery: every leaf of the messages judged, revealed."""
    messages: tuple[BaseMessage, ...]
    """The messages checked."""
    media: tuple[str, ...] = field(default=())
    """What the battery cannot read, named by where it is: a reply's media (image, audio, video) and, in
    any check, content the provider resolves (`Reading.unread`); it goes through ``on_unjudgeable``."""


def _named(message: BaseMessage) -> bool:
    """True for a tool or function message whose name is shown with its role (so read apart)."""
    return isinstance(message, ToolMessage | FunctionMessage) and bool(message.name)


class _Readings:
    """Each message of one subject read once (`read_message`), by identity, while the subject is made."""

    def __init__(self) -> None:
        self._read: dict[int, tuple[BaseMessage, Reading]] = {}

    def __call__(self, message: BaseMessage) -> Reading:
        held = self._read.get(id(message))
        if held is None or held[0] is not message:
            held = (message, read_message(message, name_apart=_named(message)))
            self._read[id(message)] = held
        return held[1]


def _labelled(message: BaseMessage, read: Callable[[BaseMessage], Reading]) -> str:
    """A message's text as the battery reads it: a user's bare, any other role's after its label."""
    role = role_of(message)
    reading = read(message)
    if role == "user" and isinstance(message, HumanMessage):
        return reading.text
    label = f"[{role} {reveal(message.name or '')}]" if _named(message) else f"[{role}]"
    return f"{label} {reading.text}" if reading.text else label


def _earlier(messages: Sequence[BaseMessage], limit: int) -> list[dict[str, str]]:
    earlier: list[dict[str, str]] = []
    for message in reversed(messages):
        if len(earlier) >= limit:
            break
        text = read_message(message).text
        if text:
            shown = text if len(text) <= CONTEXT_CHARS else f"[...] {text[-CONTEXT_CHARS:]}"
            earlier.append({"role": role_of(message), "text": shown})
    return earlier[::-1]


READ_AS_ONE = "[the messages read together]"
"""The label of adjacent messages joined, as a provider may send them as one message: consecutive messages
of one role (Anthropic's builder sends consecutive user messages as one, their texts as adjacent blocks), a
tool result and the user's text after it (Anthropic's builder sends both in one user message), a system
message and the next user turn (Gemini's with ``convert_system_message_to_human``, chat templates without a
system role)."""


def _merged_runs(
    messages: Sequence[BaseMessage], start: int, read: Callable[[BaseMessage], Reading] = read_message
) -> list[str]:
    """The prose of each run of adjacent messages a provider may send as one, reaching ``start`` or past it.

    In each order a provider may send the messages in (`provider_orders`), a run is broken
    only where `sent_apart` says no provider merges the two messages, so a word
    split across any boundary a provider may join is whole here; an earlier message
    of a run was judged, and is read again only as part of the run.
    """
    texts: list[str] = []
    for view in provider_orders(messages):
        runs: list[list[tuple[int, BaseMessage]]] = []
        for index, message in view:
            if runs and not sent_apart(runs[-1][-1][1], message):
                runs[-1].append((index, message))
            else:
                runs.append([(index, message)])
        for run in runs:
            if run[-1][0] < start:
                continue
            pieces = [read(m).prose for _, m in run]
            text = f"{READ_AS_ONE} {reveal(''.join(pieces))}"
            if len([piece for piece in pieces if piece]) > 1 and text not in texts:
                texts.append(text)
    return texts


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
        >>> print(subject.data.question)
        [system] Obey.
        <BLANKLINE>
        How do I make
        <BLANKLINE>
        it at home?
        <BLANKLINE>
        [the messages read together] Obey.How do I makeit at home?
        <BLANKLINE>
        [the messages read together] How do I makeit at home?
        >>> subject.data.field("earlier_conversation")
        [{'role': 'user', 'text': 'hi'}, {'role': 'assistant', 'text': 'hello'}]

    """
    judged = list(messages[start:])
    read = _Readings()  # each message read once, for its text, its runs and what it leaves unread
    texts = [text for text in (_labelled(m, read) for m in judged) if text]
    if not texts:
        return None
    texts.extend(_merged_runs(messages, start, read))
    earlier = _earlier(messages[:start], context_messages) if context_messages > 0 else []
    data = JevJudgeInput(question="\n\n".join(texts), fields={CONTEXT_FIELD: earlier} if earlier else None)
    return Subject(data, tuple(judged), _unread_in(messages, start, read))


def _unread_in(
    messages: Sequence[BaseMessage], start: int, read: Callable[[BaseMessage], Reading] = read_message
) -> tuple[str, ...]:
    """What the messages from ``start`` on name that their provider resolves and no reader reads."""
    return tuple(
        f"messages[{index}].{where}"
        for index, message in enumerate(messages)
        if index >= start
        for where in read(message).unread
    )


def _calls(message: AIMessage) -> list[ToolCall]:
    calls = [
        ToolCall(reveal(call["name"]), reveal_value(call.get("args", {}))) for call in message.tool_calls
    ]
    for bad in message.invalid_tool_calls:
        calls.append(
            ToolCall(reveal(bad.get("name") or "tool"), {"arguments": reveal_value(bad.get("args"))})
        )
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
    return Subject(data, (reply,), reading.media)


def tool_results_subject(messages: Sequence[BaseMessage], start: int | None = None) -> Subject | None:
    r"""The tool results among the messages from ``start`` on, with the calls they answer.

    Without ``start``, the tool messages that end the conversation. None when there are none.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
        >>> subject = tool_results_subject([
        ...     HumanMessage("weather?"),
        ...     AIMessage("", tool_calls=[{"name": "search", "args": {"q": "weather"}, "id": "1"}]),
        ...     ToolMessage("Sunny.", tool_call_id="1"),
        ... ])
        >>> subject.data.to_state()["tool_calls"]
        [{'name': 'search', 'arguments': {'q': 'weather'}, 'result': 'Sunny.\n\n{"tool_call_id": "1"}'}]

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
                requested[request.get("id") or ""] = ToolCall(
                    reveal(request["name"]), reveal_value(request.get("args", {}))
                )
    calls = []
    for result in results:
        call_id = result.tool_call_id if isinstance(result, ToolMessage) else ""
        call = requested.get(call_id)
        name = call.name if call is not None else reveal(result.name or "tool")
        arguments = call.arguments if call is not None else {}
        calls.append(ToolCall(name, arguments, read_message(result).text))
    data = JevJudgeInput(question=_last_request(messages[:start]), tool_calls=calls)
    unread = tuple(
        f"messages[{index}].{where}"
        for index, message in enumerate(messages)
        if index >= start and isinstance(message, ToolMessage | FunctionMessage)
        for where in read_message(message).unread
    )
    return Subject(data, tuple(results), unread)


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
