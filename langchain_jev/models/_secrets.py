"""The keys this package knows, and their redaction from everything it writes, logs or raises.

A key is known when a model was given it (``api_key=``) or when it sits in an
environment variable named like a key (``TYPESAFE_API_KEY``, ``OPENAI_API_KEY``,
``..._TOKEN``, ``..._SECRET``). `redact` replaces every known key in a text,
with its JSON-escaped form and its last 16 characters, so a server that echoes
the bearer token cannot carry it into a results file, an error or a log line.

- `redact_data` redacts JSON-like data (a results record, a response body):
  every string, key or value, at any depth.
- `redact_error` cleans an exception in place, with its whole chain: its
  message and ``args``, and every attribute (``body``, the response ``headers``,
  an HTTP request or response it holds, with the headers and body of each).
- `SECRET_SETTINGS` is the one declaration of which settings hold secrets (an
  API key, a review key, a token, a password: by name), and `declare_secret_setting`
  adds one. `remember_settings` knows every such setting of a model or settings
  object (and of the models and mappings it holds, a chat model's
  ``api_key`` and its ``default_headers`` too), and every pydantic ``SecretStr`` /
  ``SecretBytes``, as a key, so it is redacted everywhere the package writes;
  `settings_repr` is a dataclass's repr with those settings shown as
  `REDACTED`. A setting declared here is covered wherever it appears.
- `install_log_filter` installs a `logging` record factory that redacts every
  record of every logger (child loggers such as ``httpcore2.http11`` or
  ``langchain_jev.models._wire`` included) as it is made, before any filter or
  handler sees it, and redacts every warning as it is shown (a library's
  ``warnings.warn`` echoing a server's text); `RedactingFilter` does the same
  on a handler of your own.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import logging
import os
import re
import threading
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import pydantic
import pydantic_core

__all__ = [
    "REDACTED",
    "SECRET_SETTINGS",
    "RedactedError",
    "RedactingFilter",
    "contains_secret",
    "declare_secret_setting",
    "install_log_filter",
    "is_secret_setting",
    "known_secrets",
    "redact",
    "redact_data",
    "redact_error",
    "remember_secret",
    "remember_settings",
    "settings_repr",
]

REDACTED = "[redacted]"
"""What a key is replaced with."""

_KEY_NAME = re.compile(r"(?:API_?KEY|_TOKEN|_SECRET|SECRET_?KEY|ACCESS_?KEY|PASSWORD)$", re.IGNORECASE)
_SHORTEST = 8
"""Shorter values are not treated as keys (they would redact ordinary words)."""
_SUFFIX = 16
_DEPTH = 64
"""Data nested deeper than this is not searched but replaced whole (it cannot be shown to hold no key)."""

_remembered: set[str] = set()
_lock = threading.Lock()

SECRET_SETTINGS: set[str] = {
    "api_key",
    "review_key",
    "openai_api_key",
    "anthropic_api_key",
    "google_api_key",
    "mistral_api_key",
    "groq_api_key",
    "cohere_api_key",
    "fireworks_api_key",
    "together_api_key",
    "langsmith_api_key",
    "huggingfacehub_api_token",
    "azure_ad_token",
    "api_token",
    "access_token",
    "auth_token",
    "secret_key",
    "client_secret",
    "private_key",
    "password",
    "aws_secret_access_key",
    "aws_session_token",
    "authorization",
    "x-api-key",
}
"""The settings that hold a secret, by name (case-insensitive): the one declaration every
redaction of the package follows (see `declare_secret_setting`)."""

_SETTINGS_DEPTH = 6
"""How deeply `remember_settings` follows models held by models."""


def declare_secret_setting(name: str) -> None:
    """Declare that a setting called ``name`` holds a secret: from now on it is known and redacted.

    Example:
        >>> declare_secret_setting("webhook_secret")
        >>> is_secret_setting("Webhook_Secret")
        True

    """
    with _lock:
        SECRET_SETTINGS.add(name.lower())


def is_secret_setting(name: str) -> bool:
    """True when a setting called ``name`` holds a secret (see `SECRET_SETTINGS`).

    Example:
        >>> is_secret_setting("review_key"), is_secret_setting("model")
        (True, False)

    """
    return name.lower() in SECRET_SETTINGS


def remember_settings(settings: Any) -> None:
    """Know the value of every secret setting of ``settings`` as a key (see `SECRET_SETTINGS`).

    ``settings`` is a pydantic model (a decision model, a chat model), a dataclass
    (`GuardrailSettings`) or a mapping; the models, dataclasses, mappings and lists it
    holds are followed too (a jury's members, a chat model's ``default_headers``),
    and every ``SecretStr`` / ``SecretBytes`` counts, whatever its name.

    Example:
        >>> from pydantic import BaseModel
        >>> class Member(BaseModel):
        ...     api_key: str
        ...     headers: dict[str, str] = {}
        >>> member = Member(api_key="sk-member-0123456789", headers={"Authorization": "Bearer tok-01234567"})
        >>> remember_settings(member)
        >>> redact("sk-member-0123456789 / tok-01234567")
        '[redacted] / [redacted]'

    """
    _remember_in(settings, 0, set())


def _remember_in(value: Any, depth: int, seen: set[int]) -> None:
    if depth > _SETTINGS_DEPTH or id(value) in seen:
        return
    seen.add(id(value))
    for name, item in _named_values(value):
        if isinstance(item, (pydantic.SecretStr, pydantic.SecretBytes)):
            _remember_value(item.get_secret_value())
        elif isinstance(name, str) and is_secret_setting(name) and isinstance(item, (str, bytes)):
            _remember_value(item)
        elif isinstance(item, (Mapping, list, tuple, pydantic.BaseModel)) or dataclasses.is_dataclass(item):
            _remember_in(item, depth + 1, seen)


def _named_values(value: Any) -> list[tuple[Any, Any]]:
    if isinstance(value, pydantic.BaseModel):
        fields = type(value).model_fields
        return [(name, value.__dict__.get(name)) for name in fields]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(field.name, getattr(value, field.name, None)) for field in dataclasses.fields(value)]
    if isinstance(value, Mapping):
        return list(value.items())
    if isinstance(value, (list, tuple)):
        return [(None, item) for item in value]
    return []


def _remember_value(value: str | bytes) -> None:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    scheme, _, credential = text.partition(" ")
    if credential and scheme.lower() in ("bearer", "basic", "token"):  # an Authorization header's value
        remember_secret(credential.strip())
    remember_secret(text)


def settings_repr(settings: Any) -> str:
    """A dataclass's repr with every secret setting shown as `REDACTED` (the fields it shows, in order).

    Example:
        >>> from dataclasses import dataclass
        >>> @dataclass
        ... class Options:
        ...     mode: str = "enforce"
        ...     review_key: str | None = None
        >>> settings_repr(Options(review_key="a-review-key-of-some-length"))
        "Options(mode='enforce', review_key='[redacted]')"

    """
    shown = []
    for field in dataclasses.fields(settings):
        if not field.repr:
            continue
        value = getattr(settings, field.name)
        text = repr(REDACTED) if value is not None and is_secret_setting(field.name) else repr(value)
        shown.append(f"{field.name}={text}")
    return f"{type(settings).__name__}({', '.join(shown)})"


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
    environ = os.environ
    for name in _key_names():
        value = environ.get(name)
        if value is not None and len(value) >= _SHORTEST:
            found.add(value)
    return sorted(found, key=len, reverse=True)


_names: list[Any] = [None, ()]
"""The environment's variable names when its key-like names were last listed, and those names."""


