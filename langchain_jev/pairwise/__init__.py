"""Pairwise judges: two answers to one input, compared per criterion in both orders, in one request.

- `questions`: the comparison's questions (each criterion twice, the pair swapped) and its state;
- `verdict`: deciding a preference from both orders (`Preference`, `PairwiseFinding`,
  `PairwiseVerdict`), pure;
- `judge`: `PairwiseJudge`, which asks through a judge and decides by `verdict`;
- `build`: `pairwise_judge` (criteria and a model, or a judge's questions on its model);
- `langsmith`: comparative evaluators for ``evaluate_comparative``, one key per criterion.

Names are imported lazily, so importing this package stays cheap.
"""

from __future__ import annotations

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
