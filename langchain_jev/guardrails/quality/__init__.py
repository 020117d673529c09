"""A guardrail's quality, measured on labelled rows: what it catches, what it refuses, how long it takes.

- `metrics`: the figures on plain numbers (ROC AUC, precision and recall at a threshold, precision
  at a recall, recall at a false-positive rate, latency percentiles), pure, each with its definition;
- `labels`: a row's label read (safe, unsafe, or the categories it violates);
- `summary`: the figures per category and overall (`GuardrailQuality`), with the conventions;
- `thresholds`: per-category thresholds for a target, with a Wilson interval (`suggest_thresholds`);
- `judging`: a battery judging dataset rows (`BatteryJudge`), the label never sent;
- `evaluate`: `guardrail_eval` / `aguardrail_eval`, the battery run over a labelled file
  through the dataset run (results file, resume, lock), then measured;
- `shadow`: the reports of a guardrail in shadow mode written to JSONL, to be labelled and measured;
- `tables`: the figures as the text ``guardrail-eval`` prints.

Example:
    >>> from langchain_jev.guardrails.quality import RowLabel, ScoredRow, measure
    >>> rows = [ScoredRow(1, RowLabel(True, frozenset({"hate"})), {"hate": 0.9}),
    ...         ScoredRow(2, RowLabel(False), {"hate": 0.2})]
    >>> measure(rows, {"hate": 0.5}).categories["hate"].roc_auc
    1.0

"""

from __future__ import annotations

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