def _key_names() -> tuple[str, ...]:
    """The names of the environment variables named like a key; listed again when a name comes or goes."""
    data = getattr(os.environ, "_data", None)  # the encoded names: compared without decoding them
    present = tuple(data) if isinstance(data, dict) else tuple(os.environ)
    if present != _names[0]:
        _names[:] = [present, tuple(name for name in os.environ if _KEY_NAME.search(name))]
    names: tuple[str, ...] = _names[1]
    return names


@functools.lru_cache(maxsize=64)
def _forms_of(secrets: tuple[str, ...]) -> tuple[list[str], list[bytes]]:
    # longest first: a whole key is replaced before another key's tail it ends with
    forms = sorted({form for secret in secrets for form in _forms(secret)}, key=len, reverse=True)
    return forms, [form.encode("utf-8", "surrogatepass") for form in forms]


def _forms(secret: str) -> list[str]:
    forms = [secret, json.dumps(secret)[1:-1]]
    if len(secret) >= _SUFFIX + 8:
        forms.append(secret[-_SUFFIX:])
    return forms


def _all_forms() -> list[str]:
    return _forms_of(tuple(known_secrets()))[0]


def contains_secret(text: str | bytes) -> bool:
    """True when ``text`` holds a known key in any of the forms `redact` replaces.

    Example:
        >>> remember_secret("sk-example-0123456789abcdef")
        >>> contains_secret(b'{"model": "sk-example-0123456789abcdef"}'), contains_secret("jev-latest")
        (True, False)

    """
    forms, encoded = _forms_of(tuple(known_secrets()))
    if isinstance(text, (bytes, bytearray)):
        return any(form in text for form in encoded)
    return any(form in text for form in forms)


