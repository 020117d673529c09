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

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.pairwise._build import pairwise_judge
    from langchain_jev.pairwise._judge import PairwiseJudge
    from langchain_jev.pairwise._langsmith import PairwiseComparator, comparative_evaluators, pair_input
    from langchain_jev.pairwise._questions import PairwiseCriterion
    from langchain_jev.pairwise._verdict import (
        PairwiseFinding,
        PairwiseVerdict,
        Preference,
        decide_preference,
    )

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "PairwiseComparator": "langchain_jev.pairwise._langsmith",
    "PairwiseCriterion": "langchain_jev.pairwise._questions",
    "PairwiseFinding": "langchain_jev.pairwise._verdict",
    "PairwiseJudge": "langchain_jev.pairwise._judge",
    "PairwiseVerdict": "langchain_jev.pairwise._verdict",
    "Preference": "langchain_jev.pairwise._verdict",
    "comparative_evaluators": "langchain_jev.pairwise._langsmith",
    "decide_preference": "langchain_jev.pairwise._verdict",
    "pair_input": "langchain_jev.pairwise._langsmith",
    "pairwise_judge": "langchain_jev.pairwise._build",
}

__all__ = [
    "PairwiseComparator",
    "PairwiseCriterion",
    "PairwiseFinding",
    "PairwiseJudge",
    "PairwiseVerdict",
    "Preference",
    "comparative_evaluators",
    "decide_preference",
    "pair_input",
    "pairwise_judge",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
