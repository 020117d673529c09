"""Jev judges in LangSmith experiments: one feedback key per criterion.

`JevRunEvaluator` puts a judge behind LangSmith's ``RunEvaluator``, so
``langsmith.evaluate(target, data=..., evaluators=[JevRunEvaluator(judge)])`` and
``aevaluate`` report every criterion under its own key, plus an overall
``jev_pass``. `jev_summary_evaluator` adds the pass rate of each criterion over
the experiment.

Example:
    >>> import uuid
    >>> from datetime import datetime, timezone
    >>> from langchain_core.decisions import Noul
    >>> from langsmith.schemas import Run
    >>> from langchain_jev import JevCriterion, JevJudge
    >>> from langchain_jev.langsmith import JevRunEvaluator
    >>> from langchain_jev.testing import ScriptedDecisionModel
    >>> judge = JevJudge(
    ...     [JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)],
    ...     model=ScriptedDecisionModel({"polite": 0.92}),
    ... )
    >>> run = Run(id=uuid.uuid4(), name="bot", run_type="chain", trace_id=uuid.uuid4(),
    ...           start_time=datetime.now(timezone.utc),
    ...           inputs={"question": "Hi?"}, outputs={"answer": "Hello! How can I help?"})
    >>> results = JevRunEvaluator(judge).evaluate_run(run)
    >>> [(r.key, r.score, r.value) for r in results["results"]]
    [('polite', 1.0, 'PASSED (0.92)'), ('jev_pass', 1.0, 'PASSED')]

"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NoReturn

from langchain_core.runnables import RunnableConfig
from langsmith import run_helpers
from langsmith.evaluation.evaluator import (
    EvaluationResult,
    EvaluationResults,
    FeedbackConfig,
    RunEvaluator,
)
from langsmith.schemas import Example, Run, RunBase

from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev._feedback import number
from langchain_jev._input import JevJudgeInput
from langchain_jev._judge import JevJudge, JudgeInput
from langchain_jev._runs import judge_input_from_run
from langchain_jev._verdict import JevFinding, JevVerdict, Outcome
from langchain_jev.models._secrets import redact

__all__ = [
    "DEFAULT_RECORDS",
    "OVERALL_KEY",
    "PASS_FAIL_FEEDBACK",
    "JevRunEvaluator",
    "Prepare",
    "SummaryEvaluator",
    "feedback_key",
    "jev_summary_evaluator",
    "offline_tracing",
    "verdict_results",
]

OVERALL_KEY = "jev_pass"
"""The key of the overall result: did the verdict pass."""

PASS_FAIL_FEEDBACK: FeedbackConfig = {
    "type": "categorical",
    "categories": [{"value": 1, "label": "PASSED"}, {"value": 0, "label": "FAILED"}],
}
"""The feedback configuration of every per-criterion and overall result."""

Prepare = Callable[[RunBase, Example | None], JudgeInput]
"""Maps a run and its example to what the judge takes (a `JevJudgeInput` or a state)."""

SummaryEvaluator = Callable[[Sequence[Run], Sequence[Example]], EvaluationResults]
"""A LangSmith summary evaluator: all runs and examples of an experiment in, results out."""

_DECIDED = (Outcome.PASSED, Outcome.FAILED, Outcome.INCONCLUSIVE)

DEFAULT_RECORDS = 20_000
"""How many runs' outcomes a `JevRunEvaluator` keeps for its summary evaluator, by default."""


def verdict_results(
    verdict: JevVerdict,
    *,
    key_prefix: str | None = None,
    include_overall: bool = True,
    source_run_id: uuid.UUID | str | None = None,
) -> EvaluationResults:
    """Turn a verdict into LangSmith results: one per criterion, then the overall ``jev_pass``.

    Per criterion: ``score`` 1.0 for PASSED, 0.0 for FAILED and None otherwise;
    ``value`` the outcome name, with the chosen label or the score (or
    probability of yes) where the outcome was decided on one; ``comment`` the
    finding's detail, plus the model's reasoning where there is one. The overall
    result's comment is the verdict's feedback, or its one-line summary when
    nothing failed.

    Example:
        >>> from langchain_jev import JevCriterion, JevFinding, JevVerdict, Outcome
        >>> check = JevCriterion.check("json", lambda d: False, "the answer is not JSON")
        >>> finding = JevFinding(check, None, Outcome.FAILED, "json: the answer is not JSON")
        >>> verdict = JevVerdict(False, (finding,), None, "json: the answer is not JSON")
        >>> for r in verdict_results(verdict, key_prefix="rag")["results"]:
        ...     print(r.key, r.score, r.comment)
        rag_json 0.0 json: the answer is not JSON
        rag_jev_pass 0.0 json: the answer is not JSON

    """
    results = [
        EvaluationResult(
            key=feedback_key(key_prefix, finding.name),
            score=_score(finding.outcome),
            value=_value(finding),
            comment=_comment(finding),
            feedback_config=PASS_FAIL_FEEDBACK,
            source_run_id=source_run_id,
        )
        for finding in verdict.findings
    ]
    if include_overall:
        results.append(
            EvaluationResult(
                key=feedback_key(key_prefix, OVERALL_KEY),
                score=1.0 if verdict.passed else 0.0,
                value="PASSED" if verdict.passed else "FAILED",
                comment=verdict.feedback or verdict.summary(),
                feedback_config=PASS_FAIL_FEEDBACK,
                source_run_id=source_run_id,
            )
        )
    return EvaluationResults(results=results)


