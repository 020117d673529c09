"""`PairwiseJudge`: two answers to one input, compared per criterion in both orders, in one request."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.decisions import BaseDecisionModel
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config

from langchain_jev.criteria import JevCriterion
from langchain_jev.errors import JevConfigurationError, JevInputError
from langchain_jev.input import JevJudgeInput
from langchain_jev.judge import JevJudge
from langchain_jev.pairwise.langsmith import PairwiseComparator, PreparePair, comparative_evaluators
from langchain_jev.pairwise.questions import (
    PairwiseCriterion,
    comparison_state,
    pairwise_criteria,
    pairwise_questions,
    question_names,
)
from langchain_jev.pairwise.verdict import LABELS, PairwiseVerdict, decide_preference
from langchain_jev.verdict import JevVerdict, Outcome

__all__ = ["PairwiseJudge", "SharedInput", "pairwise_judge"]

SharedInput = str | JevJudgeInput | Mapping[str, Any]
"""What both answers answer: the question alone, a `JevJudgeInput` without an answer, or a state."""


class PairwiseJudge:
    """Compare two answers to the same input, criterion by criterion, each in both orders.

    For each criterion the model chooses between the first answer, the second and
    "equally good", once with A shown first and once with B shown first; both
    questions of every criterion go in ONE request. A preference stands only when
    both orders give it; one that flips with the order (position bias) or holds in
    one order only is INCONCLUSIVE (see `langchain_jev.pairwise.verdict`).

    Args:
        criteria: what the answers are compared on: `JevCriterion` questions (a
            judge's, asked of each answer; checks are refused), `PairwiseCriterion`
            items, or a mapping ``{name: what makes an answer better}``.
        model: the decision model, anything `JevJudge` takes (None: Jev from the environment).

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> model = ScriptedDecisionModel({"helpful__1": "answer_1", "helpful__2": "answer_2",
        ...                                "concise__1": "answer_1", "concise__2": "answer_1"})
        >>> judge = PairwiseJudge({"helpful": "Which answer helps the user more?",
        ...                        "concise": "Which answer is shorter, losing nothing?"}, model=model)
        >>> verdict = judge.compare("Will it rain in Dublin?", "Yes, from 9am; take an umbrella.", "Maybe.")
        >>> verdict.summary(), model.calls
        ('preferred=A [helpful=A, concise=INCONCLUSIVE]', 1)

    """

    def __init__(self, criteria: Any, model: Any = None) -> None:
        self._criteria = pairwise_criteria(criteria)
        questions = pairwise_questions(self._criteria)
        engine = [JevCriterion.choice(name, question, LABELS) for name, question in questions.items()]
        self._engine = JevJudge(engine, model)

    @classmethod
    def from_judge(cls, judge: JevJudge, model: Any = None) -> PairwiseJudge:
        """The comparison on a judge's questions (not its checks), on its model unless ``model`` is given.

        Example:
            >>> from langchain_core.decisions import Noul
            >>> from langchain_jev.testing import ScriptedDecisionModel
            >>> judge = JevJudge([
            ...     JevCriterion.check("short", lambda d: len(d.answer or "") < 80, "too long"),
            ...     JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7),
            ... ], model=ScriptedDecisionModel({}))
            >>> [c.name for c in PairwiseJudge.from_judge(judge).criteria]
            ['polite']

        """
        questions = [c for c in judge.criteria if c.is_question]
        return cls(questions, model if model is not None else judge.model)

    @property
    def criteria(self) -> tuple[PairwiseCriterion, ...]:
        """What the answers are compared on, in order."""
        return self._criteria

    @property
    def model(self) -> BaseDecisionModel:
        """The decision model that answers the comparisons."""
        return self._engine.model

    @property
    def names(self) -> list[str]:
        """The criteria's names, in order (one LangSmith key each)."""
        return [c.name for c in self._criteria]

    def compare(
        self, shared: SharedInput, answer_a: str, answer_b: str, *, config: RunnableConfig | None = None
    ) -> PairwiseVerdict:
        """Compare ``answer_a`` and ``answer_b`` as answers to ``shared``: one request.

        Raises:
            JevInputError: the input cannot be read, or an answer is not text.
            Exception: the decision model's error when it cannot be reached.

        """
        state = comparison_state(_shared(shared), answer_a, answer_b)
        return self._verdict(self._engine.invoke(state, _named(config)))

    async def acompare(
        self, shared: SharedInput, answer_a: str, answer_b: str, *, config: RunnableConfig | None = None
    ) -> PairwiseVerdict:
        """Asynchronous `compare`."""
        state = comparison_state(_shared(shared), answer_a, answer_b)
        return self._verdict(await self._engine.ainvoke(state, _named(config)))

    def comparative_evaluators(
        self, *, prepare: PreparePair | None = None, key_prefix: str | None = None
    ) -> list[PairwiseComparator]:
        """LangSmith comparative evaluators, one per criterion, sharing one request per pair of runs.

        Pass them all to ``evaluate_comparative``: each reports its criterion's key with
        a score per run (1 to the better, 0 to the other, 0.5 each for a tie, none
        when undecided). See `langchain_jev.pairwise.langsmith`.
        """
        return comparative_evaluators(self, prepare=prepare, key_prefix=key_prefix)

    def __call__(self, runs: Sequence[Any], example: Any = None) -> Any:
        """Refuse to be one comparative evaluator: a comparison reports one key per criterion."""
        raise JevConfigurationError(
            "a PairwiseJudge reports one key per criterion: pass evaluators=judge.comparative_evaluators() "
            "to langsmith's evaluate_comparative"
        )

    def _verdict(self, verdict: JevVerdict) -> PairwiseVerdict:
        findings = []
        for criterion in self._criteria:
            pair = [verdict.finding(name) for name in question_names(criterion.name)]
            problems = [_problem(f.outcome, f.detail, f.name) for f in pair]
            orders = zip(("A first", "B first"), pair, strict=True)
            said = [f"{order}: {f.reasoning}" for order, f in orders if f.reasoning]
            findings.append(
                decide_preference(criterion.name, [f.answer for f in pair], problems, "\n".join(said) or None)
            )
        return PairwiseVerdict(tuple(findings), verdict.response)

    def __repr__(self) -> str:
        model = self.model
        return f"PairwiseJudge({self.names}, model={type(model).__name__}({model.model!r}))"


def pairwise_judge(criteria: Any, model: Any = None) -> PairwiseJudge:
    """A `PairwiseJudge` on ``criteria`` (see there), answered by ``model``.

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = pairwise_judge({"helpful": "Which answer helps more?"},
        ...     model=ScriptedDecisionModel({"helpful__1": "answer_2", "helpful__2": "answer_1"}))
        >>> judge.compare("Capital of France?", "Lyon.", "Paris.").finding("helpful").preference.value
        'B'

    """
    return PairwiseJudge(criteria, model)


def _shared(shared: Any) -> JevJudgeInput | Mapping[str, Any]:
    if isinstance(shared, str):
        return JevJudgeInput(question=shared)
    if isinstance(shared, (JevJudgeInput, Mapping)):
        return shared
    raise JevInputError(
        "a comparison takes what both answers answer: the question, a JevJudgeInput or a state; "
        f"got {type(shared).__name__}"
    )


def _named(config: RunnableConfig | None) -> RunnableConfig:
    config = ensure_config(config)
    config.setdefault("run_name", "PairwiseJudge")
    return config


def _problem(outcome: Outcome, detail: str, name: str) -> str | None:
    if outcome is not Outcome.ERROR:
        return None
    return detail.removeprefix(f"{name}: ").removeprefix("could not be judged: ")
