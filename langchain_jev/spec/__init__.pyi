"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev.spec._conditions import ConditionSpec as ConditionSpec
from langchain_jev.spec._kinds import CheckSpec as CheckSpec
from langchain_jev.spec._kinds import ChoiceSpec as ChoiceSpec
from langchain_jev.spec._kinds import CriterionSpec as CriterionSpec
from langchain_jev.spec._kinds import NoulSpec as NoulSpec
from langchain_jev.spec._kinds import ScoreSpec as ScoreSpec
from langchain_jev.spec._kinds import WhenChosen as WhenChosen
from langchain_jev.spec._model import JudgeSpec as JudgeSpec
from langchain_jev.spec._model import judge_schema as judge_schema
from langchain_jev.spec._model import load_judge as load_judge
from langchain_jev.spec._model import load_spec as load_spec