class JevRunEvaluator(RunEvaluator):
    """A judge as a LangSmith run evaluator, reporting one feedback key per criterion.

    Each evaluation maps the run (and its example) to a `JevJudgeInput`, judges
    it once, and returns `verdict_results`: a result per criterion and, with
    ``include_overall``, the overall ``jev_pass``. The judge's own trace is the
    results' ``source_run_id``. A judge call that fails raises, so LangSmith
    records an error result under every key (known ahead through
    `feedback_keys`); it never shows as a pass.

    Args:
        judge: the judge to run.
        prepare: ``(run, example) -> JevJudgeInput`` (or a state mapping), replacing
            the default mapping of `langchain_jev.judge_input_from_run`.
        key_prefix: put before every key, joined with ``_`` unless it already ends in
            a separator: ``"rag"`` gives ``rag_helpfulness``, ``"rag/"`` gives
            ``rag/helpfulness``. Use it to run two judges in one experiment.
        include_overall: also report ``jev_pass``, whose comment is the feedback.
        max_records: how many runs' outcomes are kept for `jev_summary_evaluator`
            (`DEFAULT_RECORDS`, 20,000, some 6 MiB): the most recent. An online
            evaluator runs for weeks, so it never keeps them all; a summary over runs
            whose records were dropped judges those runs again.

    Under ``evaluate(..., upload_results=False)`` the judge's trace stays local,
    as the experiment's own runs do.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = JevJudge(
        ...     [JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.7)],
        ...     model=ScriptedDecisionModel({"polite": 0.9}),
        ... )
        >>> JevRunEvaluator(judge, key_prefix="tone").feedback_keys
        ['tone_polite', 'tone_jev_pass']

        In an experiment::

            from langsmith import evaluate
            evaluate(target, data="my-dataset", evaluators=[JevRunEvaluator(judge)])

    """

    def __init__(
        self,
        judge: JevJudge,
        *,
        prepare: Prepare | None = None,
        key_prefix: str | None = None,
        include_overall: bool = True,
        max_records: int = DEFAULT_RECORDS,
    ) -> None:
        if not isinstance(judge, JevJudge):
            raise JevConfigurationError(f"JevRunEvaluator needs a JevJudge, got {type(judge).__name__}")
        if prepare is not None and not callable(prepare):
            raise JevConfigurationError("prepare must be callable as prepare(run, example)")
        if key_prefix is not None and not isinstance(key_prefix, str):
            raise JevConfigurationError(f"key_prefix must be a string, got {type(key_prefix).__name__}")
        if include_overall and any(c.name == OVERALL_KEY for c in judge.criteria):
            raise JevConfigurationError(
                f"criterion {OVERALL_KEY!r} has the name of the overall result: rename it, "
                "or pass include_overall=False"
            )
        self._judge = judge
        self._prepare = prepare
        self._key_prefix = key_prefix or None
        self._include_overall = include_overall
        if isinstance(max_records, bool) or not isinstance(max_records, int) or max_records < 0:
            raise JevConfigurationError(f"max_records must be a whole number >= 0, got {max_records!r}")
        self._records: OrderedDict[str, _Record] = OrderedDict()
        self._max_records = max_records
        self._lock = threading.Lock()

    @property
    def judge(self) -> JevJudge:
        """The judge."""
        return self._judge

    @property
    def prepare(self) -> Prepare | None:
        """The custom mapping from run and example to judge input, or None for the default."""
        return self._prepare

    @property
    def key_prefix(self) -> str | None:
        """What goes before every key, or None."""
        return self._key_prefix

    @property
    def include_overall(self) -> bool:
        """Whether the overall ``jev_pass`` result is reported."""
        return self._include_overall

    @property
    def feedback_keys(self) -> list[str]:
        """Every key this evaluator reports, in order: the criteria, then ``jev_pass``."""
        keys = [feedback_key(self._key_prefix, c.name) for c in self._judge.criteria]
        if self._include_overall:
            keys.append(feedback_key(self._key_prefix, OVERALL_KEY))
        return keys

    def judge_input(self, run: RunBase, example: Example | None = None) -> JudgeInput:
        """What the judge is given for ``run``: ``prepare(run, example)``, or the default mapping.

        Raises:
            JevInputError: the run yields no answer, or ``prepare`` returned something else
                than a `JevJudgeInput` or a state mapping.

        """
        if self._prepare is None:
            return judge_input_from_run(run, example)
        prepared = self._prepare(run, example)
        if not isinstance(prepared, (JevJudgeInput, Mapping)):
            raise JevInputError(
                "prepare(run, example) must return a JevJudgeInput or a state mapping, "
                f"got {type(prepared).__name__}"
            )
        return prepared

    def evaluate_run(
        self,
        run: RunBase,
        example: Example | None = None,
        evaluator_run_id: uuid.UUID | None = None,
    ) -> EvaluationResults:
        """Judge one run; return a result per criterion and the overall one.

        Raises:
            JevInputError: the run cannot be mapped to a judge input.
            Exception: the decision model's error when the judge cannot reach it.

        """
        run_id = evaluator_run_id or uuid.uuid4()
        with self._judging(run, example, run_id) as (data, config):
            verdict = self._judge.invoke(data, config)
        return self._results(run, verdict, run_id)

    async def aevaluate_run(
        self,
        run: RunBase,
        example: Example | None = None,
        evaluator_run_id: uuid.UUID | None = None,
    ) -> EvaluationResults:
        """Asynchronous `evaluate_run`: awaits the judge."""
        run_id = evaluator_run_id or uuid.uuid4()
        with self._judging(run, example, run_id) as (data, config):
            verdict = await self._judge.ainvoke(data, config)
        return self._results(run, verdict, run_id)

    @contextlib.contextmanager
    def _judging(
        self, run: RunBase, example: Example | None, run_id: uuid.UUID
    ) -> Iterator[tuple[JudgeInput, RunnableConfig]]:
        """Everything around the judge call of `evaluate_run` and `aevaluate_run`.

        Yields the judge input and config, with LangChain's uploads off under local
        tracing; a failure (of the mapping or of the judge) is remembered for the
        summary evaluator, then raised.
        """
        try:
            data = self.judge_input(run, example)
            with offline_tracing():
                yield data, self._config(run, run_id)
        except Exception as error:
            self._remember(run.id, _Record.failed(error))
            raise

    def _record(self, run_id: uuid.UUID | str) -> _Record | None:
        """What this evaluator found for a run, for the summary evaluator; None if unseen."""
        with self._lock:
            return self._records.get(str(run_id))

    def _remember(self, run_id: uuid.UUID | str, record: _Record) -> None:
        with self._lock:
            records = self._records
            records[str(run_id)] = record
            records.move_to_end(str(run_id))
            while len(records) > self._max_records:
                records.popitem(last=False)  # the oldest: a summary judges it again if it needs it

    def _results(self, run: RunBase, verdict: JevVerdict, run_id: uuid.UUID) -> EvaluationResults:
        self._remember(run.id, _Record.of(verdict))
        return verdict_results(
            verdict,
            key_prefix=self._key_prefix,
            include_overall=self._include_overall,
            source_run_id=run_id,
        )

    @staticmethod
    def _config(run: RunBase, run_id: uuid.UUID) -> RunnableConfig:
        return {"run_id": run_id, "metadata": {"target_run_id": str(run.id)}}

    def __call__(self, runs: Sequence[Run], example: Example | None = None) -> NoReturn:
        """Refuse to be a comparative evaluator: it judges one run at a time.

        Raises:
            JevConfigurationError: always; the message says what compares two runs.

        """
        raise JevConfigurationError(
            "a JevRunEvaluator judges one run at a time, so it cannot compare experiments; for "
            "evaluate_comparative pass evaluators=comparative_evaluators(pairwise_judge(judge)) (from "
            "langchain_jev.pairwise; one key per criterion, both orders of each in one request per pair)"
        )

    def __repr__(self) -> str:
        options = "".join(
            [
                f", key_prefix={self._key_prefix!r}" if self._key_prefix else "",
                ", prepare=..." if self._prepare is not None else "",
                "" if self._include_overall else ", include_overall=False",
            ]
        )
        return f"JevRunEvaluator({self._judge!r}{options})"


