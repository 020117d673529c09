"""Turning a LangChain state and questions into what the TypeSafe API accepts, and reading its answers."""

from __future__ import annotations

import base64
import binascii
import contextlib
import copy
import json
import logging
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

import httpx2
import jiter
from langchain_core.decisions import ChoiceAnswer, NoulAnswer, Question
from langchain_core.messages import BaseMessage, convert_to_openai_messages
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from typesafe_sdk import Image, SystemOneResponse, TypeSafeAPIResponseValidationError
from typing_extensions import TypedDict

from langchain_jev._errors import JevInputError
from langchain_jev._input import unicode_fault
from langchain_jev.models import _unique_json as unique_json
from langchain_jev.models._secrets import contains_secret, redact_data, redact_error

__all__ = ["MAX_DEPTH", "QuestionWire", "WireResponse", "wire_questions", "wire_state"]


def wire_questions(questions: Mapping[str, Question]) -> dict[str, Any]:
    """Dump langchain-core questions as the API's question objects."""
    return {name: question.model_dump(mode="json") for name, question in questions.items()}


class QuestionWire:
    """`wire_questions` that remembers the dump of each question object for as long as it lives.

    A judge asks the same question objects on every call; each is dumped once and
    dumped again only when it was edited in place (its fields, and those of the
    models it holds, such as a noul's criteria, are compared with a deep copy taken
    at the dump). An entry lives exactly as long as its question (a weak reference
    drops it), so a judge or battery of any size is answered from here on every
    call, and no question is kept alive by it. Every call hands out fresh dicts: a
    caller that edits what it was given changes nothing here.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> wire = QuestionWire()
        >>> polite = Noul(instructions="Is it polite?")
        >>> wire({"polite": polite}) == wire_questions({"polite": polite})
        True
        >>> wire({"polite": polite})["polite"]["instructions"] = "Is it rude?"  # a copy
        >>> wire({"polite": polite})["polite"]["instructions"]
        'Is it polite?'
        >>> polite.instructions = "Is it rude?"
        >>> wire({"polite": polite})["polite"]["instructions"]
        'Is it rude?'

    """

    def __init__(self) -> None:
        self._seen: dict[int, _Entry] = {}

    def __call__(self, questions: Mapping[str, Question]) -> dict[str, Any]:
        """The API's question objects for ``questions``, as `wire_questions` gives them."""
        seen = self._seen
        wired: dict[str, Any] = {}
        for name, question in questions.items():
            entry = seen.get(id(question))
            if (
                entry is None
                or entry[0]() is not question
                or entry[1] != question.__dict__
                or (entry[2] and _edited(question, entry[2]))
            ):
                entry = self._dump(question)
            wired[name] = _copied(entry[3]) if entry[4] else entry[3].copy()
        return wired

    def __len__(self) -> int:
        """How many questions are remembered."""
        return len(self._seen)

    def _dump(self, question: Question) -> _Entry:
        wire = question.model_dump(mode="json")
        fields = question.__dict__
        models = tuple(
            (key, value, copy.deepcopy(value.__dict__))
            for key, value in fields.items()
            if isinstance(value, BaseModel)
        )
        snapshot = {
            key: value if isinstance(value, BaseModel) else copy.deepcopy(value)
            for key, value in fields.items()
        }
        nested = any(type(value) in _CONTAINERS for value in wire.values())
        seen, key = self._seen, id(question)

        def forget(ref: weakref.ref[Any], seen: dict[int, _Entry] = seen, key: int = key) -> None:
            entry = seen.get(key)
            if entry is not None and entry[0] is ref:
                seen.pop(key, None)

        try:
            ref = weakref.ref(question, forget)
        except TypeError:  # an object that takes no weak reference is dumped every time
            return (lambda: None, snapshot, models, wire, nested)
        entry: _Entry = (ref, snapshot, models, wire, nested)
        seen[key] = entry
        return entry


_Entry = tuple[
    Callable[[], Any], dict[str, Any], tuple[tuple[str, BaseModel, dict[str, Any]], ...], dict[str, Any], bool
]
"""A remembered question: a weak reference to it, a copy of its fields (models kept as themselves),
each model it holds with a copy of that model's fields, its wire form, and whether that form nests."""

_CONTAINERS = (dict, list)


