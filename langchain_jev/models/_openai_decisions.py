"""An adapter that lets langchain-openai's ``OpenAIDecisions`` answer for a judge.

``OpenAIDecisions`` (the OpenAI Decisions API) is a Runnable with its own question
and answer types, not a `BaseDecisionModel`. `OpenAIDecisionsModel` asks a judge's
questions (`Noul`, `Choice`, `Score`) as its `Predicate`, `Choice` and `Score` in one
request, through the instance's own configured client, and reads the answers by the
package's rules: an answer that is missing, malformed, ambiguous (a question answered
twice, a key given twice) or refused is that one criterion's ERROR, with the reason,
and the other answers stand. A refusal is never a pass.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from langchain_core.decisions import (
    Box,
    ClassifierResponse,
    Noul,
    Question,
    State,
)
from langchain_core.decisions import Choice as CoreChoice
from pydantic import Field

from langchain_jev._errors import JevConfigurationError
from langchain_jev.models import _unique_json as unique_json
from langchain_jev.models._response import DecisionResponse, read_answers
from langchain_jev.models._secrets import redact, redact_error
from langchain_jev.models._wrapped import WrappedModel

__all__ = ["OpenAIDecisionsModel", "from_model_name", "is_openai_decisions"]

_REASON_LIMIT = 300
"""The most characters of a refusal's reason kept in a finding."""


_WRAPPED = ("OpenAIDecisions", "OpenAIClassifier")
"""The langchain-openai classes this adapter asks through."""


def is_openai_decisions(model: Any) -> bool:
    """True when ``model`` is a langchain-openai ``OpenAIDecisions`` or ``OpenAIClassifier``.

    langchain-openai is not imported to tell.
    """
    kind = type(model)
    return kind.__name__ in _WRAPPED and kind.__module__.startswith("langchain_openai")


class OpenAIDecisionsModel(WrappedModel):
    """Wrap a ``langchain_openai.decisions.OpenAIDecisions`` as a `BaseDecisionModel`.

    A judge wraps one by itself: ``JevJudge(criteria, model=OpenAIDecisions(model="gpt-6-luna"))``.
    Every question of a request goes in one Decisions API call. A `Noul` is asked as a
    ``predicate`` (its true/false descriptions appended to the instructions), a `Choice`
    as a ``choice``, a `Score` as a ``score`` whose levels are the criteria in order; a
    `Box`, or instructions that are not text, is refused with the question named.

    langchain-openai's ``OpenAIClassifier`` is asked through here too (its own request,
    which sends messages natively), because on its own it raises for the whole request
    when the model refuses one question or leaves one out.

    Example:
        >>> from langchain_openai.decisions import OpenAIDecisions  # doctest: +SKIP
        >>> model = OpenAIDecisionsModel(decisions=OpenAIDecisions(model="gpt-6-luna"))  # doctest: +SKIP

    """

    _wrapped = "decisions"
    _unnamed = "openai-decisions"
    _provider_name = "openai"

    decisions: Any = Field(exclude=True, repr=False)
    """The ``OpenAIDecisions`` (or ``OpenAIClassifier``) that answers: its key, base URL,
    clients and retries are used as set."""
    model: str = ""
    """The Decisions model's name (read from ``decisions`` when not given)."""

    def _payload(self, state: State, questions: dict[str, Question]) -> dict[str, Any]:
        if type(self.decisions).__name__ == "OpenAIClassifier":  # it converts the judge's questions itself
            return dict(self.decisions._payload(state, questions))
        request = {"input": state, "questions": {name: _asked(name, q) for name, q in questions.items()}}
        return dict(self.decisions._payload(request))

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        import httpx

        payload = self._payload(state, questions)
        try:
            response = self.decisions._client.post("/decisions", body=payload, cast_to=httpx.Response)
            return _read(response, questions)
        except Exception as error:  # the server may echo the key in its error body or headers
            failure = redact_error(error)
        raise failure from None  # outside the handler: no unredacted error rides along as its context

    async def _aclassify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        import httpx

        payload = self._payload(state, questions)
        try:
            response = await self.decisions._async_client.post(
                "/decisions", body=payload, cast_to=httpx.Response
            )
            return _read(response, questions)
        except Exception as error:  # the server may echo the key in its error body or headers
            failure = redact_error(error)
        raise failure from None  # outside the handler: no unredacted error rides along as its context


