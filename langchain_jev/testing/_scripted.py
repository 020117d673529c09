"""A decision model that answers from a script, for offline tests and examples."""

from __future__ import annotations

import asyncio
import copy
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.decisions import (
    BaseDecisionModel,
    Choice,
    ChoiceAnswer,
    ClassifierResponse,
    Noul,
    NoulAnswer,
    Question,
    Score,
    ScoreAnswer,
    State,
)
from pydantic import ConfigDict, Field, PrivateAttr

from langchain_jev._errors import JevInputError
from langchain_jev.models._response import DecisionResponse, read_answers
from langchain_jev.testing._unscripted import HAZARD_DEFAULT, is_hazard_question, question_type

__all__ = ["ScriptEntry", "ScriptedDecisionModel"]

ScriptEntry = (
    float
    | str
    | Mapping[Any, Any]
    | NoulAnswer
    | ChoiceAnswer
    | ScoreAnswer
    | BaseException
    | Callable[[Any, Question], Any]
)
"""What a script gives for one question.

- a number: a noul's probability of yes, or a score's value;
- a string: a choice's label;
- a mapping of label or level to probability: a choice's or score's distribution;
- a mapping with a ``"type"``: the answer as the wire has it (used as is, even when wrong);
- an answer object: used as is;
- an exception: raised, as a transport failure would be;
- a callable ``(state, question) -> entry``: computed per request.
"""


class ScriptedDecisionModel(BaseDecisionModel):
    """Answer questions from a script keyed by question name, and record every request.

    Give one script for every request, or a list of scripts for successive requests.
    A question the script has no answer for fails loudly, so a test cannot pass on
    an answer nobody wrote; the one exception is a guardrail's hazard question (one of
    `HAZARDS`, by its category's name and prescribed instructions), answered "no hazard"
    (0.02), so a guardrail refuses only what the script flags. The scripted server
    (`langchain_jev.testing.server`) follows the same rule.

    Example:
        >>> from langchain_core.decisions import Noul, Score
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> model = ScriptedDecisionModel({
        ...     "helpfulness": {0: 0.0, 1: 0.07, 2: 0.52, 3: 0.41},
        ...     "is_plausible": 0.4,
        ... })
        >>> judge = JevJudge([
        ...     JevCriterion.score("helpfulness", Score(instructions="How helpful?",
        ...         criteria=["Terrible", "Mostly unhelpful", "Mostly helpful", "Excellent"]), 2),
        ...     JevCriterion.noul("is_plausible", Noul(instructions="Plausible?"), 0.7),
        ... ], model=model)
        >>> judge.judge("How hot is the sun?", "About 5,500 C at the surface.").summary()
        'passed=false [helpfulness=PASSED, is_plausible=FAILED]'
        >>> len(model.requests)
        1

    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: Any = Field(default_factory=dict)
    """One script (question name -> entry), or a list of scripts for successive requests."""
    model: str = "scripted"
    """The model name reported in traces and responses."""
    delay: float = 0.0
    """Seconds to wait before answering (async waits without blocking)."""
    reasoning: dict[str, str] = Field(default_factory=dict)
    """Reasoning to report per question name."""

    _requests: list[dict[str, Any]] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(
        self, script: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(script=script if script is not None else {}, **kwargs)

    @property
    def _provider(self) -> str:
        return "scripted"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request received, as ``{"state", "questions"}``, in order."""
        return list(self._requests)

    @property
    def calls(self) -> int:
        """How many requests were received."""
        return len(self._requests)

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        if self.delay:
            threading.Event().wait(self.delay)
        return self._answer(state, questions)

    async def _aclassify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        if self.delay:
            await asyncio.sleep(self.delay)
        return self._answer(state, questions)

    def _answer(self, state: State, questions: dict[str, Question]) -> DecisionResponse:
        try:
            recorded = copy.deepcopy(state)
        except RecursionError:
            from langchain_jev.models._wire import MAX_DEPTH

            raise JevInputError(
                "state: nests objects and arrays too deeply to be recorded "
                f"(Jev takes at most {MAX_DEPTH} levels)"
            ) from None
        with self._lock:
            index = len(self._requests)
            self._requests.append({"state": recorded, "questions": dict(questions)})
        script = self._script_for(index)
        missing = [n for n, q in questions.items() if n not in script and not is_hazard_question(n, q)]
        if missing:
            named = ", ".join(f"{question_type(questions[n])} {n!r}" for n in missing)
            raise AssertionError(
                f"ScriptedDecisionModel has no answer for {named} "
                f"(request {index + 1}; scripted: {sorted(script)}): add each to the script"
            )
        raw: dict[str, Any] = {}
        for name, question in questions.items():
            entry = script.get(name, HAZARD_DEFAULT)  # only a hazard question is left unscripted here
            raw[name] = _entry(entry, state, question, name)
        answers, unreadable = read_answers({k: v for k, v in raw.items() if not _is_answer(v)})
        answers.update({k: v for k, v in raw.items() if _is_answer(v)})
        return DecisionResponse(
            model=self.model,
            answers={name: answers[name] for name in questions if name in answers},
            unreadable=unreadable,
            reasoning={k: v for k, v in self.reasoning.items() if k in questions},
            usage={"input_tokens": 10 * len(questions), "output_tokens": len(questions)},
        )

    def _script_for(self, index: int) -> Mapping[str, Any]:
        script = self.script
        if isinstance(script, Mapping):
            return script
        if index >= len(script):
            raise AssertionError(
                f"ScriptedDecisionModel got request {index + 1} but has {len(script)} script(s)"
            )
        entry: Mapping[str, Any] = script[index]
        return entry


def _is_answer(value: Any) -> bool:
    return isinstance(value, (NoulAnswer, ChoiceAnswer, ScoreAnswer))


def _entry(entry: Any, state: Any, question: Question, name: str) -> Any:
    if isinstance(entry, BaseException):
        raise entry
    if callable(entry) and not isinstance(entry, type):
        return _entry(entry(state, question), state, question, name)
    if _is_answer(entry) or (isinstance(entry, Mapping) and "type" in entry):
        return entry
    if isinstance(question, Noul):
        return {"type": "noul", "noul": entry}
    if isinstance(question, Choice):
        return _choice(entry)
    if isinstance(question, Score):
        return _score(entry, question)
    raise AssertionError(f"ScriptedDecisionModel cannot answer question {name!r} of type {question.type!r}")


def _choice(entry: Any) -> dict[str, Any]:
    if isinstance(entry, str):
        return {"type": "choice", "choice": entry, "probabilities": {}, "confidence": 1.0}
    probabilities = {str(k): float(v) for k, v in dict(entry).items()}
    label = max(probabilities, key=lambda k: probabilities[k])
    return {
        "type": "choice",
        "choice": label,
        "probabilities": probabilities,
        "confidence": probabilities[label] / (sum(probabilities.values()) or 1.0),
    }


def _score(entry: Any, question: Score) -> dict[str, Any]:
    legend = dict(enumerate(question.criteria))
    if isinstance(entry, (int, float)) and not isinstance(entry, bool):
        value = float(entry)
        return {"type": "score", "score": value, "legend": legend, "probabilities": {}, "confidence": 1.0}
    probabilities = {int(k): float(v) for k, v in dict(entry).items()}
    total = sum(probabilities.values()) or 1.0
    return {
        "type": "score",
        "score": sum(level * p for level, p in probabilities.items()) / total,
        "legend": legend,
        "probabilities": probabilities,
        "confidence": max(probabilities.values()) / total,
    }