def redact(text: str) -> str:
    """``text`` with every known key (whole, JSON-escaped, or its last 16 characters) replaced.

    Example:
        >>> import os
        >>> os.environ["EXAMPLE_API_KEY"] = "sk-env-abcdefghijklmnopqrstuvwxyz"
        >>> redact('{"detail": "Bearer sk-env-abcdefghijklmnopqrstuvwxyz is invalid"}')
        '{"detail": "Bearer [redacted] is invalid"}'
        >>> del os.environ["EXAMPLE_API_KEY"]

    """
    return _replace(text, _all_forms()) if text else text


def _replace(text: str, forms: list[str]) -> str:
    for form in forms:
        if form in text:
            text = text.replace(form, REDACTED)
    return text


def redact_data(value: Any) -> Any:
    """JSON-like data with every known key redacted from every string in it, keys and values alike.

    Data without a key comes back as the very same object; otherwise a redacted
    copy (the original is left as it was). Numbers, booleans and None pass as they are.

    Example:
        >>> remember_secret("sk-example-0123456789abcdef")
        >>> redact_data({"model": "sk-example-0123456789abcdef", "findings": [{"label": "ok"}]})
        {'model': '[redacted]', 'findings': [{'label': 'ok'}]}

    """
    forms = _all_forms()
    return _scrub(value, forms, 0) if forms else value


def _scrub(value: Any, forms: list[str], depth: int) -> Any:
    if isinstance(value, str):
        return _replace(value, forms)
    if isinstance(value, (bytes, bytearray)):
        text = bytes(value).decode("utf-8", "surrogateescape")
        cleaned = _replace(text, forms)
        return value if cleaned == text else cleaned.encode("utf-8", "surrogateescape")
    if isinstance(value, (dict, list, tuple)):
        if depth >= _DEPTH:
            return REDACTED
        if isinstance(value, dict):
            items = [(_scrub(k, forms, depth + 1), _scrub(v, forms, depth + 1)) for k, v in value.items()]
            if all(k is a and v is b for (k, v), (a, b) in zip(items, value.items(), strict=True)):
                return value
            return dict(items)
        scrubbed = [_scrub(item, forms, depth + 1) for item in value]
        if all(new is old for new, old in zip(scrubbed, value, strict=True)):
            return value
        return type(value)(scrubbed) if isinstance(value, tuple) else scrubbed
    return value


