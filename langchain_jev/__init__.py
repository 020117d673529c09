"""langchain-jev: judge model output with typed atomic questions.

A judge is a list of criteria; each question criterion pairs a typed question
(`Noul`, `Score`, `Choice` from ``langchain_core.decisions``) with its own pass
condition, and code checks are plain predicates. Every question goes to a
decision model in one request; the verdict keeps one finding per criterion.

Example:
    >>> from langchain_core.decisions import Noul
    >>> from langchain_jev import JevCriterion, JevJudge
    >>> from langchain_jev.testing import ScriptedDecisionModel
    >>> judge = JevJudge(
    ...     [JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)],
    ...     model=ScriptedDecisionModel({"polite": 0.92}),
    ... )
    >>> judge.judge("Hi?", "Hello! How can I help?").passed
    True

"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_jev.criteria import JevCriterion
    from langchain_jev.errors import (
        JevConfigurationError,
        JevError,
        JevInputError,
        MissingCredentialsError,
    )
    from langchain_jev.feedback import default_feedback
    from langchain_jev.input import (
        ANSWER_FIELD,
        CONTEXT_FIELD,
        EXPECTED_FIELD,
        QUESTION_FIELD,
        TOOL_CALLS_FIELD,
        JevJudgeInput,
        ToolCall,
    )
    from langchain_jev.judge import JevJudge
    from langchain_jev.models.jev import JevDecisionModel
    from langchain_jev.models.response import DecisionResponse
    from langchain_jev.verdict import JevFinding, JevVerdict, Outcome

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "ANSWER_FIELD": "langchain_jev.input",
    "CONTEXT_FIELD": "langchain_jev.input",
    "DecisionResponse": "langchain_jev.models.response",
    "EXPECTED_FIELD": "langchain_jev.input",
    "JevConfigurationError": "langchain_jev.errors",
    "JevCriterion": "langchain_jev.criteria",
    "JevDecisionModel": "langchain_jev.models.jev",
    "JevError": "langchain_jev.errors",
    "JevFinding": "langchain_jev.verdict",
    "JevInputError": "langchain_jev.errors",
    "JevJudge": "langchain_jev.judge",
    "JevJudgeInput": "langchain_jev.input",
    "JevVerdict": "langchain_jev.verdict",
    "MissingCredentialsError": "langchain_jev.errors",
    "Outcome": "langchain_jev.verdict",
    "QUESTION_FIELD": "langchain_jev.input",
    "TOOL_CALLS_FIELD": "langchain_jev.input",
    "ToolCall": "langchain_jev.input",
    "default_feedback": "langchain_jev.feedback",
}

__all__ = [
    "ANSWER_FIELD",
    "CONTEXT_FIELD",
    "DecisionResponse",
    "EXPECTED_FIELD",
    "JevConfigurationError",
    "JevCriterion",
    "JevDecisionModel",
    "JevError",
    "JevFinding",
    "JevInputError",
    "JevJudge",
    "JevJudgeInput",
    "JevVerdict",
    "MissingCredentialsError",
    "Outcome",
    "QUESTION_FIELD",
    "TOOL_CALLS_FIELD",
    "ToolCall",
    "default_feedback",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'langchain_jev' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])
