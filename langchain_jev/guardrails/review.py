"""Human review of a check: authenticated decisions, and the reviewed text kept with reviewers.

A rail whose policy says ``"interrupt"`` pauses the graph with a value anyone
who reads the thread may see (the requester among them). So that value carries
no text: only the side, why it paused, the categories and probabilities, and
the **fingerprint** of the text judged (`review_request`). The text itself goes
to the operator's review store (`ReviewStore`: a function called with a
`ReviewItem`'s data; by default the ``langchain_jev.guardrail.review`` log).

A decision counts only when it is authenticated: the guardrail is given a
``review_key``, and an allow resumes with ``{"decision": "allow", "token":
review_token(key, fingerprint)}``, which only someone who holds the key can
make, for that text only. The documented forms are exactly these:

- ``"refuse"`` or ``{"decision": "refuse"}`` (no token needed: refusing is always safe);
- ``{"decision": "allow", "token": review_token(key, fingerprint)}``.

Anything else refuses (fail closed) and the reason is logged.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

from langchain_jev.errors import JevConfigurationError
from langchain_jev.guardrails.policy import GuardrailReport, fingerprint
from langchain_jev.guardrails.text import redact

__all__ = [
    "MIN_REVIEW_KEY_BYTES",
    "RESUME_FORMS",
    "ReviewStore",
    "check_review_key",
    "log_review",
    "read_review",
    "review_item",
    "review_request",
    "review_token",
]

review_logger = logging.getLogger("langchain_jev.guardrail.review")

MIN_REVIEW_KEY_BYTES = 16
"""The shortest review key accepted (bytes, or characters of a text key encoded as UTF-8)."""

RESUME_FORMS: tuple[str, ...] = (
    '"refuse"',
    '{"decision": "refuse"}',
    '{"decision": "allow", "token": review_token(key, fingerprint)}',
)
"""The resume values a review reads; anything else refuses."""

ReviewStore = Callable[[dict[str, Any]], Any]
"""Receives each text put to review: ``{"fingerprint", "check", "reason", "categories",
"probabilities", "text"}``. Reviewers read it there, never from the thread."""


def review_request(report: GuardrailReport, fingerprint: str) -> dict[str, Any]:
    """The value a rail pauses with (``interrupt``): the decision so far, never the text.

    Example:
        >>> request = review_request(GuardrailReport("input", False, undecided=("hate",)), "f1")
        >>> request["fingerprint"], request["reason"], "text" in request
        ('f1', 'inconclusive', False)

    """
    return {
        "jev_guardrail": report.check,
        "reason": "error" if report.error is not None else "inconclusive",
        "categories": dict(report.categories),
        "probabilities": report.probabilities,
        "undecided": list(report.undecided),
        "borderline": dict(report.borderline),
        "error": report.error,
        "fingerprint": fingerprint,
        "resume_with": list(RESUME_FORMS),
    }


def review_item(report: GuardrailReport, data: Mapping[str, Any]) -> dict[str, Any]:
    """What a review store receives: the review request with the text judged."""
    return {**review_request(report, fingerprint(data)), "check": report.check, "text": dict(data)}


def check_review_key(key: Any) -> bytes | None:
    """Validate a review key: None, or text or bytes of at least `MIN_REVIEW_KEY_BYTES`.

    Raises:
        JevConfigurationError: the key is of another type or too short (the key itself is never shown).

    """
    if key is None:
        return None
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, bytes):
        raise JevConfigurationError(f"review_key must be text or bytes, got {type(key).__name__}")
    if len(key) < MIN_REVIEW_KEY_BYTES:
        raise JevConfigurationError(
            f"review_key must be at least {MIN_REVIEW_KEY_BYTES} bytes long (use secrets.token_hex())"
        )
    return key


def review_token(key: str | bytes, fingerprint: str) -> str:
    """The token that authenticates a reviewer's allow of the text with ``fingerprint``.

    Example:
        >>> token = review_token("a-review-key-of-16+", "0123456789abcdef")
        >>> len(token), token == review_token("a-review-key-of-16+", "0123456789abcdef")
        (64, True)

    """
    secret = check_review_key(key)
    if secret is None:  # pragma: no cover - check_review_key returns bytes for a key
        raise JevConfigurationError("review_token needs the review key")
    return hmac.new(secret, fingerprint.encode("utf-8"), hashlib.sha256).hexdigest()


def read_review(value: Any, fingerprint: str, key: bytes | None) -> tuple[bool, str | None]:
    """Read a resume value: (allowed, why it refuses or None when it is a plain refusal).

    Only the documented forms (`RESUME_FORMS`) are read: an allow counts only with
    the token of ``key`` for this ``fingerprint``.

    Example:
        >>> key = b"a-review-key-of-16+"
        >>> read_review({"decision": "allow", "token": review_token(key, "f1")}, "f1", key)
        (True, None)
        >>> read_review("allow", "f1", key)[0], read_review("refuse", "f1", key)
        (False, (False, None))
        >>> read_review({"decision": "allow", "token": review_token(key, "f1")}, "f2", key)[1]
        "the token is not the review key's token for the text judged now"

    """
    if value == "refuse" and isinstance(value, str):
        return False, None
    if not isinstance(value, Mapping) or not set(value) <= {"decision", "token"}:
        return False, f"the resume value is none of the documented forms ({', '.join(RESUME_FORMS)})"
    decision = value.get("decision")
    if decision == "refuse" and isinstance(decision, str):
        return False, None
    if not (decision == "allow" and isinstance(decision, str)):
        return False, f"the resume value is none of the documented forms ({', '.join(RESUME_FORMS)})"
    token = value.get("token")
    if key is None or not isinstance(token, str):
        return False, "an allow needs the token of the review key"
    if not hmac.compare_digest(token, review_token(key, fingerprint)):
        return False, "the token is not the review key's token for the text judged now"
    return True, None


def log_review(item: dict[str, Any]) -> None:
    """The default review store: the item, text and all, at WARNING on ``langchain_jev.guardrail.review``."""
    review_logger.warning(
        "a %s safety check awaits review (fingerprint %s): %s",
        item.get("check"),
        item.get("fingerprint"),
        redact(json.dumps(item, ensure_ascii=False, sort_keys=True, default=str)),
    )
