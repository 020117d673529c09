"""Early start reads everything a model holds (issue 33, invariant 3): a searching model anywhere waits.

A caller's chat model may start before its input is judged only when every attribute it has (fields, private
attributes, ``__dict__``, slots, class attributes) holds values the guardrail knows and finds inert, read
through every container (list, tuple, set, frozenset, deque, dict keys and values), plain objects of the
caller's code and functions (their closure, defaults, the globals they name). The property generates holders:
containers nested at random, in every kind of attribute, models held by models, with a provider-acting model
(OpenAI's built-in web search) or an inert one at the bottom, and asserts that acting anywhere means waiting,
while an inert holding within the bounds still starts early. Then an SDK's HTTP client: only a plain one (no
proxy, mounts, hooks or auth; httpx's own transport) starts early (read by `_servers`).
"""

from __future__ import annotations

import functools
from collections import deque
from typing import Any, ClassVar

import httpcore
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.language_models import BaseChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from pydantic import PrivateAttr

from langchain_jev.guardrails import _early_held as held
from langchain_jev.guardrails._early import may_start_early, why_not_early


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return query


def _openai(**settings: Any) -> ChatOpenAI:
    return ChatOpenAI(**{"model": "gpt-4o-mini", "api_key": "sk-test", **settings})


ACTING = {
    "web search bound": lambda: _openai().bind_tools([{"type": "web_search_preview"}]),
    "web search in model_kwargs": lambda: _openai(model_kwargs={"tools": [{"type": "web_search_preview"}]}),
    "a search model": lambda: _openai(model="gpt-4o-search-preview"),
}
INERT = {
    "client tools bound": lambda: _openai().bind_tools([lookup]),
    "a fake chat model": lambda: GenericFakeChatModel(messages=iter([])),
    "a plain ChatOpenAI": _openai,
}


class Holder(BaseChatModel):
    """A caller's chat model that may hold anything, anywhere."""

    field: Any = None
    _private: Any = PrivateAttr(default=None)

    @property
    def _llm_type(self) -> str:
        return "holder-test-chat"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Any:
        return ChatResult(generations=[ChatGeneration(message=AIMessage("Held."))])


class Box:
    """A plain object of the caller's code (hashable: it can sit in a set or be a dict key)."""

    def __init__(self, value: Any) -> None:
        self.value = value


class Slotted:
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _closure(value: Any) -> Any:
    def reply(messages: Any) -> Any:
        return value

    return reply


def _answer(messages: Any, model: Any = None) -> Any:
    return model


WRAPS = {  # one level of holding around a value
    "list": lambda v: [1, v, "x"],
    "tuple": lambda v: ("route", v),
    "list[tuple]": lambda v: [("route", v)],
    "deque": lambda v: deque([v]),
    "dict value": lambda v: {"k": v},
    "dict key": lambda v: {Box(v): "k"},
    "set": lambda v: {Box(v), 3},
    "frozenset": lambda v: frozenset({Box(v)}),
    "object": Box,
    "slots": Slotted,
    "closure": _closure,
    "partial": lambda v: functools.partial(_answer, model=v),
    "default": lambda v: functools.partial(lambda messages, model=v: model),
}

PLACES = ("field", "private", "dict", "class attribute", "extra model")


def _hold(value: Any, place: str) -> Holder:
    if place == "field":
        return Holder(field=value)
    holder = Holder()
    if place == "private":
        holder._private = value
    elif place == "dict":
        object.__setattr__(holder, "stash", value)
    elif place == "class attribute":
        holder = type(
            "Classed",
            (Holder,),
            {"__module__": __name__, "__annotations__": {"routes": ClassVar[Any]}, "routes": value},
        )()
    else:  # held by a model held by the holder
        holder = Holder(field=[Holder(field=value)])
    return holder


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    acting=st.booleans(),
    model=st.data(),
    wraps=st.lists(st.sampled_from(sorted(WRAPS)), max_size=5),
    place=st.sampled_from(PLACES),
)
def test_a_model_held_anywhere_decides_as_if_it_were_the_model(
    acting: bool, model: st.DataObject, wraps: list[str], place: str
) -> None:
    kinds = ACTING if acting else INERT
    value = kinds[model.draw(st.sampled_from(sorted(kinds)))]()
    for wrap in wraps:
        value = WRAPS[wrap](value)
    holder = _hold(value, place)
    if acting:
        assert not may_start_early(holder), (wraps, place)
    else:
        assert may_start_early(holder), (wraps, place, why_not_early(holder))


