"""The report's charts: matplotlib figures drawn to inline SVG text (needs the ``report`` extra).

Each function takes plain numbers and returns one ``<svg>`` element whose text
stays text (in the page's own sans-serif font), so the page needs no font,
script or file beside it. Margins are fixed rather than computed by a layout
engine: a report of many criteria draws in a fraction of the time. Legends sit
above the axes, where they cover nothing; axes fit their data and no point is
clipped at an edge; names are plain text (a ``$`` is not maths).
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from langchain_jev._extras import missing_extra

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "curves_chart",
    "curves_figure",
    "pass_rate_chart",
    "pass_rate_figure",
    "probability_chart",
    "probability_figure",
    "reliability_chart",
    "reliability_figure",
    "threshold_chart",
    "threshold_figure",
]

_PASS, _FAIL, _LINE, _ALT, _NONE = "#2f855a", "#c53030", "#2b6cb0", "#d69e2e", "#a0aec0"
_RC: dict[str, Any] = {"svg.fonttype": "none", "font.family": "sans-serif", "text.parse_math": False}
"""Text stays text in the page's font; a name with ``$`` in it is shown as written, not parsed as maths."""

_P = ParamSpec("_P")
_T = TypeVar("_T")


def _plain_text(draw: Callable[_P, _T]) -> Callable[_P, _T]:
    """Draw under `_RC`: every text a chart holds (titles, tick labels, legends) is plain text."""

    @functools.wraps(draw)
    def drawn(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            import matplotlib
        except ImportError as error:
            raise missing_extra("langchain_jev.report", "matplotlib", "report") from error
        with matplotlib.rc_context(_RC):  # type: ignore[arg-type]
            return draw(*args, **kwargs)

    return drawn


def _figure(
    width: float, height: float, *, left: float = 0.7, bottom: float = 0.5, top: float = 0.35
) -> tuple[Figure, Axes]:
    """A figure ``width`` by ``height`` inches whose axes leave ``left``, ``bottom`` and ``top`` inches."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=96)
    figure.subplots_adjust(
        left=left / width, right=1 - 0.2 / width, bottom=bottom / height, top=1 - top / height
    )
    return figure, figure.subplots()


def _title(figure: Figure, name: str) -> None:
    """The chart's name at the top left, above its legend (cut at 70 characters)."""
    shown = name if len(name) <= 70 else name[:69] + "\u2026"
    figure.text(0.01, 0.99, shown, ha="left", va="top", fontsize=10, fontweight="bold")


def _legend_above(axes: Axes, columns: int) -> None:
    """The legend in the margin above the axes, where it covers no bar, point or line."""
    axes.legend(
        fontsize=7,
        loc="lower left",
        bbox_to_anchor=(0.0, 1.01),
        ncol=columns,
        frameon=False,
        borderaxespad=0.2,
    )


def _svg(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    start = text.find("<svg")
    return re.sub(r"<metadata>.*?</metadata>", "", text[start:], flags=re.S)


@_plain_text
def pass_rate_figure(names: Sequence[str], rates: Sequence[float | None], target: float) -> Figure:
    """Horizontal bars: the pass rate of each criterion (and ``overall``), coloured against ``target``.

    A bar at or above ``target`` (a fraction) is green, one below it red, and a
    criterion that never applied grey; the target is drawn as a dashed line and
    named in the legend, which sits above the bars.
    """
    from matplotlib.patches import Patch

    longest = max((len(name) for name in names), default=8)
    figure, axes = _figure(6.4, 0.45 * len(names) + 1.2, left=min(3.0, 0.25 + 0.075 * longest), top=0.55)
    shown = [100 * (r or 0.0) for r in rates]
    positions = list(range(len(names)))[::-1]
    colours = [_NONE if r is None else _PASS if r >= target - 1e-12 else _FAIL for r in rates]
    bars = axes.barh(positions, shown, color=colours)
    axes.set_yticks(positions, labels=[n if len(n) <= 40 else n[:39] + "\u2026" for n in names])
    axes.set_xlim(0, 112)  # room for the labels past a full bar
    axes.set_xticks([0, 20, 40, 60, 80, 100])
    axes.set_ylim(-0.6, len(names) - 0.4)
    axes.set_xlabel("pass rate (%)")
    axes.axvline(100 * target, color="#4a5568", linestyle="--", linewidth=1)
    for bar, rate in zip(bars, rates, strict=True):
        label = "not applied" if rate is None else f"{100 * rate:.1f}%"
        axes.text(bar.get_width() + 1, bar.get_y() + bar.get_height() / 2, label, va="center", fontsize=8)
    handles = [
        Patch(color=_PASS, label=f"at or above the target {100 * target:g}%"),
        Patch(color=_FAIL, label="below the target"),
    ]
    if any(r is None for r in rates):
        handles.append(Patch(color=_NONE, label="never applied"))
    axes.legend(
        handles=handles, fontsize=7, loc="lower left", bbox_to_anchor=(0.0, 1.01), ncol=3, frameon=False
    )
    return figure


@_plain_text
def probability_figure(
    name: str,
    probabilities: Sequence[float],
    passed: Sequence[bool],
    threshold: float,
    *,
    band: float | None = None,
    label: str = "probability of passing",
) -> Figure:
    """A histogram of a criterion's pass probability (passing and failing rows stacked) and its threshold.

    ``band`` draws the ``min_confidence`` band around 0.5 (scores and choices).
    """
    figure, axes = _figure(6.4, 2.9, top=0.75)
    _title(figure, name)
    bins = [i / 20 for i in range(21)]
    passing = [p for p, ok in zip(probabilities, passed, strict=True) if ok]
    failing = [p for p, ok in zip(probabilities, passed, strict=True) if not ok]
    counts, _, _ = axes.hist(
        [passing, failing], bins=bins, stacked=True, color=[_PASS, _FAIL], label=["passed", "not passed"]
    )
    axes.axvline(threshold, color=_LINE, linewidth=2, label=f"threshold {threshold:g}")
    if band is not None:
        for number, edge in enumerate(sorted({band, 1 - band})):
            axes.axvline(
                edge,
                color=_ALT,
                linestyle="--",
                linewidth=1,
                label=f"min_confidence {band:g} (pass at >= {max(band, 1 - band):g})"
                if number == 0
                else None,
            )
    axes.set_xlim(0, 1)
    highest = max((float(c) for c in counts[-1]), default=0.0) if len(counts) else 0.0
    axes.set_ylim(0, max(1.0, highest * 1.08))
    axes.set_xlabel(label)
    axes.set_ylabel("rows")
    _legend_above(axes, 4)
    return figure


@_plain_text
def reliability_figure(name: str, bins: Sequence[dict[str, Any]]) -> Figure:
    """The reliability diagram: share passed by people against mean probability per bin, and the diagonal.

    The axes run a little past 0 and 1, and no point is clipped at the edge.
    """
    figure, axes = _figure(3.8, 3.9, top=0.85)
    _title(figure, name)
    axes.plot([0, 1], [0, 1], color=_NONE, linestyle="--", linewidth=1, label="perfectly calibrated")
    xs = [b["mean_probability"] for b in bins if b["count"]]
    ys = [b["observed"] for b in bins if b["count"]]
    sizes = [20 + 4 * min(b["count"], 100) for b in bins if b["count"]]
    axes.plot(xs, ys, color=_LINE, linewidth=1.5, clip_on=False)
    axes.scatter(xs, ys, s=sizes, color=_LINE, zorder=3, label="bins (size: rows)", clip_on=False)
    axes.set_xlim(-0.05, 1.05)
    axes.set_ylim(-0.05, 1.05)
    axes.set_xlabel("mean probability")
    axes.set_ylabel("share passed by people")
    _legend_above(axes, 1)
    return figure


@_plain_text
def threshold_figure(
    name: str,
    what: str,
    points: Sequence[dict[str, Any]],
    current: float,
    suggested: float | None,
) -> Figure:
    """Kappa, false-pass and false-fail rates against the threshold, with the current and suggested ones.

    The rates run from 0 to 1; the axis goes below 0 only as far as kappa does.
    """
    figure, axes = _figure(5.4, 3.9, top=0.95)
    _title(figure, name)
    xs = [p["threshold"] for p in points]
    step = len(xs) <= 12
    lowest = 0.0
    for key, colour, label in (
        ("kappa", _LINE, "kappa"),
        ("false_pass_rate", _FAIL, "false-pass rate"),
        ("false_fail_rate", _ALT, "false-fail rate"),
    ):
        ys = [float("nan") if p[key] is None else p[key] for p in points]
        lowest = min([lowest, *(y for y in ys if y == y)])
        axes.plot(
            xs, ys, color=colour, label=label, marker="o" if step else None, markersize=3, clip_on=False
        )
    axes.axvline(current, color="#4a5568", linewidth=1.5, label=f"current {current:g}")
    if suggested is not None:
        axes.axvline(suggested, color=_PASS, linestyle="--", linewidth=1.5, label=f"suggested {suggested:g}")
    axes.set_ylim(lowest - 0.05, 1.05)
    if xs:
        pad = (max(xs) - min(xs)) * 0.02 or 0.05
        axes.set_xlim(min(xs) - pad, max(xs) + pad)
    axes.set_xlabel(what)
    _legend_above(axes, 3)
    return figure


@_plain_text
def curves_figure(name: str, points: Sequence[dict[str, Any]]) -> Figure:
    """A guardrail category's ROC curve (left) and precision-recall curve (right), from its curve points.

    ``points`` are `langchain_jev.guardrails.quality.CurvePoint.to_dict` values, the
    highest threshold first; a figure a point cannot define (None) is left out of that curve.
    """
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.2, 3.4), dpi=96)
    figure.subplots_adjust(left=0.09, right=0.98, bottom=0.15, top=0.86, wspace=0.3)
    roc, pr = figure.subplots(1, 2)
    _title(figure, name)
    fpr = [(p["false_positive_rate"], p["recall"]) for p in points]
    fpr = [(x, y) for x, y in fpr if x is not None and y is not None]
    roc.plot([x for x, _ in fpr], [y for _, y in fpr], color=_LINE, drawstyle="steps-post", clip_on=False)
    roc.plot([0, 1], [0, 1], color=_NONE, linestyle=":", linewidth=1)
    roc.set_xlabel("false-refusal rate (safe rows flagged)")
    roc.set_ylabel("recall (unsafe rows flagged)")
    precision = [(p["recall"], p["precision"]) for p in points]
    precision = [(x, y) for x, y in precision if x is not None and y is not None]
    pr.plot([x for x, _ in precision], [y for _, y in precision], color=_ALT, marker="o", markersize=2)
    pr.set_xlabel("recall")
    pr.set_ylabel("precision")
    for axes in (roc, pr):
        axes.set_xlim(-0.02, 1.02)
        axes.set_ylim(-0.02, 1.02)
    return figure


def _as_svg(figure_of: Callable[_P, Figure]) -> Callable[_P, str]:
    """The chart function of a figure function: the same arguments, the figure as inline SVG text."""

    @functools.wraps(figure_of)
    def chart(*args: _P.args, **kwargs: _P.kwargs) -> str:
        return _plain_text(lambda: _svg(figure_of(*args, **kwargs)))()

    chart.__name__ = chart.__qualname__ = figure_of.__name__.replace("_figure", "_chart")
    drawn = f"`{figure_of.__name__}` drawn as one inline ``<svg>`` element.\n\n"
    chart.__doc__ = drawn + (figure_of.__doc__ or "")
    return chart


pass_rate_chart = _as_svg(pass_rate_figure)
probability_chart = _as_svg(probability_figure)
reliability_chart = _as_svg(reliability_figure)
threshold_chart = _as_svg(threshold_figure)
curves_chart = _as_svg(curves_figure)
