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

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
