"""The report's charts tell the truth: colours against a stated target, axes that fit, nothing hidden or clipped."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex

from langchain_jev.report import _charts as charts

PASS, FAIL, NONE = "#2f855a", "#c53030", "#a0aec0"
NAMES = [
    "cost in $\\frac{1}{$ units",  # an unclosed maths group: matplotlib's parser raised on it
    "$x$ and $y$",
    "a $ sign",
    "under_score^caret%",
    "<script>alert(1)</script>",
]


def bar_colours(figure: Any) -> list[str]:
    axes = figure.axes[0]
    return [to_hex(patch.get_facecolor()) for patch in axes.patches]


def draw(figure: Any) -> Any:
    """Lay the figure out as it is drawn; the renderer to measure its parts with."""
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas.get_renderer()


def overlaps(a: Any, b: Any) -> bool:
    return not (a.x1 <= b.x0 or b.x1 <= a.x0 or a.y1 <= b.y0 or b.y1 <= a.y0)


def legend_clear_of_axes(figure: Any) -> bool:
    """True when the legend's box lies outside the axes' plotting area (it covers no bar, point or line)."""
    renderer = draw(figure)
    axes = figure.axes[0]
    legend = axes.get_legend()
    return not overlaps(legend.get_window_extent(renderer), axes.get_window_extent(renderer))


def test_bars_are_coloured_against_the_stated_target_not_half() -> None:
    figure = charts.pass_rate_figure(["polite", "grounded", "unused", "overall"], [0.9, 0.6, None, 0.5], 0.8)
    assert bar_colours(figure) == [PASS, FAIL, NONE, FAIL]  # a 50% overall is not green
    labels = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert labels[0] == "at or above the target 80%" and "never applied" in labels
    assert legend_clear_of_axes(figure)


def test_every_rate_label_fits_inside_the_axes() -> None:
    figure = charts.pass_rate_figure(["full"], [1.0], 0.8)
    renderer = draw(figure)
    axes = figure.axes[0]
    box = axes.get_window_extent(renderer)
    for text in axes.texts:
        extent = text.get_window_extent(renderer)
        assert box.x0 <= extent.x0 and extent.x1 <= box.x1, text.get_text()


@pytest.mark.parametrize("name", NAMES)
def test_names_are_drawn_as_written_never_parsed_as_maths(name: str) -> None:
    """A criterion named ``cost in $\\frac{1}{$ units`` made `--html` exit 70 (matplotlib parses $...$)."""
    svg = charts.probability_chart(name, [0.2, 0.8], [False, True], 0.5)
    assert svg.startswith("<svg")
    shown = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert shown in svg
    assert "<script>" not in svg
    bars = charts.pass_rate_chart([name, "overall"], [0.5, 0.5], 0.8)
    assert shown in bars
    bins = [{"mean_probability": 0.5, "observed": 0.5, "count": 2}]
    assert shown in charts.reliability_chart(name, bins)
    points = [{"threshold": 0.5, "kappa": 0.1, "false_pass_rate": 0.2, "false_fail_rate": 0.3}]
    assert shown in charts.threshold_chart(name, "minimum", points, 0.5, None)


def test_a_reliability_point_at_one_is_not_clipped() -> None:
    bins = [
        {"mean_probability": 0.95, "observed": 1.0, "count": 9},
        {"mean_probability": 0.05, "observed": 0.0, "count": 3},
    ]
    figure = charts.reliability_figure("grounded", bins)
    axes = figure.axes[0]
    low, high = axes.get_ylim()
    assert low < 0.0 and high > 1.0
    assert all(not artist.get_clip_on() for artist in axes.collections)  # the points
    assert legend_clear_of_axes(figure)


def test_threshold_curves_fit_their_data_not_minus_one() -> None:
    points = [
        {"threshold": t / 10, "kappa": k, "false_pass_rate": 0.5, "false_fail_rate": 0.1}
        for t, k in ((1, -0.2), (5, 0.4), (9, 0.1))
    ]
    low, high = charts.threshold_figure("polite", "minimum", points, 0.5, 0.6).axes[0].get_ylim()
    assert low == pytest.approx(-0.25) and high == pytest.approx(1.05)
    positive = [{**p, "kappa": 0.3} for p in points]
    figure = charts.threshold_figure("polite", "minimum", positive, 0.5, 0.6)
    assert figure.axes[0].get_ylim()[0] == pytest.approx(-0.05)
    assert legend_clear_of_axes(figure)
    labels = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert labels == ["kappa", "false-pass rate", "false-fail rate", "current 0.5", "suggested 0.6"]


def test_the_histogram_legend_names_the_threshold_and_the_band_and_hides_no_bar() -> None:
    figure = charts.probability_figure(
        "mode", [0.1, 0.5, 0.5, 0.9], [False, False, True, True], 0.5, band=0.6
    )
    labels = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert labels == ["passed", "not passed", "threshold 0.5", "min_confidence 0.6 (pass at >= 0.6)"]
    assert legend_clear_of_axes(figure)
    assert figure.axes[0].get_ylim()[1] >= 2  # the tallest stack fits
