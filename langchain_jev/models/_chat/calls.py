"""What is sent to a chat model: each request (`Call`), and the rubric of a question set.

`build_rubric` works out once per question set what depends on it alone (the schema, the
``<questions>`` and ``<response>`` sections, where a structured call goes and how its reply
is read); `logprobs_call`, `structured_call` and `correction_call` build the requests of each
strategy, and of the one corrective retry.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.decisions import Question, State
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable

from langchain_jev.models._chat.prompt import (
    Part,
    correction_text,
    data_parts,
    logprobs_response_text,
    message_content,
    rubric_parts,
    structured_response_text,
    user_parts,
)
from langchain_jev.models._chat.replies import Reply, bound_model, native_reply, raw_text, structured_reply
from langchain_jev.models._chat.schema import response_schema

__all__ = [
    "RUBRICS",
    "Call",
    "Rubric",
    "build_rubric",
    "correction_call",
    "logprobs_call",
    "structured_call",
]

RUBRICS = 256
"""Question sets whose rubric a model keeps."""


@dataclass(frozen=True)
class Call:
    """One request to the chat model."""

    messages: tuple[BaseMessage, ...]
    schema: dict[str, Any] | None = None
    """Sent through the model's structured output when set."""
    logprobs: bool = False
    target: Any = None
    """Where a structured call goes and how its reply is read (a `Rubric`'s), when known."""


@dataclass(frozen=True)
class Rubric:
    """What depends only on a set of questions: worked out once per set (`build_rubric`), and kept."""

    questions: tuple[tuple[str, Question, dict[str, Any]], ...]
    """Each question with a deep copy of its fields, to see a question edited in place."""
    chat_model: BaseChatModel
    """The chat model the target was bound from."""
    schema: dict[str, Any]
    parts: list[Part]
    """The ``<questions>`` and ``<response>`` sections of the user message."""
    target: Runnable[Any, Any] | None
    """Where structured calls go (None: the schema is quoted in the prompt)."""
    read: Callable[[Any], Reply]

    def fits(self, questions: Mapping[str, Question], chat_model: BaseChatModel) -> bool:
        mine = self.questions
        if len(mine) != len(questions) or chat_model is not self.chat_model:
            return False
        for (name, question, fields), (other_name, other) in zip(mine, questions.items(), strict=True):
            if name != other_name or question is not other or fields != other.__dict__:
                return False
        return True


def build_rubric(chat_model: BaseChatModel, questions: Mapping[str, Question]) -> Rubric:
    """The schema, prompt sections and structured-output target of a question set."""
    schema = response_schema(questions)
    try:
        structured = chat_model.with_structured_output(schema, include_raw=True)
    except NotImplementedError:
        target, read = None, structured_reply
    else:
        bound = bound_model(structured)
        target, read = (structured, structured_reply) if bound is None else (bound, native_reply)
    quoted = None if target is not None else json.dumps(schema, ensure_ascii=False)
    return Rubric(
        tuple((name, q, copy.deepcopy(q.__dict__)) for name, q in questions.items()),
        chat_model,
        schema,
        rubric_parts(questions, structured_response_text(quoted, questions)),
        target,
        read,
    )


def logprobs_call(system: SystemMessage, state: State, name: str, question: Question) -> Call:
    """The request of one question asked as a single label token."""
    parts = user_parts(state, {name: question}, logprobs_response_text(name, question), lettered=True)
    return Call((system, HumanMessage(content=message_content(parts))), logprobs=True)


def structured_call(system: SystemMessage, state: State, rubric: Rubric) -> Call:
    """The request of a question set answered in one structured reply."""
    user = HumanMessage(content=message_content(data_parts(state) + rubric.parts))
    if rubric.target is None:  # the schema is quoted in the prompt
        return Call((system, user))
    return Call((system, user), rubric.schema, target=(rubric.target, rubric.read))


def correction_call(call: Call, reply: Reply, problems: Sequence[str]) -> Call:
    """``call`` again, with the reply it got and what was wrong with it: the one corrective retry."""
    return Call(
        (
            *call.messages,
            AIMessage(content=raw_text(reply.message)),
            HumanMessage(content=correction_text(problems)),
        ),
        call.schema,
        target=call.target,
    )
