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

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.guardrails.quality._evaluate import (
        Columns,
        GuardrailEval,
        aguardrail_eval,
        guardrail_eval,
        measure_results,
    )
    from langchain_jev.guardrails.quality._judging import BatteryJudge
    from langchain_jev.guardrails.quality._labels import RowLabel, read_row_label
    from langchain_jev.guardrails.quality._metrics import CurvePoint, Undefined
    from langchain_jev.guardrails.quality._shadow import measure_shadow, shadow_recorder
    from langchain_jev.guardrails.quality._summary import (
        CategoryQuality,
        GuardrailQuality,
        ScoredRow,
        measure,
    )
    from langchain_jev.guardrails.quality._tables import format_quality
    from langchain_jev.guardrails.quality._thresholds import Suggestion, Target, suggest_thresholds

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "BatteryJudge": "langchain_jev.guardrails.quality._judging",
    "CategoryQuality": "langchain_jev.guardrails.quality._summary",
    "Columns": "langchain_jev.guardrails.quality._evaluate",
    "CurvePoint": "langchain_jev.guardrails.quality._metrics",
    "GuardrailEval": "langchain_jev.guardrails.quality._evaluate",
    "GuardrailQuality": "langchain_jev.guardrails.quality._summary",
    "RowLabel": "langchain_jev.guardrails.quality._labels",
    "ScoredRow": "langchain_jev.guardrails.quality._summary",
    "Suggestion": "langchain_jev.guardrails.quality._thresholds",
    "Target": "langchain_jev.guardrails.quality._thresholds",
    "Undefined": "langchain_jev.guardrails.quality._metrics",
    "aguardrail_eval": "langchain_jev.guardrails.quality._evaluate",
    "format_quality": "langchain_jev.guardrails.quality._tables",
    "guardrail_eval": "langchain_jev.guardrails.quality._evaluate",
    "measure": "langchain_jev.guardrails.quality._summary",
    "measure_results": "langchain_jev.guardrails.quality._evaluate",
    "measure_shadow": "langchain_jev.guardrails.quality._shadow",
    "read_row_label": "langchain_jev.guardrails.quality._labels",
    "shadow_recorder": "langchain_jev.guardrails.quality._shadow",
    "suggest_thresholds": "langchain_jev.guardrails.quality._thresholds",
}

__all__ = [
    "BatteryJudge",
    "CategoryQuality",
    "Columns",
    "CurvePoint",
    "GuardrailEval",
    "GuardrailQuality",
    "RowLabel",
    "ScoredRow",
    "Suggestion",
    "Target",
    "Undefined",
    "aguardrail_eval",
    "format_quality",
    "guardrail_eval",
    "measure",
    "measure_results",
    "measure_shadow",
    "read_row_label",
    "shadow_recorder",
    "suggest_thresholds",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
