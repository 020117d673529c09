"""The report page's data and markup: rows in order and in bound, every text escaped for its place."""

from __future__ import annotations

import json
from collections.abc import Mapping
from html.parser import HTMLParser
from typing import Any

import pytest

pytest.importorskip("matplotlib")

from langchain_jev.calibration import NoRequestModel
from langchain_jev.report import render_report
from langchain_jev.report._data import BORDERLINE, TEXT_CAP, select_rows
from langchain_jev.report._provenance import Provenance, host_of, provenance_of
from langchain_jev.report._script import script_hash, viewer_script
from langchain_jev.spec import load_judge

PAYLOADS = [
    "<script>window.__pwned='script'</script>",
    "<img src=x onerror=\"window.__pwned='img'\">",
    '"></script><script>window.__pwned="island"</script>',
    "</script><svg onload=window.__pwned='svg'>",
    "<!--<script>window.__pwned='comment'",
    "'; window.__pwned='quote'; '",
    "javascript:window.__pwned='href'",
    "\u2028\u2029 line separators & ampersands &amp; &#x3c;",
]


def judge_named(*names: str) -> Any:
    spec = {
        "criteria": [
            {"kind": "noul", "name": name, "instructions": "Good?", "minimum": 0.5} for name in names
        ]
    }
    return load_judge(spec, model=NoRequestModel())


def record(row: int, probability: float, name: str = "good", **extra: Any) -> dict[str, Any]:
    passed = probability >= 0.5
    return {
        "row": row,
        "line": row,
        "key": f"k{row}",
        "passed": passed,
        "feedback": "" if passed else f"{name}: not good",
        "findings": [
            {
                "name": name,
                "kind": "noul",
                "outcome": "PASSED" if passed else "FAILED",
                "detail": f"{name}: p={probability}",
                "answer": {"type": "noul", "noul": probability},
            }
        ],
        **extra,
    }


