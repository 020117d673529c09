"""Calibration: how a judge agrees with people, which thresholds to give it, how stable it is.

- `study`: `calibrate` (judge labelled rows, or reuse their result records);
- `measure`: `build_calibration` and the `Calibration` it returns (`Calibration.suggest`,
  `Calibration.write_judge`); `figures`: a criterion's figures, the overall agreement, stability;
- `suggest`: thresholds for an objective; `tables`: the text table and the disagreements;
- `metrics`: the figures (AUROC, Brier score, ECE, accuracy, Cohen's kappa, false-pass and
  false-fail rates), pure functions with their definitions;
- `sweep`: agreement at every threshold, and choosing one for an objective;
- stored answers decided again under another judge (`NoRequestModel`, `redecide`) live with
  the results file, in `langchain_jev.datasets._redecide`;
- `labels`: reading human labels and pairing them with records;
- `rewrite`: new thresholds into a judge file, nothing else.

Names are imported lazily, so importing this package stays cheap.

Example:
    >>> from langchain_core.decisions import Noul
    >>> from langchain_jev import JevCriterion, JevJudge
    >>> from langchain_jev.calibration import calibrate
    >>> from langchain_jev.testing import ScriptedDecisionModel
    >>> polite = JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.5)
    >>> model = ScriptedDecisionModel(
    ...     {"polite": lambda state, q: 0.8 if "please" in state["assistant_answer"] else 0.2})
    >>> judge = JevJudge([polite], model=model)
    >>> rows = [{"answer": "Sit, please", "ok": "pass"}, {"answer": "Sit", "ok": "fail"}]
    >>> calibrate(judge, rows, "ok").criterion("polite").auroc
    1.0

"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.calibration._figures import Agreement, CriterionCalibration, Stability
    from langchain_jev.calibration._labels import read_label
    from langchain_jev.calibration._measure import Calibration
    from langchain_jev.calibration._metrics import (
        Confusion,
        auroc,
        bootstrap_kappa,
        brier_score,
        expected_calibration_error,
        reliability_bins,
    )
    from langchain_jev.calibration._rewrite import write_thresholds
    from langchain_jev.calibration._study import acalibrate, calibrate
    from langchain_jev.calibration._suggest import Suggestion
    from langchain_jev.calibration._sweep import Objective, SweepPoint
    from langchain_jev.calibration._tables import Disagreement
    from langchain_jev.datasets._redecide import NoRequestModel, redecide, redecide_records
    from langchain_jev.datasets._stored import read_results

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "Agreement": "langchain_jev.calibration._figures",
    "Calibration": "langchain_jev.calibration._measure",
    "Confusion": "langchain_jev.calibration._metrics",
    "CriterionCalibration": "langchain_jev.calibration._figures",
    "Disagreement": "langchain_jev.calibration._tables",
    "NoRequestModel": "langchain_jev.datasets._redecide",
    "Objective": "langchain_jev.calibration._sweep",
    "Stability": "langchain_jev.calibration._figures",
    "Suggestion": "langchain_jev.calibration._suggest",
    "SweepPoint": "langchain_jev.calibration._sweep",
    "acalibrate": "langchain_jev.calibration._study",
    "auroc": "langchain_jev.calibration._metrics",
    "bootstrap_kappa": "langchain_jev.calibration._metrics",
    "brier_score": "langchain_jev.calibration._metrics",
    "calibrate": "langchain_jev.calibration._study",
    "expected_calibration_error": "langchain_jev.calibration._metrics",
    "read_label": "langchain_jev.calibration._labels",
    "read_results": "langchain_jev.datasets._stored",
    "redecide": "langchain_jev.datasets._redecide",
    "redecide_records": "langchain_jev.datasets._redecide",
    "reliability_bins": "langchain_jev.calibration._metrics",
    "write_thresholds": "langchain_jev.calibration._rewrite",
}

__all__ = [
    "Agreement",
    "Calibration",
    "Confusion",
    "CriterionCalibration",
    "Disagreement",
    "NoRequestModel",
    "Objective",
    "Stability",
    "Suggestion",
    "SweepPoint",
    "acalibrate",
    "auroc",
    "bootstrap_kappa",
    "brier_score",
    "calibrate",
    "expected_calibration_error",
    "read_label",
    "read_results",
    "redecide",
    "redecide_records",
    "reliability_bins",
    "write_thresholds",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