def jev_summary_evaluator(
    source: JevJudge | JevRunEvaluator,
    *,
    prepare: Prepare | None = None,
    key_prefix: str | None = None,
    max_concurrency: int | None = None,
) -> SummaryEvaluator:
    """A LangSmith summary evaluator: the pass rate of each criterion and overall.

    Give it the `JevRunEvaluator` of the same experiment and it reuses the
    verdicts that evaluator reached, so no run is judged twice; give it a judge
    and it judges every run itself (``max_concurrency`` at a time). ``prepare``
    and ``key_prefix`` are taken from the evaluator, or given here with a judge.

    Results, one per criterion (key ``<criterion>_pass_rate``) and one overall
    (``jev_pass_rate``): the share of runs that passed among the runs the
    criterion applied to (NOT_APPLICABLE findings are left out). A run the judge
    could not judge counts as not passed, so a failing model never raises a rate;
    every comment gives the counts behind the rate.

    Raises:
        JevConfigurationError: ``prepare`` or ``key_prefix`` given with an evaluator.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = JevJudge(
        ...     [JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.7)],
        ...     model=ScriptedDecisionModel({"polite": 0.9}),
        ... )
        >>> evaluator = JevRunEvaluator(judge)
        >>> summary = jev_summary_evaluator(evaluator)
        >>> summary.__name__
        'jev_summary'

        In an experiment::

            evaluate(target, data=..., evaluators=[evaluator], summary_evaluators=[summary])

    """
    if isinstance(source, JevRunEvaluator):
        if prepare is not None or key_prefix is not None:
            raise JevConfigurationError(
                "jev_summary_evaluator takes prepare and key_prefix from the evaluator it is "
                "given; set them on the JevRunEvaluator"
            )
        evaluator: JevRunEvaluator | None = source
        judge, prepare, key_prefix = source.judge, source.prepare, source.key_prefix
    elif isinstance(source, JevJudge):
        evaluator, judge = None, source
    else:
        raise JevConfigurationError(
            f"jev_summary_evaluator needs a JevJudge or a JevRunEvaluator, got {type(source).__name__}"
        )
    if max_concurrency is not None and (
        isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int) or max_concurrency < 1
    ):
        raise JevConfigurationError(
            f"max_concurrency must be a positive integer or None, got {max_concurrency!r}"
        )
    names = [c.name for c in judge.criteria]
    mapper = evaluator or JevRunEvaluator(
        judge, prepare=prepare, key_prefix=key_prefix, include_overall=False
    )

    def jev_summary(runs: Sequence[Run], examples: Sequence[Example]) -> EvaluationResults:
        pairs = list(zip(runs, examples, strict=True))
        records: list[_Record | None] = [
            evaluator._record(run.id) if evaluator is not None else None for run, _ in pairs
        ]
        missing = [i for i, record in enumerate(records) if record is None]
        judged = _judge_all(mapper, [pairs[i] for i in missing], max_concurrency)
        for i, record in zip(missing, judged, strict=True):
            records[i] = record
            if evaluator is not None:
                evaluator._remember(pairs[i][0].id, record)
        return _summary_results([r for r in records if r is not None], names, key_prefix)

    return jev_summary


