"""Sensitive data by patterns: every kind found in positive examples, nothing in ordinary text."""

from __future__ import annotations

import pytest

from langchain_jev import JevJudgeInput
from langchain_jev.judges._checks.sensitive import KINDS, find_sensitive, luhn_valid
from langchain_jev.spec._builtins import NoSensitiveData, compile_builtin

POSITIVE: list[tuple[str, str]] = [
    ("secret", "use sk-proj-abc123DEF456ghi789JKL012mno to call it"),
    ("secret", "ANTHROPIC_API_KEY=sk-ant-api03-AbCdEf0123456789_ghIJklMNop"),
    ("secret", "aws_access_key_id = AKIAJ5Q7R2XWZ4KLM6NB"),
    ("secret", "token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 works"),
    ("secret", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    ("secret", "slack xoxb-1234567890-abcdefghij"),
    ("secret", "key=AIzaSyA1234567890abcdefghijklmnopqrstuv"),
    ("secret", "stripe sk_live_51Habcdefghijklmnop0123"),
    ("secret", "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N"),
    ("secret", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----"),
    ("secret", 'password: "Tr0ub4dor&3"'),
    ("secret", "db password=hunter2hunter2"),
    ("card_number", "card 4111 1111 1111 1111 exp 12/29"),
    ("card_number", "Mastercard 5555-5555-5555-4444"),
    ("card_number", "amex 378282246310005."),
    ("card_number", "discover 6011111111111117"),
    ("email", "write to ada.lovelace@example.org today"),
    ("email", "Contact: J.Smith+billing@mail.co.uk"),
    ("phone", "call +1 (415) 555-0134"),
    ("phone", "office (415) 555-0134"),
    ("phone", "mobile 415.555.0134"),
    ("phone", "London +44 20 7946 0958"),
    ("phone", "ring 020 7946 0958"),
    ("phone", "Paris +33 1 23 45 67 89"),
]

NEGATIVE: list[str] = [
    "Version 4.1.2 was released in 2024.",
    "In 2024, 1,234,567 people visited; the budget was $1,299.99.",
    "Connect to 192.168.0.1 on port 8080.",
    "ISBN 978-0-306-40615-7 and ZIP code 90210.",
    "The meeting is on 2024-01-15 at 10:30:00.",
    "Pi is 3.14159265358979 and e is 2.718281828.",
    "The context window is 128000 tokens; the token limit is 4096.",
    "The password must be at least 12 characters long.",
    "Set api_key: <YOUR_API_KEY> or api_key=sk-xxxx...",
    "Set OPENAI_API_KEY in your environment first.",
    "Install scikit-learn (sklearn) and a task-management-approach-for-teams.",
    "Use icon@2x.png for retina screens, and @username mentions.",
    "Order 4111111111111112 shipped.",
    "Timestamp 1700000000000 and tracking 1Z999AA10123456784.",
    "Dial extension 4567, or 555-0199.",
    "Sales rose between 2010-2020 and 2021-2023.",
    "We sold 10 000 000 units at 3.5 - 4.5 - 5.5 ratios.",
    "UUID 123e4567-e89b-12d3-a456-426614174000.",
    "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "Room 12, floor 3, building 7; the secret: patience.",
    "The password: required for every account.",
]


@pytest.mark.parametrize(("kind", "text"), POSITIVE, ids=[f"{k}-{i}" for i, (k, _) in enumerate(POSITIVE)])
def test_each_kind_is_found(kind: str, text: str) -> None:
    found = find_sensitive(text)
    assert [m.kind for m in found] == [kind], text
    assert find_sensitive(text, [k for k in KINDS if k != kind]) == []


@pytest.mark.parametrize("text", NEGATIVE)
def test_ordinary_numbers_and_words_are_not_flagged(text: str) -> None:
    assert find_sensitive(text) == []


def test_luhn_settles_card_numbers() -> None:
    assert luhn_valid("4111111111111111") and luhn_valid("378282246310005")
    assert not luhn_valid("4111111111111112") and not luhn_valid("41x1")


def test_allowed_addresses_and_domains_pass() -> None:
    text = "Write to support@shop.com or sales@shop.com, not ada@example.org"
    assert [m.kind for m in find_sensitive(text, allow=["@shop.com"])] == ["email"]
    assert find_sensitive(text, allow=["@SHOP.com", "ada@example.org"]) == []


def test_a_match_keeps_where_it_is_never_the_secret_itself() -> None:
    match = find_sensitive("key sk-proj-abc123DEF456ghi789JKL012mno")[0]
    assert "abc123" not in repr(match)


def test_structured_answers_are_scanned_too() -> None:
    check = compile_builtin(NoSensitiveData(field="profile"))
    assert check(JevJudgeInput(answer="ok", fields={"profile": {"card": 4111111111111111}})) is False
    assert check(JevJudgeInput(answer="ok", fields={"profile": {"orders": 3}})) is True
    assert compile_builtin(NoSensitiveData())(JevJudgeInput(answer="All good.")) is True
