"""The summary judge: faithful to the source, covering its key points, concise.

==============  =====  =========================================================  ==========
criterion       kind   asks                                                       passes at
==============  =====  =========================================================  ==========
``faithful``    noul   every statement of ``assistant_answer`` is true to         yes >= 0.7
                       ``supporting_context`` (numbers, names, emphasis kept)
``key_points``  noul   the key points of the source are covered (those listed     yes >= 0.7
                       in ``expected_output``, when given)
``concise``     score  bloated, wordy, concise, tight                             level 2 of
                                                                                  0-3
==============  =====  =========================================================  ==========

State fields: ``assistant_answer`` (the summary) and ``supporting_context`` (the
documents summarised); ``expected_output`` (the key points) when given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_jev.criteria import JevCriterion
from langchain_jev.judge import JevJudge
from langchain_jev.judges.build import prebuilt_criteria, prebuilt_judge

__all__ = ["summary_criteria", "summary_judge"]


def summary_judge(
    model: Any = None, *, thresholds: Mapping[str, float] | None = None, **options: Any
) -> JevJudge:
    """The summary judge (see the module documentation for its rubric).

    Example:
        >>> from langchain_jev import JevJudgeInput
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = summary_judge(ScriptedDecisionModel({"faithful": 0.9, "key_points": 0.8, "concise": 2.6}))
        >>> data = JevJudgeInput(answer="Sales rose 4%.", context=["Q3 report: sales rose 4% ..."])
        >>> judge.judge(data).passed
        True

    """
    return prebuilt_judge("summary", model, thresholds, **options)


def summary_criteria(*, thresholds: Mapping[str, float] | None = None) -> list[JevCriterion]:
    """The summary judge's criteria, to compose with others.

    Example:
        >>> [c.name for c in summary_criteria()]
        ['faithful', 'key_points', 'concise']

    """
    return prebuilt_criteria("summary", thresholds)
