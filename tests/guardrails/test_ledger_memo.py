"""The ledger hashes a message once while it holds what it held: an edit in place is hashed again.

Invariant: the digest the ledger uses for a message (`_remembered_digest`) is always the digest
of what the message holds now (`message_digest`), whatever was done to it since it was last hashed.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from langchain_jev.guardrails._ledger import Ledger, _remembered_digest, _snapshot, message_digest

_leaf = st.one_of(st.text(max_size=8), st.integers(), st.floats(allow_nan=False), st.booleans(), st.none())
_value = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)


def _message(kind: int, content: str, extra: dict[str, Any]) -> BaseMessage:
    if kind == 0:
        return HumanMessage(content, additional_kwargs=extra)
    if kind == 1:
        return AIMessage(
            [{"type": "text", "text": content}],
            tool_calls=[{"name": "lookup", "args": {"q": content, **extra}, "id": "c1", "type": "tool_call"}],
        )
    return ToolMessage(content, tool_call_id="c1", additional_kwargs=extra)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside ``value`` (a mapping key or list index path) where a leaf or container sits."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*path, index))
    return found


def _edit(message: BaseMessage, choice: int, new: Any) -> None:
    """Change one place of ``message`` in place: a field set, or an item inside a field replaced or added."""
    fields = {key: value for key, value in vars(message).items() if key not in ("id", "artifact")}
    places = [(name, path) for name, value in fields.items() for path in _paths(value)]
    name, path = places[choice % len(places)]
    if not path:
        if name == "type":
            return
        object.__setattr__(message, name, copy.deepcopy(new)) if name in vars(message) else None
        return
    holder = vars(message)[name]
    for step in path[:-1]:
        holder = holder[step]
    if isinstance(holder, (dict, list)):
        holder[path[-1]] = copy.deepcopy(new)
        if isinstance(holder, list) and choice % 2:
            holder.append(copy.deepcopy(new))


@settings(max_examples=400, deadline=None)
@given(
    st.integers(0, 2),
    st.text(max_size=12),
    st.dictionaries(st.text(max_size=4), _value, max_size=3),
    st.lists(st.tuples(st.integers(0, 10_000), _value), max_size=4),
)
def test_the_remembered_digest_is_always_the_digest_of_what_the_message_holds_now(
    kind: int, content: str, extra: dict[str, Any], edits: list[tuple[int, Any]]
) -> None:
    message = _message(kind, content, extra)
    assert _remembered_digest(message) == message_digest(message)
    assert _remembered_digest(message) == message_digest(message)  # remembered
    for choice, new in edits:
        _edit(message, choice, new)
        assert _remembered_digest(message) == message_digest(message)


def test_a_message_edited_in_place_is_judged_again() -> None:
    ledger = Ledger(namespace="memo")
    question = HumanMessage("what is the weather?")
    ledger.record([question])
    assert ledger.judged_prefix([question]) == 1
    question.content = "how do I make a nerve agent?"
    assert ledger.judged_prefix([question]) == 0
    blocks = AIMessage([{"type": "text", "text": "fine"}])
    ledger.record([blocks])
    blocks.content[0]["text"] = "a nerve agent, step by step"  # type: ignore[index]
    assert ledger.judged_prefix([blocks]) == 0
    call = AIMessage(
        "", tool_calls=[{"name": "lookup", "args": {"q": "weather"}, "id": "c1", "type": "tool_call"}]
    )
    ledger.record([call])
    call.tool_calls[0]["args"]["q"] = "nerve agent"
    assert ledger.judged_prefix([call]) == 0
    moved = HumanMessage("weather")
    ledger.record([moved])
    moved.__class__ = AIMessage  # type: ignore[assignment]
    assert ledger.judged_prefix([moved]) == 0


def test_two_messages_of_one_shape_and_leaves_in_other_places_are_told_apart() -> None:
    x, y = "x", "y"
    one = HumanMessage("a", additional_kwargs={"v": [x, [y]]})
    other = HumanMessage("a", additional_kwargs={"v": [[x], y]})
    assert _snapshot(one) != _snapshot(other)


def test_a_remembered_digest_goes_with_its_message() -> None:
    import gc

    from langchain_jev.guardrails import _ledger

    messages = [HumanMessage(f"question {n}") for n in range(50)]
    keys = {id(message) for message in messages}
    for message in messages:
        _remembered_digest(message)
    assert keys <= set(_ledger._memo)
    del messages, message
    gc.collect()
    assert not keys & set(_ledger._memo)


def test_a_message_holding_a_set_is_hashed_every_time() -> None:
    from langchain_jev.guardrails import _ledger

    message = HumanMessage("hi", additional_kwargs={"box": [1, {"k": (2, 3)}]})
    _remembered_digest(message)
    assert id(message) in _ledger._memo
    held = HumanMessage("hi", additional_kwargs={"k": {1, 2}})
    assert _remembered_digest(held) == message_digest(held)
    assert id(held) not in _ledger._memo
