"""The quality judge: on topic, to the point, substantive, the plan followed (no reference needed).

================  =====  ================================================  ==========
criterion         kind   asks                                              passes at
================  =====  ================================================  ==========
``on_topic``      score  how much of the answer serves the question        level 2 of 0-3
``to_the_point``  noul   no preamble, hedging, restating or unrequested    yes >= 0.7
                         material
``substantive``   noul   a genuine attempt, not blank, filler or a bare    yes >= 0.7
                         refusal
``follows_plan``  noul   every step of ``plan`` done, in order, nothing    yes >= 0.7
                         major added (asked only with a plan)
================  =====  ================================================  ==========

State fields: ``user_question`` and ``assistant_answer``; ``plan`` and ``tool_calls`` when given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_jev.criteria import JevCriterion
from langchain_jev.judge import JevJudge
from langchain_jev.judges.build import prebuilt_criteria, prebuilt_judge

__all__ = ["quality_criteria", "quality_judge"]


def quality_judge(
    model: Any = None, *, thresholds: Mapping[str, float] | None = None, **options: Any
) -> JevJudge:
    """The quality judge (see the module documentation for its rubric).

    Args:
        model: anything `JevJudge` accepts; None for Jev from the environment.
        thresholds: criterion -> minimum, to replace the file's.
        options: `JevJudge` options.

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> model = ScriptedDecisionModel({"on_topic": 3.0, "to_the_point": 0.9, "substantive": 0.2})
        >>> judge = quality_judge(model)
        >>> verdict = judge.judge("How do I reset my password?", "Great question!")
        >>> [(f.name, f.outcome.name) for f in verdict.findings if f.outcome.name != "PASSED"]
        [('substantive', 'FAILED'), ('follows_plan', 'NOT_APPLICABLE')]

    """
    return prebuilt_judge("quality", model, thresholds, **options)


def quality_criteria(*, thresholds: Mapping[str, float] | None = None) -> list[JevCriterion]:
    """The quality judge's criteria, to compose with others.

    Example:
        >>> [c.name for c in quality_criteria()][0]
        'on_topic'

    """
    return prebuilt_criteria("quality", thresholds)
