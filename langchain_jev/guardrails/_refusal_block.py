"""A guardrail's refusal as LangChain's standard ``refusal`` content block, its text kept readable.

A refusal is an `AIMessage` whose ``content`` stays its text, a string, so
``message.content`` and ``message.text`` read as they always did and a provider
that is sent the conversation again is sent the text. Its ``response_metadata``
names this package as the ``model_provider`` and keeps the refusal's wording
under ``jev_refusal`` (`refusal_metadata`).

langchain-core reads a message's ``content_blocks`` through the translator
registered for its ``model_provider`` (as it adds a refusal block to an
Anthropic reply that stopped with ``stop_reason="refusal"``); the translator
registered here (`refusal_blocks`) gives the message's own blocks, then one
``{"type": "refusal", "refusal": <the wording>}`` block. So
``ModelRefusalMiddleware``, which raises ``ModelRefusalError`` for a response
whose ``content_blocks`` hold a refusal block, and any other reader of content
blocks, recognise a guardrail's refusal as one. A process that has not imported
the guardrail reads the same message as its text alone.

Example:
    >>> from langchain_core.messages import AIMessage
    >>> reply = AIMessage("No.", response_metadata=refusal_metadata({"check": "output"}, "No."))
    >>> reply.text, [block["type"] for block in reply.content_blocks]
    ('No.', ['text', 'refusal'])

"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from langchain_core.messages import AIMessage
from langchain_core.messages import content as types
from langchain_core.messages.block_translators import register_translator

__all__ = ["PROVIDER", "REFUSAL_KEY", "refusal_blocks", "refusal_metadata"]

PROVIDER = "langchain_jev"
"""The ``model_provider`` of a guardrail's refusal: the package wrote it, not the model."""

REFUSAL_KEY = "jev_refusal"
"""The key of ``response_metadata`` holding the refusal's wording (the text may hold more before it)."""


def refusal_metadata(report: Mapping[str, Any], refusal: str) -> dict[str, Any]:
    """A refusal's ``response_metadata``: its report under ``jev_guardrail``, its provider and wording."""
    return {"jev_guardrail": dict(report), "model_provider": PROVIDER, REFUSAL_KEY: refusal}


def _own_blocks(message: AIMessage) -> list[types.ContentBlock]:
    """The message's blocks as langchain-core reads a message of no provider."""
    metadata = {key: value for key, value in message.response_metadata.items() if key != "model_provider"}
    return list(message.model_copy(update={"response_metadata": metadata}).content_blocks)


def refusal_blocks(message: AIMessage) -> list[types.ContentBlock]:
    """The standard blocks of a refusal (or a chunk of one): the message's own, then its ``refusal`` block.

    A message that carries no wording (not a refusal of the package's) gets its own blocks alone.
    """
    blocks = _own_blocks(message)
    refusal = message.response_metadata.get(REFUSAL_KEY)
    if not isinstance(refusal, str) or any(own.get("type") == "refusal" for own in blocks):
        return blocks
    block: types.RefusalContentBlock = {"type": "refusal", "refusal": refusal}
    report = message.response_metadata.get("jev_guardrail")
    if isinstance(report, Mapping):
        categories = report.get("categories")
        block["extras"] = {
            "source": PROVIDER,
            "check": report.get("check"),
            "categories": sorted(categories) if isinstance(categories, Mapping) else [],
        }
    return [*blocks, cast(types.ContentBlock, block)]


register_translator(PROVIDER, refusal_blocks, refusal_blocks)
