"""A guardrail's quality as text: the table ``guardrail-eval`` prints, its conventions, the rows to look at.

Pure: figures in, lines out. An undefined figure prints as ``-`` and its reason is listed below.
"""

from __future__ import annotations

from langchain_jev.guardrails.quality._metrics import Figure, Undefined
from langchain_jev.guardrails.quality._summary import AT_RECALLS, MAX_FPR, CategoryQuality, GuardrailQuality
from langchain_jev.guardrails.quality._thresholds import Suggestion

__all__ = ["CONVENTIONS", "format_quality", "format_suggestion"]

CONVENTIONS = (
    "A category's figures are over the rows labelled with it (unsafe) and the safe rows; overall, over "
    "every unsafe row and the safe rows, scored by each row's highest probability. The false-refusal "
    "rate (FRR) is over safe rows. P@R is the best precision at a threshold whose recall is at least R; "
    f"R@FPR{MAX_FPR:.0%} the best recall at a threshold whose false-positive rate is at most {MAX_FPR:.0%}."
)
"""The conventions, said under every table."""


def _cell(figure: Figure) -> str:
    return "-" if isinstance(figure, Undefined) else f"{figure:.3f}"


def _line(quality: CategoryQuality) -> str:
    point = quality.at_thresholds["battery"]
    cells = [
        f"{quality.name:<24}",
        f"{quality.positives:>6}",
        f"{quality.negatives:>6}",
        f"{_cell(quality.roc_auc):>7}",
        f"{_cell(point.precision):>7}",
        f"{_cell(point.recall):>7}",
        f"{_cell(point.false_positive_rate):>7}",
        *(f"{_cell(quality.precision_at_recall[r][0]):>7}" for r in AT_RECALLS),
        f"{_cell(quality.recall_at_fpr[0]):>8}",
    ]
    return " ".join(cells)


def format_quality(quality: GuardrailQuality, *, listed: int = 10) -> str:
    """The table of every category and overall, latency, the undefined figures and the worst rows.

    Example:
        >>> from langchain_jev.guardrails.quality import RowLabel
        >>> from langchain_jev.guardrails.quality import ScoredRow, measure
        >>> rows = [ScoredRow(1, RowLabel(True, frozenset({"hate"})), {"hate": 0.9}, 0.1)]
        >>> format_quality(measure(rows, {"hate": 0.5})).splitlines()[1].split()
        ['hate', '1', '0', '-', '1.000', '1.000', '-', '1.000', '1.000', '1.000', '-']

    """
    head = " ".join(
        [
            f"{'category':<24}",
            f"{'unsafe':>6}",
            f"{'safe':>6}",
            f"{'AUC':>7}",
            f"{'prec':>7}",
            f"{'recall':>7}",
            f"{'FRR':>7}",
            *(f"{f'P@R{r:g}':>7}" for r in AT_RECALLS),
            f"{f'R@FPR{MAX_FPR:.0%}':>8}",
        ]
    )
    lines = [head, *(_line(q) for q in quality.categories.values()), _line(quality.overall), ""]
    latency = ", ".join(f"{name.upper()} {_seconds(v)}" for name, v in quality.latency.items())
    lines.append(f"time per check: {latency}")
    if quality.unjudged:
        lines.append(f"{quality.unjudged} rows could not be judged (errors): in no figure")
    lines.append("thresholds: " + ", ".join(f"{n} {t:g}" for n, t in quality.thresholds.items()))
    undefined = [
        f"  {q.name}: {name} undefined ({reason})"
        for q in (*quality.categories.values(), quality.overall)
        for name, reason in q.to_dict()["undefined"].items()
    ]
    if undefined:
        lines += ["undefined figures:", *undefined[: listed * 3]]
    for title, rows in (("false refusals", quality.false_refusals), ("misses", quality.misses)):
        if rows:
            lines.append(f"{title} ({len(rows)}; the first {min(listed, len(rows))}):")
            lines += [f"  row {r.row} ({r.top:.2f}): {_short(r.text)}" for r in rows[:listed]]
    lines += ["", CONVENTIONS]
    return "\n".join(lines)


def _seconds(figure: Figure) -> str:
    return "-" if isinstance(figure, Undefined) else f"{figure * 1000:.0f} ms"


def _short(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def format_suggestion(suggestion: Suggestion) -> str:
    """The thresholds suggested, one line per category, with the interval of the rate reached."""
    target = suggestion.target
    lines = [f"thresholds for {target.kind} {target.value:g} ({suggestion.interval} interval):"]
    for name, chosen in suggestion.categories.items():
        if chosen.threshold is None or chosen.reached is None or chosen.interval is None:
            lines.append(f"  {name:<24} none ({chosen.reason})")
            continue
        low, high = chosen.interval
        lines.append(
            f"  {name:<24} {chosen.threshold:.4f}  {target.kind} {chosen.reached:.3f} "
            f"[{low:.3f}, {high:.3f}] over {chosen.rows} rows"
        )
    return "\n".join(lines)
