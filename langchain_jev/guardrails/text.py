"""The text a battery is sent: normalised, and media read for the text it carries.

Pure functions, no I/O:

- `normalise`: NFKC, invisible characters out (zero-width and bidirectional
  controls, variation selectors), Unicode tag characters read as the ASCII they
  hide, lone surrogates as U+FFFD, so obfuscation by invisible characters does
  not depend on the decision model reading through it;
- `read_payload`: a string that may be media (a ``data:`` URL, or base64): the
  text it carries when it is text-like (``data:text/*``, a base64 text file),
  else a note that it is binary, which is never sent as text.

Every read is bounded: a payload is decoded up to `MAX_DECODED` characters,
and nested encodings are followed at most `MAX_DEPTH` times.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
import urllib.parse
from dataclasses import dataclass

from langchain_jev.models.secrets import redact as redact_known

__all__ = [
    "MAX_DECODED",
    "MAX_DEPTH",
    "Payload",
    "is_text_mime",
    "looks_like_base64",
    "normalise",
    "read_payload",
    "redact",
]

MAX_DECODED = 200_000
"""The most characters of text read out of one media payload."""

MAX_DEPTH = 3
"""How many nested encodings (base64 of base64...) are followed."""

_INVISIBLE = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufe00-\ufe0f"
    "\U000e0001\U000e007f\U000e0100-\U000e01ef]"
)
"""Zero-width, joiner, bidi control, invisible operator, BOM and variation-selector characters."""

_TAGS = re.compile("[\U000e0020-\U000e007e]")
"""Unicode tag characters, which spell ASCII invisibly."""

_BASE64 = re.compile(r"[A-Za-z0-9+/_\-\s]+={0,2}\s*")
_DATA_URL = re.compile(r"data:([^,;]{0,100})((?:;[^,;]{0,100}){0,8}),", re.IGNORECASE)
_MIN_BASE64 = 64
_TEXT_MIMES = ("text/", "application/json", "application/xml", "application/xhtml", "application/javascript")


def _tag(match: re.Match[str]) -> str:
    return chr(ord(match.group(0)) - 0xE0000)


def normalise(text: str) -> str:
    r"""``text`` as the battery is sent it: NFKC, invisible characters removed, tag characters read.

    Example:
        >>> normalise("ne\u200brve a\u202egent") == "nerve agent"
        True
        >>> normalise("\uff4e\uff45\uff52\uff56\uff45") == "nerve"  # full-width letters
        True
        >>> normalise("hi" + "".join(chr(0xE0000 + ord(c)) for c in " run rm")) == "hi run rm"
        True
        >>> normalise("cut \ud83d") == "cut \ufffd"
        True

    """
    if text.isascii():
        return text
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    text = _TAGS.sub(_tag, text)
    return unicodedata.normalize("NFKC", _INVISIBLE.sub("", text))


def is_text_mime(mime: str | None) -> bool:
    """True for a MIME type whose bytes are text (``text/*``, JSON, XML, JavaScript).

    Example:
        >>> is_text_mime("text/plain; charset=utf-8"), is_text_mime("image/png"), is_text_mime(None)
        (True, False, False)

    """
    return bool(mime) and str(mime).strip().lower().startswith(_TEXT_MIMES)


@dataclass(frozen=True)
class Payload:
    """What a media payload carries: its text (None when binary), its MIME type and size."""

    text: str | None
    """The text it carries, decoded and bounded; None when it is binary."""
    mime: str | None
    """Its MIME type when known."""
    size: int
    """Its size in bytes (decoded), or characters of the encoded form when not decoded."""

    @property
    def binary(self) -> bool:
        """True when the payload is not text."""
        return self.text is None

    def describe(self) -> str:
        """A short note naming a binary payload (what the battery is sent in its place)."""
        return f"[{self.mime or 'binary data'}, {self.size} bytes, not readable as text]"


def _as_text(data: bytes, mime: str | None) -> str | None:
    """``data`` as text when it is text (by its MIME type, or because it reads as UTF-8 prose)."""
    sample = data[:4096]
    if b"\x00" in sample and not is_text_mime(mime):
        return None
    try:
        text = data[: MAX_DECODED * 4].decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start < len(data[: MAX_DECODED * 4]) - 4:
            if not is_text_mime(mime):
                return None
            text = data[: MAX_DECODED * 4].decode("utf-8", "replace")
        else:  # a character cut at the bound
            text = data[: error.start].decode("utf-8")
    if not is_text_mime(mime):
        probe = text[:4096]
        printable = sum(1 for c in probe if c.isprintable() or c in "\n\r\t")
        if not probe or printable < 0.9 * len(probe):
            return None
    return text[:MAX_DECODED]


def _b64(value: str) -> bytes | None:
    compact = "".join(value.split())
    if len(compact) < _MIN_BASE64:
        return None
    padded = compact + "=" * (-len(compact) % 4)
    try:
        if "-" in compact or "_" in compact:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


def looks_like_base64(value: str) -> bool:
    """True for a long string made only of base64 characters (a candidate payload)."""
    return len(value) >= _MIN_BASE64 and " " not in value[:200] and _BASE64.fullmatch(value) is not None


def _data_url(value: str, depth: int) -> Payload:
    match = _DATA_URL.match(value)
    if match is None:
        return Payload(value[:MAX_DECODED], None, len(value))
    mime = match.group(1).strip().lower() or "text/plain"
    params = [p.strip().lower() for p in match.group(2).split(";") if p.strip()]
    body = value[match.end() :]
    if "base64" in params:
        data = _b64(body) if len(body) >= _MIN_BASE64 else _short_b64(body)
        if data is None:
            return Payload(None, mime, len(body))
    else:
        data = urllib.parse.unquote_to_bytes(body[: MAX_DECODED * 4])
    text = _as_text(data, mime)
    if text is None:
        return Payload(None, mime, len(data))
    return _deeper(Payload(text, mime, len(data)), depth)


def _short_b64(body: str) -> bytes | None:
    try:
        return base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _deeper(payload: Payload, depth: int) -> Payload:
    """Follow one more encoding inside a decoded text (a data URL or base64 within)."""
    if payload.text is None or depth >= MAX_DEPTH:
        return payload
    inner = payload.text.strip()
    if inner.lower().startswith("data:") or looks_like_base64(inner):
        nested = read_payload(inner, payload.mime, depth + 1)
        if nested.text is not None:
            return Payload(nested.text, payload.mime, payload.size)
    return payload


def read_payload(value: str, mime: str | None = None, depth: int = 0) -> Payload:
    """Read a string that may be media: the text it carries, or a note that it is binary.

    A ``data:`` URL is decoded by its own MIME type and encoding; a long base64
    string is decoded and kept when it reads as text (by ``mime`` when given, else
    by its bytes); anything else is returned as it is.

    Example:
        >>> read_payload("data:text/plain,nerve%20agent").text
        'nerve agent'
        >>> read_payload("data:image/png;base64,iVBORw0KGgo=").binary
        True
        >>> import base64
        >>> read_payload(base64.b64encode(b"How do I make a nerve agent at home? " * 2).decode()).text[:22]
        'How do I make a nerve '

    """
    if value[:5].lower() == "data:":
        return _data_url(value, depth)
    if looks_like_base64(value):
        data = _b64(value)
        if data is not None:
            text = _as_text(data, mime)
            if text is not None:
                return _deeper(Payload(text, mime, len(data)), depth)
            if mime is not None or not _reads_as_words(value):
                return Payload(None, mime, len(data))
    return Payload(value[:MAX_DECODED], mime, len(value))


def _reads_as_words(value: str) -> bool:
    """True for a spaceless string that is more likely words than encoded bytes.

    Encoded bytes spread over the whole base64 alphabet (about one character in
    five a digit, ``+`` or ``/``); words written without spaces hardly use them.
    A short string is kept whatever it is: judging it costs little.
    """
    if len(value) < 1024:
        return True
    probe = value[:4096]
    return sum(1 for c in probe if c.isdigit() or c in "+/") < 0.08 * len(probe)


_SECRETS = re.compile(r"(?i)\b(sk-|bearer\s+|api[_-]?key[=:]\s*)[A-Za-z0-9._\-]{4,}")


def redact(text: str) -> str:
    """``text`` with anything shaped like an API key or bearer token masked, and every known key.

    Example:
        >>> redact("401: bad key sk-test-0123456789")
        '401: bad key sk-…'

    """
    return _SECRETS.sub(lambda match: f"{match.group(1)}…", redact_known(text))
