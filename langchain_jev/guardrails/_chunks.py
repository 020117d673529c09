"""A reply judged as it streams, cut into chunks: pure functions over messages and their chunks.

With ``stream_chunks=N`` the model's door (`langchain_jev.guardrails._door`) judges
a reply while the model writes it, and releases it to the caller's streams chunk
by chunk, each once it is judged clean. These functions decide what is judged and
what is released; the door does the I/O.

- A **token** is a streamed chunk that carries text (`token_text`); chunks that
  carry only tool call pieces, other blocks or metadata are held to the end.
- The next chunk to judge is every token that came since the last release (at
  least N, more when a check took longer than the model), shown with the last
  ``context`` *characters* released before it (`chunk_window`): counted in
  characters, not tokens, so whatever ends in a chunk and is at most ``context +
  1`` characters long is judged whole, however the model cut it into tokens.
  What is released is the chunk alone (`text_chunk`), so the released text is
  exactly the judged chunks, in order.
- At the end the rest of the reply is judged once: its last tokens with their
  context and everything it carries beside its text (`with_text`), or, with
  ``final_check=True``, the whole reply; then the rest is released
  (`rest_chunk`: tool calls, other blocks, metadata).
- A flagged check stops the stream: the reply kept in the thread is what was
  released followed by the refusal (`stopped_reply`; after a flagged whole-reply
  check, the refusal alone), under the streamed message's id.

Example:
    >>> tokens = ["Rinse", " the", " lentils", ",", " then", " simmer"]
    >>> chunk_window(tokens, shown=3, context=8)
    (' lentils', ', then simmer')
    >>> text_chunk(", then simmer", "run-1").content
    ', then simmer'

"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import ToolCallChunk

__all__ = [
    "chunk_window",
    "is_text_block",
    "refusal_tail",
    "reply_text",
    "rest_chunk",
    "stopped_reply",
    "text_chunk",
    "token_text",
    "with_text",
]


def is_text_block(block: Any) -> bool:
    """True for a block of prose the stream releases as text (a string, or a ``text`` block)."""
    return isinstance(block, str) or (
        isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    )


def reply_text(message: BaseMessage) -> str:
    """The prose of a message: its string content, or its text blocks joined.

    Example:
        >>> reply_text(AIMessage([{"type": "text", "text": "a"}, {"type": "reasoning"}, "b"]))
        'ab'

    """
    return str(message.text)


def token_text(chunk: BaseMessage) -> str:
    """The text a streamed chunk adds (empty for a chunk of tool call pieces or metadata alone)."""
    return reply_text(chunk)


def chunk_window(tokens: Sequence[str], shown: int, context: int) -> tuple[str, str]:
    """The context and the chunk to judge next.

    The context is the last ``context`` characters of the tokens released (the first
    ``shown``); the chunk, every token from ``shown`` on.

    Example:
        >>> chunk_window(list("a nerve agent"), shown=9, context=4)
        ('ve a', 'gent')

    """
    released = "".join(tokens[:shown])
    return released[max(0, len(released) - context) :], "".join(tokens[shown:])


def text_chunk(text: str, message_id: str | None) -> AIMessageChunk:
    """A chunk of text alone to release, under the streamed message's id."""
    return AIMessageChunk(content=text, id=message_id)


def with_text(reply: AIMessage, text: str) -> AIMessage:
    """``reply`` with its prose replaced by ``text``; every other block, key and field kept.

    What the check at the end of a streamed reply judges: its last tokens (with
    their context) and everything the reply carries beside its text (the keys of
    its text blocks, other blocks, tool calls, metadata, name).

    Example:
        >>> reply = AIMessage([{"type": "text", "text": "All of it.", "annotations": ["a note"]}],
        ...                   response_metadata={"finish_reason": "stop"})
        >>> with_text(reply, "it.").content
        [{'type': 'text', 'annotations': ['a note'], 'text': 'it.'}]

    """
    content = reply.content
    if isinstance(content, str):
        return reply.model_copy(update={"content": text})
    blocks: list[Any] = []
    placed = False
    for block in content:
        if isinstance(block, str):
            continue
        if is_text_block(block):
            kept = {key: value for key, value in block.items() if key != "text"}
            if not placed:
                kept["text"] = text
                placed = True
            blocks.append(kept)
        else:
            blocks.append(block)
    if not placed and text:
        blocks.insert(0, {"type": "text", "text": text})
    return reply.model_copy(update={"content": blocks})


def rest_chunk(reply: AIMessage) -> AIMessageChunk | None:
    """What ``reply`` carries beside its text, as the last chunk to release (None when nothing).

    Its other blocks, its tool calls (as tool call chunks), its metadata and usage:
    a consumer adding up the released chunks gets the reply.
    """
    content: Any = ""
    if not isinstance(reply.content, str):
        others = [block for block in reply.content if not is_text_block(block)]
        content = others or ""
    calls: list[ToolCallChunk] = [
        ToolCallChunk(
            name=call["name"],
            args=json.dumps(call["args"]),
            id=call.get("id"),
            index=index,
            type="tool_call_chunk",
        )
        for index, call in enumerate(reply.tool_calls)
    ]
    offset = len(calls)
    calls += [
        ToolCallChunk(
            name=call.get("name"),
            args=call.get("args"),
            id=call.get("id"),
            index=offset + index,
            type="tool_call_chunk",
        )
        for index, call in enumerate(reply.invalid_tool_calls)
    ]
    if not (content or calls or reply.response_metadata or reply.usage_metadata or reply.additional_kwargs):
        return None
    return AIMessageChunk(
        content=content,
        tool_call_chunks=calls,
        response_metadata=dict(reply.response_metadata),
        usage_metadata=reply.usage_metadata,
        additional_kwargs=dict(reply.additional_kwargs),
        id=reply.id,
    )


def refusal_tail(kept: str, refusal: str) -> str:
    """The text released after ``kept`` when a check stopped the stream: the refusal, set apart."""
    return f"\n\n{refusal}" if kept else refusal


def stopped_reply(kept: str, refusal: AIMessage, message_id: str | None) -> AIMessage:
    r"""The reply the thread keeps when a check stopped it: ``kept`` (what was released), then the refusal.

    It carries the refusal's report (``response_metadata["jev_guardrail"]``) and no
    tool calls, under the streamed message's id.

    Example:
        >>> from langchain_jev.guardrails._policy import GuardrailReport, refusal_reply
        >>> refusal = refusal_reply(GuardrailReport("output", True, {"hate": 0.9}), "No.")
        >>> stopped_reply("Well,", refusal, "run-1").content
        'Well,\n\nNo.'

    """
    text = f"{kept}{refusal_tail(kept, str(refusal.content))}"
    return AIMessage(content=text, id=message_id, response_metadata=dict(refusal.response_metadata))
