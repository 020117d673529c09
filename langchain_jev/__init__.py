"""langchain-jev: judge model output with typed atomic questions.

A judge is a list of criteria; each question criterion pairs a typed question
(`Noul`, `Score`, `Choice` from ``langchain_core.decisions``) with its own pass
condition, and code checks are plain predicates. Every question goes to a
decision model in one request; the verdict keeps one finding per criterion, and
feedback synthesised from the criteria that did not pass.

The engine: `JevJudge`, `JevCriterion`, `JevJudgeInput` (the state fields),
`JevVerdict`, `JevFinding` and `Outcome`.

The spokes, each a thin adapter around a judge:

- LangSmith: ``langchain_jev.langsmith.JevRunEvaluator`` (``JevRunEvaluator(judge)``), one
  feedback key per criterion, and ``langchain_jev.langsmith.jev_summary_evaluator`` for pass
  rates; ``langchain_jev.pairwise.PairwiseJudge`` (``pairwise_judge(judge)`` or
  ``pairwise_judge(criteria, model)``) compares two answers, or two experiments with
  ``evaluate_comparative``.
- StringEvaluator: ``langchain_jev.evaluation.JevStringEvaluator`` (extra ``classic``).
- Self-refine: ``langchain_jev.graph.create_self_refine_graph`` (LangGraph) and
  ``langchain_jev.middleware.JevSelfRefineMiddleware`` (agents, extra ``middleware``).
- Guardrails: ``langchain_jev.guardrails`` (`GuardrailSettings`, `HazardBattery`),
  ``langchain_jev.graph`` (``create_guardrail_node``, ``add_guardrail``) and
  ``langchain_jev.middleware.JevGuardrailMiddleware`` (agents, extra ``middleware``); the
  guardrail errors are the package's own (``GuardrailRefusedError`` and its siblings).
- pytest: ``langchain_jev.testing.assert_judged``, ``ScriptedDecisionModel`` and the
  plugin's ``jev_model`` fixture with ``--jev-require`` and ``--jev-cache``.
- Judge files: ``langchain_jev.spec.load_judge`` (YAML or JSON) and the ``langchain-jev`` command.
- Prebuilt judges: ``langchain_jev.judges`` (RAG, correctness, agent trajectories,
  conversation, summaries, sensitive data), also by name: ``load_judge("rag")``.

Decision models: ``langchain_jev.models.JevDecisionModel`` (Jev, from ``TYPESAFE_API_KEY``,
``TYPESAFE_DEFAULT_MODEL`` and ``TYPESAFE_BASE_URL``), `ChatModelDecisionModel`
(any LangChain chat model), `TypeSafeClassifierDecisionModel`, any
``BaseDecisionModel``, ``langchain_jev.models.JuryDecisionModel`` (a panel of them, asked at
once), and ``langchain_jev.models.CachedDecisionModel`` in front of any of them.

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


def _run_evaluator(judge: JevJudge, **options: Any) -> Any:  # a langchain_jev.langsmith.JevRunEvaluator
    from langchain_jev.langsmith import JevRunEvaluator

    return JevRunEvaluator(judge, **options)


def _pairwise(judge: JevJudge, model: Any = None) -> Any:  # a langchain_jev.pairwise.PairwiseJudge
    from langchain_jev.pairwise._build import pairwise_judge

    return pairwise_judge(judge, model)


# The engine's old spoke methods, wired here so the engine imports no spoke (until 0.2)
_move_method("JevJudge.as_evaluator", "JevRunEvaluator(judge) from langchain_jev.langsmith", _run_evaluator)
_move_method("JevJudge.pairwise", "pairwise_judge(judge) from langchain_jev.pairwise", _pairwise)

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
    from langchain_jev.models._chat import ChatModelDecisionModel
    from langchain_jev.models._typesafe_classifier import TypeSafeClassifierDecisionModel

__version__ = "0.1.0"

# public name -> module defining it; imported on first use so `import langchain_jev` stays cheap
_EXPORTS: dict[str, str] = {
    "ANSWER_FIELD": "langchain_jev._input",
    "CONTEXT_FIELD": "langchain_jev._input",
    "ChatModelDecisionModel": "langchain_jev.models._chat",
    "ChatModelOutputError": "langchain_jev._errors",
    "EXPECTED_FIELD": "langchain_jev._input",
    "GuardrailBudgetError": "langchain_jev._errors",
    "GuardrailCheckError": "langchain_jev._errors",
    "GuardrailRefusedError": "langchain_jev._errors",
    "GuardrailUndecidedError": "langchain_jev._errors",
    "JevConfigurationError": "langchain_jev._errors",
    "JevCriterion": "langchain_jev._criteria",
    "JevError": "langchain_jev._errors",
    "JevFieldWarning": "langchain_jev._input",
    "JevFinding": "langchain_jev._verdict",
    "JevInputError": "langchain_jev._errors",
    "JevJudge": "langchain_jev._judge",
    "JevJudgeInput": "langchain_jev._input",
    "JevVerdict": "langchain_jev._verdict",
    "JudgeSpecError": "langchain_jev._errors",
    "LogprobsUnavailableError": "langchain_jev._errors",
    "MissingCredentialsError": "langchain_jev._errors",
    "Outcome": "langchain_jev._verdict",
    "QUESTION_FIELD": "langchain_jev._input",
    "ResponseTooLargeError": "langchain_jev._errors",
    "Statement": "langchain_jev._statements",
    "TOOL_CALLS_FIELD": "langchain_jev._input",
    "ToolCall": "langchain_jev._input",
    "TypeSafeClassifierDecisionModel": "langchain_jev.models._typesafe_classifier",
    "default_feedback": "langchain_jev._feedback",
    "input_from_messages": "langchain_jev._conversation",
    "judge_input_from_run": "langchain_jev._runs",
    "statement_criteria": "langchain_jev._statements",
}

__all__ = [
    "ANSWER_FIELD",
    "CONTEXT_FIELD",
    "ChatModelDecisionModel",
    "ChatModelOutputError",
    "EXPECTED_FIELD",
    "GuardrailBudgetError",
    "GuardrailCheckError",
    "GuardrailRefusedError",
    "GuardrailUndecidedError",
    "JevConfigurationError",
    "JevCriterion",
    "JevError",
    "JevFieldWarning",
    "JevFinding",
    "JevInputError",
    "JevJudge",
    "JevJudgeInput",
    "JevVerdict",
    "JudgeSpecError",
    "LogprobsUnavailableError",
    "MissingCredentialsError",
    "Outcome",
    "QUESTION_FIELD",
    "ResponseTooLargeError",
    "Statement",
    "TOOL_CALLS_FIELD",
    "ToolCall",
    "TypeSafeClassifierDecisionModel",
    "default_feedback",
    "input_from_messages",
    "judge_input_from_run",
    "statement_criteria",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
