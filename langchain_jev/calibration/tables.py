"""The calibration's tables: the per-criterion figures as text, and where judge and people disagree."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_jev.calibration.measure import Calibration

__all__ = ["calibration_table"]


def calibration_table(calibration: Calibration) -> str:
    """The per-criterion figures as a text table."""
    headers = (
        "criterion",
        "kind",
        "n",
        "base",
        "AUROC",
        "Brier",
        "ECE",
        "thresh.",
        "acc.",
        "kappa [95% CI]",
        "f-pass",
        "f-fail",
    )
    rows: list[tuple[str, ...]] = [headers]
    for c in calibration.criteria:
        conf = c.confusion
        interval = f" [{c.kappa_interval[0]:.2f}, {c.kappa_interval[1]:.2f}]" if c.kappa_interval else ""
        rows.append(
            (
                c.name,
                c.kind,
                str(c.n),
                _f(conf.base_rate),
                _f(c.auroc),
                _f(c.brier),
                _f(c.ece),
                f"{c.threshold:g}",
                _f(conf.accuracy),
                _f(conf.kappa) + interval,
                _f(conf.false_pass_rate),
                _f(conf.false_fail_rate),
            )
        )
    if calibration.overall is not None:
        conf = calibration.overall.confusion
        ki = calibration.overall.kappa_interval
        interval = f" [{ki[0]:.2f}, {ki[1]:.2f}]" if ki else ""
        rows.append(
            (
                "overall",
                "verdict",
                str(conf.n),
                _f(conf.base_rate),
                "",
                "",
                "",
                "",
                _f(conf.accuracy),
                _f(conf.kappa) + interval,
                _f(conf.false_pass_rate),
                _f(conf.false_fail_rate),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(headers))]
    return "\n".join(
        "  ".join(
            cell.ljust(widths[i]) if i < 2 else cell.rjust(widths[i]) for i, cell in enumerate(r)
        ).rstrip()
        for r in rows
    )


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