def from_model_name(name: str, **settings: Any) -> OpenAIDecisionsModel:
    """An `OpenAIDecisionsModel` of the Decisions model ``name``, configured from the environment.

    This is what a ``"openai-decisions:NAME"`` model string makes (judge files, the command
    line, which passes its ``timeout`` and ``max_retries``: ``settings`` that are not None
    go to ``OpenAIDecisions``).

    Raises:
        JevConfigurationError: langchain-openai is not installed, or it finds no API key
            (the message names ``OPENAI_API_KEY``).

    """
    import warnings

    try:
        from langchain_openai.decisions import OpenAIDecisions
    except ImportError:
        raise JevConfigurationError(
            f"model 'openai-decisions:{name}' needs langchain-openai: pip install 'langchain-openai>=1.7.4'"
        ) from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # the class is in beta; asked for by name
            given = {key: value for key, value in settings.items() if value is not None}
            decisions = OpenAIDecisions(model=name, **given)
    except ValueError:  # pydantic's ValidationError: no key (the model name is not empty)
        raise JevConfigurationError(
            f"model 'openai-decisions:{name}': no OpenAI API key; set OPENAI_API_KEY, or pass "
            "OpenAIDecisions(api_key=...) as the model"
        ) from None
    return OpenAIDecisionsModel(decisions=decisions)


def _asked(name: str, question: Question) -> Any:
    """The judge's question as an ``OpenAIDecisions`` question."""
    from langchain_openai.decisions import Choice, Level, Predicate, Score

    if isinstance(question, Box):
        raise JevConfigurationError(f"question {name!r}: the OpenAI Decisions API has no box questions")
    instructions = _text(name, "instructions", question.instructions)
    if isinstance(question, Noul):
        criteria = question.criteria
        outcomes = (("true", criteria.true), ("false", criteria.false)) if criteria is not None else ()
        told = [f"Answer {side} if: {_text(name, side, said)}" for side, said in outcomes if said is not None]
        return Predicate(instructions="\n\n".join([instructions, "\n".join(told)]) if told else instructions)
    if isinstance(question, CoreChoice):
        choices: dict[str | bool, str | None] = {
            label: None if said is None else _text(name, f"criteria.{label}", said)
            for label, said in question.criteria.items()
        }
        return Choice(instructions=instructions, choices=choices)
    levels: list[str | Level] = [
        Level(label=_text(name, f"criteria[{index}]", level)) for index, level in enumerate(question.criteria)
    ]
    return Score(instructions=instructions, levels=levels)


def _text(name: str, where: str, content: Any) -> str:
    """Text content as it is; other JSON as JSON text; media refused (the API takes text here)."""
    if isinstance(content, str) and content.strip():
        return content
    if isinstance(content, (dict, list)) and not _has_media(content):
        return json.dumps(content, ensure_ascii=False)
    raise JevConfigurationError(
        f"question {name!r}: {where} must be text for the OpenAI Decisions API (got {type(content).__name__}"
        f"{' holding media' if _has_media(content) else ''}); "
        "use langchain-openai's OpenAIClassifier for images"
    )


def _has_media(value: Any) -> bool:
    if isinstance(value, dict):
        return value.get("type") in ("image", "image_url", "file", "audio", "video") or any(
            map(_has_media, value.values())
        )
    if isinstance(value, list):
        return any(map(_has_media, value))
    return False


