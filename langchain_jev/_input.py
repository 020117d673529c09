"""The judge input: what a judge looks at, and the state it sends under fixed names."""

from __future__ import annotations

import difflib
import functools
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar, overload

from langchain_jev._errors import JevInputError

__all__ = [
    "ANSWER_FIELD",
    "CONTEXT_FIELD",
    "EXPECTED_FIELD",
    "FIELD_ALIASES",
    "JevFieldWarning",
    "QUESTION_FIELD",
    "TOOL_CALLS_FIELD",
    "JevJudgeInput",
    "ToolCall",
    "dataset_style_keys",
    "describe_dataset_keys",
    "describe_unknown",
    "named_state_fields",
    "unknown_fields",
]

QUESTION_FIELD = "user_question"
"""State field holding the user's question (a string)."""
ANSWER_FIELD = "assistant_answer"
"""State field holding the answer being judged (a string)."""
EXPECTED_FIELD = "expected_output"
"""State field holding the reference output (any JSON value)."""
CONTEXT_FIELD = "supporting_context"
"""State field holding the retrieved documents (an array of strings)."""
TOOL_CALLS_FIELD = "tool_calls"
"""State field holding the tool calls (an array of ``{name, arguments, result}``, with
``message`` when it is known which assistant message made each call)."""

_FIXED_FIELDS = (QUESTION_FIELD, ANSWER_FIELD, EXPECTED_FIELD, CONTEXT_FIELD, TOOL_CALLS_FIELD)

FIELD_ALIASES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        QUESTION_FIELD: ("question", "input", "query"),
        ANSWER_FIELD: ("answer", "output", "response", "result", "text", "generation", "content"),
        EXPECTED_FIELD: ("expected", "reference"),
        CONTEXT_FIELD: ("context", "documents", "source_documents"),
    }
)
"""The dataset-style names of the state fields, in the order they are looked up.

One table for every reader of outside data: the LangSmith mapping (a run's inputs and
outputs, an example's reference) and the command line's dataset columns. ``result`` is
RetrievalQA's answer, ``text`` LLMChain's, ``generation`` the LangGraph RAG tutorials'
state key, ``content`` a message-like mapping's.
"""
_T = TypeVar("_T")


