"""The HTML report of ``guardrail-eval``: per category its figures and curves; false refusals, misses.

Each category shows its figures, its ROC and precision-recall curves; the false
refusals and the misses are listed with their text.

Drawn as the judge's report is (`langchain_jev.report._layout.document`: one self-contained page,
its policy allowing no script but the viewer's, which has no rows to draw here), written whole
(`langchain_jev.datasets._writing.write_atomic`). Needs the ``report`` extra (matplotlib).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from langchain_jev.datasets._writing import write_atomic
from langchain_jev.guardrails.quality._metrics import Figure, Undefined
from langchain_jev.guardrails.quality._summary import CategoryQuality, GuardrailQuality, ScoredRow
from langchain_jev.guardrails.quality._tables import CONVENTIONS
from langchain_jev.report._charts import curves_chart
from langchain_jev.report._layout import document, escape

__all__ = ["render_guardrail_report", "write_guardrail_report"]

LISTED = 200
"""The most false refusals (and misses) the page lists."""


def _cell(figure: Figure) -> str:
    if isinstance(figure, Undefined):
        return f'<td title="{escape(figure.reason)}">undefined ({escape(figure.reason)})</td>'
    return f"<td>{figure:.3f}</td>"


def _figures(quality: CategoryQuality) -> str:
    point = quality.at_thresholds["battery"]
    cells = [
        ("unsafe rows", f"<td>{quality.positives}</td>"),
        ("safe rows", f"<td>{quality.negatives}</td>"),
        ("ROC AUC", _cell(quality.roc_auc)),
        ("precision", _cell(point.precision)),
        ("recall", _cell(point.recall)),
        ("false-refusal rate", _cell(point.false_positive_rate)),
        *((f"precision at recall {r:g}", _cell(f)) for r, (f, _) in quality.precision_at_recall.items()),
        ("recall at 1% false-positive rate", _cell(quality.recall_at_fpr[0])),
    ]
    rows = "".join(f"<tr><th>{escape(name)}</th>{cell}</tr>" for name, cell in cells)
    return f'<table class="figures">{rows}</table>'


def _rows(title: str, rows: Sequence[ScoredRow], css: str) -> str:
    shown = rows[:LISTED]
    items = "".join(
        f"<tr><td>{r.row}</td><td>{escape(r.row_id if r.row_id is not None else '')}</td>"
        f"<td>{r.top:.3f}</td><td class='text'>{escape(r.text)}</td></tr>"
        for r in shown
    )
    more = f"<p>{len(rows) - len(shown)} more not listed.</p>" if len(rows) > len(shown) else ""
    head = "<tr><th>row</th><th>id</th><th>highest probability</th><th>text</th></tr>"
    return (
        f'<section class="{css}"><h2>{escape(title)} ({len(rows)})</h2>'
        f"<table>{head}{items}</table>{more}</section>"
    )


def render_guardrail_report(quality: GuardrailQuality, title: str) -> str:
    """The whole page of a measured guardrail.

    Raises:
        ImportError: matplotlib (the ``report`` extra) is not installed.

    """
    body = [f"<h1>{escape(title)}</h1>", f"<p>{escape(CONVENTIONS)}</p>"]
    latency = ", ".join(
        f"{name.upper()} " + ("undefined" if isinstance(v, Undefined) else f"{v * 1000:.0f} ms")
        for name, v in quality.latency.items()
    )
    body.append(
        f"<p>Time per check: {escape(latency)}. Rows that could not be judged: {quality.unjudged}.</p>"
    )
    for category in (*quality.categories.values(), quality.overall):
        threshold = quality.thresholds.get(category.name)
        said = f" (threshold {threshold:g})" if threshold is not None else " (any category at its threshold)"
        body.append(f'<section class="category"><h2>{escape(category.name + said)}</h2>')
        body.append(_figures(category))
        body.append(curves_chart(category.name, [p.to_dict() for p in category.curve]))
        body.append("</section>")
    body.append(_rows("False refusals: safe rows flagged", quality.false_refusals, "false-refusals"))
    body.append(_rows("Misses: unsafe rows let through", quality.misses, "misses"))
    return document(title, body, {"guardrail": quality.to_dict()})


def write_guardrail_report(path: str | os.PathLike[str], quality: GuardrailQuality, title: str) -> None:
    """Write the page to ``path`` whole (never half written)."""
    write_atomic(path, render_guardrail_report(quality, title))
