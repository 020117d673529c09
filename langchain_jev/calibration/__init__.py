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

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
