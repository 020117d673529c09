"""The conversation judge: a reply that resolves the need, in the right tone, as instructed, honestly.

============================  =====  ===============================================  ==========
criterion                     kind   asks                                             passes at
============================  =====  ===============================================  ==========
``need_resolved``             noul   the reply resolves the need of                   yes >= 0.7
                                     ``user_question``, read with ``conversation``
``tone``                      noul   courteous, clear, suited to the user             yes >= 0.7
``follows_system_prompt``     noul   every instruction of ``system_prompt`` that      yes >= 0.7
                                     applies is followed (asked only with one)
``no_invented_capabilities``  noul   only abilities and actions the assistant has,    yes >= 0.7
                                     as ``system_prompt`` and ``tool_calls`` show
``knowledge_retained``        noul   facts the user gave earlier in ``conversation``  yes >= 0.7
                                     are kept (asked only with one)
``reply_in_user_language``    noul   the reply is in the user's language              yes >= 0.7
``no_perceived_error``        noul   no sign the user thinks the assistant erred      yes >= 0.7
============================  =====  ===============================================  ==========

State fields: ``user_question`` (the user's last message) and
``assistant_answer`` (the reply); ``conversation`` (the earlier turns, e.g. a
list of ``{role, content}``), ``system_prompt`` and ``tool_calls`` when given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_jev.criteria import JevCriterion
from langchain_jev.judge import JevJudge
from langchain_jev.judges.build import prebuilt_criteria, prebuilt_judge

__all__ = ["conversation_criteria", "conversation_judge"]


def conversation_judge(
    model: Any = None, *, thresholds: Mapping[str, float] | None = None, **options: Any
) -> JevJudge:
    """The conversation judge (see the module documentation for its rubric).

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = conversation_judge(ScriptedDecisionModel(
        ...     {"need_resolved": 0.9, "tone": 0.95, "no_invented_capabilities": 0.2,
        ...      "reply_in_user_language": 0.97, "no_perceived_error": 0.9}))
        >>> verdict = judge.judge("Cancel my order", "Done, I've emailed you the refund.")
        >>> [(f.name, f.outcome.name) for f in verdict.findings
        ...  if f.outcome.name != "PASSED"]  # doctest: +NORMALIZE_WHITESPACE
        [('follows_system_prompt', 'NOT_APPLICABLE'), ('no_invented_capabilities', 'FAILED'),
         ('knowledge_retained', 'NOT_APPLICABLE')]
        >>> verdict.feedback.endswith("(yes at 0.20, needs 0.70)")
        True

    """
    return prebuilt_judge("conversation", model, thresholds, **options)


def conversation_criteria(*, thresholds: Mapping[str, float] | None = None) -> list[JevCriterion]:
    """The conversation judge's criteria, to compose with others.

    Example:
        >>> [c.name for c in conversation_criteria()][:2]
        ['need_resolved', 'tone']

    """
    return prebuilt_criteria("conversation", thresholds)
