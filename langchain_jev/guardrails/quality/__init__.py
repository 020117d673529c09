"""A guardrail's quality, measured on labelled rows: what it catches, what it refuses, how long it takes.

- `metrics`: the figures on plain numbers (ROC AUC, precision and recall at a threshold, precision
  at a recall, recall at a false-positive rate, latency percentiles), pure, each with its definition;
- `labels`: a row's label read (safe, unsafe, or the categories it violates);
- `measure`: the figures per category and overall (`GuardrailQuality`), with the conventions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.guardrails.quality.labels import RowLabel, read_row_label
    from langchain_jev.guardrails.quality.measure import CategoryQuality, GuardrailQuality, ScoredRow, measure
    from langchain_jev.guardrails.quality.metrics import CurvePoint, Undefined

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "CategoryQuality": "langchain_jev.guardrails.quality.measure",
    "CurvePoint": "langchain_jev.guardrails.quality.metrics",
    "GuardrailQuality": "langchain_jev.guardrails.quality.measure",
    "RowLabel": "langchain_jev.guardrails.quality.labels",
    "ScoredRow": "langchain_jev.guardrails.quality.measure",
    "Undefined": "langchain_jev.guardrails.quality.metrics",
    "measure": "langchain_jev.guardrails.quality.measure",
    "read_row_label": "langchain_jev.guardrails.quality.labels",
}

__all__ = [
    "CategoryQuality",
    "CurvePoint",
    "GuardrailQuality",
    "RowLabel",
    "ScoredRow",
    "Undefined",
    "measure",
    "read_row_label",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
