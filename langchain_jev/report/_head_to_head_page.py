"""The head-to-head page: both runs' provenance, each criterion's wins with the sign test, every row openable.

Built like the comparison page (`langchain_jev.report._compare_page`): the data of the
rows (each row's shared input, both answers, and per criterion the preference with
what each order chose), the layout (`langchain_jev.report._layout`) and the one script
its policy allows, in its ``pairwise`` mode. A row opens to what both answers answer,
the two answers side by side, and each criterion's preference with both orders,
the probabilities and the detail (and, when a jury compared, each member's own
preference); undecided rows (position bias) and errors are
marked. Every text is cut at `langchain_jev.report._data.TEXT_CAP` characters.
"""

from __future__ import annotations

import os
from typing import Any

from langchain_jev.compare._head_to_head import SIGN_TEST, HeadToHead, HeadToHeadRow, PreferenceCounts
from langchain_jev.datasets._writing import write_atomic
from langchain_jev.report._data import MAX_ROWS, cut_text, state_items
from langchain_jev.report._layout import document, escape, provenance_pair, rows_section
from langchain_jev.report._provenance import Provenance

__all__ = ["render_head_to_head", "write_head_to_head_page"]

_OUTCOMES = (
    ("any", "any preference"),
    ("A", "A better"),
    ("B", "B better"),
    ("TIE", "equally good"),
    ("INCONCLUSIVE", "undecided (position bias)"),
    ("ERROR", "not compared / error"),
)


def write_head_to_head_page(path: str | os.PathLike[str], result: HeadToHead, **options: Any) -> None:
    """Write the head-to-head page to ``path`` (see `render_head_to_head` for ``options``).

    Raises:
        OSError: the file cannot be written.

    """
    page = render_head_to_head(result, **options)
    write_atomic(path, page)  # whole or not at all; a lone surrogate as its escape


def _row(row: HeadToHeadRow, index: dict[str, int]) -> dict[str, Any]:
    a = row.pair.pair.a
    number = a.get("row")
    data: dict[str, Any] = {
        "n": number if isinstance(number, int) and not isinstance(number, bool) else None,
        "k": str(a.get("key", ""))[:64],
        "s": state_items(row.pair.shared),
        "ans": [cut_text(answer) for answer in row.pair.answers],
    }
    if a.get("id") is not None:
        data["id"] = cut_text(str(a["id"]), 200)
    if row.verdict is None:
        data["err"] = cut_text(str(row.error))
        data["pref"] = "ERROR"
        data["f"] = []
        return data
    data["pref"] = row.verdict.preferred.value
    data["sum"] = cut_text(row.verdict.summary())
    findings = []
    for finding in row.verdict.findings:
        item: dict[str, Any] = {
            "c": index.get(finding.name, -1),
            "o": finding.preference.value,
            "orders": [o.value if o is not None else None for o in finding.orders],
            "d": cut_text(finding.detail),
        }
        if finding.probabilities is not None:
            item["p"] = [[side, round(p, 6)] for side, p in finding.probabilities.items()]
        if finding.reasoning:
            item["r"] = cut_text(finding.reasoning)
        if finding.members is not None:  # a jury compared: each member's own preference
            item["m"] = [[cut_text(name, 200), said.value] for name, said in finding.members.items()]
        findings.append(item)
    data["f"] = findings
    return data


