"""The calibration's parts of a report: figures, suggestion, disagreements, reliability, threshold curves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from langchain_jev.calibration._measure import Calibration
from langchain_jev.calibration._suggest import Suggestion
from langchain_jev.calibration._tables import Disagreement, member_groups
from langchain_jev.report import _charts as charts
from langchain_jev.report._layout import escape

__all__ = ["MAX_DISAGREEMENTS", "calibration_sections", "disagreement_table", "members_section"]

MAX_DISAGREEMENTS = 500
"""Disagreements listed at most (the page says how many more)."""


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def calibration_sections(
    calibration: Calibration,
    suggestion: Suggestion | None,
    row_index: Mapping[int, int],
    limit: int = MAX_DISAGREEMENTS,
) -> list[str]:
    """The calibration's parts of the page: figures, overall agreement, suggestion, disagreements, charts.

    ``row_index`` maps ``id(record)`` to the record's place in the row viewer, so a
    disagreement's row opens there.
    """
    parts = ["<h2>Calibration against human labels</h2>"]
    head = (
        "criterion",
        "kind",
        "n",
        "base rate",
        "AUROC",
        "Brier",
        "ECE",
        "threshold",
        "accuracy",
        "kappa",
        "kappa 95% CI",
        "false-pass",
        "false-fail",
    )
    table = ["<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for c in calibration.criteria:
        conf = c.confusion
        interval = f"{c.kappa_interval[0]:.3f} to {c.kappa_interval[1]:.3f}" if c.kappa_interval else "-"
        cells = [
            c.name,
            c.kind,
            c.n,
            _f(conf.base_rate),
            _f(c.auroc),
            _f(c.brier),
            _f(c.ece),
            f"{c.threshold_name} {c.threshold:g}",
            _f(conf.accuracy),
            _f(conf.kappa),
            interval,
            _f(conf.false_pass_rate),
            _f(conf.false_fail_rate),
        ]
        table.append("<tr>" + "".join(f"<td>{escape(x)}</td>" for x in cells) + "</tr>")
    table.append("</table>")
    parts.extend(table)
    parts.extend(members_section(calibration))
    if calibration.overall is not None or (suggestion and suggestion.before):
        parts.append("<h2>Overall verdict against the overall label</h2>")
        rows = [
            "<table><tr><th></th><th>n</th><th>accuracy</th><th>kappa</th><th>kappa 95% CI</th>"
            "<th>false-pass</th><th>false-fail</th></tr>"
        ]
        pairs = [("current thresholds", calibration.overall)]
        if suggestion is not None and suggestion.after is not None:
            pairs.append(("suggested thresholds", suggestion.after))
        for label, agreement in pairs:
            if agreement is None:
                continue
            a = agreement.confusion
            ki = agreement.kappa_interval
            interval = f"{ki[0]:.3f} to {ki[1]:.3f}" if ki else "-"
            rows.append(
                f'<tr><td class="text">{label}</td><td>{a.n}</td>'
                f"<td>{_f(a.accuracy)}</td><td>{_f(a.kappa)}</td>"
                f"<td>{interval}</td><td>{_f(a.false_pass_rate)}</td><td>{_f(a.false_fail_rate)}</td></tr>"
            )
        rows.append("</table>")
        parts.extend(rows)
    if suggestion is not None:
        parts.append(f"<h2>Suggested thresholds ({escape(suggestion.objective.describe())})</h2>")
        changes = suggestion.changes()
        if changes:
            parts.append('<table><tr><th class="text">threshold</th><th>current</th><th>suggested</th></tr>')
            parts.extend(
                f'<tr><td class="text">{escape(name)}</td><td>{old:g}</td><td>{new:g}</td></tr>'
                for name, old, new in changes
            )
            parts.append("</table>")
        else:
            parts.append('<p class="note">The current thresholds already meet the objective best.</p>')
        for name, why in suggestion.unmet.items():
            parts.append(f'<p class="note">{escape(name)}: left as it is ({escape(why)})</p>')
    parts.extend(disagreement_table(calibration.disagreements(), row_index, limit))
    parts.append('<h2>Reliability diagrams</h2><div class="charts">')
    for c in calibration.criteria:
        if c.n:
            parts.append(charts.reliability_chart(c.name, [b.to_dict() for b in c.reliability]))
    parts.append('</div><h2>Threshold curves</h2><div class="charts">')
    for c in calibration.criteria:
        if not c.n:
            continue
        if suggestion is None:
            suggested = None
        elif c.threshold_name == "minimum":
            suggested = suggestion.minimums.get(c.name)
        else:
            suggested = suggestion.min_confidence
        parts.append(
            charts.threshold_chart(
                c.name, c.threshold_name, [p.to_dict() for p in c.sweep], c.threshold, suggested
            )
        )
    parts.append("</div>")
    if calibration.stability:
        parts.append(f"<h2>Stability over {calibration.repeats} requests per row</h2>")
        parts.append(
            '<table><tr><th class="text">criterion</th><th>rows</th><th>flip rate</th>'
            "<th>mean within-row variance</th></tr>"
        )
        for s in calibration.stability:
            parts.append(
                f'<tr><td class="text">{escape(s.name)}</td><td>{s.rows}</td><td>{_f(s.flip_rate)}</td>'
                f"<td>{'-' if s.mean_variance is None else f'{s.mean_variance:.5f}'}</td></tr>"
            )
        parts.append("</table>")
    return parts


def members_section(calibration: Calibration) -> list[str]:
    """Each jury member's agreement with the labels beside the jury's (nothing when no jury judged)."""
    if not calibration.members:
        return []
    parts = [
        '<h2 id="jury-members">The jury\'s members against the same labels</h2>',
        '<p class="note">Each member decided as the judge\'s only model, at the same thresholds, on the '
        "rows it answered; the jury's own figures first. Green marks the best kappa of each.</p>",
        '<table id="members-table"><tr><th class="text">criterion</th><th class="text">model</th><th>n</th>'
        "<th>AUROC</th><th>Brier</th><th>accuracy</th><th>kappa</th><th>false-pass</th><th>false-fail</th></tr>",
    ]
    for group in member_groups(calibration):
        best = max((line.confusion.kappa for line in group if line.confusion.kappa is not None), default=None)
        for place, line in enumerate(group):
            conf = line.confusion
            mark = ' class="pass"' if best is not None and conf.kappa == best else ""
            label = "" if place else "overall verdict" if line.overall else line.name
            auroc, brier = ("", "") if line.overall else (_f(line.auroc), _f(line.brier))
            parts.append(
                f'<tr><td class="text">{escape(label)}</td><td class="text">{escape(line.who)}</td>'
                f"<td>{conf.n}</td><td>{auroc}</td><td>{brier}</td>"
                f"<td>{_f(conf.accuracy)}</td><td{mark}>{_f(conf.kappa)}</td>"
                f"<td>{_f(conf.false_pass_rate)}</td><td>{_f(conf.false_fail_rate)}</td></tr>"
            )
    parts.append("</table>")
    return parts


def disagreement_table(
    items: Sequence[Disagreement], row_index: Mapping[int, int], limit: int = MAX_DISAGREEMENTS
) -> list[str]:
    """The rows where the judge and the labels disagree, most confident first; each opens in the viewer."""
    parts = [
        '<h2 id="disagreements">Where the judge and the labels disagree</h2>',
        '<p class="note">Most confident first: the judge\'s probability on the side it took. '
        "Open a row to see its judged state and every finding.</p>",
    ]
    if not items:
        parts.append('<p class="pass">The judge agrees with every label.</p>')
        return parts
    parts.append(
        '<table id="disagreement-table"><tr><th>row</th><th class="text">id</th>'
        '<th class="text">criterion</th><th class="text">people</th><th class="text">judge</th>'
        "<th>pass probability</th><th>confidence</th></tr>"
    )
    for item in items[:limit]:
        record = item.record
        number = record.get("row", "?")
        place = row_index.get(id(record))
        what = item.criterion if item.criterion is not None else "overall verdict"
        cell = escape(number)
        if place is not None:
            cell = f'<a href="#rows" data-row="{place}">{cell}</a>'
        parts.append(
            f'<tr class="{escape(item.kind.replace(" ", "-"))}"><td>{cell}</td>'
            f'<td class="text">{escape(record.get("id", ""))}</td>'
            f'<td class="text">{escape(what)}</td>'
            f'<td class="text">{"pass" if item.label else "fail"}</td>'
            f'<td class="text fail">{escape(item.kind)}</td>'
            f"<td>{_f(item.probability)}</td><td>{_f(item.confidence)}</td></tr>"
        )
    parts.append("</table>")
    if len(items) > limit:
        parts.append(f'<p class="note">and {len(items) - limit} more (see --json)</p>')
    return parts
