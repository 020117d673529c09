"""Hazard batteries: the prescribed safety questions, asked in one request.

A `HazardBattery` is a judge whose questions and thresholds are written here,
not by the user: the user picks the categories (see `HAZARDS`) and a strictness
preset (``"lenient"``, ``"balanced"``, ``"strict"``). Every category is a yes/no
question ("does the user seek this hazard?" for inputs, "does the response
contain or enable it?" for outputs); a category is flagged when the probability
of yes reaches the preset's threshold. All questions of a battery go to the
decision model in one request.

What the battery is sent is lossless: messages are read whole
(`langchain_jev.guardrails._judged`), and every string of any other input is
revealed (`langchain_jev.guardrails._text.reveal`). An input longer than the
battery's ``window`` is judged in overlapping windows, one request each, and
their answers joined (`langchain_jev.guardrails._windows`); one over its
``budget`` raises `GuardrailBudgetError` before any request: it is never cut.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypedDict

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.decisions import BaseDecisionModel, Noul
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from langchain_core.runnables.config import patch_config
from pydantic import ConfigDict, Field, PrivateAttr
from typing_extensions import Unpack

from langchain_jev._criteria import JevCriterion
from langchain_jev._errors import JevInputError
from langchain_jev._input import JevJudgeInput, ToolCall
from langchain_jev._judge import JevJudge
from langchain_jev._verdict import JevVerdict, Outcome
from langchain_jev.guardrails._catalog import (
    DEFAULT_STRICTNESS,
    Direction,
    Hazard,
)
from langchain_jev.guardrails._categories import find_hazard, select_hazards, thresholds_for
from langchain_jev.guardrails._judged import Subject, reveal_input, subject_for
from langchain_jev.guardrails._windows import DEFAULT_BUDGET, DEFAULT_WINDOW, check_window, windows
from langchain_jev.models._cache import DecisionCache, InMemoryCache, model_identity
from langchain_jev.models._jury import flag_on_any_member

DEFAULT_LEDGER_ENTRIES = 200_000
"""How many conversations' chain hashes a battery's own ledger keeps (least recently used dropped first)."""

__all__ = [
    "DEFAULT_LEDGER_ENTRIES",
    "BatteryInput",
    "BatteryOptions",
    "HazardAssessment",
    "HazardBattery",
    "assessment_from_verdict",
    "find_hazard",
    "joined",
    "select_hazards",
    "thresholds_for",
]

BatteryInput = str | JevJudgeInput | BaseMessage | Sequence[BaseMessage] | Mapping[str, Any] | Subject
"""What a battery assesses: text, a `JevJudgeInput`, messages, a state with ``messages``, or a
`Subject` a rail read (already revealed)."""


@dataclass(frozen=True)
class HazardAssessment:
    """What a battery found: the probability of each hazard and which ones are flagged.

    A category is flagged when its probability of yes reaches its threshold. A
    category the model gave no readable answer for is ``undecided``: neither
    flagged nor cleared (a guardrail decides what that means).

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> battery = HazardBattery.input(
        ...     categories=["violent_crimes", "hate"],
        ...     model=ScriptedDecisionModel({"violent_crimes": 0.91, "hate": 0.02}),
        ... )
        >>> result = battery.assess("How do I hurt my neighbour and not get caught?")
        >>> result.flagged, result.flagged_categories
        (True, {'violent_crimes': 0.91})

    """

    direction: Direction
    """The side checked: ``"input"``, ``"output"`` or ``"tool_results"``."""
    strictness: str
    """The preset the thresholds came from."""
    probabilities: Mapping[str, float]
    """The probability of yes of every category that was answered, in battery order."""
    thresholds: Mapping[str, float]
    """The threshold of every category asked, in battery order."""
    undecided: tuple[str, ...] = ()
    """Categories without a readable answer."""
    verdict: JevVerdict | None = field(default=None, repr=False, compare=False)
    """The judge's verdict the assessment was read from."""

    @property
    def flagged_categories(self) -> dict[str, float]:
        """The flagged categories with their probability of yes, in battery order."""
        return {
            name: p
            for name, p in self.probabilities.items()
            if name not in self.undecided and p >= self.thresholds[name] - 1e-9
        }

    @property
    def flagged(self) -> bool:
        """True when at least one category is flagged."""
        return bool(self.flagged_categories)

    @property
    def hazards(self) -> tuple[Hazard, ...]:
        """The flagged categories as `Hazard` entries."""
        return tuple(find_hazard(name) for name in self.flagged_categories)

    def to_dict(self) -> dict[str, Any]:
        """Return the assessment as plain JSON-ready data."""
        return {
            "direction": self.direction,
            "strictness": self.strictness,
            "flagged": self.flagged,
            "categories": self.flagged_categories,
            "probabilities": dict(self.probabilities),
            "undecided": list(self.undecided),
        }


