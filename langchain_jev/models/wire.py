"""Turning a LangChain state and questions into what the TypeSafe API accepts."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.decisions import Question
from langchain_core.messages import BaseMessage, convert_to_openai_messages
from typesafe_sdk import Image

from langchain_jev.errors import JevInputError

__all__ = ["wire_questions", "wire_state"]


def wire_questions(questions: Mapping[str, Question]) -> dict[str, Any]:
    """Dump langchain-core questions as the API's question objects."""
    return {name: question.model_dump(mode="json") for name, question in questions.items()}


def wire_state(state: Any, path: str = "state") -> Any:
    """Return the state as JSON, with messages as role/content and images as SDK assets.

    LangChain messages at any depth become ``{"role", "content"}`` objects; a
    standard image block with base64 data (``{"type": "image", "base64": ...,
    "mime_type": ...}``) becomes a `typesafe_sdk.Image`, which the SDK uploads.

    Raises:
        JevInputError: a value has no JSON form; the message gives its path.

    """
    if isinstance(state, BaseMessage):
        return wire_state(convert_to_openai_messages(state), path)
    if isinstance(state, Mapping):
        image = _image(state)
        if image is not None:
            return image
        result: dict[str, Any] = {}
        for key, value in state.items():
            if not isinstance(key, str):
                raise JevInputError(f"{path}: object keys must be strings, got {key!r}")
            result[key] = wire_state(value, f"{path}.{key}")
        return result
    if isinstance(state, Sequence) and not isinstance(state, (str, bytes, bytearray)):
        if state and all(isinstance(item, BaseMessage) for item in state):
            return [wire_state(m, f"{path}[{i}]") for i, m in enumerate(convert_to_openai_messages(state))]
        return [wire_state(item, f"{path}[{index}]") for index, item in enumerate(state)]
    if state is None or isinstance(state, (str, bool, int, float)):
        return state
    raise JevInputError(f"{path}: {type(state).__name__} has no JSON form")


def _image(block: Mapping[str, Any]) -> Image | None:
    if block.get("type") != "image" or not isinstance(block.get("base64"), str):
        return None
    try:
        return Image(base64.b64decode(block["base64"], validate=True))
    except (binascii.Error, ValueError) as error:
        raise JevInputError(f"an image block's base64 data cannot be decoded: {error}") from None
