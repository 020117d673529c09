"""langchain-jev: judge model output with typed atomic questions.

A judge is a list of criteria; each question criterion pairs a typed question
(`Noul`, `Score`, `Choice` from ``langchain_core.decisions``) with its own pass
condition, and code checks are plain predicates. Every question goes to a
decision model in one request; the verdict keeps one finding per criterion, and
feedback synthesised from the criteria that did not pass.

The engine: `JevJudge`, `JevCriterion`, `JevJudgeInput` (the state fields),
`JevVerdict`, `JevFinding` and `Outcome`.

The spokes, each a thin adapter around a judge:

- LangSmith: `JevRunEvaluator` (``JevRunEvaluator(judge)``), one feedback key per
  criterion, and `jev_summary_evaluator` for pass rates; `PairwiseJudge`
  (``pairwise_judge(judge)`` or ``pairwise_judge(criteria, model)``) compares two
  answers, or two experiments with ``evaluate_comparative``.
- StringEvaluator: ``langchain_jev.evaluation.JevStringEvaluator`` (extra ``classic``).
- Self-refine: ``langchain_jev.graph.create_self_refine_graph`` (LangGraph) and
  ``langchain_jev.middleware.JevSelfRefineMiddleware`` (agents, extra ``middleware``).
- Guardrails: ``langchain_jev.guardrails`` (`GuardrailSettings`, `HazardBattery`),
  ``langchain_jev.graph`` (``create_guardrail_node``, ``add_guardrail``) and
  ``langchain_jev.middleware.JevGuardrailMiddleware`` (agents, extra ``middleware``); the
  guardrail errors are the package's own (``GuardrailRefusedError`` and its siblings).
- pytest: ``langchain_jev.testing.assert_judged``, ``ScriptedDecisionModel`` and the
  plugin's ``jev_model`` fixture with ``--jev-require`` and ``--jev-cache``.
- Judge files: `load_judge` (YAML or JSON) and the ``langchain-jev`` command.
- Prebuilt judges: ``langchain_jev.judges`` (RAG, correctness, agent trajectories,
  conversation, summaries, sensitive data), also by name: ``load_judge("rag")``.

Decision models: `JevDecisionModel` (Jev, from ``TYPESAFE_API_KEY``,
``TYPESAFE_DEFAULT_MODEL`` and ``TYPESAFE_BASE_URL``), `ChatModelDecisionModel`
(any LangChain chat model), `TypeSafeClassifierDecisionModel`, any
``BaseDecisionModel``, `JuryDecisionModel` (a panel of them, asked at once), and
`CachedDecisionModel` in front of any of them.

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

from typing import TYPE_CHECKING, Any

from langchain_jev._lazy import lazy_exports
from langchain_jev._moved import install as _install_moved_paths
from langchain_jev._moved import move_method as _move_method

_install_moved_paths()  # old module paths still import, with a warning, until 0.2 (langchain_jev._moved)


def _run_evaluator(judge: JevJudge, **options: Any) -> JevRunEvaluator:
    from langchain_jev.langsmith import JevRunEvaluator

    return JevRunEvaluator(judge, **options)


def _pairwise(judge: JevJudge, model: Any = None) -> PairwiseJudge:
    from langchain_jev.pairwise._build import pairwise_judge

    return pairwise_judge(judge, model)


# The engine's old spoke methods, wired here so the engine imports no spoke (until 0.2)
_move_method("JevJudge.as_evaluator", "JevRunEvaluator(judge)", _run_evaluator)
_move_method("JevJudge.pairwise", "pairwise_judge(judge)", _pairwise)

if TYPE_CHECKING:
    from langchain_jev._conversation import input_from_messages
    from langchain_jev._criteria import JevCriterion
    from langchain_jev._errors import (
        ChatModelOutputError,
        GuardrailBudgetError,
        GuardrailCheckError,
        GuardrailRefusedError,
        GuardrailUndecidedError,
        JevConfigurationError,
        JevError,
        JevInputError,
        JudgeSpecError,
        LogprobsUnavailableError,
        MissingCredentialsError,
        ResponseTooLargeError,
    )
    from langchain_jev._feedback import default_feedback
    from langchain_jev._input import (
        ANSWER_FIELD,
        CONTEXT_FIELD,
        EXPECTED_FIELD,
        QUESTION_FIELD,
        TOOL_CALLS_FIELD,
        JevFieldWarning,
        JevJudgeInput,
        ToolCall,
    )
    from langchain_jev._judge import JevJudge
    from langchain_jev._runs import judge_input_from_run
    from langchain_jev._statements import Statement, statement_criteria
    from langchain_jev._verdict import JevFinding, JevVerdict, Outcome
    from langchain_jev.langsmith import JevRunEvaluator, jev_summary_evaluator
    from langchain_jev.models._cache import CachedDecisionModel, DecisionCache, InMemoryCache, SQLiteCache
    from langchain_jev.models._chat import ChatModelDecisionModel
    from langchain_jev.models._jev import JevDecisionModel
    from langchain_jev.models._jury import JuryDecisionModel
    from langchain_jev.models._response import DecisionResponse
    from langchain_jev.models._typesafe_classifier import TypeSafeClassifierDecisionModel
    from langchain_jev.pairwise._build import pairwise_judge
    from langchain_jev.pairwise._judge import PairwiseJudge
    from langchain_jev.spec import JudgeSpec, judge_schema, load_judge

__version__ = "0.1.0"

# public name -> module defining it; imported on first use so `import langchain_jev` stays cheap
_EXPORTS: dict[str, str] = {
    "ANSWER_FIELD": "langchain_jev._input",
    "CONTEXT_FIELD": "langchain_jev._input",
    "CachedDecisionModel": "langchain_jev.models._cache",
    "ChatModelDecisionModel": "langchain_jev.models._chat",
    "ChatModelOutputError": "langchain_jev._errors",
    "DecisionCache": "langchain_jev.models._cache",
    "DecisionResponse": "langchain_jev.models._response",
    "EXPECTED_FIELD": "langchain_jev._input",
    "GuardrailBudgetError": "langchain_jev._errors",
    "GuardrailCheckError": "langchain_jev._errors",
    "GuardrailRefusedError": "langchain_jev._errors",
    "GuardrailUndecidedError": "langchain_jev._errors",
    "InMemoryCache": "langchain_jev.models._cache",
    "JevConfigurationError": "langchain_jev._errors",
    "JevCriterion": "langchain_jev._criteria",
    "JevDecisionModel": "langchain_jev.models._jev",
    "JevError": "langchain_jev._errors",
    "JevFieldWarning": "langchain_jev._input",
    "JevFinding": "langchain_jev._verdict",
    "JevInputError": "langchain_jev._errors",
    "JevJudge": "langchain_jev._judge",
    "JevJudgeInput": "langchain_jev._input",
    "JevRunEvaluator": "langchain_jev.langsmith",
    "JevVerdict": "langchain_jev._verdict",
    "JudgeSpec": "langchain_jev.spec",
    "JuryDecisionModel": "langchain_jev.models._jury",
    "JudgeSpecError": "langchain_jev._errors",
    "LogprobsUnavailableError": "langchain_jev._errors",
    "MissingCredentialsError": "langchain_jev._errors",
    "Outcome": "langchain_jev._verdict",
    "PairwiseJudge": "langchain_jev.pairwise._judge",
    "QUESTION_FIELD": "langchain_jev._input",
    "ResponseTooLargeError": "langchain_jev._errors",
    "SQLiteCache": "langchain_jev.models._cache",
    "Statement": "langchain_jev._statements",
    "TOOL_CALLS_FIELD": "langchain_jev._input",
    "ToolCall": "langchain_jev._input",
    "TypeSafeClassifierDecisionModel": "langchain_jev.models._typesafe_classifier",
    "default_feedback": "langchain_jev._feedback",
    "input_from_messages": "langchain_jev._conversation",
    "jev_summary_evaluator": "langchain_jev.langsmith",
    "judge_input_from_run": "langchain_jev._runs",
    "judge_schema": "langchain_jev.spec",
    "load_judge": "langchain_jev.spec",
    "pairwise_judge": "langchain_jev.pairwise._build",
    "statement_criteria": "langchain_jev._statements",
}

__all__ = [
    "ANSWER_FIELD",
    "CONTEXT_FIELD",
    "CachedDecisionModel",
    "ChatModelDecisionModel",
    "ChatModelOutputError",
    "DecisionCache",
    "DecisionResponse",
    "EXPECTED_FIELD",
    "GuardrailBudgetError",
    "GuardrailCheckError",
    "GuardrailRefusedError",
    "GuardrailUndecidedError",
    "InMemoryCache",
    "JevConfigurationError",
    "JevCriterion",
    "JevDecisionModel",
    "JevError",
    "JevFieldWarning",
    "JevFinding",
    "JevInputError",
    "JevJudge",
    "JevJudgeInput",
    "JevRunEvaluator",
    "JevVerdict",
    "JudgeSpec",
    "JudgeSpecError",
    "JuryDecisionModel",
    "LogprobsUnavailableError",
    "MissingCredentialsError",
    "Outcome",
    "PairwiseJudge",
    "QUESTION_FIELD",
    "ResponseTooLargeError",
    "SQLiteCache",
    "Statement",
    "TOOL_CALLS_FIELD",
    "ToolCall",
    "TypeSafeClassifierDecisionModel",
    "default_feedback",
    "input_from_messages",
    "jev_summary_evaluator",
    "judge_input_from_run",
    "judge_schema",
    "load_judge",
    "pairwise_judge",
    "statement_criteria",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
