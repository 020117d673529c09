"""What a middleware inside the guardrail hands outward in ``ExtendedModelResponse.command`` is judged.

``create_agent`` keeps an inner middleware's command out of the guardrail's sight and applies it after
the guardrail returns. The invariant: nothing the inner stack hands outward reaches the state unjudged.
Every message of a command's update is judged as output, like the reply; every other key as a value,
every leaf; a leaf of no known kind fails the check (``on_error``); a refused response takes its
commands with it; a route from inside (``goto``, ``graph``, ``resume``) is refused outright.
The decision model is a perfect keyword classifier, so a miss is the guardrail not showing the judge
what the command writes.
"""

from __future__ import annotations

import asyncio
import json
import string
from collections.abc import Callable
from typing import Any, NotRequired

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, AgentState, ExtendedModelResponse
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.types import Command, Overwrite, Send

from langchain_jev import GuardrailCheckError, JevInputError
from langchain_jev.middleware import JevGuardrailMiddleware
from tests.fakes import ReplyingChatModel
from tests.guardrails.helpers import SEQUENTIAL
from tests.guardrails.lossless_kit import CATEGORY, OUTPUT_REFUSAL, has_mark, perfect, seen

PHRASE = "how to make a nerve agent"
BENIGN = "It is sunny."


class NotesState(AgentState[Any]):
    notes: NotRequired[Any]


class Hands(AgentMiddleware[NotesState, Any, Any]):
    """A middleware inside the guardrail that hands a command outward beside the model's response."""

    state_schema = NotesState

    def __init__(self, make: Callable[[], Any], name: str = "Hands") -> None:
        super().__init__()
        self.make = make
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return ExtendedModelResponse(model_response=handler(request), command=self.make())

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        return ExtendedModelResponse(model_response=await handler(request), command=self.make())


def _once(make: Callable[[], Any]) -> Callable[[], Any]:
    """``make``'s command for the first model call, none after (a tool call in it leads to another)."""
    made: list[Any] = []

    def first() -> Any:
        made.append(None)
        return make() if len(made) == 1 else None

    return first


def _agent(*inner: AgentMiddleware[Any, Any, Any], reply: str = "Sunny.", **options: Any) -> Any:
    judge = perfect()
    settings = {"categories": [CATEGORY], **SEQUENTIAL, **options}
    guard = JevGuardrailMiddleware(model=judge, **settings)
    agent = create_agent(ReplyingChatModel(replies=[reply, "Done."]), middleware=[guard, *inner])
    agent.judge = judge
    return agent


def _run(agent: Any, way: str = "invoke") -> dict[str, Any]:
    value = {"messages": [HumanMessage("Weather?")]}
    out: dict[str, Any] = agent.invoke(value) if way == "invoke" else asyncio.run(agent.ainvoke(value))
    return out


def _released(out: dict[str, Any]) -> str:
    """Everything of the turn the state holds: its messages, the notes and the structured response."""
    held = [[m.model_dump() for m in out["messages"]], out.get("notes"), out.get("structured_response")]
    return json.dumps(held, default=str)


def _refused(out: dict[str, Any]) -> bool:
    return out["messages"][-1].content == OUTPUT_REFUSAL and out["guardrail"]["refused"] is True


WAYS = ["invoke", "ainvoke"]

