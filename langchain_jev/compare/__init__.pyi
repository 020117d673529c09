"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev.compare._answers import AnswerPair as AnswerPair
from langchain_jev.compare._answers import answer_pairs as answer_pairs
from langchain_jev.compare._answers import read_answer_pairs as read_answer_pairs
from langchain_jev.compare._comparison import Comparison as Comparison
from langchain_jev.compare._comparison import CriterionChange as CriterionChange
from langchain_jev.compare._comparison import Flip as Flip
from langchain_jev.compare._comparison import compare_files as compare_files
from langchain_jev.compare._comparison import compare_results as compare_results
from langchain_jev.compare._guardrail import GuardrailComparison as GuardrailComparison
from langchain_jev.compare._guardrail import compare_guardrail_files as compare_guardrail_files
from langchain_jev.compare._head_to_head import HeadToHead as HeadToHead
from langchain_jev.compare._head_to_head import HeadToHeadRow as HeadToHeadRow
from langchain_jev.compare._head_to_head import PreferenceCounts as PreferenceCounts
from langchain_jev.compare._head_to_head import acompare_answers as acompare_answers
from langchain_jev.compare._head_to_head import compare_answers as compare_answers
from langchain_jev.compare._join import Joined as Joined
from langchain_jev.compare._join import RowPair as RowPair
from langchain_jev.compare._join import join_rows as join_rows
from langchain_jev.compare._stats import PairedCounts as PairedCounts
from langchain_jev.compare._stats import mcnemar_exact as mcnemar_exact
from langchain_jev.compare._stats import paired_difference_interval as paired_difference_interval
