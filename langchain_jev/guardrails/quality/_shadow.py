"""A guardrail's reports written to JSONL, to be labelled and measured: the shadow-mode loop's first step.

`shadow_recorder(path)` is an ``on_flag`` callback: each report it is called
with becomes one line of ``path``, appended and flushed (one writer per file, in
a process; a line is written whole or not at all). A line is the report's own
data (`GuardrailReport.to_dict`) plus ``id`` (a fresh identifier), ``recorded``
(UTC, ISO 8601) and ``thresholds`` (the battery's, when the check was judged)::

    {"id": "…", "recorded": "2026-12-03T12:00:00+00:00", "check": "input",
     "mode": "shadow", "refused": false, "would_refuse": true,
     "categories": {"hate": 0.91}, "probabilities": {"hate": 0.91, "violent_crimes": 0.02},
     "thresholds": {"hate": 0.5, "violent_crimes": 0.5}, "undecided": [], "error": null,
     "strictness": "balanced", "review": null, "borderline": {}, "unjudgeable": []}

The report carries no text (what was judged stays where the conversation is),
so a line names the check by its probabilities; ``text_of`` may add a ``text``
(say, from your own request log). Add a ``label`` to the lines you review
(``"safe"``, ``"unsafe"`` or the categories violated; an unsafe line's categories may go
under ``categories_violated``, as ``categories`` holds what was flagged) and `measure_shadow`
measures them from their recorded probabilities, with no request, at any
thresholds. ``on_flag`` is called only for checks that were not clean, so these
records measure false refusals among what was flagged; misses need a sample of
clean traffic too (a labelled file run through ``guardrail-eval``).
"""

from __future__ import annotations

import datetime
import json
import os
import threading
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from langchain_jev.guardrails._catalog import Direction
from langchain_jev.guardrails._policy import GuardrailReport
from langchain_jev.guardrails.quality._labels import read_row_label
from langchain_jev.guardrails.quality._summary import GuardrailQuality, ScoredRow, measure
from langchain_jev.models._secrets import redact_data

__all__ = ["measure_shadow", "shadow_line", "shadow_recorder"]


def shadow_line(report: GuardrailReport, text: str | None = None) -> dict[str, Any]:
    """The record of one report, as `shadow_recorder` writes it (known keys redacted).

    Example:
        >>> line = shadow_line(GuardrailReport("input", False, {"hate": 0.9}, mode="shadow"))
        >>> line["check"], line["would_refuse"], sorted(line)[:3]
        ('input', False, ['borderline', 'categories', 'check'])

    """
    record: dict[str, Any] = {
        "id": uuid.uuid4().hex,
        "recorded": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        **report.to_dict(),
    }
    assessment = report.assessment
    record["thresholds"] = dict(assessment.thresholds) if assessment is not None else None
    if text is not None:
        record["text"] = text
    return dict(redact_data(record))


def shadow_recorder(
    path: str | os.PathLike[str], *, text_of: Callable[[GuardrailReport], str | None] | None = None
) -> Callable[[GuardrailReport], None]:
    """An ``on_flag`` callback appending each report to the JSONL file at ``path``.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "shadow.jsonl"
        >>> record = shadow_recorder(path)
        >>> record(GuardrailReport("input", False, {"hate": 0.9}, mode="shadow"))
        >>> json.loads(path.read_text())["categories"]
        {'hate': 0.9}

    """
    target = os.fspath(path)
    lock = threading.Lock()

    def record(report: GuardrailReport) -> None:
        line = json.dumps(shadow_line(report, text_of(report) if text_of else None), ensure_ascii=False)
        with lock, open(target, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()

    return record


def measure_shadow(
    path: str | os.PathLike[str],
    thresholds: Mapping[str, float] | None = None,
    *,
    label: str = "label",
    categories: str = "categories_violated",
) -> tuple[GuardrailQuality, list[str]]:
    """Measure the labelled lines of a shadow file, from their recorded probabilities (no request).

    Lines without a label are skipped; lines whose label cannot be read, or that
    failed (``error``), are named in the list returned. ``thresholds`` default to
    those recorded with the first labelled line. The side is the lines' ``check``.

    Raises:
        ValueError: no labelled line, or lines of more than one side.

    """
    rows: list[ScoredRow] = []
    problems: list[str] = []
    sides: set[Direction] = set()
    recorded: Mapping[str, float] | None = None
    with open(path, encoding="utf-8") as handle:
        for number, text in enumerate(handle, 1):
            if not text.strip():
                continue
            data = json.loads(text)
            if not isinstance(data, dict) or data.get(label) is None:
                continue
            if data.get("error"):
                problems.append(f"line {number}: the check failed ({data['error']}): in no figure")
                continue
            try:
                parsed = read_row_label(data[label], data.get(categories))
            except ValueError as error:
                problems.append(f"line {number}: {error}")
                continue
            sides.add(data.get("check", "input"))
            recorded = recorded or data.get("thresholds")
            probabilities = {k: float(v) for k, v in (data.get("probabilities") or {}).items()}
            rows.append(ScoredRow(number, parsed, probabilities, None, data.get("text", ""), data.get("id")))
    if not rows:
        raise ValueError(f"{os.fspath(path)} has no labelled line (add a {label!r} to the lines reviewed)")
    if len(sides) > 1:
        raise ValueError(f"{os.fspath(path)} mixes sides {sorted(sides)}: measure one side at a time")
    chosen = dict(thresholds or recorded or {})
    if not chosen:
        raise ValueError("no thresholds given and none recorded: pass thresholds={category: p}")
    return measure(rows, chosen, sides.pop()), problems
