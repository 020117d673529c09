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

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
