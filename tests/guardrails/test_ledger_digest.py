"""The ledger's digest is one-to-one over what the judge reads: two messages read apart never share one.

A message whose leaf cannot be written down exactly has no digest, so it is never recorded as judged.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, ChatMessage, HumanMessage, ToolMessage
from pydantic import BaseModel, Field

from langchain_jev.guardrails._judged import read_message
from langchain_jev.guardrails._ledger import Ledger, chain_hashes, message_digest


class Hidden(BaseModel):
    """A model whose repr leaves a field out."""

    title: str = "form"
    note: Any = Field(default="", repr=False)


@dataclasses.dataclass
class Point:
    """A dataclass whose repr leaves a field out."""

    x: Any
    secret: Any = dataclasses.field(default="", repr=False)


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Opaque:
    """An object of no known kind: its repr hides what it holds."""

    def __init__(self, held: str) -> None:
        self.held = held

    def __repr__(self) -> str:
        return "Opaque()"


_scalars = st.one_of(
    st.text(max_size=6),
    st.integers(-3, 3),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, width=16),
    st.binary(max_size=4),
    st.sampled_from(list(Colour)),
)


def _objects(children: Any) -> Any:
    return st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.text(max_size=3), children, max_size=3),
        st.builds(Hidden, title=st.text(max_size=3), note=children),
        st.builds(Point, x=children, secret=children),
        st.frozensets(st.one_of(st.text(max_size=3), st.integers(-3, 3)), max_size=3),
    )


_values = st.recursive(_scalars, _objects, max_leaves=6)


@st.composite
def _messages(draw: Any) -> BaseMessage:
    value = draw(_values)
    text = draw(st.text(max_size=4))
    kind = draw(st.sampled_from(["human", "ai-call", "tool", "chat", "kwargs"]))
    if kind == "human":
        return HumanMessage(text)
    if kind == "ai-call":
        return AIMessage(text, tool_calls=[{"name": "lookup", "args": {"v": value}, "id": "c1"}])
    if kind == "tool":
        return ToolMessage(text, tool_call_id="c1", additional_kwargs={"v": value})
    if kind == "chat":
        return ChatMessage(text, role="assistant", response_metadata={"v": value})
    return HumanMessage(text, additional_kwargs={"v": value})


def _rendering(message: BaseMessage) -> tuple[Any, ...]:
    reading = read_message(message)
    return (type(message).__name__, reading.texts, reading.media, reading.prose)


@settings(max_examples=300, deadline=None)
@given(_messages(), _messages())
def test_two_messages_the_judge_reads_apart_never_share_a_digest(
    first: BaseMessage, second: BaseMessage
) -> None:
    one, other = message_digest(first), message_digest(second)
    assert one is not None and other is not None  # every leaf here is one the judge reads
    if _rendering(first) != _rendering(second):
        assert one != other


@settings(max_examples=100, deadline=None)
@given(_values, _values)
def test_a_leaf_hidden_from_repr_is_in_the_digest(benign: Any, hazard: Any) -> None:
    def message(note: Any) -> AIMessage:
        return AIMessage("", tool_calls=[{"name": "f", "args": {"form": Hidden(note=note)}, "id": "c1"}])

    if _rendering(message(benign)) != _rendering(message(hazard)):
        assert message_digest(message(benign)) != message_digest(message(hazard))


def test_the_quoted_instance_a_repr_false_field_changes_the_digest() -> None:
    def message(note: str) -> AIMessage:
        return AIMessage("", tool_calls=[{"name": "f", "args": {"form": Hidden(note=note)}, "id": "c1"}])

    assert message_digest(message("the weather")) != message_digest(message("how to make a nerve agent"))


def test_a_dataclass_field_hidden_from_repr_changes_the_digest() -> None:
    def message(secret: str) -> HumanMessage:
        return HumanMessage("hi", additional_kwargs={"p": Point(1, secret)})

    assert message_digest(message("a")) != message_digest(message("b"))


def test_a_leaf_of_no_known_kind_is_never_recorded_as_judged() -> None:
    ledger = Ledger(namespace="n")
    turn = [HumanMessage("hi"), HumanMessage("x", additional_kwargs={"o": Opaque("benign")}), AIMessage("ok")]
    assert message_digest(turn[1]) is None
    assert chain_hashes("n", turn)[0] is not None and chain_hashes("n", turn)[1:] == [None, None]
    ledger.record(turn)
    assert ledger.judged_prefix(turn) == 1  # the first message alone; the opaque one is judged every time
    swapped = [turn[0], HumanMessage("x", additional_kwargs={"o": Opaque("hazard")}), turn[2]]
    assert ledger.judged_prefix(swapped) == 1


def test_a_cycle_has_no_digest() -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert message_digest(HumanMessage("hi", additional_kwargs={"loop": loop})) is None


def test_json_kinds_apart_the_judge_reads_alike_may_share_nothing_they_should_not() -> None:
    # a tuple and a list read alike (one digest kind); a string and a number, a set and a list, do not
    assert message_digest(HumanMessage("a", additional_kwargs={"v": (1, 2)})) == message_digest(
        HumanMessage("a", additional_kwargs={"v": [1, 2]})
    )
    assert message_digest(HumanMessage("a", additional_kwargs={"v": "1"})) != message_digest(
        HumanMessage("a", additional_kwargs={"v": 1})
    )
