"""Secrets and personal data found by patterns, before any question is asked.

Four kinds, each a set of patterns tuned to miss ordinary numbers and words:

=============  ===================================================================
kind           found
=============  ===================================================================
secret         API keys and tokens with a known shape (OpenAI, Anthropic, AWS,
               GitHub, GitLab, Slack, Google, Stripe, Hugging Face, npm, JWTs,
               private key blocks, bearer tokens) and ``api_key=...``,
               ``password: ...`` assignments whose value looks like a credential
card_number    13 to 19 digits (spaces or dashes allowed) with a card issuer's
               prefix and length, passing the Luhn checksum
email          an address with a dotted domain (not file names like ``icon@2x.png``)
phone          an international number (``+`` and 8 to 15 digits), a North American
               number (``(415) 555-0134``, ``415-555-0134``) or a national number
               with a trunk 0 (``020 7946 0958``); separators are required, so a
               bare run of digits (an order number) is not a phone number
=============  ===================================================================

What patterns cannot see (a name with an address, a diagnosis, a credential
spelled out in words) is left to a question.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

__all__ = ["KINDS", "SensitiveKind", "SensitiveMatch", "find_sensitive", "luhn_valid"]

SensitiveKind = Literal["secret", "card_number", "email", "phone"]
"""A kind of sensitive data found by patterns."""
KINDS: tuple[str, ...] = get_args(SensitiveKind)
"""Every kind, in order."""


@dataclass(frozen=True)
class SensitiveMatch:
    """Where a pattern found sensitive data; the text itself is never kept, so it cannot leak.

    Example:
        >>> find_sensitive("mail me: ada@example.org")
        [SensitiveMatch(kind='email', start=9, end=24)]

    """

    kind: str
    """The kind of data found."""
    start: int
    """Where it starts in the scanned text."""
    end: int
    """Where it ends in the scanned text."""


_EDGE = r"(?<![A-Za-z0-9_])"
_SECRETS = [
    re.compile(_EDGE + r"sk-(?:proj-|ant-(?:api|admin)\d\d-|svcacct-)?[A-Za-z0-9_-]{20,}"),
    re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[0-9A-Z]{16}(?![A-Z0-9])"),
    re.compile(_EDGE + r"gh[pousr]_[A-Za-z0-9]{36,}"),
    re.compile(_EDGE + r"github_pat_[A-Za-z0-9_]{22,}"),
    re.compile(_EDGE + r"glpat-[A-Za-z0-9_-]{20,}"),
    re.compile(_EDGE + r"xox[abposr]-[A-Za-z0-9-]{10,}"),
    re.compile(_EDGE + r"AIza[0-9A-Za-z_-]{35}"),
    re.compile(_EDGE + r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"),
    re.compile(_EDGE + r"hf_[A-Za-z0-9]{30,}"),
    re.compile(_EDGE + r"npm_[A-Za-z0-9]{36}"),
    re.compile(_EDGE + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{20,}=*"),
    re.compile(r"AccountKey=[A-Za-z0-9+/]{40,}={0,2}"),
]
_ASSIGNED = re.compile(
    r"(?i)\b(?:api[_-]?key|secret(?:[_-]?key)?|client[_-]?secret|access[_-]?token|auth[_-]?token"
    r"|refresh[_-]?token|private[_-]?key|password|passwd|pwd)\b[\"']?\s*[:=]\s*[\"']?"
    r"(?P<value>[^\s\"',;<>`]{8,})"
)
_PLACEHOLDER = re.compile(r"(?i)your|example|placeholder|redacted|changeme|x{4}|\*{3}|\.{3}|\$\{|\{\{|%\(")
_CARD = re.compile(r"(?<![\d.,-])\d(?:[ -]?\d){12,18}(?![\d-]|[.,]\d)")
_EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.(?P<tld>[A-Za-z]{2,24})(?![\w-])"
)
_FILE_ENDINGS = frozenset({"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "pdf"})
_PHONES = [
    re.compile(r"(?<![\w+])\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,6}(?![\d-]|[.,]\d)"),
    re.compile(r"(?<![\w.+-])(?:\([2-9]\d{2}\) ?|[2-9]\d{2}[ .-])\d{3}[ .-]\d{4}(?![\w-]|[.,]\d)"),
    re.compile(r"(?<![\w.+-])0\d{1,4}[ -]\d{3,4}[ -]?\d{3,4}(?![\w-]|[.,]\d)"),
]


def find_sensitive(
    value: Any, kinds: Iterable[str] = KINDS, allow: Sequence[str] = ()
) -> list[SensitiveMatch]:
    """Every piece of sensitive data of ``kinds`` in ``value`` (text, or any JSON value).

    ``allow`` lists matches to let through: an exact text (``support@shop.com``),
    or a domain starting with ``@`` (``@shop.com``); case is ignored.

    Example:
        >>> [m.kind for m in find_sensitive("Card 4111 1111 1111 1111, call +1 415 555 0134")]
        ['card_number', 'phone']
        >>> find_sensitive("Order 4111111111111112 shipped on 2024-01-15, total $1,299.99")
        []

    """
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    wanted = set(kinds)
    allowed = [entry.lower() for entry in allow]
    found: list[SensitiveMatch] = []
    if "secret" in wanted:
        found.extend(_secrets(text))
    if "card_number" in wanted:
        for match in _CARD.finditer(text):
            if _is_card(re.sub(r"[ -]", "", match.group())):
                found.append(SensitiveMatch("card_number", match.start(), match.end()))
    if "email" in wanted:
        for match in _EMAIL.finditer(text):
            if match.group("tld").lower() not in _FILE_ENDINGS:
                found.append(SensitiveMatch("email", match.start(), match.end()))
    if "phone" in wanted:
        found.extend(_phones(text))
    kept: list[SensitiveMatch] = []
    for item in sorted(found, key=lambda m: (m.start, -m.end, m.kind)):
        if kept and item.start < kept[-1].end:
            continue  # inside what was found already (a JWT after "Bearer", say)
        kept.append(item)
    return [m for m in kept if not _allowed(text[m.start : m.end], allowed)]


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum of a string of digits (what card numbers carry).

    Example:
        >>> luhn_valid("4111111111111111"), luhn_valid("4111111111111112")
        (True, False)

    """
    if not digits.isdigit():
        return False
    total = 0
    for index, char in enumerate(reversed(digits)):
        digit = int(char)
        if index % 2 == 1:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def _secrets(text: str) -> list[SensitiveMatch]:
    found = []
    for pattern in _SECRETS:
        for match in pattern.finditer(text):
            body = match.group()
            if pattern.pattern.startswith(_EDGE + "sk-") and not re.search(r"\d", body):
                continue  # prose such as "sk-learn-style-wording-everywhere" has no digit
            found.append(SensitiveMatch("secret", match.start(), match.end()))
    for match in _ASSIGNED.finditer(text):
        value = match.group("value")
        if _PLACEHOLDER.search(value) or len(set(value)) < 4:
            continue
        has_letter, has_digit = bool(re.search(r"[A-Za-z]", value)), bool(re.search(r"\d", value))
        if (has_letter and has_digit) or (len(value) >= 20 and re.fullmatch(r"[A-Za-z0-9_+/=.-]+", value)):
            found.append(SensitiveMatch("secret", match.start("value"), match.end("value")))
    return found