def _edited(question: Question, models: tuple[tuple[str, BaseModel, dict[str, Any]], ...]) -> bool:
    """True when a model the question held at its dump was replaced or edited in place."""
    fields = question.__dict__
    return any(fields.get(key) is not model or model.__dict__ != kept for key, model, kept in models)


def _copied(value: Any) -> Any:
    """A fresh copy of JSON data: new dicts and lists, the same (immutable) strings and numbers."""
    if type(value) is dict:
        return {key: _copied(item) if type(item) in _CONTAINERS else item for key, item in value.items()}
    if type(value) is list:
        return [_copied(item) if type(item) in _CONTAINERS else item for item in value]
    return value


MAX_DEPTH = 200
"""How deeply objects and arrays may nest in a state sent to Jev (the SDK's JSON encoder stops at 255)."""


def wire_state(state: Any, path: str = "state", depth: int = 0) -> Any:
    """Return the state as JSON, with messages as role/content and images as SDK assets.

    LangChain messages at any depth become ``{"role", "content"}`` objects; a
    standard image block with base64 data (``{"type": "image", "base64": ...,
    "mime_type": ...}``) becomes a `typesafe_sdk.Image`, which the SDK uploads.

    Raises:
        JevInputError: a value has no JSON form (not JSON data, text that is not
            valid Unicode, nesting deeper than `MAX_DEPTH`); the message gives its path.

    """
    if isinstance(state, BaseMessage):
        return wire_state(convert_to_openai_messages(state), path, depth)
    if isinstance(state, str):
        return _text(state, path)
    if isinstance(state, Mapping):
        image = _image(state)
        if image is not None:
            return image
        _refuse_unseen_media(state, path)
        _check_depth(path, depth)
        result: dict[str, Any] = {}
        for key, value in state.items():
            if not isinstance(key, str):
                raise JevInputError(f"{_shown(path)}: object keys must be strings, got {key!r}")
            result[_text(key, f"{path}.{key}")] = wire_state(value, f"{path}.{key}", depth + 1)
        return result
    if isinstance(state, Sequence) and not isinstance(state, (bytes, bytearray)):
        _check_depth(path, depth)
        if state and all(isinstance(item, BaseMessage) for item in state):
            messages = convert_to_openai_messages(state)
            return [wire_state(m, f"{path}[{i}]", depth + 1) for i, m in enumerate(messages)]
        return [wire_state(item, f"{path}[{index}]", depth + 1) for index, item in enumerate(state)]
    if state is None or isinstance(state, (bool, int, float)):
        return state
    raise JevInputError(f"{_shown(path)}: {type(state).__name__} has no JSON form")


def _text(text: str, path: str) -> str:
    fault = unicode_fault(text)
    if fault is not None:
        raise JevInputError(f"{_shown(path)}: text is not valid Unicode ({fault})")
    return text


def _check_depth(path: str, depth: int) -> None:
    if depth >= MAX_DEPTH:
        raise JevInputError(
            f"{_shown(path)}: the state nests objects and arrays more than {MAX_DEPTH} levels deep"
        )


def _shown(path: str) -> str:
    """A path fit for a message: at most about 160 characters, surrogates escaped."""
    if len(path) > 160:
        path = f"{path[:100]}...{path[-50:]}"
    return path.encode("utf-8", "backslashreplace").decode("utf-8")


_UNSEEN_MEDIA = {"audio": "audio", "input_audio": "audio", "video": "video"}
"""Media block types (LangChain's standard ones and OpenAI's) that Jev cannot take in, by what they hold."""


def _refuse_unseen_media(block: Mapping[str, Any], path: str) -> None:
    """Refuse an audio or video block: sent as JSON, its base64 would be judged as if it were text."""
    kind = block.get("type")
    medium = _UNSEEN_MEDIA.get(kind) if isinstance(kind, str) else None
    if medium is None and isinstance(block.get("input_audio"), Mapping):
        medium = "audio"
    if medium is not None:
        article = "an" if medium == "audio" else "a"
        raise JevInputError(
            f"{_shown(path)}: {article} {medium} block: Jev reads text and images, not {medium}; "
            f"judge it with a chat model that takes {medium} (ChatModelDecisionModel)"
        )