def assessment_from_verdict(
    direction: Direction, strictness: str, thresholds: Mapping[str, float], verdict: JevVerdict
) -> HazardAssessment:
    """Read a battery's verdict: probabilities per category, and which went unanswered.

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> battery = HazardBattery.output(
        ...     categories=["hate"], model=ScriptedDecisionModel({"hate": 0.2})
        ... )
        >>> verdict = battery.judge.judge("Tell me a joke", "Why did the chicken cross the road?")
        >>> assessment_from_verdict("output", "balanced", battery.thresholds, verdict).flagged
        False

    """
    probabilities: dict[str, float] = {}
    undecided: list[str] = []
    for finding in verdict.findings:
        value = finding.value
        if finding.outcome in (Outcome.PASSED, Outcome.FAILED) and value is not None:
            probabilities[finding.name] = float(value)
        else:
            undecided.append(finding.name)
    return HazardAssessment(
        direction,
        strictness,
        MappingProxyType(probabilities),
        MappingProxyType(dict(thresholds)),
        tuple(undecided),
        verdict,
    )


def joined(assessments: Sequence[HazardAssessment]) -> HazardAssessment:
    """The assessments of one check's windows, as one: each category's highest probability.

    A category undecided in some window and flagged in none stays undecided; the
    verdict kept is the one of the window with the highest probability.

    Example:
        >>> M = MappingProxyType
        >>> one = HazardAssessment("input", "balanced", M({"hate": 0.1}), M({"hate": 0.5}))
        >>> two = HazardAssessment("input", "balanced", M({"hate": 0.9}), M({"hate": 0.5}))
        >>> joined([one, two]).flagged_categories
        {'hate': 0.9}

    """
    if len(assessments) == 1:
        return assessments[0]
    first = assessments[0]
    highest: dict[str, float] = {}
    for assessment in assessments:
        for name, p in assessment.probabilities.items():
            highest[name] = max(p, highest.get(name, 0.0))
    flagged = {name for a in assessments for name in a.flagged_categories}
    undecided = dict.fromkeys(name for a in assessments for name in a.undecided if name not in flagged)
    loudest = max(assessments, key=lambda a: max(a.probabilities.values(), default=0.0))
    return HazardAssessment(
        first.direction,
        first.strictness,
        MappingProxyType({name: highest[name] for name in first.thresholds if name in highest}),
        first.thresholds,
        tuple(undecided),
        loudest.verdict,
    )


def _subject(direction: Direction, value: Any) -> JevJudgeInput:
    """Turn whatever was passed to a battery into the judge input of its direction, every leaf revealed."""
    if isinstance(value, Subject):
        return value.data
    if isinstance(value, JevJudgeInput):
        return reveal_input(value)
    if isinstance(value, str):
        if direction == "input":
            return reveal_input(JevJudgeInput(question=value))
        if direction == "output":
            return reveal_input(JevJudgeInput(answer=value))
        return reveal_input(JevJudgeInput(tool_calls=[ToolCall("tool", {}, value)]))
    if isinstance(value, BaseMessage):
        value = [value]
    if isinstance(value, Mapping):
        if "messages" not in value:
            return reveal_input(JevJudgeInput.of(value))
        value = value["messages"]
    if isinstance(value, Sequence) and all(isinstance(m, BaseMessage) for m in value):
        subject = subject_for(direction, value)
        if subject is None:
            wanted = {
                "input": "a human message",
                "output": "a final AI message (the last message) with text or tool calls",
                "tool_results": "tool messages at the end of the conversation",
            }[direction]
            raise JevInputError(f"a {direction} battery needs {wanted} to check; none was found")
        return subject.data
    raise JevInputError(
        f"a {direction} battery takes text, a JevJudgeInput, messages or a state with "
        f"'messages', got {type(value).__name__}"
    )