def _summary_results(
    records: Sequence[_Record], names: Sequence[str], key_prefix: str | None = None
) -> EvaluationResults:
    """The pass rates of ``records`` (see `jev_summary_evaluator`) as LangSmith results."""
    results: list[EvaluationResult] = []
    unjudged = sum(1 for r in records if r.outcomes is None)
    for index, name in enumerate(names):
        counts = dict.fromkeys(Outcome, 0)
        for record in records:
            if record.outcomes is not None:
                counts[record.outcomes[index]] += 1
        applied = len(records) - counts[Outcome.NOT_APPLICABLE]
        results.append(
            EvaluationResult(
                key=feedback_key(key_prefix, f"{name}_pass_rate"),
                score=counts[Outcome.PASSED] / applied if applied else None,
                comment=_rate_comment(counts, unjudged),
            )
        )
    passed = sum(1 for r in records if r.passed)
    judged = len(records) - unjudged
    overall = f"{passed} of {len(records)} runs passed"
    if judged - passed:
        overall += f"; {judged - passed} failed"
    if unjudged:
        overall += f"; {unjudged} could not be judged ({_first_error(records)})"
    results.append(
        EvaluationResult(
            key=feedback_key(key_prefix, f"{OVERALL_KEY}_rate"),
            score=passed / len(records) if records else None,
            comment=overall,
        )
    )
    return EvaluationResults(results=results)