def _image(block: Mapping[str, Any]) -> Image | None:
    if block.get("type") != "image" or not isinstance(block.get("base64"), str):
        return None
    try:
        return Image(base64.b64decode(block["base64"], validate=True))
    except (binascii.Error, ValueError) as error:
        raise JevInputError(f"an image block's base64 data cannot be decoded: {error}") from None


class WireResponse(SystemOneResponse):
    """A System One response whose answers are read strictly, each on its own.

    Passed as the SDK's ``response_model``, it keeps the SDK's model, usage, request
    id and errors, but leaves each answer to be read once, strictly, into
    langchain-core's types (`langchain_jev.models._response.read_answers`), instead
    of into the SDK's answer types first: level keys stay as written (``"03"`` is
    not ``3``), and one malformed answer is that answer's problem alone.

    Answers are read by the package's one rule (`langchain_jev.models._unique_json`):
    no body is read without being known to give every key once (its keys counted
    against what the quick pass read, else checked by ``jiter``), and a body that
    gives one twice is parsed by that rule: a question named twice, or a key given
    twice anywhere inside an answer, makes that answer unreadable (``unreadable``,
    with the reason: its finding is an ERROR, never a pick of one value), and a key
    given twice anywhere else (``answers``, ``model`` or ``usage`` twice) makes the
    whole body unreadable: the SDK's ``TypeSafeAPIResponseValidationError``, naming it.
    The usual body is then read in one strict pass: nouls and choices become
    langchain-core answers at once (a number must be a JSON number, a label a JSON
    string), scores and boxes stay as sent. A body that pass cannot read (a
    malformed answer, an answer type of a later API) is read again with every answer
    as sent, so each answer is then read, or reported, on its own; a body that echoes
    a known key never takes the quick pass: it is redacted, then read that way.

    Example:
        >>> body = b'{"model": "jev-latest", "usage": {}, "answers": {"a": {"type": "noul", "noul": 0.5}}}'
        >>> WireResponse.model_validate_json(body).answers
        {'a': {'type': 'noul', 'noul': 0.5}}
        >>> WireResponse._decode(httpx2.Response(200, content=body)).answers
        {'a': NoulAnswer(type='noul', noul=0.5)}
        >>> twice = b'{"model": "m", "usage": {}, "answers": {"a": {"type": "noul", "noul": 0.1, '
        >>> twice += b'"noul": 0.9}}}'
        >>> decoded = WireResponse._decode(httpx2.Response(200, content=twice))
        >>> decoded.answers, decoded.unreadable
        ({}, {'a': 'answers.a.noul: the key "noul" is given 2 times; an ambiguous answer is unreadable'})

    """

    answers: dict[str, Any] = Field(default_factory=dict)
    """Every answer as JSON data, keyed by question name (or already read, after the quick pass)."""

    @property
    def unreadable(self) -> dict[str, str]:
        """The answers this body gave ambiguously, by question name, with the reason (see `unique_json`)."""
        found: dict[str, str] = self.__dict__.get("_unreadable") or {}  # kept beside the fields, as the SDK
        return found  # keeps its request id: no model field, no private attribute to set up per response

    @classmethod
    def _decode(cls, response: httpx2.Response) -> WireResponse:
        content = response.content
        echoed = contains_secret(content)  # a server that echoes the key: never pass it on
        quick: _QuickResponse | None = None
        if not echoed:
            with contextlib.suppress(ValidationError):  # not the usual body: read as sent, below
                quick = _QuickResponse.model_validate_json(content, strict=True)
            if quick is not None and _every_key_once(content, quick):
                return quick
        try:  # jiter (pydantic's parser) refuses a key given twice
            jiter.from_json(content, catch_duplicate_keys=True, cache_mode="keys")
        except ValueError:  # a key given twice, or not JSON: read by the package's one rule
            return cls._decode_repeating(response)
        if quick is not None:
            return quick
        try:  # one pass over the body; the SDK's own decoding words any error
            if echoed:
                decoded = cls.model_validate(redact_data(json.loads(content)))
            else:
                decoded = cls.model_validate_json(content)
        except (ValidationError, ValueError):
            return super()._decode(response)
        return _without_later_types(decoded)

    @classmethod
    def _decode_repeating(cls, response: httpx2.Response) -> WireResponse:
        """A body that gives a key twice: that answer is unreadable, or the whole body is (see the class)."""
        try:
            data, repeats = unique_json.loads(response.content)
        except ValueError:
            return super()._decode(response)  # not JSON: the SDK words the error
        unreadable, whole = unique_json.answers_made_unreadable(repeats)
        if whole:  # the body itself is ambiguous (its answers, model or usage given twice)
            raise _ambiguous_body(response, data, whole[0])
        answers = data.get("answers") if isinstance(data, dict) else None
        for name in unreadable if isinstance(answers, dict) else ():
            answers.pop(name, None)  # type: ignore[union-attr]  # what is left of it is not read either
        try:
            decoded = cls.model_validate(redact_data(data))
        except ValidationError:
            return super()._decode(response)  # the SDK's own decoding words the error
        decoded.__dict__["_unreadable"] = unreadable
        return _without_later_types(decoded)