@dataclass(frozen=True)
class ToolCall:
    """One tool call an assistant made, with what the tool returned.

    ``message`` says which assistant message made the call (0 for the first
    assistant message of the trajectory), when that is known: calls read from a
    conversation carry it, so two calls made in one message can be told from two
    calls made one after the other. A call without it is a flat call, and its
    state form stays ``{name, arguments, result}``.

    Example:
        >>> ToolCall("search", {"q": "Dublin weather"}, "Rain, 12C").to_dict()
        {'name': 'search', 'arguments': {'q': 'Dublin weather'}, 'result': 'Rain, 12C'}
        >>> ToolCall("search", {"q": "Cork"}, message=1).to_dict()["message"]
        1

    """

    name: str
    """The tool's name."""
    arguments: Any = field(default_factory=dict)
    """The arguments the tool was called with (any JSON value)."""
    result: Any = None
    """What the tool returned (any JSON value), or None when unknown."""
    message: int | None = None
    """Which assistant message made the call (counted from 0), or None when unknown."""

    def __post_init__(self) -> None:
        if self.message is not None and (
            isinstance(self.message, bool) or not isinstance(self.message, int) or self.message < 0
        ):
            raise JevInputError(
                f"tool call {self.name!r}: 'message' must be a whole number from 0, got {self.message!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """Return the call as the ``{name, arguments, result}`` object of the state (and ``message``)."""
        state = {"name": self.name, "arguments": self.arguments, "result": self.result}
        if self.message is not None:
            state["message"] = self.message
        return state

    @classmethod
    def of(cls, value: ToolCall | Mapping[str, Any]) -> ToolCall:
        """Read a tool call from a ``{name, arguments, result, message}`` mapping.

        Example:
            >>> ToolCall.of({"name": "search", "arguments": {"q": "x"}}).name
            'search'

        """
        if isinstance(value, ToolCall):
            return value
        if not isinstance(value, Mapping) or not isinstance(value.get("name"), str):
            raise JevInputError(f"a tool call must be an object with a string 'name', got {_describe(value)}")
        return cls(value["name"], value.get("arguments", {}), value.get("result"), value.get("message"))


@dataclass(frozen=True, init=False)
class JevJudgeInput:
    """What a judge looks at: a question, an answer, and what to judge them against.

    Its fields become the state under fixed names, the same wherever a judge is
    used, so question instructions can be written against them:

    ==================  ======================  ===================================
    argument            state field             shape
    ==================  ======================  ===================================
    ``question``        ``user_question``       string
    ``answer``          ``assistant_answer``    string
    ``expected``        ``expected_output``     any JSON value
    ``context``         ``supporting_context``  array, one entry per document
    ``tool_calls``      ``tool_calls``          array of ``{name, arguments, result}``
    ``fields``          the names you give      anything else
    ==================  ======================  ===================================

    Empty context and tool-call lists are left out of the state, so a criterion
    can tell "no evidence" from "evidence that says nothing".

    Example:
        >>> data = JevJudgeInput(
        ...     question="Will I need an umbrella in Dublin tomorrow?",
        ...     answer="Yes, rain is likely.",
        ...     expected="Rain is likely; bring an umbrella.",
        ...     fields={"search_required": True},
        ... )
        >>> sorted(data.to_state())
        ['assistant_answer', 'expected_output', 'search_required', 'user_question']
        >>> data.field("search_required", bool)
        True

    """

    question: str | None
    """The user's question, or None."""
    answer: str | None
    """The answer being judged, or None."""
    expected: Any
    """The reference output (any JSON value), or None."""
    context: tuple[str, ...]
    """Retrieved documents, one entry each."""
    tool_calls: tuple[ToolCall, ...]
    """The tool calls made while answering."""
    fields: Mapping[str, Any]
    """Any other state fields, by name."""

    def __init__(
        self,
        question: str | None = None,
        answer: str | None = None,
        *,
        expected: Any = None,
        context: str | Sequence[str] | None = None,
        tool_calls: Sequence[ToolCall | Mapping[str, Any]] | None = None,
        fields: Mapping[str, Any] | None = None,
    ) -> None:
        for name, value in (("question", question), ("answer", answer)):
            if value is not None and not isinstance(value, str):
                raise JevInputError(f"{name} must be a string, got {_describe(value)}")
        if context is None:
            docs: tuple[str, ...] = ()
        elif isinstance(context, str):
            docs = (context,)
        else:
            docs = tuple(context)
        for index, doc in enumerate(docs):
            if not isinstance(doc, str):
                raise JevInputError(f"context[{index}] must be a string, got {_describe(doc)}")
        extra = dict(fields or {})
        for name in extra:
            if not isinstance(name, str):
                raise JevInputError(f"field names must be strings, got {_describe(name)}")
            if name in _FIXED_FIELDS:
                raise JevInputError(f"field {name!r} is a fixed state field: pass it as its own argument")
        object.__setattr__(self, "question", question)
        object.__setattr__(self, "answer", answer)
        object.__setattr__(self, "expected", expected)
        object.__setattr__(self, "context", docs)
        object.__setattr__(self, "tool_calls", tuple(ToolCall.of(c) for c in tool_calls or ()))
        object.__setattr__(self, "fields", MappingProxyType(extra))

    def to_state(self) -> dict[str, Any]:
        """Return the state sent to the decision model, under the fixed field names.

        Example:
            >>> JevJudgeInput("Why is the sky blue?", "Rayleigh scattering.").to_state()
            {'user_question': 'Why is the sky blue?', 'assistant_answer': 'Rayleigh scattering.'}

        """
        state: dict[str, Any] = {}
        if self.question is not None:
            state[QUESTION_FIELD] = self.question
        if self.answer is not None:
            state[ANSWER_FIELD] = self.answer
        if self.expected is not None:
            state[EXPECTED_FIELD] = self.expected
        if self.context:
            state[CONTEXT_FIELD] = list(self.context)
        if self.tool_calls:
            state[TOOL_CALLS_FIELD] = [call.to_dict() for call in self.tool_calls]
        state.update(self.fields)
        return state

    @classmethod
    def of(cls, state: Any) -> JevJudgeInput:
        """Read a state (a JSON object) back into a judge input.

        Raises:
            JevInputError: the state is not an object, or a fixed field has the wrong shape.

        Example:
            >>> JevJudgeInput.of({"assistant_answer": "42", "tries": 3}).field("tries", int)
            3

        """
        if isinstance(state, JevJudgeInput):
            return state
        if not isinstance(state, Mapping):
            raise JevInputError(
                f"the state must be a JSON object to be read as a JevJudgeInput, got {_describe(state)}"
            )
        context = state.get(CONTEXT_FIELD)
        calls = state.get(TOOL_CALLS_FIELD)
        if calls is not None and (isinstance(calls, (str, bytes)) or not isinstance(calls, Sequence)):
            raise JevInputError(f"state field {TOOL_CALLS_FIELD!r} must be an array, got {_describe(calls)}")
        return cls(
            question=_text(state, QUESTION_FIELD),
            answer=_text(state, ANSWER_FIELD),
            expected=state.get(EXPECTED_FIELD),
            context=context,
            tool_calls=calls,
            fields={k: v for k, v in state.items() if k not in _FIXED_FIELDS},
        )

    @overload
    def field(self, name: str) -> Any: ...
    @overload
    def field(self, name: str, type_: type[_T]) -> _T | None: ...
    def field(self, name: str, type_: type[Any] = object) -> Any:
        """Read a state field by name, checking its type; None when absent.

        Raises:
            JevInputError: the field is present with another type.

        Example:
            >>> JevJudgeInput(answer="hi").field("assistant_answer", str)
            'hi'

        """
        value = self.to_state().get(name) if name in _FIXED_FIELDS else self.fields.get(name)
        if value is None:
            return None
        if type_ is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not isinstance(value, type_) or (type_ is int and isinstance(value, bool)):
            raise JevInputError(f"state field {name!r} must be {type_.__name__}, got {_describe(value)}")
        return value


def unicode_fault(text: str) -> str | None:
    """Why ``text`` cannot be encoded as UTF-8 (a lone surrogate, say), or None when it can."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return f"{error.reason} at position {error.start}"
    return None


def _text(state: Mapping[str, Any], name: str) -> str | None:
    value = state.get(name)
    if value is not None and not isinstance(value, str):
        raise JevInputError(f"state field {name!r} must be a string, got {_describe(value)}")
    return value


def _describe(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return type(value).__name__


# ---------------------------------------------------------------------- silent mistakes
# Silent mistakes a judge can catch in what it is given: pure functions that find them, and the warning.
#
# Two mistakes run without an error and judge the wrong thing:
#
# - instructions that name (in backticks) a field the state does not carry, such
#   as `` `answer` `` where the state field is ``assistant_answer``;
# - a mapping passed to ``judge()`` with dataset-style keys (``question``,
#   ``answer``, ``output``, ...; `FIELD_ALIASES`) and none of the state fields: the
#   mapping is sent as the state as is, so the model sees no ``assistant_answer``.
#
# `unknown_fields` and `dataset_style_keys` find them (pure); `JevJudge` warns once
# per judge and mistake with `JevFieldWarning`, naming the field and the state field meant.

STATE_FIELDS = _FIXED_FIELDS
_MEANT: dict[str, str] = {alias: name for name, aliases in FIELD_ALIASES.items() for alias in aliases}
_DATASET_NAMES = frozenset(
    {"question", "query", "answer", "output", "response", "expected", "reference", "context"}
)
"""The dataset-style names a judge's instructions are taken to mean a state field by (`FIELD_ALIASES`)."""
_NAMED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]{0,63})`")  # an identifier in backticks (bounded: linear)
_MAX_TEXT = 20_000
_MAX_DEPTH = 4


class JevFieldWarning(UserWarning):
    """A judge was given, or asks about, a field that is not in the state it sends.

    Make it an error where a mistake should stop a test run:

    Example:
        >>> import warnings
        >>> from langchain_jev import JevFieldWarning
        >>> warnings.filterwarnings("error", category=JevFieldWarning)
        >>> issubclass(JevFieldWarning, UserWarning)
        True
        >>> warnings.resetwarnings()

    """


def _keys(value: Any, depth: int = 0) -> Iterator[str]:
    """Every key of a state, nested mappings' included (to a bounded depth)."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, Mapping):
        for key, inner in value.items():
            yield str(key)
            yield from _keys(inner, depth + 1)
    elif isinstance(value, (list, tuple)):
        for inner in value[:50]:
            yield from _keys(inner, depth + 1)


def named_state_fields(instructions: Any) -> list[str]:
    """The fixed state fields ``instructions`` name (in backticks or bare), in the state's order.

    Instructions that are not text (structured JSON) are read as their JSON text.
    What a judge file reports as a question's named fields, and what a deployed
    rule makes its prompt's variables.

    Example:
        >>> named_state_fields("Does `assistant_answer` answer user_question?")
        ['user_question', 'assistant_answer']
        >>> named_state_fields({"ask": "Is supporting_context relevant?"})
        ['supporting_context']

    """
    text = instructions if isinstance(instructions, str) else json.dumps(instructions, default=str)
    return [name for name in STATE_FIELDS if re.search(rf"(?<![\w]){name}(?![\w])", text)]


@functools.lru_cache(maxsize=1024)
def backticked_names(instructions: str) -> tuple[str, ...]:
    """The identifiers ``instructions`` names in backticks, each once, in order of appearance.

    Cached: a judge asks the same instructions on every input, so each text is read once.

    Example:
        >>> backticked_names("Does `assistant_answer` cite `supporting_context`? `assistant_answer`")
        ('assistant_answer', 'supporting_context')

    """
    return tuple(dict.fromkeys(_NAMED.findall(instructions[:_MAX_TEXT])))


def unknown_fields(instructions: Any, state: Mapping[str, Any]) -> dict[str, str]:
    """The fields ``instructions`` names in backticks that ``state`` lacks -> the state field meant.

    Only names that look like a mistake count: a dataset-style name of a state
    field (``answer``, ``question``, ``output``, ...), or a near miss of a key the
    state has (``assistant_answr``). A state field the state lacks is not one (it
    may be absent: no context, no tool calls), nor are other backticked words
    (literal values, code).

    Example:
        >>> unknown_fields("Does `assistant_answr` cite `supporting_context`?", {"assistant_answer": "x"})
        {'assistant_answr': 'assistant_answer'}
        >>> unknown_fields("Is it `yes` or `no`?", {"assistant_answer": "x"})
        {}

    """
    if not isinstance(instructions, str):
        return {}
    missing = [name for name in backticked_names(instructions) if name not in state]
    if not missing:  # the common case, kept cheap: every name is a top-level field
        return {}
    present = set(_keys(state))
    found: dict[str, str] = {}
    for name in missing:
        if name in present or name in found or name in STATE_FIELDS:  # a state field may be absent
            continue
        close = difflib.get_close_matches(name, sorted(present), n=1, cutoff=0.8)
        if name in _DATASET_NAMES:
            found[name] = _MEANT[name]
        elif close:
            found[name] = close[0]
    return found


def dataset_style_keys(state: Mapping[str, Any]) -> dict[str, str]:
    """Dataset-style keys of a mapping that carries none of the state fields -> the state field meant.

    Example:
        >>> dataset_style_keys({"input": "Hi?", "output": "Hello", "lang": "en"})
        {'input': 'user_question', 'output': 'assistant_answer'}
        >>> dataset_style_keys({"user_question": "Hi?", "answer": "Hello"})  # it uses the state's names
        {}

    """
    if any(name in state for name in STATE_FIELDS):
        return {}
    return {str(key): _MEANT[key] for key in state if isinstance(key, str) and key in _MEANT}


def describe_unknown(criterion: str, found: Mapping[str, str]) -> str:
    """The warning for a criterion whose instructions name fields the state lacks."""
    parts = [f"`{name}` (did you mean `{meant}`?)" for name, meant in found.items()]
    return (
        f"criterion {criterion!r}: its instructions name {', '.join(parts)}, which the state sent to "
        "the model does not carry; the model reads the state's fields by name"
    )


def describe_dataset_keys(found: Mapping[str, str]) -> str:
    """The warning for a mapping with dataset-style keys and no state field."""
    pairs = ", ".join(f"{key!r} -> {meant!r}" for key, meant in found.items())
    return (
        f"judge() got a mapping with dataset-style keys and none of the state fields ({pairs}): a "
        "mapping is sent as the state as it is; use the state fields' names, or "
        "judge(question, answer) / JevJudgeInput(question=..., answer=...)"
    )
