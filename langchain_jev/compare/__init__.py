"""Two runs of the same rows compared: which criteria moved, whether by more than noise, which rows flipped.

- `join`: `join_rows`, each row of one results file with the same row of the other
  (by content key, or by id), or a refusal saying why the files are of different datasets;
- `stats`: paired counts, McNemar's exact test and Newcombe's interval of the difference;
- `comparison`: `compare_results` / `compare_files` and the `Comparison` they return
  (its `Comparison.table` is what ``langchain-jev compare`` prints).

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
    from langchain_jev.compare.comparison import (
        Comparison,
        CriterionChange,
        Flip,
        compare_files,
        compare_results,
    )
    from langchain_jev.compare.join import Joined, RowPair, join_rows
    from langchain_jev.compare.stats import PairedCounts, mcnemar_exact, paired_difference_interval

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "Comparison": "langchain_jev.compare.comparison",
    "CriterionChange": "langchain_jev.compare.comparison",
    "Flip": "langchain_jev.compare.comparison",
    "Joined": "langchain_jev.compare.join",
    "PairedCounts": "langchain_jev.compare.stats",
    "RowPair": "langchain_jev.compare.join",
    "compare_files": "langchain_jev.compare.comparison",
    "compare_results": "langchain_jev.compare.comparison",
    "join_rows": "langchain_jev.compare.join",
    "mcnemar_exact": "langchain_jev.compare.stats",
    "paired_difference_interval": "langchain_jev.compare.stats",
}

__all__ = [
    "Comparison",
    "CriterionChange",
    "Flip",
    "Joined",
    "PairedCounts",
    "RowPair",
    "compare_files",
    "compare_results",
    "join_rows",
    "mcnemar_exact",
    "paired_difference_interval",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