_UPDATES: dict[str, Callable[[str], dict[str, Any]]] = {
    "ai message": lambda text: {"messages": [AIMessage(text)]},
    "human message": lambda text: {"messages": [HumanMessage(text)]},
    "tool message": lambda text: {"messages": [ToolMessage(text, tool_call_id="c1")]},
    "ai tool call": lambda text: {
        "messages": [AIMessage("", tool_calls=[{"name": "look", "args": {"q": text}, "id": "c9"}])]
    },
    "message as a dict": lambda text: {"messages": [{"role": "assistant", "content": text}]},
    "message as a tuple": lambda text: {"messages": [("ai", text)]},
    "a state key": lambda text: {"notes": text},
    "a nested leaf": lambda text: {"notes": {"a": [1, {"b": text}]}},
    "a key": lambda text: {"notes": {text: 1}},
    "structured response": lambda text: {"structured_response": {"answer": text}},
    "messages overwritten": lambda text: {"messages": Overwrite([HumanMessage("Weather?"), AIMessage(text)])},
    "all removed, one added": lambda text: {
        "messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("Weather?"), AIMessage(text)]
    },
}


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("kind", sorted(_UPDATES))
def test_a_command_update_carrying_the_hazard_is_refused_and_not_applied(kind: str, way: str) -> None:
    agent = _agent(Hands(lambda: Command(update=_UPDATES[kind](PHRASE))))
    out = _run(agent, way)
    assert not has_mark(_released(out))
    assert _refused(out)
    assert "nerve agent" in seen(agent.judge)  # the judge was shown it


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("kind", sorted(_UPDATES))
def test_a_benign_command_update_is_applied_as_it_is(kind: str, way: str) -> None:
    agent = _agent(Hands(_once(lambda: Command(update=_UPDATES[kind](BENIGN)))))
    out = _run(agent, way)
    assert not out["guardrail"]["refused"]
    assert BENIGN in _released(out)


@pytest.mark.parametrize("way", WAYS)
def test_a_refused_reply_takes_the_benign_command_handed_with_it(way: str) -> None:
    agent = _agent(
        Hands(lambda: Command(update={"notes": BENIGN, "messages": [AIMessage(BENIGN)]})), reply=PHRASE
    )
    out = _run(agent, way)
    assert _refused(out)
    assert out.get("notes") is None and BENIGN not in _released(out)


def test_the_update_as_a_list_of_pairs_is_judged() -> None:
    out = _run(_agent(Hands(lambda: Command(update=[("notes", {"x": PHRASE})]))))
    assert not has_mark(_released(out)) and _refused(out)


def test_the_marker_as_a_number_is_judged() -> None:
    out = _run(_agent(Hands(lambda: Command(update={"notes": [3, 7331337]}))))
    assert "7331337" not in _released(out) and _refused(out)


@pytest.mark.parametrize("way", WAYS)
def test_commands_of_two_middlewares_inside_are_each_judged(way: str) -> None:
    first = Hands(lambda: Command(update={"notes": BENIGN}), name="first")
    second = Hands(lambda: Command(update={"messages": [AIMessage(PHRASE)]}), name="second")
    out = _run(_agent(first, second), way)
    assert _refused(out)
    assert not has_mark(_released(out)) and out.get("notes") is None


class Opaque:
    """A value of no known kind: its text is whatever its class says."""

    def __repr__(self) -> str:
        return PHRASE


@pytest.mark.parametrize("way", WAYS)
def test_a_leaf_of_no_known_kind_fails_the_check_and_is_not_applied(way: str) -> None:
    out = _run(_agent(Hands(lambda: Command(update={"notes": Opaque()}))), way)
    assert out["guardrail"]["refused"] is True and out["guardrail"]["error"]
    assert out.get("notes") is None


def test_with_on_error_raise_a_leaf_of_no_known_kind_fails_the_step() -> None:
    with pytest.raises(GuardrailCheckError):
        _run(_agent(Hands(lambda: Command(update={"notes": Opaque()})), on_error="raise"))


_ROUTES: dict[str, Callable[[], Any]] = {
    "goto a node": lambda: Command(goto="tools"),
    "goto a send": lambda: Command(goto=Send("tools", {"q": BENIGN})),
    "the parent graph": lambda: Command(graph=Command.PARENT, update={"notes": BENIGN}),
    "resume": lambda: Command(resume=BENIGN),
    "no command": lambda: {"notes": BENIGN},
}


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("route", sorted(_ROUTES))
def test_a_route_from_inside_or_a_command_of_no_known_shape_is_refused(route: str, way: str) -> None:
    with pytest.raises(JevInputError, match="middleware inside the guardrail"):
        _run(_agent(Hands(_ROUTES[route])), way)


