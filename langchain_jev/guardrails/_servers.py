"""Where a known provider's chat model sends its requests: its endpoint, its SDK client, its HTTP client.

Pure functions for `langchain_jev.guardrails._early` (which models may start
before their input is judged). Each is an allow-list: a server, a client or a
transport the guardrail cannot show to be the provider's own makes the model wait.

- `endpoint_refusal`: an endpoint setting (``openai_api_base``, ``azure_endpoint``,
  ``anthropic_api_url``, ``base_url``) on a host that is not the provider's;
- `client_refusal`: an SDK client (``client``, ``root_client``...) whose base URL
  is not the provider's, whoever built it (the SDK reads ``OPENAI_BASE_URL``);
- `http_client_refusal`: an HTTP client (``http_client``, ``http_async_client``)
  that is not a plain httpx client on httpx's own transport: a transport the
  caller wrote, a proxy, an event hook or an auth flow may send the request anywhere.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "CLIENTS",
    "CLIENT_SETTINGS",
    "ENDPOINTS",
    "HTTP_SETTINGS",
    "client_refusal",
    "endpoint_refusal",
    "http_client_refusal",
]

_DEPTH = 4
"""How many resources deep an SDK client's base URL is looked for (``chat.completions`` and its client)."""


def _package_of(cls: type) -> str:
    return cls.__module__.partition(".")[0]


ENDPOINTS: Mapping[str, tuple[str, ...]] = {
    "openai_api_base": ("openai.com", "openai.azure.com"),
    "azure_endpoint": ("openai.azure.com",),
    "anthropic_api_url": ("anthropic.com",),
    "base_url": ("googleapis.com",),
}
"""The endpoint settings of the known providers, with the hosts the guardrail knows behind them.

Another server speaking the same API may act on a model's name alone (a search model, a suffix
that turns search on), so a model pointed at one waits for its verdict."""


def endpoint_refusal(name: str, value: Any) -> str | None:
    if value is None:
        return None
    host = urlsplit(value).hostname if isinstance(value, str) else None
    if host is not None and any(host == known or host.endswith("." + known) for known in ENDPOINTS[name]):
        return None
    return f"the setting {name!r} points to a server the guardrail does not know: {value!r}"


CLIENTS: Mapping[str, tuple[str, ...]] = {
    "langchain_openai": ("openai.com", "openai.azure.com"),
    "langchain_google_genai": ("googleapis.com",),
}
"""The known providers whose models hold an SDK client (``client``, ``root_client`` and their async twins),
with the hosts the guardrail knows behind them."""

CLIENT_SETTINGS = frozenset({"client", "async_client", "root_client", "root_async_client"})
"""Settings holding the SDK client a request is sent through: set by the caller or built by the model."""

_SDKS = frozenset({"openai", "anthropic", "google"})
"""The packages whose client objects the guardrail can read a base URL from."""


def _base_url(client: Any) -> str | None:
    """The base URL an SDK client (or a resource of one, ``chat.completions``) sends to, or None."""
    for _ in range(_DEPTH):
        if _package_of(type(client)) not in _SDKS:
            return None
        api = getattr(client, "_api_client", None)  # google-genai's Client
        if api is not None:
            url = getattr(getattr(api, "_http_options", None), "base_url", None)
            return url if isinstance(url, str) else None
        url = getattr(client, "base_url", None)
        if url is not None:
            return str(url)
        client = getattr(client, "_client", None)  # a resource of an openai client
    return None


def client_refusal(name: str, value: Any, hosts: tuple[str, ...]) -> str | None:
    """Why the SDK client in setting ``name`` cannot be shown to send to the provider's own server, or None.

    The SDK fixes its base URL when it is built (from the setting, or from its environment:
    ``OPENAI_BASE_URL``, ``GOOGLE_GEMINI_BASE_URL``), so the client itself is read, whoever built it.
    """
    url = _base_url(value)
    host = urlsplit(url).hostname if url is not None else None
    if host is not None and any(host == known or host.endswith("." + known) for known in hosts):
        return None
    where = repr(url) if url is not None else f"a {type(value).__name__}"
    return f"the setting {name!r} sends to a server the guardrail does not know: {where}"


HTTP_SETTINGS = frozenset({"http_client", "http_async_client"})
"""Settings holding the HTTP client an SDK sends a request through (the caller's: any transport)."""

_PLAIN_HTTP: Mapping[str, tuple[str, ...]] = {
    "httpx": ("Client", "AsyncClient", "HTTPTransport", "AsyncHTTPTransport"),
    "httpx2": ("Client", "AsyncClient", "HTTPTransport", "AsyncHTTPTransport"),
    "openai": ("DefaultHttpxClient", "DefaultAsyncHttpxClient"),
    "openai._base_client": ("_DefaultHttpxClient", "_DefaultAsyncHttpxClient"),
    "httpcore": ("ConnectionPool", "AsyncConnectionPool", "SyncBackend", "AutoBackend"),
    "httpcore2": ("ConnectionPool", "AsyncConnectionPool", "SyncBackend", "AutoBackend"),
    "httpcore._backends.auto": ("AutoBackend",),
    "httpcore2._backends.auto": ("AutoBackend",),
}
"""The classes of a plain HTTP client, its transport and its connection pool (an allow-list, by identity)."""


def _plain(value: Any) -> bool:
    """True when ``value`` is an instance of exactly one of the `_PLAIN_HTTP` classes (no subclass)."""
    kind = type(value)
    return any(
        kind is getattr(sys.modules.get(module), name, None)
        for module, names in _PLAIN_HTTP.items()
        for name in names
    )


def http_client_refusal(name: str, value: Any) -> str | None:
    """Why the HTTP client in setting ``name`` may send a request elsewhere than its SDK's server, or None.

    An allow-list: none at all (the SDK builds its own), or a plain httpx client
    (httpx's or the OpenAI SDK's default one, no subclass) on httpx's own
    transport, connection pool and network backend, with no unix socket, no proxy,
    no mounted transport, no event hook and no auth. A transport the caller wrote, a proxy, a hook or an auth
    flow may send the request anywhere, so such a model waits for its verdict.

    Example:
        >>> import httpx
        >>> http_client_refusal("http_client", httpx.Client()) is None
        True
        >>> http_client_refusal("http_client", httpx.Client(event_hooks={"request": [print]}))
        "the setting 'http_client' holds an HTTP client the guardrail cannot read: Client"

    """
    if value is None:
        return None
    transport = getattr(value, "_transport", None)
    hooks = getattr(value, "_event_hooks", None)
    pool = getattr(transport, "_pool", None)
    plain = (
        _plain(value)
        and _plain(transport)
        and _plain(pool)
        and _plain(getattr(pool, "_network_backend", None))  # a backend the caller wrote connects anywhere
        and getattr(pool, "_uds", None) is None  # a unix socket may lead to another server
        and getattr(pool, "_proxy", None) is None
        and getattr(value, "_mounts", None) == {}
        and isinstance(hooks, Mapping)
        and not any(hooks.values())
        and getattr(value, "_auth", None) is None
    )
    if plain:
        return None
    return f"the setting {name!r} holds an HTTP client the guardrail cannot read: {type(value).__name__}"