def render_head_to_head(
    result: HeadToHead,
    *,
    title: str | None = None,
    provenance: tuple[Provenance | None, Provenance | None] = (None, None),
    judged_by: str | None = None,
    limit: int = MAX_ROWS,
) -> str:
    """The head-to-head comparison as one self-contained HTML page.

    Rows come in row order, undecided and failed rows first when more than ``limit``
    rows were compared (the page says how many were left out).

    Example:
        >>> from langchain_jev.compare import AnswerPair
        >>> from langchain_jev.compare import RowPair
        >>> from langchain_jev.pairwise import PairwiseFinding, PairwiseVerdict, Preference
        >>> won = PairwiseFinding("helpful", Preference.B, (Preference.B, Preference.B), None, "B is better")
        >>> row = {"row": 1, "key": "k"}
        >>> pair = AnswerPair(RowPair("k#1", row, row), {"user_question": "Rain?"}, ("Maybe.", "<b>Yes</b>"))
        >>> page = render_head_to_head(HeadToHead(("A", "B"), ["helpful"], [HeadToHeadRow(pair,
        ...     PairwiseVerdict((won,), None))]))
        >>> page.startswith("<!DOCTYPE html>"), '"pairwise":true' in page, "<b>Yes" in page
        (True, True, False)

    """
    first, second = result.labels
    index = {name: i for i, name in enumerate(result.names)}
    chosen = list(result.rows)
    left_out = max(0, len(chosen) - limit)
    if left_out:  # undecided and failed rows first, then the rest; shown in row order
        kept = sorted(range(len(chosen)), key=lambda i: (_decided(chosen[i]), i))[: max(0, limit)]
        chosen = [chosen[i] for i in sorted(kept)]
    data = {
        "pairwise": True,
        "labels": [first, second],
        "criteria": [{"name": name, "kind": "pairwise", "threshold": ""} for name in result.names],
        "rows": [_row(row, index) for row in chosen],
        "total": len(result.rows),
        "left_out": left_out,
    }
    heading = title or f"head to head: {first} vs {second}"
    note = (
        f"{len(chosen)} of {len(result.rows)} rows, in row order. Open a row for what both answers answer, "
        f"the two answers side by side, and each criterion's preference in both orders."
        + (f" {left_out} rows are left out (undecided and failed rows were kept first)." if left_out else "")
    )
    body = [
        f"<h1>{escape(heading)}</h1>",
        f'<p class="note">Judged head to head by {escape(judged_by)}: {escape(result.requests("per row"))}, '
        "each criterion asked with the answers in both orders.</p>"
        if judged_by
        else "",
        provenance_pair(result.labels, provenance),
        "<h2>Preferences</h2>",
        f'<p class="note">Per criterion over the {len(result.rows)} rows (joined by {escape(result.on)}): '
        f"how often {escape(first)}'s answer was better in both orders, {escape(second)}'s, both equally "
        "good, undecided (the orders disagreed: position bias, or a lean in one order; or a jury's members "
        "did), and not compared. "
        f"{escape(SIGN_TEST[0].upper() + SIGN_TEST[1:])}.</p>",
        _table(result, index),
        *(f'<p class="note">{escape(line)}</p>' for line in result.notes() if line != SIGN_TEST),
        rows_section(
            "Rows",
            ("row", "id", "preferred", "undecided criteria", "summary"),
            note,
            outcomes=_OUTCOMES,
            sorts=(("row", "row order"),),
        ),
    ]
    return document(heading, body, data)


def _decided(row: HeadToHeadRow) -> bool:
    return row.verdict is not None and row.verdict.preferred.value != "INCONCLUSIVE"


def _table(result: HeadToHead, index: dict[str, int]) -> str:
    first, second = result.labels
    head = (
        '<table id="pairwise-table"><tr><th class="text">criterion</th>'
        f"<th>{escape(first)} wins</th><th>{escape(second)} wins</th><th>ties</th><th>undecided</th>"
        '<th>position bias</th><th>errors</th><th>sign test p</th><th class="text"></th></tr>'
    )
    return head + "".join(_table_row(c, index) for c in [*result.criteria, result.overall]) + "</table>"


def _table_row(counts: PreferenceCounts, index: dict[str, int]) -> str:
    name = escape(counts.name)
    if counts.name in index:
        name = f'<a href="#rows" data-criterion="{index[counts.name]}" title="its rows">{name}</a>'
    mark = "" if counts.verdict == "no clear winner" else ' class="pass"'
    return (
        f'<tr><td class="text">{name}</td><td>{counts.a}</td><td>{counts.b}</td><td>{counts.tie}</td>'
        f"<td>{counts.inconclusive}</td><td>{counts.position_bias}</td><td>{counts.errors}</td>"
        f'<td>{counts.p_value:.3f}</td><td class="text"><span{mark}>{escape(counts.verdict)}</span></td></tr>'
    )
