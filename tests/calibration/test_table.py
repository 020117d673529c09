"""The calibration's text table: two tables a terminal shows whole, every figure under its header.

The first says how each pass probability ranks the labelled rows (n, base, AUROC, Brier,
ECE), the second how the decisions at the current thresholds agree with the labels
(threshold, accuracy, kappa and its 95% interval, false-pass and false-fail rates). With
criterion names up to 30 characters each line fits 88 columns; a longer name widens the
tables and every figure still stands under its header.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.decisions import Noul

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.calibration import calibrate
from langchain_jev.testing import ScriptedDecisionModel

ANSWERS = ("0.9", "0.6", "0.2", "0.8", "0.4", "0.7")
LABELS = (True, False, False, True, True, False)


def _calibration(names: tuple[str, str]) -> Any:
    first, second = names
    judge = JevJudge(
        [
            JevCriterion.noul(first, Noul(instructions="Polite?"), 0.5),
            JevCriterion.noul(second, Noul(instructions="Brief?"), 0.7),
        ],
        model=ScriptedDecisionModel(
            {
                first: lambda state, q: float(state["assistant_answer"]),
                second: lambda state, q: 1.0 - float(state["assistant_answer"]),
            }
        ),
    )
    rows = [{"answer": a, "ok": ok} for a, ok in zip(ANSWERS, LABELS, strict=True)]
    return calibrate(judge, rows, "ok")


def _tables(text: str) -> list[tuple[str, list[str]]]:
    """Each table's title line and its lines (header first)."""
    blocks = text.split("\n\n")
    return [(block.splitlines()[0], block.splitlines()[1:]) for block in blocks]


def _cells(line: str) -> list[tuple[int, int]]:
    """Where each cell of a line starts and ends: cells stand two spaces or more apart."""
    return [(m.start(), m.end()) for m in re.finditer(r"\S+(?: \S+)*", line)]


def test_the_figures_stand_in_two_tables_under_their_headers() -> None:
    calibration = _calibration(("polite", "brief"))
    (rank_title, ranking), (agree_title, agreement) = _tables(calibration.table())
    assert rank_title == "how each pass probability ranks the labelled rows:"
    assert agree_title == "agreement with the labels at the current thresholds:"
    assert ranking[0].split() == ["criterion", "kind", "n", "base", "AUROC", "Brier", "ECE"]
    assert agreement[0].split() == ["criterion", "thresh.", "acc.", "kappa", "95%", "CI", "f-pass", "f-fail"]
    for line, c in zip(ranking[1:], calibration.criteria, strict=False):
        conf = c.confusion
        figures = [
            c.name,
            "noul",
            str(c.n),
            f"{conf.base_rate:.2f}",
            f"{c.auroc:.2f}",
            f"{c.brier:.2f}",
            f"{c.ece:.2f}",
        ]
        assert line.split() == figures
    for line, c in zip(agreement[1:], calibration.criteria, strict=False):
        conf, (low, high) = c.confusion, c.kappa_interval
        assert line.split() == [
            c.name,
            f"{c.threshold:g}",
            f"{conf.accuracy:.2f}",
            f"{conf.kappa:.2f}",
            f"[{low:.2f},",
            f"{high:.2f}]",
            f"{conf.false_pass_rate:.2f}",
            f"{conf.false_fail_rate:.2f}",
        ]
    overall = calibration.overall.confusion
    assert ranking[-1].split() == ["overall", "verdict", str(overall.n), f"{overall.base_rate:.2f}"]
    assert agreement[-1].split()[:3] == ["overall", f"{overall.accuracy:.2f}", f"{overall.kappa:.2f}"]


names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=60).filter(
    lambda name: name[0] != "_" and name != "overall"
)


@settings(max_examples=25, deadline=None)
@given(st.tuples(names, names).filter(lambda pair: pair[0] != pair[1]))
def test_every_figure_ends_under_its_header_and_short_names_fit_88_columns(pair: tuple[str, str]) -> None:
    text = _calibration(pair).table()
    for _, lines in _tables(text):
        header = _cells(lines[0])
        left = {start for start, _ in header[:2]} if "kind" in lines[0] else {header[0][0]}
        ends = [end for _, end in header]
        for line in lines[1:]:
            cells = _cells(line)
            assert cells[0][0] == 0, line  # the name, left-aligned
            figures = [cell for cell in cells[1:] if cell[0] not in left]
            # right-aligned: each figure ends where a header ends, in the headers' order
            positions = [ends.index(end) for _, end in figures]
            assert positions == sorted(set(positions)), (line, lines[0])
    if max(len(name) for name in pair) <= 30:
        assert max(len(line) for line in text.splitlines()) <= 88, text
