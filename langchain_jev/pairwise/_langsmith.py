"""A pairwise judge in LangSmith's ``evaluate_comparative``: one key per criterion, one request per pair.

``evaluate_comparative`` reports one key per evaluator, so
`comparative_evaluators` gives one `PairwiseComparator` per criterion. They share
the comparison of each pair of runs: whichever is called first for a pair asks the
model (both orders of every criterion, in one request), the others wait for that
verdict and read their criterion's finding. Each reports a score per run: 1 to the
better answer and 0 to the other, 0.5 each for a tie, and no score when the
comparison is undecided (INCONCLUSIVE, ERROR).

The comparisons held for the evaluators that have not read them yet are bounded
(`MAX_PENDING`), so an online comparison that runs for weeks keeps no more.

Example::

    from langsmith import evaluate_comparative

    from langchain_jev.pairwise import comparative_evaluators, pairwise_judge

    pairwise = pairwise_judge(judge)  # or pairwise_judge({...}, model=...)
    evaluate_comparative(("experiment-a", "experiment-b"), evaluators=comparative_evaluators(pairwise))
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from langsmith.evaluation.evaluator import ComparisonEvaluationResult
from langsmith.schemas import Example, Run

from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev._input import JevJudgeInput
from langchain_jev._runs import judge_input_from_run
from langchain_jev.langsmith import feedback_key, offline_tracing
from langchain_jev.pairwise._verdict import PairwiseFinding, PairwiseVerdict

if TYPE_CHECKING:
    from langchain_jev.pairwise._judge import PairwiseJudge, SharedInput

__all__ = [
    "MAX_PENDING",
    "PairwiseComparator",
    "PreparePair",
    "comparative_evaluators",
    "comparison_result",
    "pair_input",
]

PreparePair = Callable[[Run, Run, Example | None], "tuple[SharedInput, str, str]"]
"""Maps two runs and their example to what both answer, answer A and answer B."""


def pair_input(run_a: Run, run_b: Run, example: Example | None = None) -> tuple[JevJudgeInput, str, str]:
    """What two runs of one example answered, and their answers (the default mapping).

    Each run is read as `langchain_jev.judge_input_from_run` reads it. The
    question, the conversation and the expected output come from run A (the
    question from run B when A's inputs give none); the documents are both runs'
    (A's, then those only B retrieved). Tool calls are each run's own and are left out.

    Raises:
        JevInputError: a run yields no answer.

    Example:
        >>> from langsmith.run_trees import RunTree
        >>> a = RunTree(name="a", run_type="chain", inputs={"question": "Capital of France?"})
        >>> a.end(outputs={"answer": "Paris.", "context": ["Paris is the capital."]})
        >>> b = RunTree(name="b", run_type="chain", inputs={"question": "Capital of France?"})
        >>> b.end(outputs={"answer": "Lyon."})
        >>> shared, answer_a, answer_b = pair_input(a, b)
        >>> shared.question, shared.context, answer_a, answer_b
        ('Capital of France?', ('Paris is the capital.',), 'Paris.', 'Lyon.')

    """
    a, b = judge_input_from_run(run_a, example), judge_input_from_run(run_b, example)
    context = list(a.context) + [doc for doc in b.context if doc not in a.context]
    shared = JevJudgeInput(
        a.question if a.question is not None else b.question,
        expected=a.expected,
        context=context,
        fields=dict(a.fields) or dict(b.fields),
    )
    return shared, a.answer or "", b.answer or ""


def comparison_result(
    finding: PairwiseFinding, run_a: Run, run_b: Run, key: str | None = None
) -> ComparisonEvaluationResult:
    """A finding as LangSmith's comparative result: a score and a comment per run.

    Example:
        >>> import uuid
        >>> from langsmith.run_trees import RunTree
        >>> from langchain_jev.pairwise import Preference
        >>> a, b = RunTree(name="a", run_type="chain"), RunTree(name="b", run_type="chain")
        >>> finding = PairwiseFinding("helpful", Preference.B, (Preference.B, Preference.B), None,
        ...                           "helpful: B is better, in both orders")
        >>> result = comparison_result(finding, a, b)
        >>> result.key, result.scores[a.id], result.scores[b.id]
        ('helpful', 0.0, 1.0)

    """
    return ComparisonEvaluationResult(
        key=key or finding.name,
        scores={run_a.id: finding.preference.score_of("A"), run_b.id: finding.preference.score_of("B")},
        comment={run_a.id: f"A: {finding.detail}", run_b.id: f"B: {finding.detail}"},
    )


class PairwiseComparator:
    """One criterion's comparative evaluator for ``evaluate_comparative`` (see the module docs).

    Called with the two runs of an example and the example; returns the
    criterion's `comparison_result`. Build them with `comparative_evaluators`.
    """

    def __init__(self, pairs: _Pairs, name: str, key: str) -> None:
        self._pairs = pairs
        self._name = name
        self.key = key
        """The feedback key this evaluator reports."""
        self.__name__ = key  # the name LangSmith gives the evaluator's trace

    def __call__(self, runs: Sequence[Run], example: Example | None = None) -> ComparisonEvaluationResult:
        """Compare the two runs (one request per pair, shared by every criterion); report this one."""
        run_a, run_b, verdict = self._pairs.verdict(runs, example)
        return comparison_result(verdict.finding(self._name), run_a, run_b, self.key)

    def __repr__(self) -> str:
        return f"PairwiseComparator({self.key!r})"


def comparative_evaluators(
    judge: PairwiseJudge, *, prepare: PreparePair | None = None, key_prefix: str | None = None
) -> list[PairwiseComparator]:
    """One comparative evaluator per criterion of ``judge``, sharing one request per pair of runs.

    ``prepare(run_a, run_b, example) -> (shared, answer_a, answer_b)`` replaces the
    default `pair_input`; ``key_prefix`` goes before every key, as for
    `langchain_jev.langsmith.JevRunEvaluator`.

    Raises:
        JevConfigurationError: ``prepare`` is not callable, or ``key_prefix`` not a string.

    Example:
        >>> from langchain_jev.pairwise import pairwise_judge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = pairwise_judge({"helpful": "Which helps more?", "concise": "Which is shorter?"},
        ...                        model=ScriptedDecisionModel({}))
        >>> [e.key for e in comparative_evaluators(judge, key_prefix="vs")]
        ['vs_helpful', 'vs_concise']

    """
    if prepare is not None and not callable(prepare):
        raise JevConfigurationError("prepare must be callable as prepare(run_a, run_b, example)")
    if key_prefix is not None and not isinstance(key_prefix, str):
        raise JevConfigurationError(f"key_prefix must be a string, got {type(key_prefix).__name__}")
    pairs = _Pairs(judge, prepare or pair_input, len(judge.names))
    return [PairwiseComparator(pairs, name, feedback_key(key_prefix, name)) for name in judge.names]


# ---------------------------------------------------------------------- one request per pair


@dataclass
class _Pending:
    """The comparison of one pair of runs, made once and read by each criterion's evaluator."""

    run_a: Run
    run_b: Run
    readers: int
    verdict: Future[PairwiseVerdict] = field(default_factory=Future)


MAX_PENDING = 1024
"""The most comparisons the evaluators of one judge hold for each other (the oldest dropped first)."""


class _Pairs:
    """The comparisons the evaluators of one judge share.

    Each is dropped once every evaluator read it; and at most `MAX_PENDING` are held
    (an evaluator never called for a pair, a run compared once by some of the
    evaluators only, would otherwise keep its pair for as long as the process runs):
    past it the oldest is dropped, and an evaluator that still wanted it compares the
    pair again.
    """

    def __init__(self, judge: PairwiseJudge, prepare: PreparePair, readers: int) -> None:
        self._judge = judge
        self._prepare = prepare
        self._readers = readers
        self._lock = threading.Lock()
        self._pending: OrderedDict[tuple[str, frozenset[str]], _Pending] = OrderedDict()

    def verdict(self, runs: Sequence[Run], example: Example | None) -> tuple[Run, Run, PairwiseVerdict]:
        if len(runs) != 2:
            raise JevInputError(f"a pairwise judge compares two runs of an example, got {len(runs)}")
        key = (str(example.id) if example is not None else "", frozenset(str(run.id) for run in runs))
        with self._lock:
            pending = self._pending.get(key)
            first = pending is None
            if pending is None:
                pending = self._pending[key] = _Pending(runs[0], runs[1], self._readers)
                while len(self._pending) > MAX_PENDING:
                    self._pending.popitem(last=False)
            pending.readers -= 1
            if pending.readers <= 0:
                del self._pending[key]
        if first:
            self._compare(pending, example)
        return pending.run_a, pending.run_b, pending.verdict.result()

    def _compare(self, pending: _Pending, example: Example | None) -> None:
        try:
            shared, answer_a, answer_b = self._prepare(pending.run_a, pending.run_b, example)
            with offline_tracing():
                verdict = self._judge.compare(
                    shared,
                    answer_a,
                    answer_b,
                    config={"metadata": {"run_a": str(pending.run_a.id), "run_b": str(pending.run_b.id)}},
                )
        except BaseException as error:
            pending.verdict.set_exception(error)  # every criterion's evaluator raises it
            if not isinstance(error, Exception):
                raise
            return
        pending.verdict.set_result(verdict)

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)
