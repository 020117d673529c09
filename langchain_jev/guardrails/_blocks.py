"""Content blocks: which keys hold prose, which types hold media, and what a provider resolves itself.

Pure data and functions, no I/O, for `langchain_jev.guardrails._judged`:

- the keys whose value is a block's prose, the standard block types, the media
  block types, their holders and typed media fields;
- `unread_references`: content a provider resolves itself that no reader here
  reads (a file or audio id, a stored file source, ciphertext it decrypts), by an
  allow-list: a media block is read only when its payload is in a field read here;
- `stored_responses`: the AI messages whose response id a builder may send as
  ``previous_response_id``, so that the provider reads a stored conversation in
  place of the messages before it (the model's door lets through only the ones it
  released, `langchain_jev.guardrails._calls.ReleasedResponses`);
- `stored_references`: the same read by reference named in a model's call
  options (`STORED_OPTIONS`: ``previous_response_id``, ``conversation``);
- `reads_stored_responses`: whether a model may send a message's response id at
  all (an allow-list of the models known not to).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseLanguageModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables.base import RunnableBindingBase

__all__ = [
    "BLOCK_TYPES",
    "MEDIA",
    "MEDIA_FIELDS",
    "MEDIA_HOLDERS",
    "PROSE_KEYS",
    "block_kind",
    "reads_stored_responses",
    "STORED_OPTIONS",
    "STORED_RESPONSE",
    "stored_references",
    "stored_responses",
    "unread_references",
]

PROSE_KEYS = ("text", "thinking", "reasoning", "refusal")
"""Keys whose string value is a block's prose, read bare (every other key is read too, as JSON)."""

BLOCK_TYPES = frozenset(
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
"""Standard block type names: a block that holds only its prose and one of these is read as its prose."""

MEDIA = frozenset({"image", "image_url", "audio", "input_audio", "video", "file", "document", "media"})
"""Block types that hold media in their typed media fields."""

MEDIA_HOLDERS = frozenset(
    {"image_url", "input_audio", "source", "file", "inline_data", "video_url", "audio_url"}
)
"""Keys of a media block whose object (or, for ``image_url``, string) holds the payload."""

MEDIA_FIELDS = frozenset({"base64", "data", "url", "file_data", "image_url", "bytes"})
"""The typed media fields: where a media block (or its holder) keeps the payload."""

_RESOLVED_KINDS = MEDIA | {"input_file", "input_image", "input_audio", "input_video"}
"""Block types (and keys) of content a provider may fetch or look up itself: such a block is read only
when it holds its payload in a field the guardrail reads (`_READ_PAYLOAD`)."""

_READ_PAYLOAD = MEDIA_FIELDS | frozenset({*PROSE_KEYS, "content", "transcript"})
"""The fields a guardrail reads a media block's payload from (the allow-list): a media block with none of
them (in it or in a holder) names content stored at the provider, an id or a file id, which is unjudgeable."""

_SEALED = ("encrypted", "redacted")
"""Words naming ciphertext a provider decrypts for its model: a block type or key with one is unjudgeable."""


def _sealed(name: Any) -> bool:
    return isinstance(name, str) and any(word in name.lower() for word in _SEALED)


def _holds_payload(value: Mapping[Any, Any]) -> bool:
    """True when a media block (or holder) keeps its payload in a field the guardrail reads."""
    for key, item in value.items():
        if key in _READ_PAYLOAD and not (item is None or (isinstance(item, (str, list, dict)) and not item)):
            return True
        if key in MEDIA_HOLDERS and isinstance(item, Mapping) and _holds_payload(item):
            return True
    return False


def block_kind(block: Mapping[Any, Any]) -> str | None:
    """A block's ``type`` when it is a string; a type of any other value names no kind (it is read as a leaf).

    Example:
        >>> block_kind({"type": "file"}), block_kind({"type": ["file"]}), block_kind({})
        ('file', None, None)

    """
    kind = block.get("type")
    return kind if isinstance(kind, str) else None


def unread_references(value: Any, where: str, holder: Any = None) -> list[str]:
    """Where ``value`` names content its provider resolves that no reader here reads, each named.

    An allow-list: a media block (a block of a media type, or the object of a
    media key) is read only when its payload is in a field the guardrail reads
    (`_READ_PAYLOAD`); one that names its content otherwise (a file id, an audio
    id, a stored file source) is unread. A block type or key that names
    ciphertext (``redacted_thinking``, ``encrypted_content``) is unread too.

    Example:
        >>> blocks = [{"type": "text", "text": "Read it."}, {"type": "file", "file_id": "f1"}]
        >>> unread_references(blocks, "content")
        ['content[1]: file']

    """
    if isinstance(value, (list, tuple)):
        return [
            found
            for index, item in enumerate(value)
            for found in unread_references(item, f"{where}[{index}]")
        ]
    if not isinstance(value, Mapping):
        return []
    kind = block_kind(value)
    if _sealed(kind):
        return [f"{where}: {kind}"]
    sealed = [f"{where}.{key}" for key, item in value.items() if _sealed(key) and item]
    media = kind if kind in _RESOLVED_KINDS else holder if holder in _RESOLVED_KINDS | MEDIA_HOLDERS else None
    if media is not None and not _holds_payload(value):
        return [*sealed, f"{where}: {media}"]
    return sealed + [
        found for key, item in value.items() for found in unread_references(item, f"{where}.{key}", key)
    ]


STORED_RESPONSE = "a stored response"
"""How a report names a response id the provider would resolve to a conversation it stored."""

_STORED_PREFIX = "resp_"
"""The prefix of the response ids langchain-openai sends as ``previous_response_id`` (the Responses API)."""


def _names_stored_response(value: Any) -> bool:
    """True when a ``response_metadata["id"]`` may be sent as a stored response's id.

    langchain-openai takes a truthy id whose ``startswith("resp_")`` holds; an id
    that is not a plain string is taken as one too (its own ``startswith`` decides
    for the builder, and the door never records such an id as released).
    """
    if not value:
        return False
    if type(value) is not str:
        return True
    return value.startswith(_STORED_PREFIX)


def stored_responses(messages: Sequence[BaseMessage]) -> list[tuple[int, Any]]:
    """The AI messages whose response id names a stored response, each as (index, id), the last first.

    With ``use_previous_response_id=True`` langchain-openai sends the id of the last
    of them as ``previous_response_id`` and drops every message before it: the
    provider reads the conversation it stored under that id instead. When that
    message is withheld, the one before it takes its place, and so on.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> stored_responses([HumanMessage("hi"), AIMessage("a", response_metadata={"id": "resp_1"}),
        ...                   AIMessage("b", response_metadata={"id": "chatcmpl-2"}), HumanMessage("go")])
        [(1, 'resp_1')]

    """
    found: list[tuple[int, Any]] = []
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, AIMessage):
            response = message.response_metadata.get("id")
            if _names_stored_response(response):
                found.append((index, response))
    return found


