"""A judged row's answers as a record keeps them, and read back typed: a question's answer, a jury's panel.

- `answer_data` / `stored_answer`: a typed answer (noul, score, choice) as plain data, and back;
- `panel_data` / `stored_panel`: a jury's panel (every member's answers, who failed) as plain
  data kept under a record's ``panel``, and back as a `JuryPanel`.

Pure: so a verdict can be decided again at other thresholds, by every member, without a request.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.decisions import ChoiceAnswer, NoulAnswer, ScoreAnswer
from pydantic import TypeAdapter

from langchain_jev.models._response import DecisionResponse, JuryPanel

if TYPE_CHECKING:
    from langchain_core.decisions import Answer

    from langchain_jev._criteria import JevCriterion

__all__ = ["answer_data", "panel_data", "stored_answer", "stored_panel"]


def answer_data(answer: Any) -> dict[str, Any] | None:
    """A typed answer as the plain data a result record keeps (None for no answer).

    Example:
        >>> from langchain_core.decisions import NoulAnswer
        >>> answer_data(NoulAnswer(type="noul", noul=0.25))
        {'type': 'noul', 'noul': 0.25}

    """
    if isinstance(answer, NoulAnswer):
        return {"type": "noul", "noul": answer.noul}
    if isinstance(answer, ScoreAnswer):
        data: dict[str, Any] = {"type": "score", "score": answer.score, "confidence": answer.confidence}
        if answer.probabilities is not None:
            data["probabilities"] = {str(level): p for level, p in answer.probabilities.items()}
        return data
    if isinstance(answer, ChoiceAnswer):
        data = {"type": "choice", "choice": answer.choice, "confidence": answer.confidence}
        if answer.probabilities is not None:
            data["probabilities"] = dict(answer.probabilities)
        return data
    return None


def stored_answer(data: Any, criterion: JevCriterion | None = None) -> Answer:
    """Read a stored answer (`answer_data`) back as its typed answer.

    ``criterion`` gives a score's legend (its levels), which records leave out.

    Raises:
        ValueError: the data is not a stored answer.

    Example:
        >>> stored_answer({"type": "noul", "noul": 0.25})
        NoulAnswer(type='noul', noul=0.25)

    """
    from pydantic import ValidationError

    if not isinstance(data, Mapping) or data.get("type") not in ("noul", "score", "choice"):
        raise ValueError(f"not a stored answer: {data!r}"[:200])
    values = dict(data)
    if values["type"] == "score" and "legend" not in values:
        levels = criterion.levels if criterion is not None else []
        values["legend"] = dict(enumerate(levels))
    try:
        answer: Answer = _answer_adapter().validate_python(values)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        raise ValueError(f"not a stored answer: {first['msg']}") from None
    return answer


@functools.cache
def _answer_adapter() -> TypeAdapter[Answer]:
    from langchain_core.decisions import Answer

    return TypeAdapter(Answer)


def panel_data(panel: JuryPanel) -> dict[str, Any]:
    """A jury's panel as the plain data a result record keeps under ``panel``.

    ``{"combine", "disagreement", "members": {name: {"model", "answers": {question:
    answer_data}, "unreadable": {question: why}, "request_id"}}, "failed": {name: error}}``.
    A member's answer that is not a finite noul, score or choice answer is kept as
    unreadable, so the record stays strict JSON.

    Example:
        >>> from langchain_core.decisions import NoulAnswer
        >>> yes = NoulAnswer(type="noul", noul=0.9)
        >>> panel = JuryPanel(combine="mean", disagreement=0.5, members={
        ...     "jev": DecisionResponse(model="jev-latest", answers={"polite": yes})},
        ...     failed={"gpt": "TimeoutError: no answer within 5.00 s"})
        >>> panel_data(panel)["members"], panel_data(panel)["failed"]
        ({'jev': {'model': 'jev-latest', 'answers': {'polite': {'type': 'noul', 'noul': 0.9}}}}, \
{'gpt': 'TimeoutError: no answer within 5.00 s'})

    """
    members: dict[str, Any] = {}
    for name, response in panel.members.items():
        answers: dict[str, Any] = {}
        unreadable = {str(q): str(why) for q, why in response.unreadable.items()}
        for question, answer in response.answers.items():
            if question in unreadable:
                continue
            stored = answer_data(answer)
            if stored is None or not _strict_json(stored):
                unreadable[question] = f"not a finite noul, score or choice answer: {answer!r}"[:300]
                continue
            answers[question] = stored
        entry: dict[str, Any] = {"model": response.model, "answers": answers}
        if unreadable:
            entry["unreadable"] = unreadable
        if response.request_id is not None:
            entry["request_id"] = response.request_id
        members[name] = entry
    return {
        "combine": panel.combine,
        "disagreement": panel.disagreement,
        "members": members,
        "failed": dict(panel.failed),
    }


def _strict_json(data: Any) -> bool:
    try:
        json.dumps(data, allow_nan=False)
    except ValueError:
        return False
    return True


def stored_panel(data: Any, criteria: Mapping[str, JevCriterion] | None = None) -> JuryPanel:
    """Read a record's ``panel`` (`panel_data`) back as a `JuryPanel`, each answer typed.

    ``criteria`` (by name) give the scores' levels. A member's answer that cannot be
    read is that member's unreadable answer (as a fresh response would have it).

    Raises:
        ValueError: the data is not a stored panel.

    Example:
        >>> stored = {"combine": "vote", "disagreement": None, "failed": {},
        ...           "members": {"a": {"model": "m", "answers": {"ok": {"type": "noul", "noul": 0.2}}}}}
        >>> stored_panel(stored).answers_to("ok")
        {'a': NoulAnswer(type='noul', noul=0.2)}

    """
    if not isinstance(data, Mapping) or not isinstance(data.get("combine"), str):
        raise ValueError("not a stored jury panel")
    members = data.get("members")
    failed = data.get("failed") or {}
    disagreement = data.get("disagreement")
    if not isinstance(members, Mapping) or not isinstance(failed, Mapping):
        raise ValueError("a stored jury panel has members and failed")
    if isinstance(disagreement, bool) or not isinstance(disagreement, (int, float, type(None))):
        raise ValueError(f"a stored jury panel's disagreement is a number or null, not {disagreement!r}")
    responses: dict[str, DecisionResponse] = {}
    for name, member in members.items():
        if not isinstance(member, Mapping) or not isinstance(member.get("answers"), Mapping):
            raise ValueError(f"jury member {name!r}: not a stored response")
        answers: dict[str, Any] = {}
        unreadable = {str(q): str(why) for q, why in (member.get("unreadable") or {}).items()}
        for question, stored in member["answers"].items():
            try:
                answers[str(question)] = stored_answer(stored, (criteria or {}).get(str(question)))
            except ValueError as error:
                unreadable[str(question)] = str(error)
        request_id = member.get("request_id")
        responses[str(name)] = DecisionResponse(
            model=str(member.get("model") or name),
            answers=answers,
            unreadable=unreadable,
            request_id=request_id if isinstance(request_id, str) else None,
        )
    return JuryPanel(
        combine=data["combine"],
        disagreement=None if disagreement is None else float(disagreement),
        members=responses,
        failed={str(k): str(v) for k, v in failed.items()},
    )
