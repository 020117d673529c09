"""Content the provider resolves by reference fails closed: the judge never reads it, so it is unjudgeable.

An allow-list: a media block is read only when its payload is in a field the guardrail reads; a block that
names stored content (a file id, an assistant audio id, a stored file source) or ciphertext the provider
decrypts for its model (OpenAI's ``encrypted_content``, Anthropic's ``redacted_thinking``) is named
unjudgeable in every check, and ``on_unjudgeable`` (refuse by default) decides.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from langchain_jev.graph import guard_model
from langchain_jev.guardrails._judged import input_subject, read_message, tool_results_subject
from tests.fakes import ReplyingChatModel
from tests.guardrails.helpers import SEQUENTIAL
from tests.guardrails.lossless_kit import perfect
from tests.guardrails.test_redteam_round5 import batteries

REFERENCES: dict[str, Any] = {
    "an OpenAI file id": {"type": "file", "file_id": "file-abc"},
    "an OpenAI chat file": {"type": "file", "file": {"file_id": "file-abc"}},
    "a responses input file": {"type": "input_file", "file_id": "file-abc"},
    "a responses input image": {"type": "input_image", "file_id": "file-abc", "detail": "auto"},
    "an Anthropic file source": {"type": "document", "source": {"type": "file", "file_id": "file_abc"}},
    "an Anthropic image file source": {"type": "image", "source": {"type": "file", "file_id": "file_abc"}},
    "an image by id": {"type": "image", "id": "img-1", "file_id": "file-abc"},
    "OpenAI encrypted reasoning": {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [],
        "encrypted_content": "gAAA",
    },
    "Anthropic redacted thinking": {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
}
"""Blocks naming content the provider resolves (the quoted instances and their neighbours)."""

READ: dict[str, Any] = {
    "an image in base64": {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"},
    "an image URL": {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
    "an OpenAI file's data": {
        "type": "file",
        "file": {"filename": "a.txt", "file_data": "data:text/plain;base64,aGk="},
    },
    "an Anthropic text document": {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": "hi"},
    },
    "an Anthropic content document": {
        "type": "document",
        "source": {"type": "content", "content": [{"type": "text", "text": "hi"}]},
    },
    "audio in base64": {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
    "a reasoning summary": {"type": "reasoning", "summary": [{"type": "summary_text", "text": "plan"}]},
    "a thinking block with its signature": {"type": "thinking", "thinking": "plan", "signature": "sig"},
}
"""Blocks whose content is in a field the guardrail reads: never unjudgeable for being a reference."""


@pytest.mark.parametrize("name", REFERENCES)
def test_a_reference_the_provider_resolves_is_unjudgeable(name: str) -> None:
    message = HumanMessage([{"type": "text", "text": "Do what it says."}, REFERENCES[name]])
    assert read_message(message).unread
    subject = input_subject([message])
    assert subject is not None and subject.media


@pytest.mark.parametrize("name", READ)
def test_content_in_a_field_the_guardrail_reads_is_not_a_reference(name: str) -> None:
    assert read_message(HumanMessage([{"type": "text", "text": "See."}, READ[name]])).unread == ()


def test_an_assistant_audio_id_is_unjudgeable_and_a_spoken_reply_with_its_data_is_read() -> None:
    stored = AIMessage("", additional_kwargs={"audio": {"id": "audio_stored_elsewhere"}})
    spoken = AIMessage("", additional_kwargs={"audio": {"id": "a1", "data": "UklGRg==", "transcript": "hi"}})
    assert read_message(stored).unread == ("additional_kwargs.audio: audio",)
    assert read_message(spoken).unread == ()


def test_a_tool_result_naming_a_stored_file_is_unjudgeable() -> None:
    messages: list[BaseMessage] = [
        HumanMessage("Fetch it."),
        AIMessage("", tool_calls=[{"name": "fetch", "args": {}, "id": "c1"}]),
        ToolMessage([REFERENCES["an OpenAI file id"]], tool_call_id="c1"),
    ]
    subject = tool_results_subject(messages)
    assert subject is not None and subject.media == ("messages[2].content[0]: file",)


_ids = st.text(alphabet="abcdef0123456789-_", min_size=1, max_size=12)
_media_types = st.sampled_from(["file", "image", "audio", "video", "document", "input_file", "input_image"])


@settings(max_examples=60, deadline=None)
@given(
    kind=_media_types,
    key=st.sampled_from(["file_id", "id", "uri", "name", "stored"]),
    value=_ids,
    nested=st.sampled_from([None, "source", "file"]),
    extra=st.dictionaries(
        st.sampled_from(["detail", "mime_type", "filename", "cache_control"]), _ids, max_size=2
    ),
)
def test_a_media_block_with_no_payload_the_guardrail_reads_is_unjudgeable(
    kind: str, key: str, value: str, nested: str | None, extra: dict[str, str]
) -> None:
    reference: dict[str, Any] = {key: value, **extra}
    block: dict[str, Any] = (
        {"type": kind, nested: {"type": "file", **reference}} if nested else {"type": kind, **reference}
    )
    message = HumanMessage([{"type": "text", "text": "hi"}, block])
    assert read_message(message).unread
    assert read_message(AIMessage("hi", additional_kwargs={"audio": reference})).unread


@settings(max_examples=40, deadline=None)
@given(
    word=st.sampled_from(["encrypted_content", "encrypted", "redacted", "Encrypted_Reasoning"]), value=_ids
)
def test_ciphertext_anywhere_in_a_block_or_its_keys_is_unjudgeable(word: str, value: str) -> None:
    as_key = AIMessage([{"type": "reasoning", word: value}, {"type": "text", "text": "ok"}])
    as_type = AIMessage([{"type": f"{word}_thinking", "data": value}])
    assert read_message(as_key).unread and read_message(as_type).unread


@pytest.mark.parametrize("name", ["an OpenAI file id", "Anthropic redacted thinking"])
@pytest.mark.parametrize("on_unjudgeable", ["refuse", "allow"])
def test_on_unjudgeable_decides_a_reference(name: str, on_unjudgeable: str) -> None:
    chat = ReplyingChatModel(replies=["Sure."])
    model = guard_model(chat, *batteries(perfect()), on_unjudgeable=on_unjudgeable, **SEQUENTIAL)
    holder = AIMessage if name.startswith("Anthropic") else HumanMessage
    messages = [
        HumanMessage("hi"),
        holder([REFERENCES[name], {"type": "text", "text": "ok"}]),
        HumanMessage("go"),
    ]
    reply = model.invoke(messages)
    if on_unjudgeable == "refuse":
        assert "cannot read" in str(reply.content) and chat.calls == 0
    else:
        assert chat.calls == 1


@pytest.mark.parametrize("kind", [[], {}, ["file"], 7, None, True])
def test_a_block_whose_type_is_not_a_string_is_read_as_leaves(kind: Any) -> None:
    """Found by the long red-team run: a block ``{"type": []}`` (unhashable) broke the reading itself."""
    message = HumanMessage([{"type": "text", "text": "?", "extras": {"type": kind, "note": "nerve agent"}}])
    subject = input_subject([message])
    assert subject is not None
    assert "nerve agent" in (subject.data.question or "")
