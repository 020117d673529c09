"""JevJudge: criteria in, verdict out, with at most one decision-model request."""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from langchain_core.decisions import (
    BaseDecisionModel,
    ClassifierRequest,
    ClassifierResponse,
    Question,
)
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from langchain_core.runnables.config import (
    ensure_config,
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
    patch_config,
    set_config_context,
)
from langchain_core.runnables.utils import coro_with_context
from pydantic import ConfigDict, Field, PrivateAttr

from langchain_jev import _feedback as feedback
from langchain_jev._criteria import JevCriterion, validate_criteria
from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev._input import (
    JevFieldWarning,
    JevJudgeInput,
    backticked_names,
    dataset_style_keys,
    describe_dataset_keys,
    describe_unknown,
    unknown_fields,
)
from langchain_jev._moved import moved_method
from langchain_jev._outcomes import decide, decide_check, decision_fields, dependency_detail, review_panel
from langchain_jev._verdict import JevFinding, JevVerdict, Outcome

__all__ = ["FeedbackRenderer", "JevJudge", "JudgeInput"]

JudgeInput = JevJudgeInput | Mapping[str, Any]
"""What a judge takes: a `JevJudgeInput`, or a state mapping sent as it is."""

FeedbackRenderer = Callable[[Sequence[JevFinding]], str]
"""Turns all findings of a verdict into the feedback text."""


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside this package: a warning names the user's line."""
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR) and level < 64:
        frame = frame.f_back
        level += 1
    return level


@dataclass
class _Plan:
    """What is known before the request, and what to ask."""

    state: Any
    known: dict[str, JevFinding] = field(default_factory=dict)
    questions: dict[str, Question] = field(default_factory=dict)


