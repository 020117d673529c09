"""The sensitive-data check on a corpus of public examples: recall per kind and false positives on look-alikes.

The corpus (`sensitive_corpus.jsonl`, sources in `sensitive_corpus.md`) names the
kind each case must be found as, or none for a benign look-alike. The check must
find at least 95% of each kind it claims, and flag at most 1 in 100 look-alikes.
`benchmarks/sensitive_data.py` prints the same figures.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from langchain_jev.judges._checks.sensitive import KINDS, find_sensitive

CORPUS = Path(__file__).resolve().parent / "sensitive_corpus.jsonl"


def load_corpus() -> list[dict[str, Any]]:
    """Every case of the corpus."""
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def score(cases: list[dict[str, Any]]) -> tuple[dict[str, float], float, list[str]]:
    """Recall per kind, the false-positive rate on the benign cases, and what went wrong (case sources)."""
    found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    false_positives, wrong = 0, []
    benign = 0
    for case in cases:
        kinds = {match.kind for match in find_sensitive(case["text"])}
        if case["kind"] is None:
            benign += 1
            if kinds:
                false_positives += 1
                wrong.append(f"false positive ({', '.join(sorted(kinds))}): {case['source']}")
            continue
        total[case["kind"]] += 1
        if case["kind"] in kinds:
            found[case["kind"]] += 1
        else:
            wrong.append(f"missed {case['kind']}: {case['source']}")
    return {kind: found[kind] / total[kind] for kind in total}, false_positives / benign, wrong


CASES = load_corpus()


def test_the_corpus_covers_every_kind_and_at_least_100_look_alikes() -> None:
    counts = Counter(case["kind"] for case in CASES)
    assert set(counts) == {*KINDS, None}
    assert counts[None] >= 100 and min(counts[kind] for kind in KINDS) >= 25
    assert all(case["source"] for case in CASES)


def test_recall_of_each_kind_and_false_positives_on_the_cases_tuned_on() -> None:
    recall, false_positive_rate, wrong = score([case for case in CASES if not case["held_out"]])
    assert all(value >= 0.95 for value in recall.values()), (recall, wrong)
    assert false_positive_rate <= 0.01, (false_positive_rate, wrong)


def test_the_held_out_cases_found_as_often_and_no_look_alike_flagged() -> None:
    held = [case for case in CASES if case["held_out"]]  # 8 to 10 a kind: too few for a rate per kind
    found = sum(1 for case in held if case["kind"] and case["kind"] in {m.kind for m in find_sensitive(case["text"])})
    positives = sum(1 for case in held if case["kind"])
    assert found / positives >= 0.95, score(held)
    assert score(held)[1] <= 1 / 20, score(held)


def test_the_whole_corpus_meets_the_bar() -> None:
    recall, false_positive_rate, wrong = score(CASES)
    assert min(recall.values()) >= 0.95 and false_positive_rate <= 0.01, (recall, false_positive_rate, wrong)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Pay with 4242 4242 4242 4242 123", "card_number"),  # the greedy pattern swallowed the CVC
        ("Maestro 6771 7980 2100 0008", "card_number"),
        ("Dankort 5019 5555 4444 5555", "card_number"),
        ("UATP 1354 1001 4004 955", "card_number"),
        ("UnionPay 6250 9460 0000 0016", "card_number"),
        ("JCB 3569 9900 1009 5841", "card_number"),
        ("用户@例子.广告", "email"),
        ("a@xn--d1acufc.xn--p1ai", "email"),
        ("Call 1-800-555-0199", "phone"),
        ("appelez le 01 99 00 12 34", "phone"),
        ("mobile 0491 570 156", "phone"),
        ("0 532 123 45 67", "phone"),
        ("DB_PASSWORD=s3cr3tPassw0rd", "secret"),
        ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzqq9keyxx", "secret"),
        ("xapp-1-A0123456789-1234567890123-0123456789abcdef0123456789abcdef", "secret"),
        ("xoxe-1-" + "A1" * 73, "secret"),
        ("https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "secret"),
        ("glptt-0123456789abcdef0123456789abcdef01234567", "secret"),
        ("whsec_0123456789abcdefABCDEF0123456789", "secret"),
    ],
)
def test_what_the_hand_grown_patterns_missed_is_found(text: str, kind: str) -> None:
    assert kind in {match.kind for match in find_sensitive(text)}, text


@pytest.mark.parametrize(
    "text",
    ["git@github.com:org/repo.git", "S/N 2291-0043-8812", "UPS tracking 1Z 999 AA1 01 2345 6784", "ZIP 94105-1234",
     "Order #1234567890 shipped", "ISBN 0-306-40615-2"],
)
def test_what_the_hand_grown_patterns_flagged_wrongly_is_not_found(text: str) -> None:
    assert find_sensitive(text) == []


def test_a_hostile_text_is_scanned_within_the_bound_or_refused() -> None:
    import time

    from langchain_jev import JevInputError

    hostile = ("a." * 50_000) + "@" + ("b-" * 50_000)  # long runs for the address pattern to try
    started = time.monotonic()
    try:
        find_sensitive(hostile, timeout=0.5)
        outcome = "scanned"
    except JevInputError as error:
        outcome = str(error)
    assert outcome == "scanned" or "took longer than its bound of 0.5 s" in outcome
    assert time.monotonic() - started < 30  # a hang guard only


def test_matches_are_positions_never_the_text() -> None:
    text = "key ghp_0123456789abcdefABCDEF0123456789abcd, card 4242 4242 4242 4242, mail ada@example.org"
    matches = find_sensitive(text)
    assert [m.kind for m in matches] == ["secret", "card_number", "email"]
    assert all(set(vars(m)) == {"kind", "start", "end"} for m in matches)
    assert "ghp_" not in repr(matches) and "4242" not in repr(matches)
