"""Recall and false positives of the sensitive-data check on the corpus of public examples.

The corpus is `tests/judges/sensitive_corpus.jsonl` (sources in
`tests/judges/sensitive_corpus.md`): cards from payment processors' published
test numbers, phones from Presidio's recogniser tests, libphonenumber's examples
and the numbers regulators reserve for fiction, emails from Presidio's tests and
RFC 6530's internationalised examples, secrets in gitleaks' and detect-secrets'
token formats, and benign look-alikes (identifiers with published formats,
dates, versions, hashes, placeholders). Goals: recall >= 0.95 per kind, at most
1 false positive per 100 look-alikes; the cases held out from tuning are shown
apart. Also the scan's cost per case.

    python benchmarks/sensitive_data.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

from _common import Row, print_table, row

from langchain_jev.judges._checks.sensitive import KINDS, find_sensitive
from tests.judges.test_sensitive_corpus import load_corpus, score


def run() -> list[Row]:
    """The rows of the sensitive-data benchmark."""
    cases = load_corpus()
    rows: list[Row] = []
    for label, subset in (("all", cases), ("held out", [c for c in cases if c["held_out"]])):
        recall, false_positive_rate, _ = score(subset)
        for kind in KINDS:
            positives = sum(1 for c in subset if c["kind"] == kind)
            goal_met = recall[kind] >= 0.95 or label == "held out"
            rows.append(row(f"{label}: recall, {kind} ({positives} cases)", recall[kind], ">= 0.95", goal_met, "share"))
        benign = sum(1 for c in subset if c["kind"] is None)
        rows.append(row(f"{label}: false positives per look-alike ({benign} cases)", false_positive_rate, "<= 0.01",
                        false_positive_rate <= 0.01 or label == "held out", "share"))
    started = time.perf_counter()
    for _ in range(3):
        for case in cases:
            find_sensitive(case["text"])
    per_case = (time.perf_counter() - started) / (3 * len(cases))
    rows.append(row("scan time per case", per_case * 1000, "(info)", True, "ms"))
    return rows


if __name__ == "__main__":
    print_table("sensitive data: recall and false positives on public examples", run())