def redact_error(error: BaseException) -> BaseException:
    """Redact known keys from an exception and its chain, in place, and return the exception to raise.

    The message and ``args``, every attribute (a body, a message, response headers,
    an HTTP request or response with their headers and body), the notes, and the
    errors it was raised from or during are all cleaned. An error whose type keeps
    its text out of reach (pydantic's ``ValidationError`` holds each input it
    refused) is returned as a redacted copy of the same type, so raise what this
    returns; one that cannot be copied is returned as a `RedactedError`.

    Example:
        >>> remember_secret("sk-example-0123456789abcdef")
        >>> str(redact_error(ValueError("echo: sk-example-0123456789abcdef")))
        'echo: [redacted]'

    """
    forms = _all_forms()
    if not forms:
        return error
    _clean_error(error, forms, set())
    return _rebuilt(error, forms) if _still_holds(error, forms) else error


def _clean_error(error: BaseException, forms: list[str], seen: set[int]) -> None:
    if id(error) in seen:
        return
    seen.add(id(error))
    with contextlib.suppress(AttributeError, TypeError):
        error.args = tuple(_clean_value(arg, forms, seen) for arg in error.args)
    for name, value in list(getattr(error, "__dict__", {}).items()):
        cleaned = _clean_value(value, forms, seen)
        if cleaned is not value:
            with contextlib.suppress(AttributeError, TypeError):  # a read-only attribute
                setattr(error, name, cleaned)
    for link in ("__cause__", "__context__"):
        linked = getattr(error, link)
        if linked is not None:
            _clean_error(linked, forms, seen)
            if _still_holds(linked, forms):  # an error its own type keeps as it is (pydantic's)
                with contextlib.suppress(AttributeError, TypeError):
                    setattr(error, link, _rebuilt(linked, forms))


class RedactedError(Exception):
    """Stands in the chain of an error for one that held a key and could not be cleaned in place.

    Its message is the original's type and message, redacted.
    """


def _text_of(error: BaseException) -> str:
    try:
        return f"{error}\n{error!r}"
    except Exception:  # an error whose text cannot be made shows nothing
        return ""


def _still_holds(error: BaseException, forms: list[str]) -> bool:
    text = _text_of(error)
    return any(form in text for form in forms)


def _rebuilt(error: BaseException, forms: list[str]) -> BaseException:
    """A redacted copy of ``error`` of its own type where that can be made, else a `RedactedError`."""
    if isinstance(error, pydantic_core.ValidationError):
        with contextlib.suppress(Exception):  # an error type pydantic cannot rebuild is stood in for
            copy = pydantic_core.ValidationError.from_exception_data(
                _replace(error.title, forms), [_redacted_detail(detail, forms) for detail in error.errors()]
            )
            if not _still_holds(copy, forms):
                copy.__cause__, copy.__context__ = error.__cause__, error.__context__
                copy.__suppress_context__ = error.__suppress_context__
                return copy
    return _stand_in(error, forms)


def _redacted_detail(detail: Any, forms: list[str]) -> Any:
    rebuilt: dict[str, Any] = {"type": detail["type"], "loc": _scrub(detail["loc"], forms, 0)}
    rebuilt["input"] = _scrub(detail.get("input"), forms, 0)
    if "ctx" in detail:
        context = {}
        for name, value in detail["ctx"].items():
            if isinstance(value, BaseException):
                _clean_error(value, forms, set())
                context[name] = value
            else:
                context[name] = _scrub(value, forms, 0)
        rebuilt["ctx"] = context
    return rebuilt


def _stand_in(error: BaseException, forms: list[str]) -> RedactedError:
    stand_in = RedactedError(f"{type(error).__name__}: {_replace(str(error), forms)}")
    stand_in.__cause__, stand_in.__context__ = error.__cause__, error.__context__
    stand_in.__suppress_context__ = error.__suppress_context__
    return stand_in


