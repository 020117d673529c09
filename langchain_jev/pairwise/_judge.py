"""`PairwiseJudge`: two answers to one input, compared per criterion in both orders, in one request.

The comparison asks its questions through a `JevJudge` (the engine: one request,
strict reading, tracing), built by `pairwise_judge` (criteria, or a judge's questions)
(`langchain_jev.pairwise._build`); this module decides nothing itself (a jury's members
are compared by `langchain_jev.pairwise._verdict` too) and imports no judge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.decisions import BaseDecisionModel
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config

from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev._input import JevJudgeInput
from langchain_jev._verdict import Outcome
from langchain_jev.pairwise._questions import (
    PairwiseCriterion,
    comparison_state,
    pairwise_questions,
    question_names,
)
from langchain_jev.pairwise._verdict import (
    PairwiseFinding,
    PairwiseVerdict,
    decide_preference,
    review_preference,
    same_answers,
    same_answers_verdict,
)

if TYPE_CHECKING:
    from langchain_jev._judge import JevJudge
    from langchain_jev._verdict import JevVerdict
    from langchain_jev.models._response import JuryPanel

__all__ = ["PairwiseJudge", "SharedInput"]

SharedInput = str | JevJudgeInput | Mapping[str, Any]
"""What both answers answer: the question alone, a `JevJudgeInput` without an answer, or a state."""


class PairwiseJudge:
    """Compare two answers to the same input, criterion by criterion, each in both orders.

    For each criterion the model chooses between the first answer, the second and
    "equally good", once with A shown first and once with B shown first; both
    questions of every criterion go in ONE request. A preference stands only when
    both orders give it; one that flips with the order (position bias) or holds in
    one order only is INCONCLUSIVE (see `langchain_jev.pairwise._verdict`). Two
    answers that are the same text (whitespace aside: `langchain_jev.pairwise._verdict.same_answers`)
    are a TIE on every criterion without a request, whatever the model would have said.

    Build one with `langchain_jev.pairwise.pairwise_judge`: criteria and a model,
    or a judge (its questions, on its model).

    Args:
        criteria: what the answers are compared on (see
            `langchain_jev.pairwise._questions.pairwise_criteria`).
        engine: the judge that asks the questions: a `JevJudge` of
            ``engine_criteria(criteria)`` on the decision model.

    Raises:
        JevConfigurationError: the engine does not ask the comparison's questions.

    Example:
        >>> from langchain_jev.pairwise import pairwise_judge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> model = ScriptedDecisionModel({"helpful__1": "answer_1", "helpful__2": "answer_2",
        ...                                "concise__1": "answer_1", "concise__2": "answer_1"})
        >>> judge = pairwise_judge({"helpful": "Which answer helps the user more?",
        ...                         "concise": "Which answer is shorter, losing nothing?"}, model=model)
        >>> verdict = judge.compare("Will it rain in Dublin?", "Yes, from 9am; take an umbrella.", "Maybe.")
        >>> verdict.summary(), model.calls
        ('preferred=A [helpful=A, concise=INCONCLUSIVE]', 1)

    """

    def __init__(self, criteria: Sequence[PairwiseCriterion], engine: JevJudge) -> None:
        self._criteria = tuple(criteria)
        if list(engine.question_names) != list(pairwise_questions(self._criteria)):
            raise JevConfigurationError(
                "a PairwiseJudge's engine must ask engine_criteria(criteria): build one with "
                "pairwise_judge(criteria, model=...) or pairwise_judge(judge)"
            )
        self._engine = engine

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
        if same_answers(answer_a, answer_b):
            return same_answers_verdict(self.names)  # a tie by construction: nothing to ask
        return self._verdict(self._engine.invoke(state, _named(config)))

    async def acompare(
        self, shared: SharedInput, answer_a: str, answer_b: str, *, config: RunnableConfig | None = None
    ) -> PairwiseVerdict:
        """Asynchronous `compare`."""
        state = comparison_state(_shared(shared), answer_a, answer_b)
        if same_answers(answer_a, answer_b):
            return same_answers_verdict(self.names)  # a tie by construction: nothing to ask
        return self._verdict(await self._engine.ainvoke(state, _named(config)))

    def __call__(self, runs: Sequence[Any], example: Any = None) -> Any:
        """Refuse to be one comparative evaluator: a comparison reports one key per criterion."""
        raise JevConfigurationError(
            "a PairwiseJudge reports one key per criterion: pass evaluators=comparative_evaluators(judge) "
            "(from langchain_jev.pairwise) to langsmith's evaluate_comparative"
        )

    def _verdict(self, verdict: JevVerdict) -> PairwiseVerdict:
        panel = getattr(verdict.response, "panel", None)  # a jury's members, each compared as well
        findings = []
        for criterion in self._criteria:
            pair = [verdict.finding(name) for name in question_names(criterion.name)]
            problems = [_problem(f.outcome, f.detail, f.name) for f in pair]
            orders = zip(("A first", "B first"), pair, strict=True)
            said = [f"{order}: {f.reasoning}" for order, f in orders if f.reasoning]
            answers = [f.answer for f in pair]
            finding = decide_preference(criterion.name, answers, problems, "\n".join(said) or None)
            if panel is not None:
                finding = review_preference(
                    finding,
                    _members_preferences(panel, criterion.name),
                    vote=panel.combine == "vote",
                    disagreement=panel.disagreement,
                )
            findings.append(finding)
        return PairwiseVerdict(tuple(findings), verdict.response)

    def __repr__(self) -> str:
        model = self.model
        return f"PairwiseJudge({self.names}, model={type(model).__name__}({model.model!r}))"


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


def _members_preferences(panel: JuryPanel, name: str) -> dict[str, PairwiseFinding]:
    """Each member's own preference on criterion ``name``, from its two answers."""
    questions = question_names(name)
    found = {}
    for member, response in panel.members.items():
        answers = [response.answers.get(q) for q in questions]
        found[member] = decide_preference(name, answers, [response.unreadable.get(q) for q in questions])
    return found


def _problem(outcome: Outcome, detail: str, name: str) -> str | None:
    if outcome is not Outcome.ERROR:
        return None
    return detail.removeprefix(f"{name}: ").removeprefix("could not be judged: ")
