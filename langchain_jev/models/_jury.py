"""A jury of decision models: every member asked at once, their answers combined per question.

`JuryDecisionModel` is a decision model like any other, so it serves judges,
guardrails and judge files (``model: {jury: [...]}``) as they are. Each request
goes to every member concurrently, one request each (Jev, a chat model, any
`BaseDecisionModel`); the answers are combined question by question:

========  ===================================================================
combine   per question
========  ===================================================================
``mean``  noul: the mean probability of yes; choice: the mean distribution
          (a label without one counts as all its weight); score: the mean
          distribution, or the mean score when a member gives none
``vote``  each member votes (yes at 0.5, its label, its level to the nearest):
          the answer is the share of the votes; a judge counts each member's
          own pass or fail against the criterion instead (the majority wins,
          an even split is INCONCLUSIVE)
``max``   the answer that leans most to yes (noul) or the highest level
          (score); choices as ``mean``. For guardrails, whose questions ask
          whether a hazard is there: any member's flag stands
========  ===================================================================

The response keeps every member's own response and the members that failed
(`langchain_jev.models._response.JuryPanel`, ``response.panel``), so a report can
show who said what, and a judge decides each criterion by every member too: when
more than ``disagreement`` of the members find against the jury, the finding is
INCONCLUSIVE (see `langchain_jev._outcomes.review_panel`).

A member that fails (its error, or no answer within ``timeout``) is left out:
each question needs ``quorum`` members' readable answers (all of them by
default), or its answer is unreadable (``panel.short_of_quorum`` names it), which
the judge reports as that criterion's ERROR, with what the members that answered
found; and such an ERROR keeps the verdict from passing: a member that could not
answer never lends its silence to a pass. When every member fails, the jury
raises the first member's error (the others' are attached as notes), as one model
that cannot be reached does.

Example:
    >>> from langchain_core.decisions import Noul
    >>> from langchain_jev import JevCriterion, JevJudge
    >>> from langchain_jev.testing import ScriptedDecisionModel
    >>> jury = JuryDecisionModel({
    ...     "jev": ScriptedDecisionModel({"polite": 0.9}, model="jev-latest"),
    ...     "gpt": ScriptedDecisionModel({"polite": 0.8}, model="gpt-4o-mini"),
    ...     "claude": ScriptedDecisionModel({"polite": 0.1}, model="claude"),
    ... })
    >>> judge = JevJudge([JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.5)], model=jury)
    >>> verdict = judge.judge("Hi?", "Hello! How can I help?")
    >>> verdict.finding("polite").outcome.value, round(verdict.finding("polite").value, 2)
    ('PASSED', 0.6)
    >>> {name: answer.noul for name, answer in verdict.response.panel.answers_to("polite").items()}
    {'jev': 0.9, 'gpt': 0.8, 'claude': 0.1}

"""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, get_args

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.decisions import (
    Answer,
    BaseDecisionModel,
    Choice,
    ChoiceAnswer,
    ClassifierRequest,
    ClassifierResponse,
    Noul,
    NoulAnswer,
    Question,
    Score,
    ScoreAnswer,
    State,
)
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import patch_config
from pydantic import ConfigDict, Field, PrivateAttr

from langchain_jev._errors import JevConfigurationError, checked_number, checked_whole
from langchain_jev.models._member_calls import MemberCalls
from langchain_jev.models._response import DecisionResponse, JuryPanel, with_answers
from langchain_jev.models._secrets import redact, redact_error

__all__ = ["COMBINES", "Combine", "JuryDecisionModel", "combine_answers", "flag_on_any_member"]

Combine = Literal["mean", "vote", "max"]
"""How a jury combines its members' answers to one question."""

COMBINES: tuple[str, ...] = get_args(Combine)
"""Every `Combine`, in order."""

DEFAULT_DISAGREEMENT = 1 / 3
"""The share of members that may find against a ``mean`` or ``vote`` jury (a 2-1 split stands)."""

