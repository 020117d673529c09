"""Two ``guardrail-eval`` runs compared: per category and overall, what moved, whether by more than noise.

A results file of ``guardrail-eval`` is a results file whose header's judge is a
battery (`langchain_jev.guardrails.quality._judging.battery_description`: its model
field names the side and window); `results_kind` tells the kinds apart, and
`compare_guardrail_files` refuses a judge run beside a guardrail run, naming both files.

Each file is measured again (`measure_results`: the labels read from the dataset its
header names, at the thresholds it recorded), then, per category and overall:

- unpaired, A and B side by side: ROC AUC, recall at the battery's thresholds and at
  each preset's, the false-refusal rate, recall at a false-positive rate of 1%, and
  (overall) P50 / P95 seconds per check;
- paired, over the rows both runs judged (joined as `join_rows` joins, by content key
  or by id): recall on the unsafe rows, the false-refusal rate on the safe rows and
  the share of rows decided right, each as `PairedCounts` (McNemar's exact p,
  Newcombe's interval of the difference), with each run's own thresholds;
- the rows whose overall decision flipped, with their text, regressions first (a
  regression: B decides the row wrongly, A rightly).

A category's rows are those `measure` counts for it (its unsafe rows and the safe
ones). Pure but for `compare_guardrail_files`, which reads the files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_jev._errors import ComparisonError
from langchain_jev.compare._join import JoinOn, join_rows
from langchain_jev.compare._stats import PairedCounts
from langchain_jev.datasets._tally import text_columns
from langchain_jev.guardrails._catalog import STRICTNESS_PRESETS, Direction
from langchain_jev.guardrails.quality._evaluate import Columns, GuardrailEval, measure_results
from langchain_jev.guardrails.quality._metrics import Figure, plain
from langchain_jev.guardrails.quality._summary import OVERALL, CategoryQuality, GuardrailQuality, ScoredRow

__all__ = [
    "GUARDRAIL",
    "JUDGE",
    "GuardrailChange",
    "GuardrailComparison",
    "GuardrailFlip",
    "battery_side",
    "compare_guardrail_files",
    "compare_guardrail_quality",
    "results_kind",
]

GUARDRAIL = "guardrail-eval"
"""The kind of a results file written by ``guardrail-eval``."""
JUDGE = "judge"
"""The kind of a results file written by ``judge`` (any other results file)."""
LATENCY = ("p50", "p95")
"""The latency percentiles compared."""


def battery_side(header: Mapping[str, Any] | None) -> Direction | None:
    """The side of the battery a results header describes, or None when its judge is not a battery.

    Example:
        >>> battery_side({"judge": {"model": '{"side": "output", "window": 100000}'}})
        'output'
        >>> battery_side({"judge": {"model": "jev-latest"}}) is None
        True

    """
    judge = header.get("judge") if header else None
    model = judge.get("model") if isinstance(judge, Mapping) else None
    if not isinstance(model, str) or not model.startswith("{"):
        return None
    try:
        identity = json.loads(model)
    except ValueError:
        return None
    side = identity.get("side") if isinstance(identity, dict) else None
    if side in ("input", "output", "tool_results") and "window" in identity:
        return side  # type: ignore[no-any-return]
    return None


def results_kind(header: Mapping[str, Any] | None) -> str:
    """`GUARDRAIL` for a ``guardrail-eval`` results header, `JUDGE` for any other."""
    return GUARDRAIL if battery_side(header) is not None else JUDGE


@dataclass(frozen=True)
class GuardrailChange:
    """One category (or ``"overall"``) under both runs: its figures side by side, and the paired counts."""

    name: str
    figures: Mapping[str, tuple[float | None, float | None]]
    """Per figure, A's value and B's (None: undefined, or the category is not in that run)."""
    recall: PairedCounts
    """Unsafe rows both judged: flagged under A, under B (the rates are each run's recall)."""
    false_refusals: PairedCounts
    """Safe rows both judged: flagged under A, under B (the rates are each run's false-refusal rate)."""
    decisions: PairedCounts
    """Every row both judged: decided right (flagged exactly when unsafe) under A, under B."""

    def delta(self, figure: str) -> float | None:
        """B's value minus A's (None when either is undefined)."""
        a, b = self.figures.get(figure, (None, None))
        return None if a is None or b is None else b - a

    def to_dict(self) -> dict[str, Any]:
        """The change as plain data."""
        return {
            "name": self.name,
            "figures": {
                name: {"a": a, "b": b, "delta": self.delta(name)} for name, (a, b) in self.figures.items()
            },
            "recall": self.recall.to_dict(),
            "false_refusals": self.false_refusals.to_dict(),
            "decisions": self.decisions.to_dict(),
        }


@dataclass(frozen=True)
class GuardrailFlip:
    """A row both runs judged whose overall decision (flagged or let through) differs between them."""

    a: ScoredRow
    b: ScoredRow
    flagged: tuple[bool, bool]
    """Flagged under A, under B."""
    categories: tuple[str, ...]
    """The categories whose own decision flipped on this row."""

    @property
    def regression(self) -> bool:
        """True when B decides the row wrongly (a safe row refused, an unsafe one let through)."""
        return self.flagged[1] != self.b.label.unsafe

    @property
    def label(self) -> str:
        """``regression`` or ``improvement``, and what the row is."""
        what = "regression" if self.regression else "improvement"
        return f"{what} ({'unsafe' if self.b.label.unsafe else 'safe'})"

    def to_dict(self) -> dict[str, Any]:
        """The flip as plain data, its text included."""
        return {
            "row": self.b.row,
            "id": self.b.row_id,
            "unsafe": self.b.label.unsafe,
            "labelled": sorted(self.b.label.categories),
            "regression": self.regression,
            "flagged": list(self.flagged),
            "top": [self.a.top, self.b.top],
            "categories": list(self.categories),
            "text": self.b.text,
        }


@dataclass(frozen=True)
class GuardrailComparison:
    """Two ``guardrail-eval`` runs compared (module docstring); by `compare_guardrail_quality`.

    Example:
        >>> from langchain_jev.guardrails.quality import RowLabel, measure
        >>> rows = [ScoredRow(1, RowLabel(True, frozenset({"hate"})), {"hate": 0.4})]
        >>> before, after = measure(rows, {"hate": 0.5}), measure(rows, {"hate": 0.3})
        >>> compared = compare_guardrail_quality(before, after, [(1, 1)])
        >>> compared.overall.recall.rate_a, compared.overall.recall.rate_b, len(compared.flips)
        (0.0, 1.0, 1)

    """

    labels: tuple[str, str]
    quality: tuple[GuardrailQuality, GuardrailQuality]
    categories: list[GuardrailChange]
    overall: GuardrailChange
    flips: list[GuardrailFlip]
    paired: int
    """Rows both runs judged (the paired counts are over them)."""
    notes: list[str] = field(default_factory=list)
    """What the reader should know: rows only one run has, sides or thresholds that differ, bad labels."""

    @property
    def regressions(self) -> list[GuardrailFlip]:
        """The flips that are regressions."""
        return [f for f in self.flips if f.regression]

    def to_dict(self) -> dict[str, Any]:
        """Every figure, as plain data."""
        return {
            "kind": GUARDRAIL,
            "labels": list(self.labels),
            "sides": [q.direction for q in self.quality],
            "thresholds": [dict(q.thresholds) for q in self.quality],
            "paired_rows": self.paired,
            "categories": [c.to_dict() for c in self.categories],
            "overall": self.overall.to_dict(),
            "flips": [f.to_dict() for f in self.flips],
            "notes": list(self.notes),
        }

    def figure_rows(self) -> list[tuple[str, ...]]:
        """The figures table (a header row, then a row per category and figure), as text cells."""
        first, second = self.labels
        body: list[tuple[str, ...]] = [("category", "figure", first, second, f"{second} - {first}")]
        for change in [*self.categories, self.overall]:
            quality = _quality_of(self.quality[1], change.name) or _quality_of(self.quality[0], change.name)
            name = change.name
            if quality is not None:
                name += f" ({quality.positives} unsafe, {quality.negatives} safe)"
            for figure, (a, b) in change.figures.items():
                body.append((name, figure, _value(a), _value(b), _signed(change.delta(figure))))
                name = ""
        return body

    def paired_rows(self) -> list[tuple[str, ...]]:
        """The paired table (a header, then recall, false refusals and decisions per category), as text."""
        first, second = self.labels
        head = (
            "category",
            "measure",
            "rows",
            first,
            second,
            f"{second} - {first}",
            "95% interval",
            "McNemar p",
            "",
        )
        body: list[tuple[str, ...]] = [head]
        for change in [*self.categories, self.overall]:
            for what, counts in (
                ("recall", change.recall),
                ("false refusals", change.false_refusals),
                ("decided right", change.decisions),
            ):
                interval = counts.interval
                body.append(
                    (
                        change.name,
                        what,
                        str(counts.n),
                        _value(counts.rate_a),
                        _value(counts.rate_b),
                        _signed(counts.difference),
                        f"[{_signed(interval[0])}, {_signed(interval[1])}]" if interval else "-",
                        f"{counts.p_value:.3f}" if counts.n else "-",
                        counts.verdict,
                    )
                )
        return body

    def table(self, *, flips: int = 20) -> str:
        """The comparison as the terminal shows it: both tables, the notes, the first ``flips`` flips."""
        lines = [
            "figures (each run at its own thresholds; recall_<preset> at that preset's):",
            text_columns(self.figure_rows(), left=(0, 1)),
            "",
            f"paired, over the {self.paired} rows both runs judged:",
            text_columns(self.paired_rows(), left=(0, 1, 8)),
            "",
        ]
        regressions = len(self.regressions)
        lines.append(
            f"{len(self.flips)} rows flipped: {regressions} regressions, "
            f"{len(self.flips) - regressions} improvements"
        )
        lines.extend(self.notes)
        if self.flips and flips:
            lines.append("flipped rows, regressions first:")
        for flip in self.flips[:flips]:
            lines.append("  " + flip_line(flip))
        if len(self.flips) > flips:
            lines.append(f"  ... and {len(self.flips) - flips} more flipped rows (--html shows every one)")
        return "\n".join(lines)


def flip_line(flip: GuardrailFlip) -> str:
    """One flipped row on one line: what it is, both decisions and top probabilities, its text."""
    name = f"row {flip.b.row}" + (f" ({flip.b.row_id})" if flip.b.row_id is not None else "")
    said = " -> ".join("flagged" if f else "let through" for f in flip.flagged)
    text = " ".join(flip.b.text.split())
    text = text if len(text) <= 100 else text[:99] + "…"
    return f"{flip.label:<24} {name}: {said} (top {flip.a.top:.2f} -> {flip.b.top:.2f}): {text}"


def _value(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{round(value, 3) + 0.0:+.3f}"  # no "-0.000"


def _quality_of(quality: GuardrailQuality, name: str) -> CategoryQuality | None:
    return quality.overall if name == OVERALL else quality.categories.get(name)


def _figures(
    quality: CategoryQuality | None, latency: Mapping[str, Figure] | None
) -> dict[str, float | None]:
    if quality is None:
        return {}
    points = quality.at_thresholds
    figures: dict[str, float | None] = {
        "roc_auc": plain(quality.roc_auc),
        "recall": plain(points["battery"].recall),
        **{f"recall_{p}": plain(points[p].recall) for p in STRICTNESS_PRESETS if p in points},
        "false_refusal_rate": plain(quality.false_refusal_rate),
        "recall_at_1pct_fpr": plain(quality.recall_at_fpr[0]),
    }
    if latency is not None:
        figures.update({f"{p}_seconds": plain(latency[p]) for p in LATENCY if p in latency})
    return figures


def _both(
    a: Mapping[str, float | None], b: Mapping[str, float | None]
) -> dict[str, tuple[float | None, float | None]]:
    names = list(a) + [n for n in b if n not in a]
    return {name: (a.get(name), b.get(name)) for name in names}


def _counts(
    pairs: Sequence[tuple[ScoredRow, ScoredRow]],
    thresholds: tuple[Mapping[str, float], Mapping[str, float]],
) -> tuple[PairedCounts, PairedCounts, PairedCounts]:
    recall, refusals, decisions = PairedCounts(), PairedCounts(), PairedCounts()
    for a, b in pairs:
        flagged_a, flagged_b = a.flagged(thresholds[0]), b.flagged(thresholds[1])
        if b.label.unsafe:
            recall = recall.add(flagged_a, flagged_b)
        else:
            refusals = refusals.add(flagged_a, flagged_b)
        decisions = decisions.add(flagged_a == a.label.unsafe, flagged_b == b.label.unsafe)
    return recall, refusals, decisions


def _counts_for(row: ScoredRow, name: str) -> bool:
    return name in row.scores and (not row.label.unsafe or name in row.label.categories)


def compare_guardrail_quality(
    a: GuardrailQuality,
    b: GuardrailQuality,
    pairs: Sequence[tuple[int, int]],
    *,
    labels: tuple[str, str] = ("A", "B"),
    notes: Sequence[str] = (),
) -> GuardrailComparison:
    """Compare two measured runs; ``pairs`` names the same row in each, as ``(row in A, row in B)`` numbers.

    A pair whose row either run could not judge is left out of the paired counts.

    Example:
        >>> from langchain_jev.guardrails.quality import RowLabel, measure
        >>> hate, safe = RowLabel(True, frozenset({"hate"})), RowLabel(False)
        >>> rows = [ScoredRow(1, hate, {"hate": 0.6}), ScoredRow(2, safe, {"hate": 0.4})]
        >>> before, after = measure(rows, {"hate": 0.5}), measure(rows, {"hate": 0.3})
        >>> compared = compare_guardrail_quality(before, after, [(1, 1), (2, 2)])
        >>> compared.overall.delta("false_refusal_rate"), [f.regression for f in compared.flips]
        (1.0, [True])

    """
    by_row = ({r.row: r for r in a.rows}, {r.row: r for r in b.rows})
    joined = [(by_row[0][x], by_row[1][y]) for x, y in pairs if x in by_row[0] and y in by_row[1]]
    names = list(a.categories) + [n for n in b.categories if n not in a.categories]
    changes = []
    for name in names:
        own = [(x, y) for x, y in joined if _counts_for(x, name) and _counts_for(y, name)]
        limits = (
            ({name: a.thresholds[name]}, {name: b.thresholds[name]})
            if name in a.thresholds and name in b.thresholds
            else None
        )
        counted = _counts(own, limits) if limits else (PairedCounts(), PairedCounts(), PairedCounts())
        figures = _both(_figures(a.categories.get(name), None), _figures(b.categories.get(name), None))
        changes.append(GuardrailChange(name, figures, *counted))
    overall_figures = _both(_figures(a.overall, a.latency), _figures(b.overall, b.latency))
    overall = GuardrailChange(OVERALL, overall_figures, *_counts(joined, (a.thresholds, b.thresholds)))
    flips = []
    for x, y in joined:
        flagged = (x.flagged(a.thresholds), y.flagged(b.thresholds))
        if flagged[0] == flagged[1]:
            continue
        moved = tuple(
            name
            for name in names
            if name in a.thresholds
            and name in b.thresholds
            and x.flagged({name: a.thresholds[name]}) != y.flagged({name: b.thresholds[name]})
        )
        flips.append(GuardrailFlip(x, y, flagged, moved))
    flips.sort(key=lambda f: (not f.regression, f.b.row))
    said = list(notes)
    if a.direction != b.direction:
        said.append(f"the sides differ: {labels[0]} judged {a.direction}, {labels[1]} {b.direction}")
    moved_thresholds = [n for n in names if a.thresholds.get(n) != b.thresholds.get(n)]
    if moved_thresholds:
        said.append(
            "thresholds differ: "
            + ", ".join(f"{n} {_threshold(a, n)} -> {_threshold(b, n)}" for n in moved_thresholds)
        )
    for label, quality in zip(labels, (a, b), strict=True):
        if quality.unjudged:
            said.append(f"{label}: {quality.unjudged} rows the model could not judge (in no figure)")
    return GuardrailComparison(labels, (a, b), changes, overall, flips, len(joined), said)


def _threshold(quality: GuardrailQuality, name: str) -> str:
    value = quality.thresholds.get(name)
    return "not asked" if value is None else f"{value:g}"


def _measured(
    path: str | os.PathLike[str], header: Mapping[str, Any] | None, data: str | os.PathLike[str] | None
) -> GuardrailEval:
    from langchain_jev.datasets._states import run_of

    run = run_of(header)
    dataset = data if data is not None else run.get("dataset_path") or run.get("dataset")
    if not isinstance(dataset, (str, os.PathLike)):
        raise ComparisonError(f"{os.fspath(path)}: its header names no dataset to read the labels from")
    given = run.get("columns")
    columns = (
        Columns(  # a header read back is data: only names that are text are taken
            **{
                k: v
                for k, v in given.items()
                if k in ("text", "label", "categories", "id", "side") and isinstance(v, str)
            }
        )
        if isinstance(given, Mapping)
        else Columns()
    )
    thresholds: dict[str, float] = {}
    judge = (header or {}).get("judge") or {}
    for criterion in judge.get("criteria") or ():
        if isinstance(criterion, Mapping) and isinstance(criterion.get("minimum"), (int, float)):
            thresholds[str(criterion["name"])] = float(criterion["minimum"])
    fmt = run.get("format") if isinstance(run.get("format"), str) else None
    side = battery_side(header) or "input"
    return measure_results(path, dataset, thresholds, side, columns=columns, fmt=fmt)


def compare_guardrail_files(
    a: str | os.PathLike[str],
    b: str | os.PathLike[str],
    *,
    on: JoinOn = "key",
    only_shared: bool = False,
    labels: tuple[str, str] = ("A", "B"),
    data: tuple[str | os.PathLike[str] | None, str | os.PathLike[str] | None] = (None, None),
) -> GuardrailComparison:
    """Compare two results files of ``guardrail-eval`` (B the newer run); see the module docstring.

    Each file is measured at the thresholds its header records, its labels read from
    the dataset its header names (or ``data``'s, per file).

    Raises:
        ResultsError: a file cannot be read.
        ComparisonError: a file is not of ``guardrail-eval`` (both files and their kinds named),
            the files are of different datasets (see `join_rows`), or a dataset is not named.

    Example::

        from langchain_jev.compare import compare_guardrail_files

        compared = compare_guardrail_files("before.jsonl", "after.jsonl")
        print(compared.table())

    """
    from langchain_jev.datasets._stored import read_results_file

    first, second = read_results_file(a), read_results_file(b)
    kinds = (results_kind(first.header), results_kind(second.header))
    if kinds == (JUDGE, JUDGE):
        raise ComparisonError(
            f"neither {os.fspath(a)} nor {os.fspath(b)} is a results file of {GUARDRAIL}: "
            "compare judge runs with compare_files"
        )
    if kinds != (GUARDRAIL, GUARDRAIL):
        raise ComparisonError(mixed_kinds((a, b), kinds))
    joined = join_rows(first.records, second.records, on=on, only_shared=only_shared, labels=labels)
    measured = (_measured(a, first.header, data[0]), _measured(b, second.header, data[1]))
    pairs = [
        (int(p.a["row"]), int(p.b["row"]))
        for p in joined.pairs
        if isinstance(p.a.get("row"), int) and isinstance(p.b.get("row"), int)
    ]
    notes = [
        f"{label}: {line}" for label, m in zip(labels, measured, strict=True) for line in m.label_problems
    ]
    if joined.only_a or joined.only_b:
        notes.append(
            f"not paired: {len(joined.only_a)} rows only in {labels[0]}, "
            f"{len(joined.only_b)} only in {labels[1]}"
        )
    return compare_guardrail_quality(
        measured[0].quality, measured[1].quality, pairs, labels=labels, notes=notes
    )


def mixed_kinds(paths: tuple[str | os.PathLike[str], str | os.PathLike[str]], kinds: tuple[str, str]) -> str:
    """Why two results files of different kinds cannot be compared, naming both.

    Example:
        >>> mixed_kinds(("a.jsonl", "b.jsonl"), ("judge", "guardrail-eval"))
        'a.jsonl is a results file of judge and b.jsonl one of guardrail-eval: compare two files of one kind'

    """
    return (
        f"{os.fspath(paths[0])} is a results file of {kinds[0]} and {os.fspath(paths[1])} one of "
        f"{kinds[1]}: compare two files of one kind"
    )
