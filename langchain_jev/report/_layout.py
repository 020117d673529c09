"""The report's layout: the HTML of each part of a page, from data already made (no deciding here).

Every text from data goes through `escape` (an element's text or a quoted
attribute); the rows themselves are drawn by the page's script from its JSON
island (`langchain_jev.report._script`), so this module writes the frame they
go in: the head with its policy, the provenance, the pass-rate table whose
criterion names link to their failing rows, and the row viewer's controls.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import Any

from langchain_jev.datasets._tally import Tally, format_rate
from langchain_jev.report._provenance import Provenance
from langchain_jev.report._script import content_security_policy, json_island, viewer_script

__all__ = [
    "STYLE",
    "document",
    "escape",
    "pass_table",
    "provenance_block",
    "provenance_pair",
    "rows_section",
    "summary_line",
]

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1200px;
color:#1a202c;padding:0 1em}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;border-bottom:1px solid #e2e8f0;padding-bottom:.2em;
margin-top:2em}h4{margin:.8em 0 .2em}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #e2e8f0;padding:.25em .6em;text-align:right;vertical-align:top}
th{background:#f7fafc}.text{text-align:left}td.feedback{max-width:520px}
.value{white-space:pre-wrap;overflow-wrap:anywhere;text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:1em}.charts svg{max-width:100%;height:auto}
.summary{font-size:1.1em}.fail{color:#c53030}.pass{color:#2f855a}.note{color:#4a5568}
dl.provenance{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em;margin:.5em 0 1em;
font-size:.92em}dl.provenance dt{color:#4a5568}dl.provenance dd{margin:0;overflow-wrap:anywhere}
.controls{display:flex;flex-wrap:wrap;gap:.6em;align-items:center;margin:.5em 0}
.controls input[type=search]{min-width:18em}
tr.row:hover{background:#f7fafc}tr.opened{background:#ebf8ff}
tr.regression td:first-child{border-left:4px solid #c53030}
button.open{font:inherit;border:1px solid #cbd5e0;background:#fff;border-radius:3px;cursor:pointer;
min-width:3.5em}
tr.detail>td{background:#fcfcfd;text-align:left}table.state th{width:12em}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1em}.pair .side{min-width:0}
tr.changed{background:#fff5f5}
"""


def escape(text: Any) -> str:
    """``text`` made safe as an element's text or a quoted attribute's value.

    Example:
        >>> escape('<b title="x">&</b>')
        '&lt;b title=&quot;x&quot;&gt;&amp;&lt;/b&gt;'

    """
    return html.escape(str(text), quote=True)


def document(title: str, body: Iterable[str], data: Any) -> str:
    """A whole page: its head (policy, title, style), ``body``, then ``data``'s island and the viewer.

    The viewer (`langchain_jev.report._script.viewer_script`) is the one script the page's
    policy allows: it draws the rows from ``data``, which the page carries as JSON.
    """
    script = viewer_script()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{escape(content_security_policy(script))}">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
        *body,
        json_island(data),
        f"<script>{script}</script>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def provenance_block(provenance: Provenance) -> str:
    """Where the results came from, as a definition list (only what is known is listed)."""
    items = "".join(
        f"<dt>{escape(label)}</dt><dd>{escape(value)}</dd>" for label, value in provenance.items()
    )
    return f'<dl class="provenance" id="provenance">{items}</dl>'


def provenance_pair(labels: Sequence[str], provenance: Sequence[Provenance | None]) -> str:
    """Two runs' provenance side by side, each under its label."""
    sides = "".join(
        f'<div class="side"><h4>{escape(label)}</h4>{provenance_block(p or Provenance())}</div>'
        for label, p in zip(labels, provenance, strict=True)
    )
    return f'<div class="pair">{sides}</div>'


