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

from langchain_jev._lazy import lazy_exports_from_stub
from langchain_jev._moved import install as _install_moved_paths
from langchain_jev._moved import move_method as _move_method

if TYPE_CHECKING:
    from langchain_jev._judge import JevJudge

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


__version__ = "0.1.0"

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
