"""Building a `PairwiseJudge`: criteria and a model in, the comparison and its engine out."""

from __future__ import annotations

from typing import Any

from langchain_jev._judge import JevJudge
from langchain_jev.pairwise._judge import PairwiseJudge
from langchain_jev.pairwise._questions import engine_criteria, pairwise_criteria

__all__ = ["pairwise_judge"]


def pairwise_judge(criteria: Any, model: Any = None, **options: Any) -> PairwiseJudge:
    """A `PairwiseJudge` on ``criteria``, answered by ``model``.

    ``criteria`` are `JevCriterion` questions (asked of each answer; a check is
    refused), `PairwiseCriterion` items, a mapping ``{name: what makes an answer
    better}``, or a `JevJudge`, whose questions are compared (its checks left out)
    on its own model unless ``model`` is given; ``model`` is anything `JevJudge`
    takes (None: Jev from the environment), and ``options`` go to the `JevJudge`
    that asks the questions.

    Raises:
        JevConfigurationError: criteria that cannot compare (see
            `langchain_jev.pairwise._questions.pairwise_criteria`), or a model `JevJudge` refuses.

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = pairwise_judge({"helpful": "Which answer helps more?"},
        ...     model=ScriptedDecisionModel({"helpful__1": "answer_2", "helpful__2": "answer_1"}))
        >>> judge.compare("Capital of France?", "Lyon.", "Paris.").finding("helpful").preference.value
        'B'

    """
    if isinstance(criteria, JevJudge):
        model = criteria.model if model is None else model
        criteria = [criterion for criterion in criteria.criteria if criterion.is_question]
    compared = pairwise_criteria(criteria)
    return PairwiseJudge(compared, JevJudge(engine_criteria(compared), model, **options))