class Elements(HTMLParser):
    """Every element the page's markup makes, with its attributes, and the scripts' texts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def parse(page: str) -> Elements:
    parser = Elements()
    parser.feed(page)
    return parser


def island(page: str) -> dict[str, Any]:
    parsed = parse(page)
    (data,) = [
        text
        for (tag, attrs), text in zip(
            [e for e in parsed.elements if e[0] == "script"], parsed.scripts, strict=True
        )
        if attrs.get("type") == "application/json"
    ]
    return json.loads(data)  # type: ignore[no-any-return]


def test_payloads_in_rows_names_feedback_and_ids_make_no_element_and_come_back_as_written() -> None:
    names = [f"c{i} {payload}" for i, payload in enumerate(PAYLOADS)]
    judge = judge_named(*names)
    records = []
    states: dict[int, Mapping[str, Any]] = {}
    for row, payload in enumerate(PAYLOADS, 1):
        item = record(row, 0.2, names[row - 1], id=payload)
        item["feedback"] = payload
        item["findings"][0]["detail"] = payload
        records.append(item)
        states[row] = {"user_question": payload, "assistant_answer": payload, payload: payload}
    page = render_report(
        judge, records, title=PAYLOADS[0], states=states, provenance=Provenance(dataset=PAYLOADS[2])
    )
    parsed = parse(page)
    tags = [tag for tag, _ in parsed.elements]
    assert tags.count("script") == 2 and "img" not in tags
    assert [tag for tag, _ in parsed.elements if tag == "svg"]  # the charts' own
    for tag, attrs in parsed.elements:
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        assert not any("javascript:" in (value or "") for value in attrs.values()), (tag, attrs)
    scripts = list(parsed.scripts)
    assert scripts[1] == viewer_script()  # the viewer, unchanged: its hash is the one the policy names
    data = island(page)
    assert [c["name"] for c in data["criteria"]] == names
    rows = data["rows"]
    assert [r["id"] for r in rows] == PAYLOADS
    assert [r["fb"] for r in rows] == PAYLOADS
    assert [r["f"][0]["d"] for r in rows] == PAYLOADS
    assert [dict(r["s"])["assistant_answer"] for r in rows] == PAYLOADS
    assert all(dict(r["s"])[p] == p for r, p in zip(rows, PAYLOADS, strict=True))
    # the pass table's links name a criterion by its index, never by its text
    links = [attrs for tag, attrs in parsed.elements if tag == "a" and "data-criterion" in attrs]
    assert [a["data-criterion"] for a in links] == [str(i) for i in range(len(names))]


def test_the_policy_allows_exactly_the_viewer_and_nothing_else() -> None:
    page = render_report(judge_named("good"), [record(1, 0.9)])
    (policy,) = [
        attrs["content"]
        for tag, attrs in parse(page).elements
        if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy"
    ]
    assert policy is not None
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == script_hash(viewer_script())
    assert directives["require-trusted-types-for"] == "'script'"
    assert "unsafe-eval" not in policy and "unsafe-inline" not in directives["script-src"]
    assert "connect-src" not in directives  # default-src 'none' covers every request a script could make


def test_rows_are_shown_in_row_order_whatever_order_they_finished_in() -> None:
    judge = judge_named("good")
    records = [record(n, 0.2 if n % 2 else 0.9) for n in (4, 7, 6, 8, 1)]
    rows = island(render_report(judge, records))["rows"]
    assert [r["n"] for r in rows] == [1, 4, 6, 7, 8]


def test_a_long_run_keeps_failing_and_borderline_rows_first_within_its_bound() -> None:
    judge = judge_named("good")
    records = [record(n, 0.95) for n in range(1, 21)]
    records[14] = record(15, 0.2)  # failing
    records[2] = record(3, 0.5 + BORDERLINE / 2)  # borderline pass
    records[9] = record(10, 0.5 + BORDERLINE * 3)  # a clear pass
    chosen = select_rows(judge, records, 4)
    assert [r["row"] for r in chosen.records] == [1, 2, 3, 15]
    assert (chosen.total, chosen.left_out, chosen.left_out_failing) == (20, 16, 0)
    page = render_report(judge, records, limit=4)
    assert "4 of 20 rows" in page and "16 rows are left out (all passing and not borderline)" in page


def test_a_row_opens_to_its_state_and_every_finding_with_answer_threshold_and_detail() -> None:
    spec = {
        "min_confidence": 0.6,
        "criteria": [
            {"kind": "noul", "name": "grounded", "instructions": "Grounded?", "minimum": 0.7},
            {
                "kind": "score",
                "name": "helpful",
                "instructions": "How helpful?",
                "levels": ["0", "1", "2", "3"],
                "minimum": 2,
            },
        ],
    }
    judge = load_judge(spec, model=NoRequestModel())
    item = {
        "row": 1,
        "key": "k",
        "passed": False,
        "feedback": "grounded: not grounded",
        "findings": [
            {
                "name": "grounded",
                "kind": "noul",
                "outcome": "FAILED",
                "detail": "p=0.65",
                "answer": {"type": "noul", "noul": 0.65},
            },
            {
                "name": "helpful",
                "kind": "score",
                "outcome": "PASSED",
                "detail": "rated 2.3",
                "answer": {
                    "type": "score",
                    "score": 2.3,
                    "confidence": 0.7,
                    "probabilities": {"0": 0.0, "1": 0.3, "2": 0.1, "3": 0.6},
                },
            },
        ],
    }
    state = {
        "user_question": "Rain?",
        "assistant_answer": "x" * (TEXT_CAP + 5),
        "supporting_context": ["doc"],
    }
    (row,) = island(render_report(judge, [item], states={1: state}))["rows"]
    shown = dict(row["s"])
    assert shown["user_question"] == "Rain?"
    assert shown["assistant_answer"] == ["x" * TEXT_CAP, 5]  # cut, and how much is said
    assert json.loads(shown["supporting_context"]) == ["doc"]
    grounded, helpful = row["f"]
    assert (grounded["o"], grounded["p"], grounded["d"], grounded["b"]) == ("FAILED", 0.65, "p=0.65", True)
    assert grounded["m"] == pytest.approx(0.05)
    assert helpful["p"] == pytest.approx(0.7) and helpful["m"] == pytest.approx(0.1)
    assert helpful["a"]["probabilities"] == [["0", 0.0], ["1", 0.3], ["2", 0.1], ["3", 0.6]]
    assert row["m"] == pytest.approx(0.05) and row["fb"] == "grounded: not grounded"
    data = island(render_report(judge, [item], states={1: state}))
    assert data["criteria"][0]["threshold"] == "probability of yes >= 0.7"
    assert "share on levels >= 2 is >= 0.6" in data["criteria"][1]["threshold"]


def test_provenance_keeps_the_host_only_and_redacts_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXAMPLE_API_KEY", "sk-report-test-5f1c9e2a7d3b80461e")
    assert host_of("https://me:pw@jev.example.com:8443/v1?api_key=sk") == "jev.example.com:8443"
    header = {
        "fingerprint": "sha256:ab",
        "judge": {"model": "jev-latest"},
        "run": {
            "dataset": "rows.jsonl",
            "judge_file": "judge.yaml",
            "base_url": "https://me:pw@jev.example.com/v1",
            "version": "9.9",
            "started": "2026-01-01T00:00:00Z",
            "command": ["langchain-jev", "judge", "--note", "sk-report-test-5f1c9e2a7d3b80461e"],
            "bad_rows": 2,
        },
    }
    found = provenance_of(header, [record(1, 0.9, model="jev-latest"), record(2, 0.1, cache_hit=True)])
    shown = dict(found.items())
    assert shown["server"] == "jev.example.com"
    assert shown["command"] == "langchain-jev judge --note [redacted]"
    assert (shown["rows"], shown["bad rows skipped"], shown["answered by the model"]) == ("2", "2", "1")
    assert shown["answered from the cache"] == "1" and shown["judge fingerprint"] == "sha256:ab"
    page = render_report(judge_named("good"), [record(1, 0.9)], provenance=found)
    assert "sk-secret" not in page and "jev.example.com" in page and "me:pw" not in page