STORED_OPTIONS: Mapping[str, str] = {
    "previous_response_id": STORED_RESPONSE,
    "conversation": "a stored conversation",
}
"""Call options that make the provider read content it stored (OpenAI's Responses API), and what they name.

The model's door lets a ``previous_response_id`` through only when it released
that response in the thread, and a conversation never (it releases none); a model
carrying either also waits for its verdict (neither is an inert option)."""

_OPTION_SETTINGS = ("model_kwargs", "extra_body")
"""A chat model's settings whose keys go into its request as call options."""

_DEPTH = 4
"""How deep models held by models (fallbacks) are read."""


def stored_references(
    model: Any, options: Mapping[str, Any] | None = None
) -> tuple[tuple[str, str, Any], ...]:
    """The stored content ``model`` and the call's ``options`` name, each as (where, option, value).

    Read where a model's call options come from: the call's ``options`` (an
    agent's model settings), every binding (``bind``), a model's ``model_kwargs``
    and ``extra_body``, and each model of a model with fallbacks.

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> chat = GenericFakeChatModel(messages=iter([])).bind(previous_response_id="resp_1")
        >>> for found in stored_references(chat, {"conversation": "conv_1"}):
        ...     print(found)
        ('model_settings.conversation', 'conversation', 'conv_1')
        ('bound.previous_response_id', 'previous_response_id', 'resp_1')

    """
    found: list[tuple[str, str, Any]] = []

    def read(values: Any, where: str) -> None:
        if isinstance(values, Mapping):
            found.extend(
                (f"{where}.{key}", key, values[key]) for key in STORED_OPTIONS if values.get(key) is not None
            )

    read(options, "model_settings")
    models: list[Any] = [model]
    for _ in range(_DEPTH):
        held: list[Any] = []
        for item in models:
            while isinstance(item, RunnableBindingBase):
                read(item.kwargs, "bound")
                item = item.bound
            if isinstance(item, BaseLanguageModel):
                for name in _OPTION_SETTINGS:
                    read(getattr(item, name, None), name)
            held.extend(getattr(item, "runnables", None) or ())  # a model with fallbacks
        models = held
    return tuple(found)


_NEVER_SENDS_RESPONSE_IDS = frozenset(
    {"langchain_core", "langchain_jev", "langchain_anthropic", "langchain_google_genai"}
)
"""Packages whose chat models never send a message's response id (their builders do not read it)."""


def reads_stored_responses(model: Any) -> bool:
    """False only when ``model`` is known never to send a message's response id as a stored response.

    An allow-list: every model it holds (through bindings, retries and fallbacks)
    is a chat model of `_NEVER_SENDS_RESPONSE_IDS` packages, or langchain-openai's
    with ``use_previous_response_id`` off. Anything else (a function, the caller's
    own class, another package's model) may, so its messages' response ids are judged.

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> reads_stored_responses(GenericFakeChatModel(messages=iter([])).bind(stop=["x"]))
        False
        >>> reads_stored_responses(lambda messages: "hi")
        True

    """
    models: list[Any] = [model]
    for _ in range(_DEPTH):
        held: list[Any] = []
        for item in models:
            while isinstance(item, RunnableBindingBase):
                item = item.bound
            fallbacks = getattr(item, "runnables", None)
            if fallbacks is not None and not isinstance(item, BaseLanguageModel):
                held.extend(fallbacks)
                continue
            if not isinstance(item, BaseLanguageModel):
                return True
            packages = {cls.__module__.partition(".")[0] for cls in type(item).__mro__}
            packages -= {"pydantic", "builtins", "abc", "typing", "typing_extensions"}
            if packages <= _NEVER_SENDS_RESPONSE_IDS:
                continue
            openai = packages <= _NEVER_SENDS_RESPONSE_IDS | {"langchain_openai"}
            if openai and getattr(item, "use_previous_response_id", True) is False:
                continue
            return True
        if not held:
            return False
        models = held
    return True