def summary_line(tally: Tally) -> str:
    """The one sentence of totals under the title."""
    return (
        f'<p class="summary">{tally.rows} rows: {tally.passed} passed, {tally.judged - tally.passed} failed'
        + (f", {tally.errors} not judged" if tally.errors else "")
        + f"; pass rate <b>{format_rate(tally.pass_rate)}</b></p>"
    )


def pass_table(tally: Tally, index: dict[str, int], target: float) -> str:
    """Outcome counts and pass rate per criterion; each name links to the rows it fails."""
    head = "".join(f"<th>{h}</th>" for h in ("passed", "failed", "inconclusive", "error", "n/a", "pass rate"))
    rows = [
        f'<table id="pass-rates"><tr><th class="text">criterion</th><th class="text">kind</th>{head}</tr>'
    ]
    for c in tally.criteria:
        cells = "".join(
            f"<td>{c.counts[o]}</td>" for o in ("PASSED", "FAILED", "INCONCLUSIVE", "ERROR", "NOT_APPLICABLE")
        )
        name = escape(c.name)
        if c.name in index:
            name = (
                f'<a href="#rows" data-criterion="{index[c.name]}" title="show the rows it fails">{name}</a>'
            )
        rate = c.pass_rate
        mark = "" if rate is None else (' class="pass"' if rate >= target else ' class="fail"')
        rows.append(
            f'<tr><td class="text">{name}</td><td class="text">{escape(c.kind)}</td>{cells}'
            f"<td{mark}>{format_rate(rate)}</td></tr>"
        )
    rate = tally.pass_rate
    mark = "" if rate is None else (' class="pass"' if rate >= target else ' class="fail"')
    rows.append(
        f'<tr><td class="text"><b>overall</b></td><td class="text">rows</td><td>{tally.passed}</td>'
        f"<td>{tally.judged - tally.passed}</td><td></td><td>{tally.errors or ''}</td><td></td>"
        f"<td{mark}><b>{format_rate(rate)}</b></td></tr></table>"
    )
    return "".join(rows)


_OUTCOMES = (
    ("any", "any outcome"),
    ("failing", "failing (blocks)"),
    ("passing", "passing"),
    ("borderline", "borderline"),
    ("error", "not judged / error"),
    ("FAILED", "FAILED"),
    ("INCONCLUSIVE", "INCONCLUSIVE"),
    ("ERROR", "ERROR"),
    ("NOT_APPLICABLE", "NOT_APPLICABLE"),
    ("PASSED", "PASSED"),
)


def rows_section(
    heading: str,
    columns: Sequence[str],
    note: str,
    *,
    outcomes: Sequence[tuple[str, str]] = _OUTCOMES,
    sorts: Sequence[tuple[str, str]] = (("row", "row order"), ("closeness", "closest to a threshold first")),
) -> str:
    """The row viewer's frame: its note, its controls (``outcomes``, ``sorts``) and an empty table."""
    options = "".join(f'<option value="{escape(v)}">{escape(label)}</option>' for v, label in outcomes)
    order = "".join(f'<option value="{escape(v)}">{escape(label)}</option>' for v, label in sorts)
    head = "".join(
        f'<th class="{"text" if c not in ("row", "closeness") else ""}">{escape(c)}</th>' for c in columns
    )
    return (
        f'<h2 id="rows">{escape(heading)}</h2>'
        f'<p class="note" id="rows-note">{escape(note)}</p>'
        '<noscript><p class="note">The rows are drawn by the page\'s own script; allow it to see them.</p>'
        "</noscript>"
        '<div class="controls">'
        '<label>criterion <select id="f-criterion"><option value="-1">every criterion</option></select>'
        "</label>"
        f'<label>outcome <select id="f-outcome">{options}</select></label>'
        '<label>search <input id="f-search" type="search" placeholder="text in the row or its feedback">'
        "</label>"
        f'<label>sort <select id="f-sort">{order}</select></label>'
        '<span class="note" id="f-count"></span></div>'
        f'<table id="rows-table"><thead><tr>{head}</tr></thead><tbody id="rows-body"></tbody></table>'
    )
