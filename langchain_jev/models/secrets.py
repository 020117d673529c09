"""The keys this package knows, and their redaction from everything it writes.

A key is known when a model was given it (``api_key=``) or when it sits in an
environment variable named like a key (``TYPESAFE_API_KEY``, ``OPENAI_API_KEY``,
``..._TOKEN``, ``..._SECRET``). `redact` replaces every known key in a text,
with its JSON-escaped form and its last 16 characters, so a server that echoes
the bearer token in an error body cannot carry it into a results file, an error
message or a log line. `redact_error` cleans an exception in place, and
`install_log_filter` puts a `RedactingFilter` on the loggers that can see a
response body.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import threading
from typing import Any

__all__ = [
    "REDACTED",
    "RedactingFilter",
    "install_log_filter",
    "known_secrets",
    "redact",
    "redact_error",
    "remember_secret",
]

REDACTED = "[redacted]"
"""What a key is replaced with."""

_KEY_NAME = re.compile(r"(?:API_?KEY|_TOKEN|_SECRET|SECRET_?KEY|ACCESS_?KEY|PASSWORD)$", re.IGNORECASE)
_SHORTEST = 8
"""Shorter values are not treated as keys (they would redact ordinary words)."""
_SUFFIX = 16
_LOGGERS = ("langchain_jev", "typesafe_sdk", "httpx2", "httpcore2", "httpx", "httpcore")

_remembered: set[str] = set()
_lock = threading.Lock()
_installed = False


def remember_secret(value: str | None) -> None:
    """Know ``value`` as a key from now on, so it is redacted wherever the package writes.

    Example:
        >>> remember_secret("sk-example-0123456789abcdef")
        >>> redact("401: bad key sk-example-0123456789abcdef")
        '401: bad key [redacted]'

    """
    if value and len(value) >= _SHORTEST:
        with _lock:
            _remembered.add(value)


def known_secrets() -> list[str]:
    """Every key known now, longest first (remembered ones and key-like environment variables)."""
    with _lock:
        found = set(_remembered)
    for name, value in os.environ.items():
        if len(value) >= _SHORTEST and _KEY_NAME.search(name):
            found.add(value)
    return sorted(found, key=len, reverse=True)


def redact(text: str) -> str:
    """``text`` with every known key (whole, JSON-escaped, or its last 16 characters) replaced.

    Example:
        >>> import os
        >>> os.environ["EXAMPLE_API_KEY"] = "sk-env-abcdefghijklmnopqrstuvwxyz"
        >>> redact('{"detail": "Bearer sk-env-abcdefghijklmnopqrstuvwxyz is invalid"}')
        '{"detail": "Bearer [redacted] is invalid"}'
        >>> del os.environ["EXAMPLE_API_KEY"]

    """
    if not text:
        return text
    for secret in known_secrets():
        for form in _forms(secret):
            if form in text:
                text = text.replace(form, REDACTED)
    return text


def _forms(secret: str) -> list[str]:
    forms = [secret, json.dumps(secret)[1:-1]]
    if len(secret) >= _SUFFIX + 8:
        forms.append(secret[-_SUFFIX:])
    return forms


def redact_error(error: BaseException) -> BaseException:
    """Redact known keys from an exception's message and its text attributes, in place.

    Returns the same exception, so ``raise redact_error(error)`` works.

    Example:
        >>> remember_secret("sk-example-0123456789abcdef")
        >>> str(redact_error(ValueError("echo: sk-example-0123456789abcdef")))
        'echo: [redacted]'

    """
    error.args = tuple(_clean(arg) for arg in error.args)
    for name, value in list(getattr(error, "__dict__", {}).items()):  # message, body, ...
        if isinstance(value, (str, dict, list)):
            cleaned = _clean(value)
            if cleaned is not value:
                with contextlib.suppress(AttributeError, TypeError):  # a read-only attribute
                    setattr(error, name, cleaned)
    return error


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        cleaned = redact(value)
        return value if cleaned == value else cleaned
    if isinstance(value, (dict, list)):
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            return value
        cleaned = redact(text)
        return value if cleaned == text else json.loads(cleaned)
    return value


class RedactingFilter(logging.Filter):
    """A logging filter that redacts known keys from each record's message."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message without known keys; never drop a record."""
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is the logging system's to report
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None:
            redact_error(record.exc_info[1])
            record.exc_text = None
        return True


def install_log_filter() -> None:
    """Put one `RedactingFilter` on this package's loggers and the HTTP client's (once)."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    shared = RedactingFilter()
    for name in _LOGGERS:
        logging.getLogger(name).addFilter(shared)
