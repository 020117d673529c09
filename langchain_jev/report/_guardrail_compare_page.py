"""The HTML page of ``compare`` over two ``guardrail-eval`` runs: both tables, then the flipped rows.

The figures side by side per category, the paired counts (recall, false refusals,
rows decided right, with McNemar's p and the interval), and every flipped row with
its text, regressions first. Drawn as the other pages are
(`langchain_jev.report._layout.document`), written whole.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from langchain_jev.compare._guardrail import GuardrailComparison
from langchain_jev.datasets._writing import write_atomic
from langchain_jev.report._layout import document, escape

__all__ = ["render_guardrail_comparison", "write_guardrail_comparison"]


def _table(rows: Sequence[Sequence[str]], css: str) -> str:
    head = "".join(f"<th>{escape(cell)}</th>" for cell in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows[1:])
    return f'<table class="{css}"><tr>{head}</tr>{body}</table>'


def _flips(compared: GuardrailComparison) -> str:
    first, second = compared.labels
    head = (
        f"<tr><th>row</th><th>id</th><th>what</th><th>{escape(first)}</th><th>{escape(second)}</th>"
        "<th>categories that flipped</th><th>text</th></tr>"
    )
    items = "".join(
        f'<tr class="{"regression" if f.regression else "improvement"}"><td>{f.b.row}</td>'
        f"<td>{escape(f.b.row_id if f.b.row_id is not None else '')}</td><td>{escape(f.label)}</td>"
        + "".join(
            f"<td>{'flagged' if flagged else 'let through'} ({top:.3f})</td>"
            for flagged, top in zip(f.flagged, (f.a.top, f.b.top), strict=True)
        )
        + f"<td>{escape(', '.join(f.categories))}</td><td class='text'>{escape(f.b.text)}</td></tr>"
        for f in compared.flips
    )
    return (
        f'<section class="flips"><h2>Flipped rows ({len(compared.flips)}, '
        f"{len(compared.regressions)} regressions)</h2><table>{head}{items}</table></section>"
    )


def render_guardrail_comparison(compared: GuardrailComparison, title: str) -> str:
    """The whole page of two guardrail runs compared."""
    body = [
        f"<h1>{escape(title)}</h1>",
        "<h2>Figures (each run at its own thresholds)</h2>",
        _table(compared.figure_rows(), "figures"),
        f"<h2>Paired, over the {compared.paired} rows both runs judged</h2>",
        _table(compared.paired_rows(), "paired"),
        *(f"<p class='note'>{escape(note)}</p>" for note in compared.notes),
        _flips(compared),
    ]
    return document(title, body, {"guardrail_compare": compared.to_dict()})


def write_guardrail_comparison(
    path: str | os.PathLike[str], compared: GuardrailComparison, title: str
) -> None:
    """Write the page to ``path`` whole (never half written)."""
    write_atomic(path, render_guardrail_comparison(compared, title))
