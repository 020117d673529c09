"""Two runs of the same rows compared: which criteria moved, whether by more than noise, which rows flipped.

- `join`: `join_rows`, each row of one results file with the same row of the other
  (by content key, or by id), or a refusal saying why the files are of different datasets;
- `stats`: paired counts, McNemar's exact test and Newcombe's interval of the difference;
- `comparison`: `compare_results` / `compare_files` and the `Comparison` they return
  (its `Comparison.table` is what ``langchain-jev compare`` prints);
- `answers`: `answer_pairs` / `read_answer_pairs`, each row's two answers and what both answer,
  read again from the datasets the runs recorded;
- `guardrail`: `compare_guardrail_files`, two ``guardrail-eval`` runs compared per category
  (AUC, recall, false refusals, latency; paired counts; flipped rows), the `GuardrailComparison`;
- `head_to_head`: `compare_answers` / `acompare_answers`, those answers judged by a pairwise judge
  (one request per row) and the `HeadToHead` tally (``langchain-jev compare A B --judge SPEC``).

Names are imported lazily, so importing this package stays cheap.

Example:
    >>> from langchain_jev.compare import compare_results
    >>> a = [{"row": 1, "key": "k", "passed": True, "findings": []}]
    >>> compare_results(a, a).overall.verdict
    'within noise'

"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.compare._answers import AnswerPair, answer_pairs, read_answer_pairs
    from langchain_jev.compare._comparison import (
        Comparison,
        CriterionChange,
        Flip,
        compare_files,
        compare_results,
    )
    from langchain_jev.compare._guardrail import GuardrailComparison, compare_guardrail_files
    from langchain_jev.compare._head_to_head import (
        HeadToHead,
        HeadToHeadRow,
        PreferenceCounts,
        acompare_answers,
        compare_answers,
    )
    from langchain_jev.compare._join import Joined, RowPair, join_rows
    from langchain_jev.compare._stats import PairedCounts, mcnemar_exact, paired_difference_interval

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "AnswerPair": "langchain_jev.compare._answers",
    "Comparison": "langchain_jev.compare._comparison",
    "CriterionChange": "langchain_jev.compare._comparison",
    "Flip": "langchain_jev.compare._comparison",
    "GuardrailComparison": "langchain_jev.compare._guardrail",
    "HeadToHead": "langchain_jev.compare._head_to_head",
    "HeadToHeadRow": "langchain_jev.compare._head_to_head",
    "Joined": "langchain_jev.compare._join",
    "PairedCounts": "langchain_jev.compare._stats",
    "PreferenceCounts": "langchain_jev.compare._head_to_head",
    "RowPair": "langchain_jev.compare._join",
    "acompare_answers": "langchain_jev.compare._head_to_head",
    "answer_pairs": "langchain_jev.compare._answers",
    "compare_answers": "langchain_jev.compare._head_to_head",
    "compare_files": "langchain_jev.compare._comparison",
    "compare_guardrail_files": "langchain_jev.compare._guardrail",
    "compare_results": "langchain_jev.compare._comparison",
    "join_rows": "langchain_jev.compare._join",
    "mcnemar_exact": "langchain_jev.compare._stats",
    "paired_difference_interval": "langchain_jev.compare._stats",
    "read_answer_pairs": "langchain_jev.compare._answers",
}

__all__ = [
    "AnswerPair",
    "Comparison",
    "CriterionChange",
    "Flip",
    "GuardrailComparison",
    "HeadToHead",
    "HeadToHeadRow",
    "Joined",
    "PairedCounts",
    "PreferenceCounts",
    "RowPair",
    "acompare_answers",
    "answer_pairs",
    "compare_answers",
    "compare_files",
    "compare_guardrail_files",
    "compare_results",
    "join_rows",
    "mcnemar_exact",
    "paired_difference_interval",
    "read_answer_pairs",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
