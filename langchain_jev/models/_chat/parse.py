"""Reading a structured reply: JSON out of text, and typed answers out of JSON.

Pure functions. A reading separates what can be used (answers and reasoning),
what came back unusable per question (``invalid``, with the reason), and a
problem with the reply as a whole (not JSON, not an object, no question
answered). Questions the reply skips are simply absent.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.decisions import Answer, Choice, Question, Score

from langchain_jev.models import _unique_json as unique_json
from langchain_jev.models._chat.answers import choice_answer, noul_answer, score_answer
from langchain_jev.models._chat.schema import PROBABILITY_KEY, YES_KEY, level_key, reasoning_keys

__all__ = ["Reading", "extract_json", "json_objects", "merge", "read_payload", "read_text"]


@dataclass(frozen=True)
class Reading:
    """What a structured reply gave: usable answers, and what was wrong with the rest."""

    answers: dict[str, Answer] = field(default_factory=dict)
    """Answers that validated, by question name (probabilities renormalised)."""
    reasoning: dict[str, str] = field(default_factory=dict)
    """The reasoning given per question."""
    invalid: dict[str, str] = field(default_factory=dict)
    """Answers that came back unusable, by question name, with the reason."""
    problem: str | None = None
    """Why the reply as a whole could not be used, or None."""

    @property
    def problems(self) -> list[str]:
        """Everything wrong with the reply, one line each (for the corrective message)."""
        return ([self.problem] if self.problem else []) + list(self.invalid.values())

    @property
    def needs_retry(self) -> bool:
        """True when the reply, or an answer in it, did not parse or validate."""
        return self.problem is not None or bool(self.invalid)


def json_objects(text: str, limit: int = 1000) -> list[Any]:
    r"""Every complete JSON object written at the top level of a text, in order.

    An object nested in another is part of it, not one of its own; text that only
    looks like JSON is skipped. At most ``limit`` starts are tried, so a reply
    full of braces costs a bounded amount of work.

    Example:
        >>> json_objects('Quoted: ```{"a": 0}``` and mine: {"a": {"b": 1}} {broken')
        [{'a': 0}, {'a': {'b': 1}}]

    """
    decoder = unique_json.decoder()  # a key given twice is never picked from (see `read_payload`)
    found: list[Any] = []
    start = text.find("{")
    tries = 0
    while start >= 0 and tries < limit:
        tries += 1
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            start = text.find("{", start + 1)
            continue
        found.append(value)
        start = text.find("{", end)
    return found


def extract_json(text: str) -> Any:
    r"""The JSON value in a reply's text: the whole text, else its last complete JSON object.

    Raises:
        ValueError: no JSON value could be read; the message says why.

    Example:
        >>> extract_json('Here it is:\n```json\n{"a": 1}\n```')
        {'a': 1}
        >>> extract_json('Sure! {"a": {"b": 2}} Hope that helps.')
        {'a': {'b': 2}}

    """
    stripped = text.strip()
    if not stripped:
        raise ValueError("the reply is empty")
    try:
        return unique_json.loads(stripped)[0]  # a key given twice is never picked from
    except (ValueError, RecursionError) as error:
        objects = json_objects(text)
        if objects:
            return objects[-1]
        if "{" not in text:
            raise ValueError("the reply holds no JSON object") from None
        raise ValueError(f"the reply is not valid JSON ({error})") from None


def read_text(text: str, questions: Mapping[str, Question]) -> Reading:
    """Read a reply given as text (JSON in the prompt, or a model that ignored its tools).

    The verdict is the reply's last complete JSON object that answers the
    questions and validates: a JSON object quoted earlier (from the judged data,
    say) cannot stand in for it. When the reply holds valid objects that answer a
    question differently, that question is invalid (so the model is asked again).

    Example:
        >>> from langchain_core.decisions import Noul
        >>> read_text("no idea", {"polite": Noul(instructions="Polite?")}).problem
        'the reply holds no JSON object'
        >>> reply = 'It says ```{"polite": {"yes_probability": 0.0}}``` and '
        >>> reply += 'so: {"polite": {"reasoning": "Kind.", "yes_probability": 0.9}}'
        >>> read_text(reply, {"polite": Noul(instructions="Polite?")}).invalid["polite"]
        'polite: the reply holds 2 different answers to this question; give exactly one JSON object'

    """
    stripped = text.strip()
    if not stripped:
        return Reading(problem="the reply is empty")
    objects = json_objects(text)
    readings = [read_payload(value, questions) for value in objects]
    valid = [r for r in readings if r.problem is None and not r.invalid]
    if valid:
        return _one_verdict(valid, questions)
    usable = [r for r in readings if r.problem is None]
    if usable:
        return usable[-1]
    try:
        payload = extract_json(text)
    except ValueError as error:
        return Reading(problem=str(error))
    return read_payload(payload, questions)


def _one_verdict(valid: list[Reading], questions: Mapping[str, Question]) -> Reading:
    """The last valid reading, unless valid readings answer a question differently."""
    last = valid[-1]
    if len(valid) == 1 or all(r.answers == last.answers for r in valid):
        return last
    answers: dict[str, Answer] = {}
    reasoning: dict[str, str] = {}
    invalid: dict[str, str] = {}
    for name in questions:
        given = [r for r in valid if name in r.answers]
        if not given:
            continue
        distinct: list[Answer] = []
        for reading in given:
            if reading.answers[name] not in distinct:
                distinct.append(reading.answers[name])
        if len(distinct) > 1:
            invalid[name] = (
                f"{name}: the reply holds {len(distinct)} different answers to this question; "
                "give exactly one JSON object"
            )
            continue
        answers[name] = given[-1].answers[name]
        text = next((r.reasoning[name] for r in reversed(given) if name in r.reasoning), None)
        if text is not None:
            reasoning[name] = text
    return Reading(answers, reasoning, invalid)


def read_payload(payload: Any, questions: Mapping[str, Question]) -> Reading:
    """Validate a parsed reply against the questions asked.

    The reply is read as the schema asks for it (each question's reasoning under
    `reasoning_keys`, its answer under its name), or written one object per question
    (``{"reasoning": ..., "yes_probability": ...}``, ``{"reasoning": ...,
    "probabilities": {...}}``), as a model may write it. Keys that name no question
    are ignored. A reply wrapped in one extra object (``{"answers": {...}}``) is
    unwrapped. A reply that answers none of the questions is a problem of the whole reply.
    A question the reply (parsed by `langchain_jev.models._unique_json`) names twice, or
    whose answer gives a key twice, is invalid: an ambiguous answer is never picked from.

    Example:
        >>> from langchain_core.decisions import Choice
        >>> mode = Choice(instructions="How?", criteria={"answered": None, "asked": None})
        >>> reading = read_payload({"mode_reasoning": "It answers.",
        ...     "mode": {"answered": 0.375, "asked": 0.125}}, {"mode": mode})
        >>> reading.answers["mode"].probabilities, reading.reasoning["mode"]
        ({'answered': 0.75, 'asked': 0.25}, 'It answers.')

    """
    if not isinstance(payload, Mapping):
        return Reading(
            problem=f"the reply is a JSON {_json_type(payload)}, not an object keyed by question name"
        )
    payload = _unwrap(payload, questions)
    keys = reasoning_keys(questions)
    answers: dict[str, Answer] = {}
    reasoning: dict[str, str] = {}
    invalid, _ = unique_json.answers_made_unreadable(unique_json.repeats_in(payload), answers=())
    for name, question in questions.items():
        if name not in payload or name in invalid:
            continue
        value = payload[name]
        why = payload.get(keys[name])
        if not isinstance(why, str) and isinstance(value, Mapping):
            why = value.get("reasoning")
        if isinstance(why, str):
            reasoning[name] = why
        try:
            answers[name] = _answer(name, question, value)
        except _Invalid as error:
            invalid[name] = str(error)
    invalid = {name: why for name, why in invalid.items() if name in questions}
    if not answers and not invalid:
        expected = ", ".join(questions)
        got = ", ".join(str(key) for key in payload) or "none"
        return Reading(
            problem=f"the reply answers none of the questions (expected keys: {expected}; got: {got})"
        )
    return Reading(answers, reasoning, invalid)


def merge(first: Reading, retry: Reading) -> Reading:
    """Combine a reply and its corrective retry: the retry's valid answers win.

    An answer valid only in the first reply is kept; an answer valid in neither is
    invalid with the latest reason.

    Example:
        >>> from langchain_core.decisions import NoulAnswer
        >>> yes = NoulAnswer(type="noul", noul=0.9)
        >>> merged = merge(Reading({"a": yes}, {}, {"b": "bad"}), Reading({}, {}, {"b": "still bad"}))
        >>> sorted(merged.answers), merged.invalid
        (['a'], {'b': 'still bad'})

    """
    answers = {**first.answers, **retry.answers}
    invalid = {k: v for k, v in {**first.invalid, **retry.invalid}.items() if k not in answers}
    reasoning: dict[str, str] = {}
    for name in [*answers, *invalid]:
        source, other = (
            (first, retry) if name in first.answers and name not in retry.answers else (retry, first)
        )
        text = source.reasoning.get(name, other.reasoning.get(name))
        if text is not None:
            reasoning[name] = text
    return Reading(answers, reasoning, invalid)


class _Invalid(Exception):
    """An answer that does not validate; the message says where and why."""


def _unwrap(payload: Mapping[str, Any], questions: Mapping[str, Question]) -> Mapping[str, Any]:
    if any(name in payload for name in questions) or len(payload) != 1:
        return payload
    (inner,) = payload.values()
    if isinstance(inner, Mapping) and any(name in inner for name in questions):
        return inner
    return payload


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return "number"


def _probability(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Invalid(f"{where}: expected a number from 0 to 1, got {json.dumps(value)}")
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise _Invalid(f"{where}: {value!r} is not between 0 and 1")
    return float(value)


def _answer(name: str, question: Question, value: Any) -> Answer:
    if isinstance(question, Choice):
        labels = {label: label for label in question.criteria}
        return choice_answer(question, _distribution(name, value, labels, "label"))
    if isinstance(question, Score):
        levels = {level_key(level): level for level in range(len(question.criteria))}
        return score_answer(question, _distribution(name, value, levels, "level"))
    if isinstance(value, Mapping):  # written one object per question
        if YES_KEY not in value:
            raise _Invalid(f"{name}.{YES_KEY} is missing")
        return noul_answer(_probability(value[YES_KEY], f"{name}.{YES_KEY}"))
    return noul_answer(_probability(value, name))


def _distribution(name: str, value: Any, keys: Mapping[str, Any], what: str) -> dict[Any, float]:
    where = name
    raw = value
    if isinstance(value, Mapping) and isinstance(value.get(PROBABILITY_KEY), Mapping):
        raw, where = value[PROBABILITY_KEY], f"{name}.{PROBABILITY_KEY}"  # written one object per question
    if not isinstance(raw, Mapping):
        raise _Invalid(f"{where}: expected an object with one probability per {what}, got {_json_type(raw)}")
    result: dict[Any, float] = {}
    for key, probability in raw.items():
        target = keys.get(key, keys.get(html.unescape(str(key))))
        if target is None:
            known = ", ".join(keys)
            raise _Invalid(f"{where}: {key!r} is not a {what} of the question ({what}s: {known})")
        if target in result:
            raise _Invalid(f"{where}: {key!r} names the {what} {target!r} a second time")
        result[target] = _probability(probability, f"{where}.{key}")
    if math.fsum(result.values()) <= 0:
        raise _Invalid(f"{where}: the probabilities sum to zero")
    return result
