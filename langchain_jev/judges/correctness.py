"""The correctness judge: the expected output's facts, settled by code where code can.

=================  =====  ======================================================  ==========
criterion          kind   decides                                                 passes at
=================  =====  ======================================================  ==========
``exact_match``    check  ``assistant_answer`` equals ``expected_output`` (as     equal
                          text, surrounding whitespace aside, or as parsed JSON
                          when the expected output is not a string); run only
                          when it is equal, so it settles the case with no request
``agreement``      noul   the answer states the same facts as the expected        yes >= 0.7
                          output, in any words and order; asked only when the
                          answer is not exactly the expected output
=================  =====  ======================================================  ==========

State fields: ``assistant_answer`` and ``expected_output``; ``user_question``
when given. An exact answer makes no request at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_jev.criteria import JevCriterion
from langchain_jev.judge import JevJudge
from langchain_jev.judges.build import prebuilt_criteria, prebuilt_judge

__all__ = ["correctness_criteria", "correctness_judge"]


def correctness_judge(
    model: Any = None, *, thresholds: Mapping[str, float] | None = None, **options: Any
) -> JevJudge:
    """The correctness judge (see the module documentation for its rubric).

    Args:
        model: anything `JevJudge` accepts; None for Jev from the environment.
        thresholds: ``{"agreement": minimum}`` to replace 0.7.
        options: `JevJudge` options.

    Example:
        >>> from langchain_jev import JevJudgeInput
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = correctness_judge(ScriptedDecisionModel({"agreement": 0.2}))
        >>> judge.judge(JevJudgeInput(answer='{"total": 12.0}', expected={"total": 12})).summary()
        'passed=true [exact_match=PASSED, agreement=NOT_APPLICABLE]'
        >>> judge.judge(JevJudgeInput(answer="13", expected="12")).summary()
        'passed=false [exact_match=NOT_APPLICABLE, agreement=FAILED]'

    """
    return prebuilt_judge("correctness", model, thresholds, **options)


def correctness_criteria(*, thresholds: Mapping[str, float] | None = None) -> list[JevCriterion]:
    """The correctness judge's criteria, to compose with others.

    Example:
        >>> [c.kind for c in correctness_criteria()]
        ['check', 'noul']

    """
    return prebuilt_criteria("correctness", thresholds)