class JevJudge(RunnableSerializable[JudgeInput, JevVerdict]):
    """A model-as-a-judge built of atomic typed questions, each with its own threshold.

    Every applicable question goes to the decision model in ONE request; code
    checks run locally first. The verdict keeps one finding per criterion and
    feedback synthesised from the criteria that did not pass.

    Args:
        criteria: the criteria, in order; names are unique and at least one is a question.
        model: a `BaseDecisionModel`, a typesafe-sdk client, a ``TypeSafeClassifier``,
            a LangChain chat model, a ``"provider:model"`` string (``"openai:gpt-4o-mini"``,
            with the ``chat`` extra), or None for Jev configured from the environment
            (its key is read on the first request; see `JevDecisionModel`).
        min_confidence: share of a score's or choice's probability that must support
            its verdict; below it the finding is INCONCLUSIVE. Nouls are unaffected.
        fail_on_inconclusive: report INCONCLUSIVE findings as FAILED.
        fail_on_error: report ERROR findings (no readable answer) as FAILED.
        fail_fast: when a check fails, skip the request; the questions become NOT_APPLICABLE.
        feedback_renderer: replaces the wording of the feedback; it gets all findings.

    Example:
        >>> from langchain_core.decisions import Noul, Score
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = JevJudge(
        ...     [
        ...         JevCriterion.score("helpfulness", Score(
        ...             instructions="How well does `assistant_answer` address `user_question`?",
        ...             criteria=["Terrible: irrelevant or off-topic",
        ...                       "Mostly unhelpful: misses the main point",
        ...                       "Mostly helpful: minor gaps remain",
        ...                       "Excellent: fully and correctly addressed"]), 2.0),
        ...         JevCriterion.noul("is_plausible", Noul(
        ...             instructions="Are the numeric values in `assistant_answer` physically plausible?",
        ...             criteria={"false": "At least one value is impossible"}), 0.7),
        ...     ],
        ...     model=ScriptedDecisionModel({"helpfulness": 1.2, "is_plausible": 0.9}),
        ... )
        >>> verdict = judge.judge("How hot is boiling water?", "About 100 C at sea level.")
        >>> print(verdict.feedback)  # doctest: +NORMALIZE_WHITESPACE
        helpfulness: rated "Mostly unhelpful: misses the main point" (1.20),
        needs to reach 2.00 which is "Mostly helpful: minor gaps remain"

    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    criteria: tuple[JevCriterion, ...]
    """The criteria, in declaration order."""
    model: BaseDecisionModel
    """The decision model that answers the questions."""
    min_confidence: float = 0.6
    """Share of probability that must support a score's or choice's verdict."""
    fail_on_inconclusive: bool = False
    """Report INCONCLUSIVE findings as FAILED."""
    fail_on_error: bool = False
    """Report ERROR findings as FAILED."""
    fail_fast: bool = False
    """Skip the request when a check fails."""
    feedback_renderer: FeedbackRenderer | None = Field(default=None, exclude=True)
    """Replaces the feedback wording; None for `default_feedback`."""

    _asks: tuple[tuple[JevCriterion, ...], dict[str, Question] | None] | None = PrivateAttr(default=None)
    _named: tuple[tuple[JevCriterion, ...], frozenset[str]] | None = PrivateAttr(default=None)
    _warned: set[tuple[str, ...]] = PrivateAttr(default_factory=set)

    def __init__(
        self,
        criteria: Iterable[JevCriterion],
        model: Any = None,
        *,
        min_confidence: float = 0.6,
        fail_on_inconclusive: bool = False,
        fail_on_error: bool = False,
        fail_fast: bool = False,
        feedback_renderer: FeedbackRenderer | None = None,
        **kwargs: Any,
    ) -> None:
        if isinstance(criteria, (str, bytes)) or not isinstance(criteria, Iterable):
            raise JevConfigurationError(
                f"criteria must be a list of JevCriterion, got {type(criteria).__name__}"
            )
        items = validate_criteria(criteria)
        if (
            isinstance(min_confidence, bool)
            or not isinstance(min_confidence, (int, float))
            or not math.isfinite(min_confidence)
            or not 0.0 <= min_confidence <= 1.0
        ):
            raise JevConfigurationError(f"min_confidence must be between 0 and 1, got {min_confidence!r}")
        if feedback_renderer is not None and not callable(feedback_renderer):
            raise JevConfigurationError("feedback_renderer must be callable")
        from langchain_jev.models._resolve import as_decision_model

        super().__init__(
            criteria=items,
            model=as_decision_model(model),
            min_confidence=float(min_confidence),
            fail_on_inconclusive=fail_on_inconclusive,
            fail_on_error=fail_on_error,
            fail_fast=fail_fast,
            feedback_renderer=feedback_renderer,
            **kwargs,
        )

    # ------------------------------------------------------------------ public API

    @classmethod
    def from_statements(
        cls,
        statements: Sequence[Any],
        model: Any = None,
        *,
        threshold: float = 0.5,
        question: Callable[[Any], Any] | None = None,
        **options: Any,
    ) -> JevJudge:
        """Build a judge from plain-English statements that must hold of the answer.

        Each statement becomes a `Noul` passing at ``threshold``; all go in one
        request. See `langchain_jev._statements` for the default question.
        """
        from langchain_jev._statements import statement_criteria

        criteria = statement_criteria(statements, threshold=threshold, question=question)
        return cls(criteria, model, **options)

    @property
    def question_names(self) -> list[str]:
        """Names of the question criteria, in order (the names sent to the model)."""
        return [c.name for c in self.criteria if c.is_question]

    def judge(
        self,
        question_or_input: str | JudgeInput,
        answer: str | None = None,
        *,
        config: RunnableConfig | None = None,
    ) -> JevVerdict:
        """Judge an answer: ``judge(question, answer)``, ``judge(JevJudgeInput)`` or ``judge(state)``.

        Raises:
            JevInputError: the input cannot be read as the criteria need it.
            Exception: whatever a check raises, or the decision model's transport error.

        """
        return self.invoke(_to_input(question_or_input, answer), config)

    async def ajudge(
        self,
        question_or_input: str | JudgeInput,
        answer: str | None = None,
        *,
        config: RunnableConfig | None = None,
    ) -> JevVerdict:
        """Asynchronous `judge`."""
        return await self.ainvoke(_to_input(question_or_input, answer), config)

    def invoke(self, input: JudgeInput, config: RunnableConfig | None = None, **kwargs: Any) -> JevVerdict:
        """Judge one input; traced as one chain run with the model call as its child."""
        config = ensure_config(config)
        run_id = config.pop("run_id", None)
        if _silent(config):  # nothing would see the run: skip its bookkeeping
            return self._run(input, config, untraced=True)
        manager = get_callback_manager_for_config(config)
        if not manager.handlers:
            return self._run(input, config, untraced=True)
        run = manager.on_chain_start(
            None, input, run_type="chain", name=self._run_name(config), run_id=run_id
        )
        try:
            child = patch_config(config, callbacks=run.get_child())
            with set_config_context(child) as context:
                verdict: JevVerdict = context.run(self._run, input, child)
        except BaseException as error:
            run.on_chain_error(error)
            raise
        run.on_chain_end(verdict)
        return verdict

    async def ainvoke(
        self, input: JudgeInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> JevVerdict:
        """Asynchronous `invoke`."""
        config = ensure_config(config)
        run_id = config.pop("run_id", None)
        if _silent(config):  # nothing would see the run: skip its bookkeeping
            return await self._arun(input, config, untraced=True)
        manager = get_async_callback_manager_for_config(config)
        if not manager.handlers:
            return await self._arun(input, config, untraced=True)
        run = await manager.on_chain_start(
            None, input, run_type="chain", name=self._run_name(config), run_id=run_id
        )
        try:
            child = patch_config(config, callbacks=run.get_child())
            with set_config_context(child) as context:
                verdict: JevVerdict = await coro_with_context(self._arun(input, child), context)
        except BaseException as error:
            await run.on_chain_error(error)
            raise
        await run.on_chain_end(verdict)
        return verdict

    def _run_name(self, config: RunnableConfig) -> str:
        return config.get("run_name") or self.get_name()

    def as_evaluator(self, **options: Any) -> Any:
        """Deprecated (removed in 0.2): ``JevRunEvaluator(judge, **options)``, from `langchain_jev.langsmith`.

        The LangSmith spoke builds its evaluator; the engine imports no spoke.
        """
        return moved_method("JevJudge.as_evaluator", self, **options)

    def pairwise(self, model: Any = None) -> Any:
        """Deprecated (removed in 0.2): ``pairwise_judge(judge, model)``, from `langchain_jev.pairwise`.

        The pairwise spoke builds its judge of this judge's questions; the engine imports no spoke.
        """
        return moved_method("JevJudge.pairwise", self, model)

    # ------------------------------------------------------------------ the engine

    def _prepare(
        self, input: JudgeInput, untraced: bool
    ) -> tuple[_Plan, ClassifierRequest | None, BaseDecisionModel | None]:
        """The plan, its request (None: no question to ask) and the model to call directly (untraced)."""
        plan = self._plan(input)
        if not plan.questions:
            return plan, None, None
        return plan, self._request(plan), _direct(self.model) if untraced else None

    def _run(self, input: JudgeInput, child: RunnableConfig, untraced: bool = False) -> JevVerdict:
        plan, request, direct = self._prepare(input, untraced)
        if request is None:
            return self._verdict(plan, None)
        if direct is None:
            return self._verdict(plan, self.model.invoke(request, child))
        if not _reads_run_config(direct):
            return self._verdict(plan, direct._classify_and_record(request))
        with set_config_context(child) as context:
            return self._verdict(plan, context.run(direct._classify_and_record, request))

    async def _arun(self, input: JudgeInput, child: RunnableConfig, untraced: bool = False) -> JevVerdict:
        plan, request, direct = self._prepare(input, untraced)
        if request is None:
            return self._verdict(plan, None)
        if direct is None:
            return self._verdict(plan, await self.model.ainvoke(request, child))
        if not _reads_run_config(direct):
            return self._verdict(plan, await direct._aclassify_and_record(request))
        with set_config_context(child) as context:
            answered = await coro_with_context(direct._aclassify_and_record(request), context)
        return self._verdict(plan, answered)

    @staticmethod
    def _request(plan: _Plan) -> ClassifierRequest:
        return {"state": plan.state, "questions": plan.questions}

    def _plan(self, input: JudgeInput) -> _Plan:
        """Run the checks and conditions; choose the questions to send; warn (once) of silent mistakes."""
        plan = self._planned(input)
        if isinstance(input, Mapping) and not isinstance(input, JevJudgeInput):
            keys = dataset_style_keys(plan.state)
            if keys:
                self._warn_once(("keys", *keys), describe_dataset_keys(keys))
        if not self._named_fields().issubset(plan.state):  # the common case costs one set test
            for name, question in plan.questions.items():
                found = unknown_fields(getattr(question, "instructions", None), plan.state)
                if found:
                    self._warn_once(("fields", name, *found), describe_unknown(name, found))
        return plan

    def _named_fields(self) -> frozenset[str]:
        """Every name the judge's questions put in backticks, gathered once per tuple of criteria."""
        criteria = self.criteria
        known = self._named
        if known is None or known[0] is not criteria:
            texts = (getattr(c.question, "instructions", None) for c in criteria)
            names = frozenset(n for text in texts if isinstance(text, str) for n in backticked_names(text))
            known = (criteria, names)
            self._named = known
        return known[1]

    def _warn_once(self, key: tuple[str, ...], message: str) -> None:
        if key not in self._warned and len(self._warned) < 256:
            self._warned.add(key)
            warnings.warn(message, JevFieldWarning, stacklevel=_caller_level())

    def _planned(self, input: JudgeInput) -> _Plan:
        """Run the checks and conditions; choose the questions to send."""
        if isinstance(input, JevJudgeInput):
            state: Any = input.to_state()
            data: JevJudgeInput | None = input
        elif isinstance(input, Mapping):
            state, data = dict(input), None
        else:
            raise JevInputError(
                f"a judge takes a JevJudgeInput or a state mapping, got {type(input).__name__}"
            )

        every = self._every_question()
        if every is not None:  # nothing to check or decide before the request
            return _Plan(state, {}, dict(every))

        def view() -> JevJudgeInput:
            nonlocal data
            if data is None:
                data = JevJudgeInput.of(state)
            return data

        plan = _Plan(state)
        for criterion in self.criteria:
            if criterion.condition is not None and not criterion.condition(view()):
                plan.known[criterion.name] = _not_applicable(criterion, feedback.not_asked(criterion))
            elif criterion.kind == "check":
                decision = decide_check(criterion, criterion.predicate(view()))  # type: ignore[misc]
                plan.known[criterion.name] = JevFinding(criterion, None, decision.outcome, decision.detail)
        if self.fail_fast and any(f.outcome is Outcome.FAILED for f in plan.known.values()):
            for criterion in self.criteria:
                if criterion.is_question and criterion.name not in plan.known:
                    plan.known[criterion.name] = _not_applicable(criterion, feedback.skipped(criterion))
            return plan
        for criterion in self.criteria:
            if not criterion.is_question or criterion.name in plan.known:
                continue
            dependency = criterion.depends_on
            if dependency is not None and dependency.name in plan.known:
                unmet = _unmet(criterion, plan.known[dependency.name])
                if unmet is not None:
                    plan.known[criterion.name] = _not_applicable(criterion, unmet)
                    continue
            plan.questions[criterion.name] = criterion.question  # type: ignore[assignment]
        return plan

    def _every_question(self) -> dict[str, Question] | None:
        """The request's questions when every criterion is an unconditional, independent question.

        Such a judge asks the same questions every time; they are gathered once per
        tuple of criteria.
        """
        criteria = self.criteria
        known = self._asks
        if known is None or known[0] is not criteria:
            simple = all(c.is_question and c.condition is None and c.depends_on is None for c in criteria)
            questions: dict[str, Question] | None = (
                {c.name: c.question for c in criteria if c.question is not None} if simple else None
            )
            known = (criteria, questions)
            self._asks = known
        return known[1]

    def _verdict(self, plan: _Plan, response: ClassifierResponse | None) -> JevVerdict:
        """Decide each finding, resolve dependencies, apply the failure policy."""
        answers = response.answers if response is not None else {}
        unreadable: Mapping[str, str] = getattr(response, "unreadable", None) or {}
        reasoning: Mapping[str, str] = getattr(response, "reasoning", None) or {}
        panel = getattr(response, "panel", None)  # a jury's members, each decided as well
        known = plan.known
        min_confidence = self.min_confidence
        findings: dict[str, JevFinding] = {}
        for criterion in self.criteria:
            name = criterion.name
            finding = known.get(name) if known else None
            if finding is None:
                answer = answers.get(name)
                problem = unreadable.get(name) if unreadable else None
                if panel is None:
                    outcome, detail, confidence = decision_fields(criterion, answer, min_confidence, problem)
                else:
                    outcome, detail, confidence = review_panel(
                        criterion,
                        decide(criterion, answer, min_confidence, problem),
                        panel.answers_to(name),
                        vote=panel.combine == "vote",
                        disagreement=panel.disagreement,
                        short_of_quorum=name in panel.short_of_quorum,
                    )
                why = reasoning.get(name) if reasoning else None
                # JevFinding(...) without the named tuple's keyword handling: one per criterion
                finding = _new_tuple(JevFinding, (criterion, answer, outcome, detail, confidence, why, None))
                if criterion.depends_on is not None:
                    unmet = _unmet(criterion, findings[criterion.depends_on.name])
                    if unmet is not None:
                        finding = _not_applicable(criterion, unmet, answer, finding.reasoning)
            findings[name] = finding
        ordered = tuple(findings.values())
        if self.fail_on_inconclusive or self.fail_on_error:
            ordered = tuple(self._policy(finding) for finding in ordered)
        passed = Outcome.FAILED not in map(_outcome, ordered) and not _silent_jury(panel, ordered)
        renderer = self.feedback_renderer or feedback.default_feedback
        return JevVerdict(passed, ordered, response, renderer(ordered))

    def _policy(self, finding: JevFinding) -> JevFinding:
        turn = (finding.outcome is Outcome.INCONCLUSIVE and self.fail_on_inconclusive) or (
            finding.outcome is Outcome.ERROR and self.fail_on_error
        )
        return finding.replace(outcome=Outcome.FAILED, decided=finding.outcome) if turn else finding

    def __repr__(self) -> str:
        names = ", ".join(f"{c.kind}:{c.name}" for c in self.criteria)
        return f"JevJudge([{names}], model={type(self.model).__name__}({self.model.model!r}))"


