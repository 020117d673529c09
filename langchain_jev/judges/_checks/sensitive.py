"""Secrets and personal data found by code, before any question is asked.

Four kinds:

=============  ===================================================================
kind           found
=============  ===================================================================
secret         tokens with a provider's published shape (OpenAI, Anthropic, AWS,
               GitHub, GitLab, Slack and its webhooks, Google, Stripe, Hugging
               Face, npm, PyPI, SendGrid, Twilio, Shopify, DigitalOcean,
               Databricks, Linear, Postman, Grafana, Doppler, Notion, Telegram,
               Atlassian, Azure storage, JWTs, private key blocks, bearer
               tokens), credentials in URLs (``postgres://user:pass@host``) and
               assignments of a credential-looking value to a credential name
               (``DB_PASSWORD=...``, ``"client_secret": "..."``); placeholders
               (``YOUR_API_KEY``, ``sk-...``, AWS's ``...EXAMPLE``) are not secrets
card_number    13 to 19 digits (spaces or dashes between groups) with a card
               scheme's prefix and length (Visa, Mastercard, Amex, Discover, JCB,
               Diners, UnionPay, Maestro, Dankort, UATP, Mir, RuPay, Troy, Elo,
               Hipercard) passing the Luhn checksum; a run of digit groups longer
               than a card (a card then its CVC) is read from its start, whole
               groups at a time
email          an address with a dotted domain, Unicode and punycode included;
               not an SSH remote (``git@github.com:org/repo``), a URL's user
               (``https://user@host``) or a file name (``icon@2x.png``)
phone          what Google's libphonenumber (the ``phonenumbers`` package) reads
               as a valid number: international (``+44 20 7946 0958``,
               ``0044 ...``) for any country, national for the ``regions`` given
               (by default `PHONE_REGIONS`); a bare run of digits counts only
               with a trunk prefix (``05321234567``) or a phone word just before
               it ("call", "tel", "WhatsApp"...), so an order number is not a phone,
               and a US ZIP+4 (``94105-1234``) is not either
=============  ===================================================================

Matches are kept as positions only, never as text. Every regular expression
runs with the `regex` package under one time bound per scan
(`langchain_jev.judges._checks.bounded`); past it the scan raises, so the check
is never decided as clean. The secret formats are learned from gitleaks' rules
and detect-secrets' plugins (both are scanners of files and repositories, not a
library to call on a string with positions back); phone numbers are left to
libphonenumber, which knows every country's numbering plan.
What patterns cannot see (a name with an address, a diagnosis, a credential
spelled out in words) is left to a question.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import phonenumbers
import regex

from langchain_jev.judges._checks.bounded import DEFAULT_TIMEOUT, Deadline, finditer

__all__ = [
    "KINDS",
    "PHONE_REGIONS",
    "SUPPORTED_REGIONS",
    "SensitiveKind",
    "SensitiveMatch",
    "find_sensitive",
    "luhn_valid",
]

SensitiveKind = Literal["secret", "card_number", "email", "phone"]
"""A kind of sensitive data found by code."""
KINDS: tuple[str, ...] = get_args(SensitiveKind)
"""Every kind, in order."""
PHONE_REGIONS: tuple[str, ...] = (
    "US",
    "CA",
    "GB",
    "IE",
    "FR",
    "DE",
    "ES",
    "IT",
    "NL",
    "TR",
    "IL",
    "IN",
    "CN",
    "JP",
    "AU",
    "BR",
    "MX",
)
"""The countries (ISO 3166 codes) whose national phone formats are looked for by default;
international numbers (``+``, ``00``) are found for every country."""
SUPPORTED_REGIONS: frozenset[str] = frozenset(phonenumbers.SUPPORTED_REGIONS)
"""Every region libphonenumber knows the numbering plan of."""


@dataclass(frozen=True)
class SensitiveMatch:
    """Where sensitive data was found; the text itself is never kept, so it cannot leak.

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


def _compile(pattern: str) -> regex.Pattern[str]:
    return regex.compile(pattern, regex.VERSION0)


