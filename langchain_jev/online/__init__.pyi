"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev.online._deployment import Deployment as Deployment
from langchain_jev.online._deployment import JevDeployWarning as JevDeployWarning
from langchain_jev.online._deployment import adeploy as adeploy
from langchain_jev.online._deployment import deploy as deploy
from langchain_jev.online._provider import RuleModel as RuleModel
from langchain_jev.online._provider import rule_model as rule_model
from langchain_jev.online._rule import DEFAULT_MAPPING as DEFAULT_MAPPING
from langchain_jev.online._rule import DecisionRule as DecisionRule
from langchain_jev.online._rule import decision_rule as decision_rule
