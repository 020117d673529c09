"""The report's charts: matplotlib figures drawn to inline SVG text (needs the ``report`` extra).

Each function takes plain numbers and returns one ``<svg>`` element whose text
stays text (in the page's own sans-serif font), so the page needs no font,
script or file beside it. Margins are fixed rather than computed by a layout
engine: a report of many criteria draws in a fraction of the time.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_jev._extras import missing_extra

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["pass_rate_chart", "probability_chart", "reliability_chart", "threshold_chart"]

_PASS, _FAIL, _LINE, _ALT = "#2f855a", "#c53030", "#2b6cb0", "#d69e2e"


def _figure(width: float, height: float, *, left: float = 0.7, bottom: float = 0.5) -> tuple[Figure, Axes]:
    """A figure ``width`` by ``height`` inches whose axes leave ``left`` and ``bottom`` inches for labels."""
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise missing_extra("langchain_jev.report", "matplotlib", "report") from error
    figure = Figure(figsize=(width, height), dpi=96)
    figure.subplots_adjust(
        left=left / width, right=1 - 0.2 / width, bottom=bottom / height, top=1 - 0.35 / height
    )
    return figure, figure.subplots()


def _svg(figure: Figure) -> str:
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "font.family": "sans-serif"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    start = text.find("<svg")
    return re.sub(r"<metadata>.*?</metadata>", "", text[start:], flags=re.S)


def pass_rate_chart(names: Sequence[str], rates: Sequence[float | None]) -> str:
    """Horizontal bars: the pass rate of each criterion (and ``overall``), 0 to 100%."""
    longest = max((len(name) for name in names), default=8)
    figure, axes = _figure(6.4, 0.45 * len(names) + 0.9, left=min(3.0, 0.25 + 0.075 * longest))
    shown = [100 * (r or 0.0) for r in rates]
    positions = list(range(len(names)))[::-1]
    bars = axes.barh(positions, shown, color=[_PASS if (r or 0) >= 0.5 else _FAIL for r in rates])
    axes.set_yticks(positions, labels=list(names))
    axes.set_xlim(0, 100)
    axes.set_xlabel("pass rate (%)")
    for bar, rate in zip(bars, rates, strict=True):
        label = "-" if rate is None else f"{100 * rate:.1f}%"
        axes.text(
            min(bar.get_width() + 1, 88), bar.get_y() + bar.get_height() / 2, label, va="center", fontsize=8
        )
    return _svg(figure)


def probability_chart(
    name: str,
    probabilities: Sequence[float],
    passed: Sequence[bool],
    threshold: float,
    *,
    band: float | None = None,
    label: str = "probability of passing",
) -> str:
    """A histogram of a criterion's pass probability (passing and failing rows stacked) and its threshold.

    ``band`` draws the ``min_confidence`` band around 0.5 (scores and choices).
    """
    figure, axes = _figure(6.4, 2.6)
    bins = [i / 20 for i in range(21)]
    passing = [p for p, ok in zip(probabilities, passed, strict=True) if ok]
    failing = [p for p, ok in zip(probabilities, passed, strict=True) if not ok]
    axes.hist(
        [passing, failing], bins=bins, stacked=True, color=[_PASS, _FAIL], label=["passed", "not passed"]
    )
    axes.axvline(threshold, color=_LINE, linewidth=2, label=f"threshold {threshold:g}")
    if band is not None:
        for edge in (band, 1 - band):
            axes.axvline(edge, color=_ALT, linestyle="--", linewidth=1)
    axes.set_xlim(0, 1)
    axes.set_xlabel(label)
    axes.set_ylabel("rows")
    axes.set_title(name, fontsize=10)
    axes.legend(fontsize=7, loc="upper left")
    return _svg(figure)


def reliability_chart(name: str, bins: Sequence[dict[str, Any]]) -> str:
    """The reliability diagram: share passed by people against mean probability per bin, and the diagonal."""
    figure, axes = _figure(3.6, 3.4)
    axes.plot([0, 1], [0, 1], color="#a0aec0", linestyle="--", linewidth=1, label="perfectly calibrated")
    xs = [b["mean_probability"] for b in bins if b["count"]]
    ys = [b["observed"] for b in bins if b["count"]]
    sizes = [20 + 4 * b["count"] for b in bins if b["count"]]
    axes.plot(xs, ys, color=_LINE, linewidth=1.5)
    axes.scatter(xs, ys, s=sizes, color=_LINE, zorder=3, label="bins (size: rows)")
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_xlabel("mean probability")
    axes.set_ylabel("share passed by people")
    axes.set_title(name, fontsize=10)
    axes.legend(fontsize=7, loc="upper left")
    return _svg(figure)


def threshold_chart(
    name: str,
    what: str,
    points: Sequence[dict[str, Any]],
    current: float,
    suggested: float | None,
) -> str:
    """Kappa, false-pass and false-fail rates against the threshold, with the current and suggested ones."""
    figure, axes = _figure(5.2, 3.4)
    xs = [p["threshold"] for p in points]
    step = len(xs) <= 12
    for key, colour, label in (
        ("kappa", _LINE, "kappa"),
        ("false_pass_rate", _FAIL, "false-pass rate"),
        ("false_fail_rate", _ALT, "false-fail rate"),
    ):
        ys = [float("nan") if p[key] is None else p[key] for p in points]
        axes.plot(xs, ys, color=colour, label=label, marker="o" if step else None, markersize=3)
    axes.axvline(current, color="#4a5568", linewidth=1.5, label=f"current {current:g}")
    if suggested is not None:
        axes.axvline(suggested, color=_PASS, linestyle="--", linewidth=1.5, label=f"suggested {suggested:g}")
    axes.set_ylim(-0.05 if min((p["kappa"] or 0) for p in points) >= 0 else -1.0, 1.05)
    axes.set_xlabel(what)
    axes.set_title(name, fontsize=10)
    axes.legend(fontsize=7, loc="best")
    return _svg(figure)