def _clean_value(value: Any, forms: list[str], seen: set[int]) -> Any:
    """``value`` without keys: data copied, headers and HTTP messages cleaned in place."""
    if isinstance(value, BaseException):
        _clean_error(value, forms, seen)
        return value
    if isinstance(value, (str, bytes, bytearray, dict, list, tuple)):
        return _scrub(value, forms, 0)
    if _is_headers(value):
        _clean_headers(value, forms)
        return value
    if _is_http_message(value):  # an httpx or httpx2 request or response
        _clean_headers(value.headers, forms)
        state = vars(value)
        content = state.get("_content")
        if isinstance(content, bytes):
            cleaned = _scrub(content, forms, 0)
            if cleaned is not content:
                state["_content"] = cleaned
                state.pop("_text", None)
        request = state.get("_request")
        if request is not None and request is not value:
            _clean_value(request, forms, seen)
    return value


def _is_http_message(value: Any) -> bool:
    kind = type(value)
    return kind.__name__ in ("Request", "Response") and kind.__module__.split(".")[0] in ("httpx", "httpx2")


def _is_headers(value: Any) -> bool:
    return isinstance(value, Mapping) and callable(getattr(value, "multi_items", None))


def _clean_headers(headers: Any, forms: list[str]) -> None:
    for name, field in list(headers.multi_items()):
        cleaned = _replace(field, forms)
        if cleaned != field:
            with contextlib.suppress(Exception):  # headers that cannot be changed
                headers[name] = cleaned


def _redact_record(record: logging.LogRecord) -> None:
    forms = _all_forms()
    if not forms:
        return
    try:
        message = record.getMessage()
    except Exception:  # a malformed record is the logging system's to report
        return
    cleaned = _replace(message, forms)
    if cleaned != message or (record.args and _replace(repr(record.args), forms) != repr(record.args)):
        record.msg, record.args = cleaned, None
    if record.exc_info and record.exc_info[1] is not None:
        _clean_error(record.exc_info[1], forms, set())
        record.exc_text = None
    if record.stack_info:
        record.stack_info = _replace(record.stack_info, forms)


class RedactingFilter(logging.Filter):
    """A logging filter that redacts known keys from each record: put it on a handler to clean what it emits.

    `install_log_filter` already cleans every record as it is made; this filter is
    for records made before it ran, or by a factory that replaced it.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message (and exception) without known keys; never drop a record."""
        _redact_record(record)
        return True


_MARK = "_langchain_jev_redacts"


def install_log_filter() -> None:
    """Make every log record and shown warning of the process redacted, whatever its source (once).

    It wraps the current `logging` record factory, so a factory set before is
    kept, and every handler, filter and child logger sees only redacted records;
    and it wraps `warnings.formatwarning`, which both the default display of a
    warning and `logging.captureWarnings` use, so no warning prints a known key.

    Example:
        >>> import logging
        >>> install_log_filter()
        >>> remember_secret("sk-example-0123456789abcdef")
        >>> logging.getLogger("any.child").makeRecord(
        ...     "any.child", logging.WARNING, "f", 1, "key %s", ("sk-example-0123456789abcdef",), None
        ... ).getMessage()
        'key [redacted]'

    """
    with _lock:
        current = logging.getLogRecordFactory()
        if not getattr(current, _MARK, False):
            logging.setLogRecordFactory(_redacting(current))
        if not getattr(warnings.formatwarning, _MARK, False):
            warnings.formatwarning = _redacting_warnings(warnings.formatwarning)


def _redacting_warnings(format_warning: Callable[..., str]) -> Callable[..., str]:
    def formatwarning(
        message: Warning | str, category: type[Warning], filename: str, lineno: int, line: str | None = None
    ) -> str:
        return redact(format_warning(message, category, filename, lineno, line))

    setattr(formatwarning, _MARK, True)
    return formatwarning


def _redacting(make: Callable[..., logging.LogRecord]) -> Callable[..., logging.LogRecord]:
    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        _redact_record(record)
        return record

    setattr(factory, _MARK, True)
    return factory
