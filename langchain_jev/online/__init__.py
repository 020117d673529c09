"""Judging live traffic in LangSmith: a judge deployed as an online evaluator (a rule LangSmith runs).

- `rule`: `decision_rule`, the LangSmith decision-model rule a judge becomes (pure): its
  questions, prompt and variable mapping, and the notes on what stays with the package;
- `provider`: `rule_model`, which provider and model the rule asks for the judge's decision model;
- `deployment`: `deploy` / `adeploy`, the rule created on a project or dataset (or a dry run).

Names are imported lazily, so importing this package stays cheap.

Example:
    >>> from langchain_jev.online import decision_rule
    >>> decision_rule.__module__
    'langchain_jev.online._rule'

"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.online._deployment import Deployment, JevDeployWarning, adeploy, deploy
    from langchain_jev.online._provider import RuleModel, rule_model
    from langchain_jev.online._rule import DEFAULT_MAPPING, DecisionRule, decision_rule

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "DEFAULT_MAPPING": "langchain_jev.online._rule",
    "DecisionRule": "langchain_jev.online._rule",
    "Deployment": "langchain_jev.online._deployment",
    "JevDeployWarning": "langchain_jev.online._deployment",
    "RuleModel": "langchain_jev.online._provider",
    "adeploy": "langchain_jev.online._deployment",
    "decision_rule": "langchain_jev.online._rule",
    "deploy": "langchain_jev.online._deployment",
    "rule_model": "langchain_jev.online._provider",
}

__all__ = [
    "DEFAULT_MAPPING",
    "DecisionRule",
    "Deployment",
    "JevDeployWarning",
    "RuleModel",
    "adeploy",
    "decision_rule",
    "deploy",
    "rule_model",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
