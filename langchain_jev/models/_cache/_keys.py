"""A request's cache key: the SHA-256 of the canonical JSON of model, identity, state and questions."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, convert_to_openai_messages
from pydantic import BaseModel

__all__ = ["cache_key"]

_KEY_VERSION = 2


def cache_key(
    model: str,
    state: Any,
    questions: Mapping[str, Any],
    namespace: str = "",
    identity: Mapping[str, Any] | None = None,
) -> str:
    """Return the cache key of a request: a SHA-256 hex digest.

    The digest covers the model name, the model's ``identity`` (see
    `model_identity`: its kind, endpoint and answer-shaping settings), the optional
    namespace and the canonical JSON (sorted keys, no spaces) of the state and the
    questions. LangChain messages count by their role and content, as they are
    sent; questions by their JSON form.

    Raises:
        TypeError: a value in the state has no JSON form (its path is named).
        ValueError: a number in the state is not finite.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> q = {"polite": Noul(instructions="Is it polite?")}
        >>> one = cache_key("jev-latest", {"a": 1, "b": 2}, q)
        >>> one == cache_key("jev-latest", {"b": 2, "a": 1}, q)
        True
        >>> cache_key("jev-latest", "Hi", q) == cache_key("jev-other", "Hi", q)
        False

    """
    document = {
        "version": _KEY_VERSION,
        "model": model,
        "identity": dict(identity or {}),
        "namespace": namespace,
        "state": _canonical(state, "state"),
        "questions": {
            str(name): _canonical(question, f"questions.{name}") for name, question in questions.items()
        },
    }
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _canonical(value: Any, path: str) -> Any:
    """Return the JSON form of a value, with messages as role/content objects."""
    if isinstance(value, BaseMessage):
        return _canonical(convert_to_openai_messages(value), path)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, Mapping):
        result: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{path}: object keys must be strings, got {key!r}")
            result[key] = _canonical(item, f"{path}.{key}")
        return result
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
        if value and all(isinstance(item, BaseMessage) for item in value):
            return _canonical(convert_to_openai_messages(list(value)), path)
        return [_canonical(item, f"{path}[{index}]") for index, item in enumerate(value)]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise TypeError(f"{path}: {type(value).__name__} has no JSON form")