@contextlib.contextmanager
def offline_tracing() -> Iterator[None]:
    """Keep LangChain's tracer from uploading while LangSmith traces locally only.

    Wrap an evaluator's judge call in it (the evaluators of this package do).

    ``evaluate(..., upload_results=False)`` traces evaluators in LangSmith's
    ``"local"`` mode, which its own ``@traceable`` honours but LangChain's tracer
    does not: it would upload the judge's runs. Inside this block such runs are
    not sent; callbacks given in the config still receive them.
    """
    if run_helpers.get_tracing_context().get("enabled") == "local":
        with run_helpers.tracing_context(enabled=False):
            yield
    else:
        yield


# ---------------------------------------------------------------------- helpers


@dataclass(frozen=True, slots=True)
class _Record:
    """What one evaluation found: each criterion's outcome (in the judge's order), or the error."""

    outcomes: tuple[Outcome, ...] | None
    passed: bool
    error: str | None = None

    @classmethod
    def of(cls, verdict: JevVerdict) -> _Record:
        return cls(tuple(f.outcome for f in verdict.findings), verdict.passed)

    @classmethod
    def failed(cls, error: BaseException) -> _Record:
        return cls(None, False, redact(f"{type(error).__name__}: {error}"))  # the summary's comment shows it


def _judge_all(
    mapper: JevRunEvaluator,
    pairs: Sequence[tuple[Run, Example]],
    max_concurrency: int | None,
) -> list[_Record]:
    records: list[_Record | None] = [None] * len(pairs)
    inputs: list[JudgeInput] = []
    positions: list[int] = []
    for index, (run, example) in enumerate(pairs):
        try:
            inputs.append(mapper.judge_input(run, example))
            positions.append(index)
        except Exception as error:
            records[index] = _Record.failed(error)
    if inputs:
        config: RunnableConfig = {"max_concurrency": max_concurrency} if max_concurrency else {}
        with offline_tracing():
            verdicts = mapper.judge.batch(inputs, config, return_exceptions=True)
        for index, verdict in zip(positions, verdicts, strict=True):
            records[index] = (
                _Record.of(verdict)
                if isinstance(verdict, JevVerdict)
                else _Record.failed(verdict if isinstance(verdict, BaseException) else TypeError(verdict))
            )
    return [r for r in records if r is not None]


def _rate_comment(counts: Mapping[Outcome, int], unjudged: int) -> str:
    applied = sum(n for outcome, n in counts.items() if outcome is not Outcome.NOT_APPLICABLE)
    parts = [f"{counts[Outcome.PASSED]} of {applied + unjudged} passed"]
    for outcome in (Outcome.FAILED, Outcome.INCONCLUSIVE, Outcome.ERROR, Outcome.NOT_APPLICABLE):
        if counts[outcome]:
            parts.append(f"{counts[outcome]} {outcome.value.lower().replace('_', ' ')}")
    if unjudged:
        parts.append(f"{unjudged} could not be judged")
    return "; ".join(parts)


def _first_error(records: Sequence[_Record]) -> str:
    return next((r.error for r in records if r.error), "unknown error")


def feedback_key(prefix: str | None, name: str) -> str:
    """A feedback key: ``name`` after ``prefix``, joined with ``_`` unless the prefix ends in a separator.

    Example:
        >>> feedback_key("rag", "grounded"), feedback_key("rag/", "grounded"), feedback_key(None, "grounded")
        ('rag_grounded', 'rag/grounded', 'grounded')

    """
    if not prefix:
        return name
    return f"{prefix}{name}" if not prefix[-1].isalnum() else f"{prefix}_{name}"


def _score(outcome: Outcome) -> float | None:
    if outcome is Outcome.PASSED:
        return 1.0
    if outcome is Outcome.FAILED:
        return 0.0
    return None


def _value(finding: JevFinding) -> str:
    outcome = finding.outcome.value
    if finding.outcome not in _DECIDED:
        return outcome
    if finding.label is not None:
        return f"{outcome} ({finding.label})"
    if finding.value is not None:
        return f"{outcome} ({number(finding.value)})"
    return outcome


def _comment(finding: JevFinding) -> str:
    if finding.reasoning:
        return f"{finding.detail}\nReasoning: {finding.reasoning}"
    return finding.detail