def _read(response: Any, questions: Mapping[str, Question]) -> DecisionResponse:
    """The body of a Decisions API response, read strictly, each answer on its own."""
    import openai

    def refused(message: str) -> BaseException:
        return openai.APIResponseValidationError(
            response=response,
            body=None,
            message=f"Invalid response from the OpenAI Decisions API: {message}.",
        )

    try:
        body, repeats = unique_json.loads(response.content)
    except ValueError:
        raise refused("the body is not JSON") from None
    listed = body.get("answers") if isinstance(body, dict) else None
    if not isinstance(listed, list):
        raise refused("no list of answers")
    unreadable: dict[str, str] = {}
    ambiguous: dict[int, str] = {}
    for repeat in repeats:
        place = (*repeat.path, repeat.key)
        if len(place) >= 3 and place[0] == "answers" and isinstance(place[1], int) and repeat.key != "name":
            ambiguous.setdefault(place[1], repeat.problem())
        elif len(place) == 2 and place[0] == "answers" and isinstance(place[1], int):
            continue  # an answer that names its question twice answers no question: it stays missing
        else:
            raise refused(repeat.problem("response"))
    raw: dict[str, Any] = {}
    for index, answer in enumerate(listed):
        name = answer.get("name") if isinstance(answer, dict) else None
        if not isinstance(name, str) or name not in questions:
            continue  # an answer to no question asked
        if name in raw or name in unreadable:
            raw.pop(name, None)
            unreadable[name] = (
                f"answers.{name}: the question is answered more than once; an ambiguous answer is unreadable"
            )
            continue
        if index in ambiguous:
            unreadable[name] = ambiguous[index]
            continue
        converted = _answer(name, answer, questions[name])
        if isinstance(converted, str):
            unreadable[name] = converted
        else:
            raw[name] = converted
    answers, problems = read_answers(raw)
    usage = body.get("usage")
    return DecisionResponse(
        model=str(body.get("model") or ""),
        answers=answers,
        unreadable={**problems, **unreadable},
        usage=_usage(usage) if isinstance(usage, dict) else None,
        request_id=response.headers.get("x-request-id"),
    )


def _answer(name: str, answer: dict[str, Any], question: Question) -> dict[str, Any] | str:
    """The answer as a langchain-core answer's raw form, or why it cannot be one."""
    kind = answer.get("type")
    if kind == "refusal":
        return _refusal(answer)
    if kind == "predicate":
        return {"type": "noul", "noul": answer.get("probability")}
    if kind not in ("choice", "score"):
        return f"answers.{name}.type: not a predicate, choice, score or refusal answer, got {kind!r}"[
            :_REASON_LIMIT
        ]
    listed = answer.get("probabilities")
    if not isinstance(listed, list) or not all(isinstance(item, dict) and "value" in item for item in listed):
        return f"answers.{name}.probabilities: must be a list of value and probability"
    values = [item["value"] for item in listed]
    if len(set(map(repr, values))) != len(values):
        return (
            f"answers.{name}.probabilities: a value is given more than once; "
            "an ambiguous answer is unreadable"
        )
    if kind == "choice":
        if any(not isinstance(value, str) for value in values):
            return f"answers.{name}.probabilities: every choice value must be a string label"
        return {
            "type": "choice",
            "choice": answer.get("choice"),
            "probabilities": {item["value"]: item.get("probability") for item in listed},
            "confidence": answer.get("confidence"),
        }
    if any(type(value) is not int for value in values):
        return f"answers.{name}.probabilities: every score value must be a level number"
    legend = dict(enumerate(question.criteria)) if not isinstance(question, (Noul, Box)) else {}
    return {
        "type": "score",
        "score": answer.get("score"),
        "legend": legend,
        "probabilities": {str(item["value"]): item.get("probability") for item in listed},
        "confidence": answer.get("confidence"),
    }


def _refusal(answer: Mapping[str, Any]) -> str:
    """A refusal's finding: that the model refused, and the reason it gave, if any."""
    said = [
        str(value) for key, value in answer.items() if key not in ("type", "name") and value not in (None, "")
    ]
    reason = redact(" ".join(" ".join(said).split()))
    if len(reason) > _REASON_LIMIT:
        reason = reason[: _REASON_LIMIT - 3] + "..."
    return "the model refused to answer" + (f": {reason}" if reason else " (it gave no reason)")


def _usage(usage: Mapping[str, Any]) -> dict[str, Any] | None:
    counts = {key: usage.get(key) for key in ("input_tokens", "output_tokens", "total_tokens")}
    if not all(type(count) is int for count in counts.values()):
        return None
    return counts
