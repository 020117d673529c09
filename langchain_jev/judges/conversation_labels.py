"""The conversation labels judge: a support conversation's language, intent and praise, as labels.

==================  ======  ================================================  ==========
criterion           kind    asks                                              passes at
==================  ======  ================================================  ==========
``user_language``   choice  the language the user writes in (15 labels)       any label
``support_intent``  choice  the user's primary intent (9 support categories)  any label
``user_praised``    choice  whether the user praised or thanked the           any label
                            assistant
==================  ======  ================================================  ==========

State fields: ``user_question``; ``conversation`` (the earlier turns) when given. Every
label is accepted, so these never fail: the findings' ``label`` is what to count.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_jev.criteria import JevCriterion
from langchain_jev.judge import JevJudge
from langchain_jev.judges.build import prebuilt_criteria, prebuilt_judge

__all__ = ["conversation_labels_criteria", "conversation_labels_judge"]


def conversation_labels_judge(
    model: Any = None, *, thresholds: Mapping[str, float] | None = None, **options: Any
) -> JevJudge:
    """The conversation labels judge (see the module documentation for its rubric).

    Args:
        model: anything `JevJudge` accepts; None for Jev from the environment.
        thresholds: criterion -> minimum, to replace the file's.
        options: `JevJudge` options.

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = conversation_labels_judge(ScriptedDecisionModel(
        ...     {"user_language": "french", "support_intent": "order_management", "user_praised": "praised"}))
        >>> from langchain_jev import JevJudgeInput
        >>> verdict = judge.judge(JevJudgeInput("Merci ! Où est ma commande ?"))
        >>> [(f.name, f.label) for f in verdict.findings]
        [('user_language', 'french'), ('support_intent', 'order_management'), ('user_praised', 'praised')]

    """
    return prebuilt_judge("conversation_labels", model, thresholds, **options)


def conversation_labels_criteria(*, thresholds: Mapping[str, float] | None = None) -> list[JevCriterion]:
    """The conversation labels judge's criteria, to compose with others.

    Example:
        >>> [c.name for c in conversation_labels_criteria()][0]
        'user_language'

    """
    return prebuilt_criteria("conversation_labels", thresholds)
