"""The HTML report: one self-contained page (inline CSS and SVG, no script, no request) from result records.

It shows the pass rate of each criterion, the distribution of each question's
pass probability with its threshold drawn on it, the failing rows with their
feedback and, for a calibration, its figures, reliability diagrams, threshold
curves and stability.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_jev.calibration.sweep import blocks, pass_probability
from langchain_jev.datasets.results import stored_answer
from langchain_jev.datasets.tally import Tally, format_rate
from langchain_jev.judge import JevJudge
from langchain_jev.verdict import Outcome

if TYPE_CHECKING:
    from langchain_jev.calibration.measure import Calibration
    from langchain_jev.calibration.suggest import Suggestion

__all__ = ["render_report", "write_report"]

MAX_FAILING_ROWS = 200
"""Failing rows listed at most (the count of the rest is given)."""

_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1100px;
color:#1a202c;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #e2e8f0;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #e2e8f0;padding:.25em .6em;text-align:right;vertical-align:top}
th{background:#f7fafc}td.text,th.text{text-align:left}td.feedback{text-align:left;white-space:pre-wrap;max-width:640px}
.charts{display:flex;flex-wrap:wrap;gap:1em}.charts svg{max-width:100%;height:auto}
.summary{font-size:1.1em}.fail{color:#c53030}.pass{color:#2f855a}.note{color:#4a5568}
"""
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def write_report(
    path: str | os.PathLike[str],
    judge: JevJudge,
    records: Sequence[Mapping[str, Any]],
    *,
    title: str = "langchain-jev report",
    calibration: Calibration | None = None,
    suggestion: Suggestion | None = None,
) -> None:
    """Write the report of ``records`` (judged by ``judge``) to ``path`` as one HTML file.

    Raises:
        ImportError: matplotlib is not installed (the ``report`` extra).
        OSError: the file cannot be written.

    Example::

        from langchain_jev.calibration import NoRequestModel, read_results
        from langchain_jev.spec import load_judge

        judge = load_judge("judge.yaml", model=NoRequestModel())
        write_report("report.html", judge, read_results("results.jsonl"), title="nightly run")

    """
    page = render_report(judge, records, title=title, calibration=calibration, suggestion=suggestion)
    Path(path).write_text(page, encoding="utf-8")


def render_report(
    judge: JevJudge,
    records: Sequence[Mapping[str, Any]],
    *,
    title: str = "langchain-jev report",
    calibration: Calibration | None = None,
    suggestion: Suggestion | None = None,
) -> str:
    """The report as HTML text (see `write_report`).

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
        >>> from langchain_jev.calibration import NoRequestModel
        >>> polite = JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.7)
        >>> judge = JevJudge([polite], NoRequestModel())
        >>> record = {"row": 1, "passed": False, "feedback": "polite: <rude>", "findings": [{"name": "polite",
        ...     "kind": "noul", "outcome": "FAILED", "answer": {"type": "noul", "noul": 0.2}}]}
        >>> page = render_report(judge, [record], title="run")
        >>> page.startswith("<!DOCTYPE html>"), "<svg" in page, "polite: &lt;rude&gt;" in page
        (True, True, True)

    """
    from langchain_jev.report import charts

    tally = Tally((c.name, c.kind) for c in judge.criteria)
    for record in records:
        tally.add(record)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="summary">{tally.rows} rows: {tally.passed} passed, {tally.judged - tally.passed} failed'
        + (f", {tally.errors} not judged" if tally.errors else "")
        + f"; pass rate <b>{format_rate(tally.pass_rate)}</b></p>",
        "<h2>Pass rates</h2>",
        _pass_table(tally),
        '<div class="charts">',
        charts.pass_rate_chart(
            [c.name for c in tally.criteria] + ["overall"],
            [c.pass_rate for c in tally.criteria] + [tally.pass_rate],
        ),
        "</div>",
        "<h2>Probabilities</h2>",
        '<p class="note">The judge\'s probability that each question passes, over the rows where it was '
        "answered; the blue line is its threshold (for scores and choices 0.5, between dashed lines at "
        "min_confidence).</p>",
        '<div class="charts">',
        *_probability_charts(judge, records),
        "</div>",
        "<h2>Failing rows</h2>",
        _failing(records),
    ]
    if calibration is not None:
        parts.extend(_calibration(calibration, suggestion))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _pass_table(tally: Tally) -> str:
    head = "".join(f"<th>{h}</th>" for h in ("passed", "failed", "inconclusive", "error", "n/a", "pass rate"))
    rows = [f'<table><tr><th class="text">criterion</th><th class="text">kind</th>{head}</tr>']
    for c in tally.criteria:
        cells = "".join(
            f"<td>{c.counts[o]}</td>" for o in ("PASSED", "FAILED", "INCONCLUSIVE", "ERROR", "NOT_APPLICABLE")
        )
        rows.append(
            f'<tr><td class="text">{_e(c.name)}</td><td class="text">{_e(c.kind)}</td>{cells}'
            f"<td>{format_rate(c.pass_rate)}</td></tr>"
        )
    rows.append(
        f'<tr><td class="text"><b>overall</b></td><td class="text">rows</td><td>{tally.passed}</td>'
        f"<td>{tally.judged - tally.passed}</td><td></td><td>{tally.errors or ''}</td><td></td>"
        f"<td><b>{format_rate(tally.pass_rate)}</b></td></tr></table>"
    )
    return "".join(rows)