@pytest.mark.parametrize("depth", [5, 6, 10])
def test_models_held_past_the_bound_wait(depth: int) -> None:
    value: Any = INERT["client tools bound"]()
    for _ in range(depth):
        value = Holder(field=value)
    assert not may_start_early(value)


def test_containers_nested_past_the_bound_wait() -> None:
    value: Any = INERT["a fake chat model"]()
    for _ in range(held.NEST + 2):
        value = [value]
    assert "nested too deep" in (why_not_early(Holder(field=value)) or "")


def test_more_values_than_the_budget_wait() -> None:
    assert "values to read" in (why_not_early(Holder(field=list(range(held.BUDGET + 1)))) or "")


def test_a_cycle_is_read_once() -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert may_start_early(Holder(field=loop))
    loop.append(ACTING["web search bound"]())
    assert not may_start_early(Holder(field=loop))


@pytest.mark.parametrize(
    "value",
    [iter([1]), httpx.Client(), object(), (lambda: None).__code__],
    ids=["an iterator", "an SDK's HTTP client", "an object of no package", "a code object"],
)
def test_a_value_the_guardrail_cannot_read_waits(value: Any) -> None:
    assert not may_start_early(Holder(field=value))


def test_what_the_existing_fakes_hold_is_read_as_inert() -> None:
    box = Box([1.5, "a", None, b"x", frozenset({2})])
    assert may_start_early(Holder(field={"replies": [AIMessage("Hi."), box], "lock": held._SYNC[0]}))


# ---------------------------------------------------------------- an SDK's HTTP client

PROXY = "http://proxy.example:8080"


def _mock(request: httpx.Request) -> httpx.Response:
    return httpx.Response(500)


CLIENTS = {  # the setting's value -> starts early
    "httpx.Client()": (lambda: httpx.Client(), True),
    "httpx.AsyncClient()": (lambda: httpx.AsyncClient(), True),
    "a MockTransport": (
        lambda: httpx.Client(transport=httpx.MockTransport(_mock)),
        False,
    ),  # main: a caller's handler
    "a proxy": (lambda: httpx.Client(proxy=PROXY), False),
    "a proxy mount": (lambda: httpx.Client(mounts={"https://": httpx.HTTPTransport(proxy=PROXY)}), False),
    "a proxy transport": (lambda: httpx.Client(transport=httpx.HTTPTransport(proxy=PROXY)), False),
    "a request hook": (lambda: httpx.Client(event_hooks={"request": [print]}), False),
    "an auth flow": (lambda: httpx.Client(auth=("user", "secret")), False),
    "a caller's transport": (lambda: httpx.Client(transport=Transport()), False),
    "a caller's client class": (lambda: Client(), False),
}


class Transport(httpx.BaseTransport):
    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return httpx.Response(500)


class Client(httpx.Client):
    pass


class Backend(httpcore.SyncBackend):
    """A network backend of the caller's: it may connect anywhere."""


@pytest.mark.parametrize(
    "client",
    [
        lambda: httpx.Client(transport=httpx.HTTPTransport(uds="/tmp/socket")),
        lambda: httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(uds="/tmp/socket")),
        lambda: _with_backend(httpx.Client(), Backend()),
    ],
    ids=["a unix socket", "an async unix socket", "a network backend of the caller's"],
)
def test_an_http_client_that_may_connect_elsewhere_waits(client: Any) -> None:
    value = client()
    name = "http_async_client" if isinstance(value, httpx.AsyncClient) else "http_client"
    assert not may_start_early(_openai(**{name: value}))


def _with_backend(client: httpx.Client, backend: Any) -> httpx.Client:
    client._transport._pool._network_backend = backend  # type: ignore[attr-defined]
    return client


@pytest.mark.parametrize("client", list(CLIENTS))
def test_an_http_client_starts_early_only_when_it_sends_straight_to_the_provider(client: str) -> None:
    build, early = CLIENTS[client]
    value = build()
    name = "http_async_client" if isinstance(value, httpx.AsyncClient) else "http_client"
    chat = _openai(**{name: value})
    assert may_start_early(chat) is early, why_not_early(chat)