_L = r"(?<![A-Za-z0-9_])"  # a token starts here
_R = r"(?![A-Za-z0-9_-])"  # and ends here
_TOKENS = [
    _L + r"sk-(?:proj-|svcacct-|admin-|None-|ant-(?:api|admin|oat|sid)\d\d-)?[A-Za-z0-9_-]{20,}",
    r"(?<![A-Z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[0-9A-Z]{16}(?![A-Z0-9])",
    _L + r"gh[pousr]_[A-Za-z0-9]{36,}" + _R,
    _L + r"github_pat_[A-Za-z0-9_]{22,}",
    _L + r"gl(?:pat|ptt|dt|rt|ft|imt|oas|soat|agent|ffct)-[0-9A-Za-z_-]{20,}",
    _L + r"glcbt-[0-9A-Za-z]{1,5}_[0-9A-Za-z_-]{20,}",
    _L + r"GR1348941[0-9A-Za-z_-]{20,}",
    _L + r"xox[abposre]-[A-Za-z0-9-]{10,}",
    _L + r"xoxe\.xox[bp]-\d-[A-Za-z0-9]{100,}",
    _L + r"xapp-\d-[A-Za-z0-9-]{10,}",
    r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}",
    _L + r"AIza[0-9A-Za-z_-]{35}",
    _L + r"ya29\.[0-9A-Za-z_-]{20,}",
    _L + r"GOCSPX-[A-Za-z0-9_-]{24,}",
    _L + r"(?:sk|rk)_(?:live|test|prod)_[0-9A-Za-z]{10,}",
    _L + r"whsec_[A-Za-z0-9+/=]{24,}",
    _L + r"hf_[A-Za-z0-9]{30,}",
    _L + r"api_org_[A-Za-z0-9]{30,}",
    _L + r"npm_[A-Za-z0-9]{36}" + _R,
    _L + r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
    _L + r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}",
    _L + r"SK[0-9a-fA-F]{32}" + _R,
    _L + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _R,
    _L + r"do[opr]_v1_[a-f0-9]{64}" + _R,
    _L + r"dapi[a-f0-9]{32}(?:-\d)?" + _R,
    _L + r"lin_api_[A-Za-z0-9]{40}" + _R,
    _L + r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}" + _R,
    _L + r"gl(?:sa|c)_[A-Za-z0-9+/_]{32,}",
    _L + r"dp\.pt\.[A-Za-z0-9]{40,}",
    _L + r"ntn_\d{11}[A-Za-z0-9]{32,}",
    _L + r"ATATT3[A-Za-z0-9_=-]{40,}",
    r"(?<!\d)\d{8,10}:AA[A-Za-z0-9_-]{33}" + _R,
    _L + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
    r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{20,}=*",
    r"AccountKey=[A-Za-z0-9+/]{40,}={0,2}",
    r"(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s/:@]{1,64}:(?P<value>[^\s/@]{3,128})@[A-Za-z0-9.-]+",
]
_TOKEN = _compile("|".join(f"(?:{pattern})" for pattern in _TOKENS))
_ASSIGNED = _compile(
    r"(?i)(?<![a-z0-9])(?:[a-z0-9]{1,20}[_.-]){0,4}"
    r"(?:api[_-]?key|secret(?:[_-]?access)?(?:[_-]?key)?|client[_-]?secret|access[_-]?token|auth[_-]?token"
    r"|refresh[_-]?token|bot[_-]?token|private[_-]?key|password|passwd|pwd|passphrase|credentials?)"
    r"[\"']?\s{0,4}[:=]{1,2}\s{0,4}[\"']?"
    r"(?P<value>[^\s\"',;<>`]{8,256})"
)
_PLACEHOLDER = _compile(
    r"(?i)your|example|placeholder|redacted|changeme|dummy|sample|x{4}|\*{3}|\.{3}|\$\{|\{\{|%\(|<[a-z_]+>"
)
_LETTER, _DIGIT = _compile(r"[A-Za-z]"), _compile(r"\d")
_TOKEN_BODY = _compile(r"[A-Za-z0-9_+/=.-]+")
_CARD_RUN = _compile(r"(?<![\w.,-])\d+(?:[ -]\d+)*(?![\w-]|[.,]\d)")
_EMAIL = _compile(
    r"(?<![\w.%+'-])[\w.%+'-]+@(?:[^\W_](?:[\w-]{0,61}[^\W_])?\.)+(?P<tld>[^\W\d_]{2,63}|xn--[a-z0-9-]{2,59})"
    r"(?![\w-]|\.[^\W\d_])"
)
_FILE_ENDINGS = frozenset({"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "pdf", "avif", "bmp"})
_PHONE_CANDIDATE = _compile(r"(?<![\w+])(?:\+|00)?\(?\d[\d ().\-/]{4,24}\d(?!\w)")
_PHONE_WORD = _compile(
    r"(?i)(?:phone|tel|telephone|call|ring|mobile|cell|fax|sms|text|whatsapp|signal|viber|telegram|"
    r"contact|reach|téléphone|portable|appelez|telefon|numaram|teléfono|móvil|handy|rufnummer)"
    r"[\s:.,#-]{0,6}(?:(?:me|us|on|at|no|number|nr)[\s:.,#-]{1,4}){0,2}$"
)
_NOT_PHONE = _compile(
    r"[1-9]\d{3,}-\d{4,}"  # a range, a ZIP+4
    r"|\(?(?:19|20)\d\d\)?(?:[-/ ].*)?"  # a year, a date, a citation
    r"|\d+\.\d+|\d{1,3}(?:\.\d{1,3}){3}"  # a decimal, an IPv4 address
)
_CODE_BEFORE = _compile(r"\S*[A-Za-z]\S*\d\S* $|\S*\d\S*[A-Za-z]\S* $")


def find_sensitive(
    value: Any,
    kinds: Iterable[str] = KINDS,
    allow: Sequence[str] = (),
    *,
    regions: Sequence[str] = PHONE_REGIONS,
    timeout: float = DEFAULT_TIMEOUT,
) -> list[SensitiveMatch]:
    """Every piece of sensitive data of ``kinds`` in ``value`` (text, or any JSON value).

    ``allow`` lists matches to let through: an exact text (``support@shop.com``),
    or a domain starting with ``@`` (``@shop.com``); case is ignored. ``regions``
    are the countries whose national phone formats count.

    Raises:
        JevInputError: the scan took longer than ``timeout`` seconds.

    Example:
        >>> [m.kind for m in find_sensitive("Card 4111 1111 1111 1111, call +1 415 555 0134")]
        ['card_number', 'phone']
        >>> find_sensitive("Order 4111111111111112 shipped on 2024-01-15, total $1,299.99")
        []

    """
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    deadline = Deadline(timeout, "the no_sensitive_data check")
    wanted = set(kinds)
    found: list[SensitiveMatch] = []
    if "secret" in wanted:
        found.extend(_secrets(text, deadline))
    if "card_number" in wanted:
        found.extend(_cards(text, deadline))
    if "email" in wanted:
        found.extend(_emails(text, deadline))
    if "phone" in wanted:
        found.extend(_phones(text, regions, deadline))
    kept: list[SensitiveMatch] = []
    for item in sorted(found, key=lambda m: (m.start, -m.end, m.kind)):
        if kept and item.start < kept[-1].end:
            continue  # inside what was found already (a JWT after "Bearer", a card's digits as a phone)
        kept.append(item)
    allowed = [entry.lower() for entry in allow]
    return [m for m in kept if not _allowed(text[m.start : m.end], allowed)]


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum of a string of digits (what card numbers carry).

    Example:
        >>> luhn_valid("4111111111111111"), luhn_valid("4111111111111112")
        (True, False)

    """
    if not digits.isdigit() or not digits.isascii():
        return False
    total = 0
    for index, char in enumerate(reversed(digits)):
        digit = int(char)
        if index % 2 == 1:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


# ---------------------------------------------------------------- secrets


def _secrets(text: str, deadline: Deadline) -> Iterator[SensitiveMatch]:
    for match in finditer(_TOKEN, text, deadline):
        body = match.group()
        start, end = match.span()
        if match.group("value") is not None:  # credentials in a URL: the password is the secret
            if _placeholder(match.group("value"), deadline):
                continue
            start, end = match.span("value")
        elif body.startswith("sk-") and not _search(_DIGIT, body, deadline):
            continue  # prose such as "sk-learn-style-wording-everywhere" has no digit
        elif "EXAMPLE" in body:
            continue  # AWS's documented example key
        yield SensitiveMatch("secret", start, end)
    for match in finditer(_ASSIGNED, text, deadline):
        value = match.group("value")
        if _placeholder(value, deadline) or len(set(value)) < 4:
            continue
        letter, digit = _search(_LETTER, value, deadline), _search(_DIGIT, value, deadline)
        long_token = len(value) >= 20 and _TOKEN_BODY.fullmatch(value, timeout=deadline.left()) is not None
        if (letter and digit) or long_token:
            yield SensitiveMatch("secret", match.start("value"), match.end("value"))


def _placeholder(value: str, deadline: Deadline) -> bool:
    return _search(_PLACEHOLDER, value, deadline)


def _search(pattern: regex.Pattern[str], text: str, deadline: Deadline) -> bool:
    return next(finditer(pattern, text, deadline), None) is not None


# ---------------------------------------------------------------- cards


_MAX_GROUPS = 12
"""Digit groups one card number may be written in."""


def _cards(text: str, deadline: Deadline) -> Iterator[SensitiveMatch]:
    """In each run of digit groups, the longest card starting the run (then the next, after it)."""
    for run in finditer(_CARD_RUN, text, deadline):
        groups: list[tuple[int, int]] = []  # where each group of digits is in the text
        offset = run.start()
        for part in run.group().replace("-", " ").split(" "):
            groups.append((offset, offset + len(part)))
            offset += len(part) + 1
        first = 0
        while first < len(groups):  # a card starts a run, or follows a card in it
            deadline.left()
            digits, longest = "", None
            for last in range(first, min(len(groups), first + _MAX_GROUPS)):
                digits += text[groups[last][0] : groups[last][1]]
                if len(digits) > 19:
                    break
                if len(digits) >= 13 and _is_card(digits):
                    longest = last
            if longest is None:
                break  # digits after a card (its CVC, say) or a longer number: no card starts inside
            yield SensitiveMatch("card_number", groups[first][0], groups[longest][1])
            first = longest + 1


def _is_card(digits: str) -> bool:
    """A scheme's prefix and length, and the Luhn checksum."""
    length = len(digits)
    if not 13 <= length <= 19 or not luhn_valid(digits):
        return False
    one, two, three, four = (int(digits[:n]) for n in (1, 2, 3, 4))
    if one == 4:
        return length in (13, 16, 19)  # Visa, Visa Electron, Dankort co-badged
    if one == 1:
        return length == 15  # UATP
    if 2200 <= four <= 2204:
        return 16 <= length <= 19  # Mir
    if 51 <= two <= 55 or 2221 <= four <= 2720:
        return length == 16  # Mastercard
    if two in (34, 37):
        return length == 15  # American Express
    if 3528 <= four <= 3589:
        return 16 <= length <= 19  # JCB
    if 300 <= three <= 305 or four == 3095 or two in (36, 38, 39):
        return 14 <= length <= 19  # Diners Club
    if three in (353, 356):
        return length == 16  # RuPay
    if one == 6 or two == 50 or 56 <= two <= 59:
        return 13 <= length <= 19  # Discover, UnionPay, Maestro, Dankort, RuPay, Elo, Hipercard, Troy...
    if four == 9792:
        return length == 16  # Troy
    return False  # no scheme starts with 0, 7 or 8


# ---------------------------------------------------------------- emails


def _emails(text: str, deadline: Deadline) -> Iterator[SensitiveMatch]:
    for match in finditer(_EMAIL, text, deadline):
        start, end = match.span()
        if match.group("tld").lower() in _FILE_ENDINGS:
            continue
        after = text[end : end + 2]
        if after[:1] == ":" and after[1:2] not in ("", " ", "\n", "\t"):
            continue  # an SSH or SCP remote: git@github.com:org/repo.git
        token_start = max(text.rfind(" ", 0, start), text.rfind("\n", 0, start)) + 1
        if "://" in text[token_start:start]:
            continue  # a URL's user (and password): https://user@host, postgres://user:pass@host
        yield SensitiveMatch("email", start, end)


# ---------------------------------------------------------------- phones


def _phones(text: str, regions: Sequence[str], deadline: Deadline) -> Iterator[SensitiveMatch]:
    for candidate in finditer(_PHONE_CANDIDATE, text, deadline):
        window = candidate.group()
        if not _may_be_phone(text, candidate.start(), window, deadline):
            continue
        international = window.startswith(("+", "00"))
        # national numbers must be grouped as their country writes them; GB reads any 00 prefix
        leniency = phonenumbers.Leniency.VALID if international else phonenumbers.Leniency.STRICT_GROUPING
        digits = [i for i, char in enumerate(window) if char.isdigit()]
        for region in ("GB",) if international else regions:
            deadline.left()
            for number in phonenumbers.PhoneNumberMatcher(window, region, leniency=leniency, max_tries=16):
                if number.start <= digits[0] and number.end > digits[-1]:  # all of it, not a part
                    offset = candidate.start()
                    yield SensitiveMatch("phone", offset + number.start, offset + number.end)
                    break
            else:
                continue
            break


def _may_be_phone(text: str, start: int, window: str, deadline: Deadline) -> bool:
    """What no phone number looks like: ranges, ZIP+4, dates, years, decimals, IP addresses, codes."""
    if _NOT_PHONE.fullmatch(window, timeout=deadline.left()):
        return False
    before = text[max(0, start - 40) : start]
    if before.endswith(" ") and _search(_CODE_BEFORE, before, deadline):
        return False  # the tail of a code such as 1Z 999 AA1 01 2345 6784
    if window.isdigit() and not window.startswith("0"):
        return _search(_PHONE_WORD, before, deadline)  # a bare run of digits is an order number...
    return True


def _allowed(text: str, allowed: Sequence[str]) -> bool:
    lowered = text.lower()
    return any(lowered == entry or (entry.startswith("@") and lowered.endswith(entry)) for entry in allowed)