def _every_key_once(content: bytes, quick: _QuickResponse) -> bool:
    """True when a body the quick pass read surely names no key twice in an object (a count, no parse).

    In a body with no backslash (so no key is written with an escape) and in which every
    colon follows a quote (so no key has white space before its colon), every key is
    written ``"key":``, and counting ``":`` counts at least every key as sent (a string
    that starts with a colon adds one more). The quick pass keeps each object's keys once
    (the fields a model was given, a mapping's keys), so a key given twice leaves fewer
    than were sent: when the two counts agree, none was. When they do not (a key given
    twice, a key the models ignore, a body written otherwise), the exact check decides.
    """
    if b"\\" in content:
        return False
    sent = content.count(b'":')
    if content.count(b":") != sent:
        return False
    answers = quick.answers
    read = len(quick.__pydantic_fields_set__) + len(quick.usage.__pydantic_fields_set__) + len(answers)
    for answer in answers.values():
        kind = type(answer)
        if kind is NoulAnswer:
            read += len(answer.__pydantic_fields_set__)  # type: ignore[union-attr]
        elif kind is ChoiceAnswer:
            read += len(answer.__pydantic_fields_set__) + len(answer.probabilities)  # type: ignore[union-attr]
        else:  # a score or a box, as sent
            read += _keys(answer)
    return read == sent


def _keys(value: Any) -> int:
    """How many keys the objects of JSON data hold, at any depth."""
    if type(value) is dict:
        return len(value) + sum(_keys(item) for item in value.values() if type(item) in _CONTAINERS)
    if type(value) is list:
        return sum(_keys(item) for item in value if type(item) in _CONTAINERS)
    return 0


def _without_later_types(decoded: WireResponse) -> WireResponse:
    """``decoded`` without the answers of a type of a later API, as the SDK leaves them out."""
    answers = decoded.answers
    for name, answer in list(answers.items()):
        kind = answer.get("type") if isinstance(answer, dict) else None
        if isinstance(kind, str) and kind not in _ANSWER_TYPES:
            _log.warning("Ignoring answer %r with unrecognized type %r", name, kind)
            del answers[name]
    return decoded


def _ambiguous_body(response: httpx2.Response, data: Any, repeat: unique_json.Repeat) -> BaseException:
    """The SDK's error for a body it cannot read, naming the key the body gives twice."""
    error = TypeSafeAPIResponseValidationError(
        response.status_code, redact_data(data), response.headers, repeat.where
    )
    error.add_note(repeat.problem("response"))
    return redact_error(error)


class _AsSentScore(TypedDict, total=False):
    """A score answer kept as sent: `read_answers` reads it, checking how its level keys are written."""

    __pydantic_config__ = ConfigDict(extra="allow")  # type: ignore[misc]
    type: Literal["score"]


class _AsSentBox(TypedDict, total=False):
    """A box answer kept as sent, to be read by `read_answers` as every other path reads it."""

    __pydantic_config__ = ConfigDict(extra="allow")  # type: ignore[misc]
    type: Literal["box"]


class _QuickResponse(WireResponse):
    """The one strict pass of `WireResponse._decode` (see there)."""

    answers: dict[
        str,
        Annotated[NoulAnswer | ChoiceAnswer | _AsSentScore | _AsSentBox, Field(discriminator="type")],
    ] = Field(default_factory=dict)


_ANSWER_TYPES = frozenset({"noul", "choice", "score", "box"})
"""The answer types the API has; an answer of another type is left out, as the SDK leaves it out."""

_log = logging.getLogger(__name__)
