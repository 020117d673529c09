"""Ordinary data is read, never refused: what a user pastes (a list of hashes, a hex dump) is judged whole.

The readers only add readings, bounded by `reading_budget`; a run of hex digits is also a run of base64
by its alphabet, and its bytes as base64 are noise that a code-page guess reads as accented text, read
again by every reader of non-ASCII text until the budget refused a 300-line ``git rev-list`` (196,784
characters of readings from 12,299). Base64 spelt in hex digits alone is still read, as UTF-8.
"""

from __future__ import annotations

import base64
import hashlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from langchain_jev.guardrails._text import readings, reveal, sendable

_REV_LIST = "\n".join(hashlib.sha1(str(i).encode()).hexdigest() for i in range(300))
_DUMP = " ".join(hashlib.sha256(str(i).encode()).hexdigest()[:16] for i in range(480))


def test_a_list_of_hashes_is_read_not_refused() -> None:
    """The 300-line rev-list was refused (GuardrailBudgetError) before; an 8 KB dump is read too."""
    for text in (_REV_LIST, _DUMP):
        assert reveal(text).startswith(text)


_DIGESTS = st.sampled_from([hashlib.md5, hashlib.sha1, hashlib.sha256, hashlib.sha512])


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(
    seeds=st.lists(st.binary(max_size=8), min_size=150, max_size=400),
    digest=_DIGESTS,
    separator=st.sampled_from(["\n", " ", "\r\n", "\n\n", "  "]),
    upper=st.booleans(),
)
def test_any_list_of_digests_is_read_not_refused(
    seeds: list[bytes], digest: object, separator: str, upper: bool
) -> None:
    """Hashes of any kind, any count, any case and separator: judged whole, never refused for their readings."""
    lines = [digest(seed).hexdigest() for seed in seeds]  # type: ignore[operator]
    text = separator.join(line.upper() if upper else line for line in lines)
    assert reveal(text).startswith(sendable(text))


def test_base64_spelt_in_hex_digits_alone_is_still_read() -> None:
    """Base64's alphabet holds the hex digits: a text whose base64 uses no other letter is decoded too."""
    hidden = "hAthMzhNE" * 3
    encoded = base64.b64encode(hidden.encode()).decode()
    assert set(encoded) <= set("0123456789abcdefABCDEF")
    assert ("base64", hidden) in readings(f"see {encoded} here")


def test_a_tools_name_is_not_read_as_noise() -> None:
    """``get_weather`` as base64 is bytes that a word among noise read as ``zyaz``, beside every tool call."""
    for name in ("get_weather", "search_docs", "get_user_info", "fetch_record", "send_email", "list_files"):
        assert readings(name) == [], name