def _silent_jury(panel: Any, findings: Iterable[JevFinding]) -> bool:
    """True when a jury left a finding ERROR for want of its quorum: its silence never passes a verdict."""
    short: list[str] = panel.short_of_quorum if panel is not None else []
    return bool(short) and any(f.outcome is Outcome.ERROR and f.name in short for f in findings)


def _to_input(question_or_input: Any, answer: Any) -> JudgeInput:
    if isinstance(question_or_input, str):
        if answer is None:
            raise JevInputError("judge(question, answer) needs the answer as well")
        return JevJudgeInput(question=question_or_input, answer=answer)
    if answer is not None:
        raise JevInputError("judge(question, answer) takes two strings; a JevJudgeInput or state goes alone")
    if not isinstance(question_or_input, (JevJudgeInput, Mapping)):
        raise JevInputError(
            "judge() takes (question, answer), a JevJudgeInput or a state mapping, "
            f"got {type(question_or_input).__name__}"
        )
    return question_or_input


def _silent(config: RunnableConfig) -> bool:
    """True when no callback handler can see a run made under ``config``.

    A quick look at what langchain-core's callback manager would consult to add a
    handler: the config's callbacks, LangSmith tracing (environment, context or an
    enclosing run), debug mode, legacy tracing variables and the configure hooks
    (``collect_runs`` and the like). When in doubt it says False and the callback
    manager decides.
    """
    if config.get("callbacks"):
        return False
    hooks = _callback_sources()
    if hooks is None:
        return False
    tracing_v2_enabled, configure_hooks, debug = hooks
    if debug() or tracing_v2_enabled():
        return False
    environ = os.environ
    if environ.get("LANGCHAIN_TRACING") or environ.get("LANGCHAIN_HANDLER"):
        return False
    for var, _, handler_class, env_var in configure_hooks:
        if var.get() is not None or (handler_class is not None and env_var and environ.get(env_var)):
            return False
    return True


