"""A battery judging dataset rows: the row's text or conversation judged as the guardrail judges it.

`BatteryJudge` gives a `HazardBattery` the shape the dataset run judges with
(`langchain_jev.datasets._local.session.RowJudge`): its criteria, and ``ajudge`` of
a row's input. The row's text (its ``question`` once mapped) is judged as the
battery's side reads it (a user message, a response, or a tool's result), or, when
the row holds a conversation under ``messages`` (a list of ``{"role", "content"}``
objects or LangChain messages as dicts), the subject is read from it as a rail
reads a conversation. Nothing else of the row reaches the model: its label is
never sent. Every leaf is revealed and a long input judged in windows, as the
battery does; the verdict of several windows keeps, per category, the finding of
the window with the highest probability (what `joined` flags on).

`battery_description` is what decides the verdicts (side, questions, thresholds,
model, window, budget), as a results header keeps a judge: a results file is resumed
only by the same battery. Its probabilities do not depend on the thresholds, so it can
be measured again at others without a request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import convert_to_messages

from langchain_jev._criteria import JevCriterion
from langchain_jev._errors import JevInputError
from langchain_jev._input import JevJudgeInput
from langchain_jev._verdict import JevFinding, JevVerdict, Outcome
from langchain_jev.guardrails._battery import BatteryInput, HazardBattery
from langchain_jev.models._cache import model_identity

__all__ = ["BatteryJudge", "battery_description", "row_subject"]

MESSAGES = "messages"
"""The column of a row that holds a conversation."""


def row_subject(direction: str, data: JevJudgeInput) -> BatteryInput:
    """What the battery judges of a mapped row: its conversation, or its text on the battery's side.

    Raises:
        JevInputError: the row has neither text nor a conversation, or its conversation
            cannot be read as messages (the row is reported as bad, by line).

    Example:
        >>> row_subject("output", JevJudgeInput(question="Sure, here it is")).answer
        'Sure, here it is'

    """
    messages = (data.fields or {}).get(MESSAGES)
    if messages is not None:
        try:
            return convert_to_messages(messages)
        except (ValueError, TypeError, NotImplementedError) as error:
            raise JevInputError(f"its '{MESSAGES}' are not a conversation: {error}") from None
    text = data.question
    if text is None:
        raise JevInputError(f"the row has no text to judge (no text column and no '{MESSAGES}')")
    if direction == "input":
        return JevJudgeInput(question=text)
    if direction == "output":
        return JevJudgeInput(answer=text)
    return text  # a tool's result: the battery reads a string as one


class BatteryJudge:
    """A `HazardBattery` judging one dataset row per request (several for a long row, in windows).

    Example:
        >>> import asyncio
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> battery = HazardBattery.input(["hate"], model=ScriptedDecisionModel({"hate": 0.8}))
        >>> verdict = asyncio.run(BatteryJudge(battery).ajudge(JevJudgeInput(question="hi")))
        >>> verdict.findings[0].value
        0.8

    """

    def __init__(self, battery: HazardBattery) -> None:
        self.battery = battery

    @property
    def criteria(self) -> Sequence[JevCriterion]:
        """One noul per category, in battery order."""
        return self.battery.judge.criteria

    async def ajudge(self, input: JevJudgeInput, /) -> JevVerdict:
        """The battery's verdict on one row (its windows joined)."""
        parts = self.battery.windows(row_subject(self.battery.direction, input))
        judge = self.battery.judge
        if len(parts) == 1:
            return await judge.ajudge(parts[0])
        return joined_verdict(await judge.abatch(list[Any](parts)))


def joined_verdict(verdicts: Sequence[JevVerdict]) -> JevVerdict:
    """The verdicts of one row's windows as one: per category, the finding with the highest probability.

    Example:
        >>> from langchain_core.decisions import Noul, NoulAnswer
        >>> hate = JevCriterion.noul("hate", Noul(instructions="Hate?"), 0.5)
        >>> def said(p, outcome):
        ...     finding = JevFinding(hate, NoulAnswer(type="noul", noul=p), outcome, "")
        ...     return JevVerdict(False, (finding,), None, "")
        >>> low, high = said(0.1, Outcome.FAILED), said(0.9, Outcome.PASSED)
        >>> joined_verdict([low, high]).findings[0].value
        0.9

    """
    findings: list[JevFinding] = []
    for column in zip(*(v.findings for v in verdicts), strict=True):
        answered = [
            f for f in column if f.outcome in (Outcome.PASSED, Outcome.FAILED) and f.value is not None
        ]
        findings.append(max(answered, key=lambda f: float(f.value or 0.0)) if answered else column[0])
    loudest = max(verdicts, key=lambda v: max((float(f.value or 0.0) for f in v.findings), default=0.0))
    passed = all(f.outcome is Outcome.PASSED for f in findings)
    return JevVerdict(passed, tuple(findings), loudest.response, loudest.feedback)


def battery_description(battery: HazardBattery) -> dict[str, Any]:
    """What decides a battery's verdicts, as a results header's judge: its questions, thresholds, model.

    Written as the judge file the battery's judge is (one noul per category), so a
    results file of a guardrail run reads back as every results file does.

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> one = HazardBattery.input(["hate"], model=ScriptedDecisionModel({}))
        >>> strict = HazardBattery.input(["hate"], "strict", ScriptedDecisionModel({}))
        >>> [c["minimum"] for c in battery_description(one)["criteria"]]
        [0.5]
        >>> battery_description(one) == battery_description(strict)
        False

    """
    criteria: list[dict[str, Any]] = []
    thresholds = battery.thresholds
    for name, question in battery.questions.items():
        criterion: dict[str, Any] = {
            "kind": "noul",
            "name": name,
            "instructions": question.instructions,
            "minimum": thresholds[name],
        }
        if question.criteria is not None:
            criterion["when_true"] = question.criteria.true
            criterion["when_false"] = question.criteria.false
        criteria.append(criterion)
    model = {k: v for k, v in model_identity(battery.model).items() if k != "endpoint"}  # as judge does
    identity: dict[str, Any] = {"side": battery.direction, "window": battery.window}
    identity.update(budget=battery.budget, model=model)
    return {
        "model": json.dumps(identity, sort_keys=True, default=str),
        "options": {},
        "criteria": criteria,
    }
