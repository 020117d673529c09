"""The RAG judge: grounded, relevant retrieval, relevant answer, complete, cited.

=====================  =======  ==================================================  ==========
criterion              kind     asks                                                passes at
=====================  =======  ==================================================  ==========
``groundedness``       noul     every factual claim of ``assistant_answer`` is      yes >= 0.7
                                supported by ``supporting_context`` (with no
                                context, only an answer that claims nothing is)
``context_relevance``  score    how much of what the question needs the context    level 2 of
                                holds (irrelevant, marginal, partial, sufficient)   0-3
``answer_relevance``   score    how directly the answer addresses                   level 2 of
                                ``user_question`` (off-topic .. fully)              0-3
``completeness``       noul     every key fact of ``expected_output`` is in the     yes >= 0.7
                                answer
``citations``          choice   no citations / accurate / inaccurate                no_citations
                                                                                    or accurate
=====================  =======  ==================================================  ==========

State fields: ``user_question`` and ``assistant_answer`` always;
``supporting_context`` (context relevance and citations are asked only with it)
and ``expected_output`` (completeness is asked only with it). All the questions
that apply go in one request.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_jev.criteria import JevCriterion
from langchain_jev.judge import JevJudge
from langchain_jev.judges.build import prebuilt_criteria, prebuilt_judge

__all__ = ["rag_criteria", "rag_judge"]


def rag_judge(
    model: Any = None, *, thresholds: Mapping[str, float] | None = None, **options: Any
) -> JevJudge:
    """The RAG judge (see the module documentation for its rubric and thresholds).

    Args:
        model: anything `JevJudge` accepts; None for Jev from the environment.
        thresholds: criterion name -> minimum, replacing the defaults (0.7 for the
            nouls, level 2 for the scores).
        options: `JevJudge` options (``min_confidence``, ``fail_on_inconclusive``, ...).

    Example:
        >>> from langchain_jev import JevJudgeInput
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = rag_judge(ScriptedDecisionModel({"groundedness": 0.92, "answer_relevance": 3.0}))
        >>> verdict = judge.judge(JevJudgeInput("Capital of France?", "Paris."))
        >>> verdict.passed, [f.outcome.name for f in verdict.findings]
        (True, ['PASSED', 'NOT_APPLICABLE', 'PASSED', 'NOT_APPLICABLE', 'NOT_APPLICABLE'])

    """
    return prebuilt_judge("rag", model, thresholds, **options)


def rag_criteria(*, thresholds: Mapping[str, float] | None = None) -> list[JevCriterion]:
    """The RAG judge's criteria, to compose with others in one `JevJudge`.

    Example:
        >>> [c.name for c in rag_criteria()]
        ['groundedness', 'context_relevance', 'answer_relevance', 'completeness', 'citations']

    """
    return prebuilt_criteria("rag", thresholds)