_sources: list[Any] = []


def _callback_sources() -> tuple[Callable[[], Any], Sequence[Any], Callable[[], bool]] | None:
    """langchain-core's own tests for tracing and hooks, or None where this version lacks them."""
    if not _sources:
        try:
            from langchain_core.globals import get_debug
            from langchain_core.tracers.context import _configure_hooks, _tracing_v2_is_enabled
        except ImportError:  # pragma: no cover - another langchain-core layout: always ask the manager
            _sources.append(None)
        else:
            _sources.append((_tracing_v2_is_enabled, _configure_hooks, get_debug))
    found: tuple[Callable[[], Any], Sequence[Any], Callable[[], bool]] | None = _sources[0]
    return found


def _direct(model: BaseDecisionModel) -> BaseDecisionModel | None:
    """The model to call without its run bookkeeping when no handler would see the run, or None.

    With no callback handler, `BaseDecisionModel`'s run adds nothing but a config
    context, so a model whose class keeps its ``invoke`` and ``ainvoke`` is called
    directly. A model that overrides them is invoked, unless it says through
    ``_untraced()`` which model answers for it.
    """
    untraced = getattr(model, "_untraced", None)
    if untraced is not None:
        chosen: BaseDecisionModel | None = untraced()
        return chosen
    kind = type(model)
    plain = (
        kind.invoke is BaseDecisionModel.invoke
        and kind.ainvoke is BaseDecisionModel.ainvoke
        and kind._classify_and_record is BaseDecisionModel._classify_and_record
        and kind._aclassify_and_record is BaseDecisionModel._aclassify_and_record
    )
    return model if plain else None


def _reads_run_config(model: BaseDecisionModel) -> bool:
    """False for a model that declares it runs nothing that reads the current run config."""
    return bool(getattr(type(model), "_reads_run_config", True))


_new_tuple = tuple.__new__
_outcome = itemgetter(JevFinding._fields.index("outcome"))
"""A finding's outcome, as ``JevFinding.outcome`` reads it (a verdict reads every one)."""


def _not_applicable(
    criterion: JevCriterion, detail: str, answer: Any = None, reasoning: str | None = None
) -> JevFinding:
    return JevFinding(criterion, answer, Outcome.NOT_APPLICABLE, detail, None, reasoning)


def _unmet(criterion: JevCriterion, dependency: JevFinding) -> str | None:
    return dependency_detail(criterion, dependency.outcome, dependency.label)