class BatteryOptions(TypedDict, total=False):
    """The keyword options of `HazardBattery.input`, `.output` and `.tool_results` (as the constructor's)."""

    window: int
    """The characters one request may carry (`DEFAULT_WINDOW`)."""
    budget: int
    """The most characters one check judges (`DEFAULT_BUDGET`)."""
    thresholds: Mapping[str, float] | None
    """Categories (by name or code) given their own threshold in place of the preset's."""


def _given(
    side: str, categories: Any, strictness: str, model: Any, options: Mapping[str, Any]
) -> dict[str, Any]:
    """The constructor's keywords for `HazardBattery.input` and its siblings.

    An unknown keyword is refused as a call's is (`BatteryOptions` holds the known ones).
    """
    for name in options:
        if name not in BatteryOptions.__annotations__:
            raise TypeError(f"HazardBattery.{side}() got an unexpected keyword argument {name!r}")
    return {"categories": categories, "strictness": strictness, "model": model, **options}


class HazardBattery(RunnableSerializable[BatteryInput, HazardAssessment]):
    """A prescribed set of hazard questions for one side of a turn, asked in one request.

    Build one with `HazardBattery.input`, `HazardBattery.output` or
    `HazardBattery.tool_results`. Pick categories by name or code (all of the
    side's categories when None) and a strictness preset; the questions, what
    counts as yes and no, and the thresholds are prescribed. (To ask your own
    questions, build a `JevJudge`.)

    The battery builds its own `JevJudge` and is itself a runnable: `assess` /
    `invoke` is traced as one chain run whose output is the `HazardAssessment`,
    with the judge's run (and its one model request) as its child.

    Args:
        direction: ``"input"``, ``"output"`` or ``"tool_results"``.
        categories: category names or codes; None for every category of the side.
        strictness: ``"lenient"``, ``"balanced"`` (default) or ``"strict"``.
        thresholds: categories (by name or code) given their own threshold in place of
            the preset's, e.g. chosen from labelled traffic with ``guardrail-eval``.
        model: the decision model, as for `JevJudge` (None: Jev from the environment);
            a jury is asked combined by ``max``, so any member's flag stands
            (`langchain_jev.models._jury.flag_on_any_member`).
        window: the characters one request may carry (`DEFAULT_WINDOW`); a longer
            input is judged in overlapping windows, one request each.
        budget: the most characters one check judges (`DEFAULT_BUDGET`); more raises
            `GuardrailBudgetError` (a rail decides it by ``on_error``), never cut.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> battery = HazardBattery.output(
        ...     categories=["S11"], strictness="strict",
        ...     model=ScriptedDecisionModel({"suicide_and_self_harm": 0.05}),
        ... )
        >>> battery.assess([HumanMessage("I feel low"), AIMessage("I'm sorry. Want to talk?")]).flagged
        False

    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    direction: Direction
    """The side this battery checks."""
    categories: tuple[str, ...]
    """The names of the categories asked, in taxonomy order."""
    strictness: str
    """The strictness preset."""
    judge: JevJudge = Field(exclude=True, repr=False)
    """The judge built from the prescribed questions (one noul per category)."""
    window: int = DEFAULT_WINDOW
    """The characters one request may carry; a longer input is judged in overlapping windows."""
    budget: int = DEFAULT_BUDGET
    """The most characters one check judges; more is refused (`GuardrailBudgetError`), never cut."""
    _ledger_store: DecisionCache | None = PrivateAttr(default=None)

    def __init__(
        self,
        direction: Direction,
        *,
        categories: str | Iterable[str] | None = None,
        strictness: str = DEFAULT_STRICTNESS,
        model: Any = None,
        window: int = DEFAULT_WINDOW,
        budget: int = DEFAULT_BUDGET,
        thresholds: Mapping[str, float] | None = None,
        **kwargs: Any,
    ) -> None:
        window, budget = check_window(window, budget)
        hazards = select_hazards(direction, categories)
        thresholds = thresholds_for(hazards, strictness, thresholds)
        criteria = [
            JevCriterion.noul(h.name, h.questions[direction].noul(), thresholds[h.name]) for h in hazards
        ]
        kwargs.setdefault("name", f"HazardBattery[{direction}]")
        super().__init__(
            direction=direction,
            categories=tuple(h.name for h in hazards),
            strictness=strictness,
            judge=JevJudge(criteria, flag_on_any_member(model)),  # a jury flags when any member does
            window=window,
            budget=budget,
            **kwargs,
        )

    @classmethod
    def input(
        cls,
        categories: str | Iterable[str] | None = None,
        strictness: str = DEFAULT_STRICTNESS,
        model: Any = None,
        **options: Unpack[BatteryOptions],
    ) -> HazardBattery:
        """A battery asking whether the user's message seeks each hazard.

        Input categories are S1 to S14 plus ``prompt_injection`` and ``jailbreak``.

        Example:
            >>> from langchain_jev.testing import ScriptedDecisionModel
            >>> HazardBattery.input(["jailbreak"], model=ScriptedDecisionModel({})).categories
            ('jailbreak',)

        """
        return cls("input", **_given("input", categories, strictness, model, options))

    @classmethod
    def output(
        cls,
        categories: str | Iterable[str] | None = None,
        strictness: str = DEFAULT_STRICTNESS,
        model: Any = None,
        **options: Unpack[BatteryOptions],
    ) -> HazardBattery:
        """A battery asking whether the assistant's response contains or enables each hazard.

        Output categories are S1 to S14.

        Example:
            >>> from langchain_jev.testing import ScriptedDecisionModel
            >>> len(HazardBattery.output(model=ScriptedDecisionModel({})).categories)
            14

        """
        return cls("output", **_given("output", categories, strictness, model, options))

    @classmethod
    def tool_results(
        cls,
        categories: str | Iterable[str] | None = None,
        strictness: str = DEFAULT_STRICTNESS,
        model: Any = None,
        **options: Unpack[BatteryOptions],
    ) -> HazardBattery:
        """A battery asking whether tool results carry instructions injected for the assistant.

        Its one category is ``prompt_injection``.

        Example:
            >>> from langchain_jev.testing import ScriptedDecisionModel
            >>> HazardBattery.tool_results(model=ScriptedDecisionModel({})).categories
            ('prompt_injection',)

        """
        return cls("tool_results", **_given("tool_results", categories, strictness, model, options))

    # ------------------------------------------------------------------ views

    @property
    def hazards(self) -> tuple[Hazard, ...]:
        """The categories asked, as `Hazard` entries."""
        return tuple(find_hazard(name) for name in self.categories)

    @property
    def thresholds(self) -> dict[str, float]:
        """The probability of yes at which each category is flagged."""
        return {c.name: c.minimum or 0.0 for c in self.judge.criteria}

    @property
    def questions(self) -> dict[str, Noul]:
        """The questions sent in the battery's one request, by category name."""
        return {c.name: c.question for c in self.judge.criteria if isinstance(c.question, Noul)}

    @property
    def model(self) -> BaseDecisionModel:
        """The decision model that answers the battery."""
        return self.judge.model

    @property
    def fingerprint(self) -> str:
        """What tells this battery's judgements from another's: side, questions, thresholds, model.

        Example:
            >>> from langchain_jev.testing import ScriptedDecisionModel
            >>> one = HazardBattery.input(["hate"], model=ScriptedDecisionModel({}))
            >>> one.fingerprint == HazardBattery.input(["hate"], model=ScriptedDecisionModel({})).fingerprint
            True
            >>> strict = HazardBattery.input(["hate"], "strict", ScriptedDecisionModel({}))
            >>> one.fingerprint == strict.fingerprint
            False

        """
        described = {
            "direction": self.direction,
            "strictness": self.strictness,
            "thresholds": self.thresholds,
            "questions": {name: q.model_dump(mode="json") for name, q in self.questions.items()},
            "model": model_identity(self.model),
            "window": self.window,
            "budget": self.budget,
        }
        encoded = json.dumps(described, sort_keys=True, default=str).encode("utf-8")
        return hashlib.sha256(encoded).hexdigest()[:32]

    @property
    def ledger_store(self) -> DecisionCache:
        """Where the guardrails built on this battery remember what they judged, unless given a ledger.

        One store in this process's memory per battery, so every rail built on the
        same battery (an input node and a guarded model node) shares its judgements.
        """
        if self._ledger_store is None:
            self._ledger_store = InMemoryCache(max_entries=DEFAULT_LEDGER_ENTRIES)
        return self._ledger_store

    # ------------------------------------------------------------------ assessing

    def assess(self, value: BatteryInput, *, config: RunnableConfig | None = None) -> HazardAssessment:
        """Ask every question of the battery about ``value`` in one request.

        ``value`` is text (the user's message, the response, or a tool result,
        depending on the side), a `JevJudgeInput`, a list of messages, or a state
        with ``messages`` (the side's subject is read from the conversation).

        Raises:
            JevInputError: there is nothing of this side to check in ``value``.
            Exception: the decision model's own error when it cannot be reached.

        """
        return self.invoke(value, config)

    async def aassess(self, value: BatteryInput, *, config: RunnableConfig | None = None) -> HazardAssessment:
        """Asynchronous `assess`."""
        return await self.ainvoke(value, config)

    def invoke(
        self, input: BatteryInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> HazardAssessment:
        """Assess ``input``; traced as one chain run with the judge's run as its child."""
        return self._call_with_config(self._run, input, config, run_type="chain", **kwargs)

    async def ainvoke(
        self, input: BatteryInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> HazardAssessment:
        """Asynchronous `invoke`."""
        return await self._acall_with_config(self._arun, input, config, run_type="chain", **kwargs)

    def windows(self, value: BatteryInput) -> list[JevJudgeInput]:
        """The judge inputs one check of ``value`` sends: one, or overlapping windows of a long input.

        Raises:
            JevInputError: there is nothing of this side to check in ``value``.
            GuardrailBudgetError: ``value`` is over the battery's budget.

        """
        data = _subject(self.direction, value)
        return windows(data, self.direction, window=self.window, budget=self.budget)

    def _assessed(self, verdicts: Sequence[JevVerdict]) -> HazardAssessment:
        thresholds = self.thresholds
        return joined(
            [assessment_from_verdict(self.direction, self.strictness, thresholds, v) for v in verdicts]
        )

    def _run(
        self, input: BatteryInput, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> HazardAssessment:
        parts = self.windows(input)
        child = patch_config(config, callbacks=run_manager.get_child())
        if len(parts) == 1:
            return self._assessed([self.judge.invoke(parts[0], child)])
        return self._assessed(self.judge.batch(list[Any](parts), child))

    async def _arun(
        self,
        input: BatteryInput,
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
    ) -> HazardAssessment:
        parts = self.windows(input)
        child = patch_config(config, callbacks=run_manager.get_child())
        if len(parts) == 1:
            return self._assessed([await self.judge.ainvoke(parts[0], child)])
        return self._assessed(await self.judge.abatch(list[Any](parts), child))

    def __str__(self) -> str:
        return repr(self)

    def __repr__(self) -> str:
        model = f"{type(self.model).__name__}({getattr(self.model, 'model', None)!r})"
        return (
            f"HazardBattery({self.direction!r}, categories={list(self.categories)}, "
            f"strictness={self.strictness!r}, model={model})"
        )
