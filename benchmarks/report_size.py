"""The HTML report of a 100,000-row run: its size, the time to draw it, and the time a real browser takes to open it.

Run: ``python benchmarks/report_size.py`` (needs the ``report`` extra and a Chromium).
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, print_table, row

ROWS = 100_000
SIZE_GOAL_MIB = 16.0
OPEN_GOAL_SECONDS = 5.0
JUDGE = {
    "min_confidence": 0.6,
    "criteria": [
        {"kind": "check", "name": "short", "check": {"present": "assistant_answer"}, "defect": "no answer"},
        {
            "kind": "noul",
            "name": "grounded",
            "instructions": "Grounded in `supporting_context`?",
            "minimum": 0.7,
        },
        {
            "kind": "score",
            "name": "helpful",
            "instructions": "How helpful?",
            "levels": ["no help", "some", "mostly", "fully"],
            "minimum": 2,
        },
        {
            "kind": "choice",
            "name": "mode",
            "instructions": "What did it do?",
            "options": {"answered": "answered", "asked": "asked back", "refused": "refused"},
            "accepted": ["answered", "asked"],
        },
        {"kind": "noul", "name": "polite", "instructions": "Polite?", "minimum": 0.5},
    ],
}


def records_and_states(count: int, seed: int = 3) -> tuple[list[dict[str, Any]], dict[int, dict[str, Any]]]:
    """``count`` result records of the judge above (about 1 in 5 failing) and each row's judged state."""
    rng = random.Random(seed)
    records = []
    states = {}
    for number in range(1, count + 1):
        grounded = rng.betavariate(5, 1.2)
        levels = [rng.random() for _ in range(4)]
        total = sum(levels)
        levels = [x / total for x in levels]
        share = sum(levels[2:])
        mode = {"answered": rng.betavariate(6, 1), "asked": 0.0, "refused": 0.0}
        mode["refused"] = 1 - mode["answered"]
        polite = rng.betavariate(8, 1)
        findings = [
            {"name": "short", "kind": "check", "outcome": "PASSED", "detail": "short: ok"},
            _noul("grounded", grounded, 0.7),
            {
                "name": "helpful",
                "kind": "score",
                "outcome": "PASSED" if share >= 0.6 else "FAILED" if share <= 0.4 else "INCONCLUSIVE",
                "detail": f"helpful: share {share:.2f}",
                "question": "q",
                "answer": {
                    "type": "score",
                    "score": sum(i * p for i, p in enumerate(levels)),
                    "confidence": max(share, 1 - share),
                    "probabilities": {str(i): p for i, p in enumerate(levels)},
                },
            },
            {
                "name": "mode",
                "kind": "choice",
                "outcome": "PASSED" if mode["answered"] >= 0.6 else "FAILED",
                "detail": "mode: chose answered",
                "question": "q",
                "answer": {
                    "type": "choice",
                    "choice": "answered",
                    "confidence": mode["answered"],
                    "probabilities": mode,
                },
            },
            _noul("polite", polite, 0.5),
        ]
        passed = all(f["outcome"] != "FAILED" for f in findings)
        records.append(
            {
                "row": number,
                "line": number,
                "key": f"{number:016x}",
                "id": f"r{number}",
                "passed": passed,
                "summary": "",
                "feedback": ""
                if passed
                else "; ".join(f["detail"] for f in findings if f["outcome"] == "FAILED"),
                "findings": findings,
                "model": "jev-latest",
            }
        )
        states[number] = {
            "user_question": f"What will the weather be in town {number} tomorrow afternoon, and should I bring a coat?",
            "assistant_answer": f"Town {number}: light rain from 2pm, about 3 mm, highs of 11C. " * 5,
            "supporting_context": [f"Forecast for town {number}: rain 2pm-6pm, 3 mm, 11C. " * 3] * 2,
        }
    return records, states


def _noul(name: str, probability: float, minimum: float) -> dict[str, Any]:
    return {
        "name": name,
        "kind": "noul",
        "outcome": "PASSED" if probability >= minimum else "FAILED",
        "detail": f"{name}: yes at {probability:.2f}",
        "question": "q",
        "answer": {"type": "noul", "noul": probability},
    }


def run() -> list[Row]:
    from langchain_jev.calibration import NoRequestModel
    from langchain_jev.report import write_report
    from langchain_jev.report._data import MAX_ROWS
    from langchain_jev.spec import load_judge
    from tests.report.browser import find_chromium, open_pages

    judge = load_judge(JUDGE, model=NoRequestModel())
    records, states = records_and_states(ROWS)
    small_records = records[:100]
    folder = Path(tempfile.mkdtemp(prefix="jev-report-bench-"))
    big, small = folder / "big.html", folder / "small.html"
    started = time.perf_counter()
    write_report(big, judge, records, title="100,000 rows", states=states)
    drawn = time.perf_counter() - started
    write_report(small, judge, small_records, title="100 rows", states=states)
    size = big.stat().st_size / 2**20
    rows = [
        row(
            f"report of {ROWS:,} rows ({MAX_ROWS:,} carried): size, MiB",
            size,
            f"<= {SIZE_GOAL_MIB:g}",
            size <= SIZE_GOAL_MIB,
            "MiB",
        ),
        row(f"report of {ROWS:,} rows: seconds to draw (Python)", drawn, "<= 30", drawn <= 30, "s"),
    ]
    chromium = find_chromium()
    if chromium is None:
        rows.append(
            row("report of 100,000 rows: open in Chromium (no Chromium here)", float("nan"), "-", False, "s")
        )
        return rows
    probe = (
        "(() => { const c = document.getElementById('f-outcome'); const t = performance.now();"
        " c.value = 'failing'; c.dispatchEvent(new Event('change'));"
        " return JSON.stringify(performance.now() - t); })()"
    )
    visits = open_pages(chromium, [small, big], probes={big: [probe], small: [probe]})
    opened = visits[1].load_seconds
    rows.extend(
        [
            row(
                f"report of {ROWS:,} rows: seconds to open in Chromium",
                opened,
                f"<= {OPEN_GOAL_SECONDS:g}",
                opened <= OPEN_GOAL_SECONDS and not visits[1].console_errors,
                "s",
            ),
            row("open time, 100,000 rows / 100 rows", opened / max(visits[0].load_seconds, 1e-3), "-", True),
            row(
                "filter the carried rows by outcome, ms",
                float(visits[1].probes[0]),
                "<= 500",
                float(visits[1].probes[0]) <= 500,
                "ms",
            ),
        ]
    )
    return rows


if __name__ == "__main__":
    print_table("report_size", run())