_ERROR_TEXT = 300
"""At most this many characters of a member's error are kept."""
_UNSET: Any = object()
_MEMBER_FAILURES = (Exception, asyncio.CancelledError)


class JuryDecisionModel(BaseDecisionModel):
    """Ask every member at once and combine their answers per question (see the module docs).

    Args:
        members: the decision models, as a list (named by their model names) or a
            mapping of name to model; each may be anything a `JevJudge` takes as
            ``model=`` (a ``"provider:model"`` string, a chat model, a typesafe-sdk
            client, a `BaseDecisionModel`). At least two.
        combine: ``"mean"`` (default), ``"vote"`` or ``"max"`` (see the module docs).
        disagreement: the largest share of the members that decide a criterion
            which may find against the jury's outcome; beyond it the finding is
            INCONCLUSIVE. Default: 1/3 for ``mean`` and ``vote`` (a 2-1 split
            stands, 1-1 does not), none for ``max`` (one flag is enough). None
            turns it off.
        quorum: how many members must give a readable answer to a question for
            the jury to answer it (default: every member).
        timeout: seconds to wait for the members; one that has not answered by
            then counts as failed (an asynchronous call is cancelled; a synchronous
            one runs on in its thread, and a member with
            `langchain_jev.models._member_calls.MAX_LATE_CALLS` calls still running so
            is not called until one returns: a hung member holds at most that many
            threads). None (default) waits for each member's own deadline (the SDK's
            and the chat model's timeouts).

    Raises:
        JevConfigurationError: fewer than two members, a member that is not a
            decision model, two members of one name, or a setting out of range.

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> jury = JuryDecisionModel([ScriptedDecisionModel({}, model="a"),
        ...                           ScriptedDecisionModel({}, model="b")], combine="vote")
        >>> jury.names, jury.quorum, round(jury.disagreement, 2)
        (('a', 'b'), 2, 0.33)

    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    members: tuple[BaseDecisionModel, ...]
    """The members, in order."""
    names: tuple[str, ...]
    """The members' names, in order (the keys of ``response.panel.members``)."""
    combine: Combine = "mean"
    """How answers are combined."""
    disagreement: float | None = DEFAULT_DISAGREEMENT
    """The share of members that may find against the jury; None for no bound."""
    quorum: int = Field(default=2, ge=1)
    """Members that must answer a question."""
    timeout: float | None = None
    """Seconds to wait for the members, or None."""
    model: str = "jury"
    """``jury(<member names>)``."""

    _calls: tuple[MemberCalls, ...] = PrivateAttr(default=())

    def __init__(
        self,
        members: Sequence[Any] | Mapping[str, Any],
        *,
        combine: Combine = "mean",
        disagreement: float | None = _UNSET,
        quorum: int | None = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> None:
        from langchain_jev.models._resolve import as_decision_model

        if isinstance(members, (str, bytes)) or not isinstance(members, Iterable):
            raise JevConfigurationError(
                "a jury's members are a list of models or a mapping of name to model, "
                f"got {type(members).__name__}"
            )
        pairs = list(members.items()) if isinstance(members, Mapping) else [(None, m) for m in members]
        if len(pairs) < 2:
            raise JevConfigurationError(f"a jury needs at least two members, got {len(pairs)}")
        models: list[BaseDecisionModel] = []
        names: list[str] = []
        for index, (name, member) in enumerate(pairs):
            try:
                model = as_decision_model(member)
            except JevConfigurationError as error:
                raise JevConfigurationError(f"jury member {name or index!r}: {error}") from None
            label = name if name is not None else _free_name(str(model.model or type(model).__name__), names)
            if not isinstance(label, str) or not label.strip():
                raise JevConfigurationError(
                    f"jury member {index}: a name must be a non-empty string, got {label!r}"
                )
            if label in names:
                raise JevConfigurationError(f"jury member {label!r} is named twice")
            models.append(model)
            names.append(label)
        if combine not in COMBINES:
            raise JevConfigurationError(f"combine must be one of {', '.join(COMBINES)}; got {combine!r}")
        if disagreement is _UNSET:
            disagreement = None if combine == "max" else DEFAULT_DISAGREEMENT
        if disagreement is not None and (
            isinstance(disagreement, bool)
            or not isinstance(disagreement, (int, float))
            or not 0.0 <= disagreement <= 1.0
        ):
            raise JevConfigurationError(
                f"disagreement must be between 0 and 1, or None; got {disagreement!r}"
            )
        quorum = len(models) if quorum is None else quorum
        members = f"quorum must be a whole number of members from 1 to {len(models)}, got {quorum!r}"
        checked_whole(quorum, lambda count: 1 <= count <= len(models), members)
        if timeout is not None:
            seconds = f"timeout must be a positive number of seconds or None, got {timeout!r}"
            checked_number(timeout, lambda value: value > 0, seconds)
        kwargs.setdefault("model", f"jury({', '.join(names)})")
        super().__init__(
            members=tuple(models),
            names=tuple(names),
            combine=combine,
            disagreement=None if disagreement is None else float(disagreement),
            quorum=quorum,
            timeout=None if timeout is None else float(timeout),
            **kwargs,
        )
        self._calls = tuple(MemberCalls() for _ in self.members)

    @property
    def _provider(self) -> str:
        return "jury"

    def with_combine(self, combine: Combine, **options: Any) -> JuryDecisionModel:
        """The same members combined another way (``disagreement`` back to that way's default).

        Example:
            >>> from langchain_jev.testing import ScriptedDecisionModel
            >>> jury = JuryDecisionModel([ScriptedDecisionModel({}, model="a"),
            ...                           ScriptedDecisionModel({}, model="b")])
            >>> flagging = jury.with_combine("max")
            >>> flagging.combine, flagging.disagreement
            ('max', None)

        """
        settings: dict[str, Any] = {"quorum": self.quorum, "timeout": self.timeout, **options}
        members = dict(zip(self.names, self.members, strict=True))
        return JuryDecisionModel(members, combine=combine, **settings)

    # ------------------------------------------------------------------ runnable API

    def invoke(
        self, input: ClassifierRequest, config: RunnableConfig | None = None, **_: Any
    ) -> ClassifierResponse:
        """Ask every member (each traced as a child of this model's run) and combine."""
        return self._call_with_config(self._ask_traced, input, config, run_type="chain")

    async def ainvoke(
        self, input: ClassifierRequest, config: RunnableConfig | None = None, **_: Any
    ) -> ClassifierResponse:
        """Asynchronous `invoke`: the members are awaited together."""
        return await self._acall_with_config(self._aask_traced, input, config, run_type="chain")

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        return self._ask({"state": state, "questions": questions}, None)

    async def _aclassify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        return await self._aask({"state": state, "questions": questions}, None)

    def _ask_traced(
        self, request: ClassifierRequest, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> DecisionResponse:
        return self._ask(request, patch_config(config, callbacks=run_manager.get_child()))

    async def _aask_traced(
        self, request: ClassifierRequest, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> DecisionResponse:
        return await self._aask(request, patch_config(config, callbacks=run_manager.get_child()))

    # ------------------------------------------------------------------ asking

    def _ask(self, request: ClassifierRequest, config: RunnableConfig | None) -> DecisionResponse:
        pairs = zip(self._calls, self.members, strict=True)
        started = [calls.start(member.invoke, request, config) for calls, member in pairs]
        futures = [future for future in started if isinstance(future, concurrent.futures.Future)]
        done, _ = concurrent.futures.wait(futures, timeout=self.timeout)
        outcomes: list[Any] = []
        for calls, future in zip(self._calls, started, strict=True):
            if not isinstance(future, concurrent.futures.Future):
                outcomes.append(future)  # too many of its calls still running late: not asked
            elif future in done:
                outcomes.append(_outcome(future.exception(), future))
            else:
                calls.abandon(future)  # it runs on in its thread; the member's late calls are bounded
                outcomes.append(self._late())
        return self._verdict(request, outcomes)

    async def _aask(self, request: ClassifierRequest, config: RunnableConfig | None) -> DecisionResponse:
        tasks = [asyncio.ensure_future(member.ainvoke(request, config)) for member in self.members]
        try:
            _, pending = await asyncio.wait(tasks, timeout=self.timeout)
        finally:
            for task in tasks:
                if not task.done():
                    task.cancel()
        outcomes: list[ClassifierResponse | BaseException] = []
        for task in tasks:
            if task in pending:
                outcomes.append(self._late())
            elif task.cancelled():
                outcomes.append(asyncio.CancelledError("the member's request was cancelled"))
            else:
                error = task.exception()
                outcomes.append(error if error is not None else task.result())
        for outcome in outcomes:
            if isinstance(outcome, BaseException) and not isinstance(outcome, _MEMBER_FAILURES):
                raise outcome  # KeyboardInterrupt and the like are the caller's, not a member's
        return self._verdict(request, outcomes)

    def _late(self) -> TimeoutError:
        return TimeoutError(f"no answer within {self.timeout:.2f} s")

    def _verdict(
        self, request: ClassifierRequest, outcomes: Sequence[ClassifierResponse | BaseException]
    ) -> DecisionResponse:
        """Combine what the members said (pure apart from raising when none answered)."""
        responses: dict[str, DecisionResponse] = {}
        failed: dict[str, str] = {}
        errors: list[BaseException] = []
        for name, outcome in zip(self.names, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                failed[name] = _error_text(outcome)
                errors.append(outcome)
            else:
                responses[name] = _as_decision_response(outcome)
        if not responses:
            first = redact_error(errors[0])
            for name, text in list(failed.items())[1:]:
                first.add_note(f"jury member {name!r} failed too: {text}")
            raise first
        questions = dict(request["questions"])
        answers: dict[str, Answer] = {}
        unreadable: dict[str, str] = {}
        reasoning: dict[str, str] = {}
        short: list[str] = []
        for question_name, question in questions.items():
            given: list[Answer] = []
            missing: list[str] = [f"{name}: {text}" for name, text in failed.items()]
            for name, response in responses.items():
                problem = _problem(question, response, question_name)
                if problem is None:
                    given.append(response.answers[question_name])
                else:
                    missing.append(f"{name}: {problem}")
                said = response.reasoning.get(question_name)
                if said:
                    reasoning[question_name] = "\n".join(
                        filter(None, [reasoning.get(question_name), f"{name}: {said}"])
                    )
            if len(given) < self.quorum:
                short.append(question_name)
                unreadable[question_name] = (
                    f"{len(given)} of {len(self.members)} jury members answered, the quorum is "
                    f"{self.quorum} ({'; '.join(missing)})"
                )
                continue
            answers[question_name] = combine_answers(question, given, self.combine)
        return with_answers(
            answers,
            model=self.model,
            unreadable=unreadable,
            reasoning=reasoning,
            usage=_usage(responses.values()),
            panel=JuryPanel(
                combine=self.combine,
                disagreement=self.disagreement,
                members=responses,
                failed=failed,
                short_of_quorum=short,
            ),
        )

    def __repr__(self) -> str:
        return f"JuryDecisionModel({list(self.names)}, combine={self.combine!r}, quorum={self.quorum})"


# ---------------------------------------------------------------------- guardrails


def flag_on_any_member(model: Any) -> Any:
    """The model a guardrail asks: a jury combined by ``max`` (so any member's flag stands), else ``model``.

    A guardrail's questions ask whether a hazard is there; a jury that averages or
    votes would let one member's flag be outweighed, and the guardrail would fail
    open. A jury (and any jury among its members) is turned into
    ``jury.with_combine("max")`` with its quorum and timeout; a jury behind a
    `langchain_jev.models.CachedDecisionModel` is rebuilt behind the same
    cache (its key names the combining, so the answers of the averaging jury are
    never served). Anything else is returned as it is.

    Raises:
        JevConfigurationError: a jury behind another wrapper, which cannot be rebuilt
            (give the wrapper ``jury.with_combine("max")``).

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> jury = JuryDecisionModel([ScriptedDecisionModel({}, model="a"),
        ...                           ScriptedDecisionModel({}, model="b")], combine="vote", quorum=1)
        >>> guarding = flag_on_any_member(jury)
        >>> guarding.combine, guarding.quorum, flag_on_any_member(guarding) is guarding
        ('max', 1, True)

    """
    from langchain_jev.models._cache import CachedDecisionModel

    if isinstance(model, JuryDecisionModel):
        given = dict(zip(model.names, model.members, strict=True))
        members = {name: flag_on_any_member(member) for name, member in given.items()}
        if model.combine == "max" and all(members[name] is given[name] for name in given):
            return model
        return JuryDecisionModel(members, combine="max", quorum=model.quorum, timeout=model.timeout)
    if isinstance(model, CachedDecisionModel):
        inner = flag_on_any_member(model.inner)
        if inner is model.inner:
            return model
        return CachedDecisionModel(inner, model.cache, namespace=model.namespace)
    inner = getattr(model, "inner", None)
    if isinstance(inner, BaseDecisionModel) and flag_on_any_member(inner) is not inner:
        raise JevConfigurationError(
            f"a guardrail's jury must flag when any member flags, and the jury inside "
            f"{type(model).__name__} cannot be rebuilt: wrap jury.with_combine('max') instead"
        )
    return model


# ---------------------------------------------------------------------- combining (pure)


def combine_answers(question: Question, answers: Sequence[Answer], combine: Combine) -> Answer:
    """One answer from the members' readable answers to ``question`` (see the module docs).

    Example:
        >>> from langchain_core.decisions import Noul, NoulAnswer
        >>> said = [NoulAnswer(type="noul", noul=p) for p in (0.9, 0.6, 0.2)]
        >>> [round(combine_answers(Noul(instructions="?"), said, how).noul, 2) for how in COMBINES]
        [0.57, 0.67, 0.9]

    """
    if isinstance(question, Noul):
        values = [a.noul for a in answers if isinstance(a, NoulAnswer)]
        if combine == "max":
            return NoulAnswer(type="noul", noul=max(values))
        if combine == "vote":
            return NoulAnswer(type="noul", noul=sum(1 for v in values if v >= 0.5) / len(values))
        return NoulAnswer(type="noul", noul=min(1.0, math.fsum(values) / len(values)))
    if isinstance(question, Choice):
        choices = [a for a in answers if isinstance(a, ChoiceAnswer)]
        return _combine_choices(list(question.criteria), choices, combine)
    if isinstance(question, Score):
        return _combine_scores(question, [a for a in answers if isinstance(a, ScoreAnswer)], combine)
    raise JevConfigurationError(f"a jury combines noul, choice and score answers, not {question.type!r}")


def _combine_choices(options: list[str], answers: Sequence[ChoiceAnswer], combine: Combine) -> ChoiceAnswer:
    if combine == "vote":
        mean = {label: sum(1 for a in answers if a.choice == label) / len(answers) for label in options}
    else:
        shares = [_normalised(a.probabilities) or {a.choice: 1.0} for a in answers]
        mean = {label: math.fsum(s.get(label, 0.0) for s in shares) / len(shares) for label in options}
    chosen = max(options, key=lambda label: mean[label])  # the first of equals, in the question's order
    return ChoiceAnswer(type="choice", choice=chosen, probabilities=mean, confidence=min(1.0, mean[chosen]))


def _combine_scores(question: Score, answers: Sequence[ScoreAnswer], combine: Combine) -> ScoreAnswer:
    levels = range(len(question.criteria))
    legend = dict(enumerate(question.criteria))
    if combine == "max":
        top = max(answers, key=lambda a: a.score)
        return ScoreAnswer(
            type="score",
            score=top.score,
            legend=legend,
            probabilities=dict(top.probabilities),
            confidence=top.confidence,
        )
    if combine == "vote":
        picks = [min(len(levels) - 1, max(0, math.floor(a.score + 0.5))) for a in answers]
        shares = {level: picks.count(level) / len(picks) for level in levels}
    elif all(a.probabilities for a in answers):
        normal = [_normalised(a.probabilities) for a in answers]
        shares = {level: math.fsum(n.get(level, 0.0) for n in normal) / len(normal) for level in levels}
    else:  # a member without a distribution: the mean score decides, as one model's score would
        score = math.fsum(a.score for a in answers) / len(answers)
        confidence = min(1.0, math.fsum(a.confidence for a in answers) / len(answers))
        return ScoreAnswer(type="score", score=score, legend=legend, probabilities={}, confidence=confidence)
    expected = math.fsum(level * p for level, p in shares.items())
    confidence = min(1.0, max(shares.values()))
    return ScoreAnswer(
        type="score", score=expected, legend=legend, probabilities=shares, confidence=confidence
    )


def _normalised(probabilities: Mapping[Any, float]) -> dict[Any, float]:
    total = math.fsum(probabilities.values())
    return {key: p / total for key, p in probabilities.items()} if total > 0 else {}


def _problem(question: Question, response: DecisionResponse, name: str) -> str | None:
    """Why a member's answer to ``name`` cannot be combined, or None when it can."""
    if name in response.unreadable:
        return response.unreadable[name]
    answer = response.answers.get(name)
    if answer is None:
        return "no answer"
    expected = {"noul": NoulAnswer, "choice": ChoiceAnswer, "score": ScoreAnswer}.get(question.type)
    if expected is None or not isinstance(answer, expected):
        return f"a {getattr(answer, 'type', type(answer).__name__)} answer to a {question.type} question"
    if isinstance(answer, ChoiceAnswer) and isinstance(question, Choice):
        return _distribution_problem(answer.probabilities, set(question.criteria), "label") or (
            None if answer.choice in question.criteria else f'chose "{answer.choice}", not an option'
        )
    if isinstance(answer, ScoreAnswer) and isinstance(question, Score):
        top = len(question.criteria) - 1
        if not (math.isfinite(answer.score) and 0.0 <= answer.score <= top):
            return f"score {answer.score!r} is outside the levels 0 to {top}"
        return _distribution_problem(answer.probabilities, set(range(top + 1)), "level")
    return None


def _distribution_problem(probabilities: Mapping[Any, float], keys: set[Any], what: str) -> str | None:
    for key, p in probabilities.items():
        if key not in keys:
            return f"probabilities name {key!r}, not a {what} of the question"
        if not (math.isfinite(p) and p >= 0.0):
            return f"the probability of {key!r} is {p!r}"
    if probabilities and not math.fsum(probabilities.values()) > 0.0:
        return "probabilities sum to zero"
    return None


def _outcome(error: BaseException | None, future: concurrent.futures.Future[Any]) -> Any:
    if error is not None:
        if not isinstance(error, Exception):
            raise error
        return error
    return future.result()


def _as_decision_response(response: ClassifierResponse) -> DecisionResponse:
    if isinstance(response, DecisionResponse):
        return response
    return with_answers(
        dict(response.answers), model=response.model, usage=response.usage, request_id=response.request_id
    )


def _usage(responses: Iterable[ClassifierResponse]) -> dict[str, int] | None:
    usages = [r.usage for r in responses if r.usage is not None]
    if not usages:
        return None
    keys = ("input_tokens", "output_tokens", "total_tokens")
    totals = dict.fromkeys(keys, 0)
    for usage in usages:
        counts: Mapping[str, Any] = dict(usage)
        for key in keys:
            value = counts.get(key)
            totals[key] += value if isinstance(value, int) else 0
    return totals


def _error_text(error: BaseException) -> str:
    text = redact(f"{type(error).__name__}: {error}".strip())  # a member's error may echo its key
    return text if len(text) <= _ERROR_TEXT else text[: _ERROR_TEXT - 3] + "..."


def _free_name(name: str, taken: Sequence[str]) -> str:
    if name not in taken:
        return name
    number = 2
    while f"{name}#{number}" in taken:
        number += 1
    return f"{name}#{number}"
