"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev.pairwise._build import pairwise_judge as pairwise_judge
from langchain_jev.pairwise._judge import PairwiseJudge as PairwiseJudge
from langchain_jev.pairwise._langsmith import PairwiseComparator as PairwiseComparator
from langchain_jev.pairwise._langsmith import comparative_evaluators as comparative_evaluators
from langchain_jev.pairwise._langsmith import pair_input as pair_input
from langchain_jev.pairwise._questions import PairwiseCriterion as PairwiseCriterion
from langchain_jev.pairwise._verdict import PairwiseFinding as PairwiseFinding
from langchain_jev.pairwise._verdict import PairwiseVerdict as PairwiseVerdict
from langchain_jev.pairwise._verdict import Preference as Preference
from langchain_jev.pairwise._verdict import decide_preference as decide_preference