def _probability_charts(judge: JevJudge, records: Sequence[Mapping[str, Any]]) -> list[str]:
    from langchain_jev.report import charts

    out = []
    for criterion in judge.criteria:
        if not criterion.is_question:
            continue
        probabilities: list[float] = []
        passed: list[bool] = []
        for record in records:
            for finding in record.get("findings") or ():
                if finding.get("name") != criterion.name or "answer" not in finding:
                    continue
                if finding.get("outcome") == Outcome.NOT_APPLICABLE.value:
                    continue
                try:
                    probabilities.append(
                        pass_probability(criterion, stored_answer(finding["answer"], criterion))
                    )
                except ValueError:
                    continue
                outcome = Outcome(finding["outcome"])
                passed.append(not blocks(outcome, judge.fail_on_inconclusive, judge.fail_on_error))
        if not probabilities:
            out.append(f'<p class="note">{_e(criterion.name)}: no stored answer to draw.</p>')
            continue
        if criterion.kind == "noul":
            out.append(
                charts.probability_chart(criterion.name, probabilities, passed, criterion.minimum or 0.0)
            )
        else:
            label = (
                f"share of probability on levels >= {criterion.minimum:g}"
                if criterion.kind == "score"
                else "share of probability on accepted labels"
            )
            out.append(
                charts.probability_chart(
                    criterion.name, probabilities, passed, 0.5, band=judge.min_confidence, label=label
                )
            )
    return out


def _failing(records: Sequence[Mapping[str, Any]]) -> str:
    failing = [r for r in records if r.get("passed") is not True]
    if not failing:
        return '<p class="pass">No row failed.</p>'
    rows = [
        '<table><tr><th>row</th><th class="text">id</th><th class="text">failed</th>'
        '<th class="text">feedback</th></tr>'
    ]
    for record in failing[:MAX_FAILING_ROWS]:
        if "error" in record:
            names, text = "not judged", str(record["error"])
        else:
            names = ", ".join(
                str(f.get("name"))
                for f in record.get("findings") or ()
                if f.get("outcome") == Outcome.FAILED.value
            )
            text = str(record.get("feedback") or "")
        rows.append(
            f'<tr><td>{_e(record.get("row", ""))}</td><td class="text">{_e(record.get("id", ""))}</td>'
            f'<td class="text fail">{_e(names)}</td><td class="feedback">{_e(text)}</td></tr>'
        )
    rows.append("</table>")
    if len(failing) > MAX_FAILING_ROWS:
        rows.append(
            f'<p class="note">and {len(failing) - MAX_FAILING_ROWS} more failing rows '
            "(see the results file)</p>"
        )
    return "".join(rows)


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _calibration(calibration: Calibration, suggestion: Suggestion | None) -> list[str]:
    from langchain_jev.report import charts

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
        table.append("<tr>" + "".join(f"<td>{_e(x)}</td>" for x in cells) + "</tr>")
    table.append("</table>")
    parts.extend(table)
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
        parts.append(f"<h2>Suggested thresholds ({_e(suggestion.objective.describe())})</h2>")
        changes = suggestion.changes()
        if changes:
            parts.append('<table><tr><th class="text">threshold</th><th>current</th><th>suggested</th></tr>')
            parts.extend(
                f'<tr><td class="text">{_e(name)}</td><td>{old:g}</td><td>{new:g}</td></tr>'
                for name, old, new in changes
            )
            parts.append("</table>")
        else:
            parts.append('<p class="note">The current thresholds already meet the objective best.</p>')
        for name, why in suggestion.unmet.items():
            parts.append(f'<p class="note">{_e(name)}: left as it is ({_e(why)})</p>')
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
                f'<tr><td class="text">{_e(s.name)}</td><td>{s.rows}</td><td>{_f(s.flip_rate)}</td>'
                f"<td>{'-' if s.mean_variance is None else f'{s.mean_variance:.5f}'}</td></tr>"
            )
        parts.append("</table>")
    return parts