def test_with_the_output_rail_off_a_route_from_inside_is_still_refused() -> None:
    with pytest.raises(JevInputError, match="route"):
        _run(_agent(Hands(lambda: Command(goto="tools")), check_output=False, categories=["violent_crimes"]))


@pytest.mark.parametrize("way", WAYS)
def test_a_guardrail_inside_keeps_its_own_report_and_refuses_what_is_inside_it(way: str) -> None:
    judge = perfect()
    outer = JevGuardrailMiddleware(categories=[CATEGORY], model=judge, name="outer", **SEQUENTIAL)
    inner = JevGuardrailMiddleware(categories=[CATEGORY], model=perfect(), name="inner", **SEQUENTIAL)
    hands = Hands(lambda: Command(update={"notes": PHRASE}))
    agent = create_agent(ReplyingChatModel(replies=["Sunny."]), middleware=[outer, inner, hands])
    value = {"messages": [HumanMessage("Weather?")]}
    out = agent.invoke(value) if way == "invoke" else asyncio.run(agent.ainvoke(value))
    assert out.get("notes") is None and not has_mark(_released(out))
    assert set(out["guardrail_reports"]) == {"outer", "inner"}
    assert out["guardrail_reports"]["inner"]["refused"] is True


# ---------------------------------------------------------------- generated: the marker at any leaf

_TEXT = st.text(alphabet=string.ascii_letters + " .,", max_size=12)
_LEAF = (
    _TEXT | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False, allow_infinity=False) | st.booleans()
)
_VALUES = st.recursive(
    st.none() | _LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=12,
)


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], str]]:
    """Every place the marker may go: each leaf (as a value) and each key of a mapping."""
    if isinstance(value, dict):
        places: list[tuple[tuple[Any, ...], str]] = []
        for key, item in value.items():
            places.append(((*path, key), "key"))
            places.extend(_places(item, (*path, key)))
        return places
    if isinstance(value, list):
        return [place for index, item in enumerate(value) for place in _places(item, (*path, index))]
    return [(path, "leaf")]


def _marked(value: Any, path: tuple[Any, ...], where: str, mark: Any) -> Any:
    if not path:
        return mark
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        if where == "key" and not rest:
            return {(str(mark) if k == head else k): v for k, v in value.items()}
        return {k: (_marked(v, rest, where, mark) if k == head else v) for k, v in value.items()}
    return [(_marked(v, rest, where, mark) if i == head else v) for i, v in enumerate(value)]


@st.composite
def _marked_updates(draw: Any) -> tuple[Any, Any]:
    """A benign value for the ``notes`` key, and the same value with the marker at one random place."""
    value = {"v": draw(_VALUES.filter(lambda v: not has_mark(json.dumps(v))))}
    places = _places(value)
    path, where = draw(st.sampled_from(places))
    mark = draw(st.sampled_from([PHRASE, f"Note: {PHRASE}, now", 7331337]))
    return value, _marked(value, path, where, mark)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_marked_updates(), st.sampled_from(["notes", "messages"]))
def test_the_marker_at_any_leaf_of_a_command_update_is_judged_or_refused(
    pair: tuple[Any, Any], key: str
) -> None:
    benign, marked = pair
    make_update = (
        (lambda value: {"notes": value})
        if key == "notes"
        else (lambda value: {"messages": [AIMessage("", additional_kwargs={"extra": value})]})
    )
    out = _run(_agent(Hands(lambda: Command(update=make_update(marked)))))
    assert not has_mark(_released(out)) and _refused(out)
    clean = _run(_agent(Hands(lambda: Command(update=make_update(benign)))))
    assert not clean["guardrail"]["refused"]
    if key == "notes":
        assert clean.get("notes") == benign
