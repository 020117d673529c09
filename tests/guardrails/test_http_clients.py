"""An HTTP client a chat model sends through starts before its verdict only when it is a plain one (invariant 3).

``ChatOpenAI(http_client=...)``: the OpenAI SDK sends every request through the client, so its transport, a
mounted proxy, an event hook or an auth flow decides where the request goes and what else happens with it. An
allow-list: a plain httpx client (httpx's or the SDK's default, no subclass) on httpx's own transport and pool,
with none of these, may start early; anything else waits. Checked on the real provider classes.
"""

from __future__ import annotations

from typing import Any

import httpx
import openai as openai_sdk
import pytest
from langchain_anthropic import ChatAnthropic
from langchain_openai import AzureChatOpenAI, ChatOpenAI

from langchain_jev.guardrails._early import why_not_early
from langchain_jev.guardrails._servers import http_client_refusal


def _answer(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200)


class _Client(httpx.Client):
    pass


class _Auth(httpx.Auth):
    def auth_flow(self, request: httpx.Request) -> Any:
        yield request


class _AsyncClient(httpx.AsyncClient):
    pass


WAITS: dict[str, Any] = {
    "a mock transport": lambda: httpx.Client(transport=httpx.MockTransport(_answer)),
    "a proxy": lambda: httpx.Client(proxy="http://127.0.0.1:1"),
    "a mounted transport": lambda: httpx.Client(mounts={"https://": httpx.MockTransport(_answer)}),
    "a request hook": lambda: httpx.Client(event_hooks={"request": [lambda request: None]}),
    "an auth flow": lambda: httpx.Client(auth=_Auth()),
    "basic auth": lambda: httpx.Client(auth=("user", "secret")),
    "a subclass": lambda: _Client(),
}
"""Sync clients whose transport, mounts, hooks or auth may send a request anywhere."""

ASYNC_WAITS: dict[str, Any] = {
    "a mock transport": lambda: httpx.AsyncClient(transport=httpx.MockTransport(_answer)),
    "a proxy": lambda: httpx.AsyncClient(proxy="http://127.0.0.1:1"),
    "a response hook": lambda: httpx.AsyncClient(event_hooks={"response": [lambda response: None]}),
    "a subclass": lambda: _AsyncClient(),
}

STARTS: dict[str, Any] = {
    "httpx's client": lambda: httpx.Client(timeout=5, verify=True),
    "httpx's async client": lambda: httpx.AsyncClient(),
    "the SDK's default client": lambda: openai_sdk.DefaultHttpxClient(),
    "the SDK's default async client": lambda: openai_sdk.DefaultAsyncHttpxClient(),
}


@pytest.mark.parametrize("client", WAITS)
def test_a_chatopenai_on_an_http_client_it_cannot_read_waits(client: str) -> None:
    chat = ChatOpenAI(model="gpt-4o", api_key="sk-dummy", http_client=WAITS[client]())  # type: ignore[arg-type]
    assert why_not_early(chat) is not None


@pytest.mark.parametrize("client", ASYNC_WAITS)
def test_a_chatopenai_on_an_async_http_client_it_cannot_read_waits(client: str) -> None:
    chat = ChatOpenAI(model="gpt-4o", api_key="sk-dummy", http_async_client=ASYNC_WAITS[client]())  # type: ignore[arg-type]
    assert why_not_early(chat) is not None


def test_what_is_not_an_http_client_is_not_read_as_one() -> None:
    assert http_client_refusal("http_client", object()) is not None
    assert http_client_refusal("http_client", None) is None


@pytest.mark.parametrize("client", WAITS)
def test_an_azure_model_on_an_http_client_it_cannot_read_waits(client: str) -> None:
    chat = AzureChatOpenAI(
        azure_endpoint="https://example.openai.azure.com",
        api_key="sk-dummy",  # type: ignore[arg-type]
        api_version="2024-10-21",
        azure_deployment="gpt-4o",
        http_client=WAITS[client](),
    )
    assert why_not_early(chat) is not None


@pytest.mark.parametrize("client", STARTS)
def test_a_chatopenai_on_a_plain_http_client_starts_early(client: str) -> None:
    setting = "http_async_client" if "async" in client else "http_client"
    chat = ChatOpenAI(model="gpt-4o", api_key="sk-dummy", **{setting: STARTS[client]()})  # type: ignore[arg-type]
    assert why_not_early(chat) is None


def test_an_anthropic_model_given_an_http_client_waits() -> None:
    with pytest.warns(
        UserWarning, match="http_client"
    ):  # not a setting of ChatAnthropic: it goes into model_kwargs
        chat = ChatAnthropic(model="claude-sonnet-4-5", api_key="sk-dummy", http_client=httpx.Client())  # type: ignore[call-arg]
    assert why_not_early(chat) is not None


def test_the_refusal_names_no_secret() -> None:
    refusal = http_client_refusal("http_client", httpx.Client(auth=("user", "hunter2-secret")))
    assert refusal is not None and "hunter2" not in refusal