def _is_card(digits: str) -> bool:
    length = len(digits)
    if not 13 <= length <= 19 or not luhn_valid(digits):
        return False
    two, three, four = int(digits[:2]), int(digits[:3]), int(digits[:4])
    if digits[0] == "4":
        return length in (13, 16, 19)  # Visa
    if 51 <= two <= 55 or 2221 <= four <= 2720:
        return length == 16  # Mastercard
    if two in (34, 37):
        return length == 15  # American Express
    if four == 6011 or two == 65 or 644 <= three <= 649 or 3528 <= four <= 3589 or two == 62:
        return 16 <= length <= 19  # Discover, JCB, UnionPay
    if 300 <= three <= 305 or two in (36, 38, 39):
        return 14 <= length <= 19  # Diners Club
    return False


def _phones(text: str) -> list[SensitiveMatch]:
    found: list[SensitiveMatch] = []
    for pattern in _PHONES:
        for match in pattern.finditer(text):
            if 8 <= sum(char.isdigit() for char in match.group()) <= 15:
                found.append(SensitiveMatch("phone", match.start(), match.end()))
    return found  # overlaps with each other or with a card number are dropped by the caller


def _allowed(text: str, allowed: Sequence[str]) -> bool:
    lowered = text.lower()
    return any(lowered == entry or (entry.startswith("@") and lowered.endswith(entry)) for entry in allowed)
