"""Early start by allow-list: a provider model starts before its verdict only when every setting it carries
(every field not at its default) is one the guardrail lists as inert.

Every field a provider class declares has a non-default value here (a new release's field fails
`test_every_provider_field_has_a_value_here` until it is given one and placed on a side). The property draws
any subset of them: the model starts early exactly when every drawn field is on the allow-list (`PROVIDERS`),
so the test pins the list's shape. The settings that say where a request goes (a client object, an endpoint,
a base URL the SDK reads from its environment) and those that make the provider act or read stored state
(previous-response ids, MCP servers, containers, context management) are not on it.
"""

from __future__ import annotations

from typing import Any

import anthropic as anthropic_sdk
import httpx
import openai as openai_sdk
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from langchain_anthropic import ChatAnthropic
from langchain_core.tools import tool
from langchain_google_genai import ChatGoogleGenerativeAI
from langchain_openai import AzureChatOpenAI, ChatOpenAI

from langchain_jev.guardrails import _early as early
from langchain_jev.guardrails._early import PROVIDERS, client_tool, may_start_early, why_not_early
from langchain_jev.guardrails._servers import HTTP_SETTINGS, http_client_refusal

ELSEWHERE = "http://127.0.0.1:8000/v1"
"""Another server speaking a provider's API."""

_ROOT = openai_sdk.OpenAI(api_key="sk-dummy", base_url=ELSEWHERE, max_retries=0)
_AROOT = openai_sdk.AsyncOpenAI(api_key="sk-dummy", base_url=ELSEWHERE, max_retries=0)


async def _token() -> str:
    return "token"


OPENAI_VALUES: dict[str, Any] = {
    "client": _ROOT.chat.completions,
    "async_client": _AROOT.chat.completions,
    "root_client": _ROOT,
    "root_async_client": _AROOT,
    "model_name": "gpt-4o-mini",
    "temperature": 0.3,
    "openai_api_key": "sk-other",
    "openai_api_base": ELSEWHERE,
    "openai_organization": "org-1",
    "openai_proxy": "http://proxy.example:3128",
    "request_timeout": 5.0,
    "stream_usage": False,
    "max_retries": 1,
    "presence_penalty": 0.5,
    "frequency_penalty": 0.5,
    "seed": 7,
    "logprobs": True,
    "top_logprobs": 2,
    "logit_bias": {1: 2},
    "streaming": True,
    "n": 2,
    "top_p": 0.5,
    "max_tokens": 64,
    "reasoning_effort": "low",
    "reasoning": {"effort": "low"},
    "verbosity": "low",
    "tiktoken_model_name": "gpt-4o",
    "default_headers": {"X-Route": "elsewhere"},
    "default_query": {"route": "elsewhere"},
    "http_client": httpx.Client(),
    "http_async_client": httpx.AsyncClient(),
    "http_socket_options": [(6, 1, 1)],
    "stream_chunk_timeout": 5.0,
    "stop": ["\n"],
    "include_response_headers": True,
    "disabled_params": {"parallel_tool_calls": None},
    "include": ["reasoning.encrypted_content"],
    "prompt_cache_options": {"retention": "24h"},
    "service_tier": "flex",
    "store": True,
    "truncation": "auto",
    "use_previous_response_id": True,
    "use_responses_api": True,
    "context_management": [{"type": "compaction"}],
}
AZURE_VALUES: dict[str, Any] = {
    **OPENAI_VALUES,
    "azure_endpoint": "http://127.0.0.1:8000",
    "deployment_name": "other",
    "openai_api_version": "2025-01-01-preview",
    "azure_ad_token": "token",
    "azure_ad_token_provider": lambda: "token",
    "azure_ad_async_token_provider": _token,
    "model_version": "0613",
    "openai_api_type": "azure_ad",
    "validate_base_url": False,
}
ANTHROPIC_VALUES: dict[str, Any] = {
    "model": "claude-haiku-4-5",
    "max_tokens": 64,
    "temperature": 0.3,
    "top_k": 5,
    "top_p": 0.5,
    "default_request_timeout": 5.0,
    "max_retries": 1,
    "stop_sequences": ["\n"],
    "anthropic_api_url": "http://127.0.0.1:8000",
    "anthropic_api_key": "sk-other",
    "anthropic_proxy": "http://proxy.example:3128",
    "default_headers": {"X-Route": "elsewhere"},
    "betas": ["context-1m-2025-08-07"],
    "streaming": True,
    "stream_usage": False,
    "thinking": {"type": "enabled", "budget_tokens": 1024},
    "output_config": {"effort": "low"},
    "reasoning_effort": "low",
    "mcp_servers": [{"type": "url", "url": "https://mcp.example", "name": "m"}],
    "context_management": {"edits": []},
    "container": "container-1",
    "reuse_last_container": True,
    "inference_geo": "us",
    "user_profile_id": "profile-1",
}
"""A value other than the default for every field each provider class declares."""

CLIENTS = frozenset({"client", "async_client", "root_client", "root_async_client"})
"""A client the model replaces with one it builds (a root client given without its resource) is not set."""

OPTION_SETTINGS = frozenset({"model_kwargs", "extra_body"})
"""Read as call options, by their keys (tested with `INERT_OPTIONS`), not as settings."""


def _openai(**fields: Any) -> Any:
    return (
        ChatOpenAI(api_key="sk-dummy", **fields) if "openai_api_key" not in fields else ChatOpenAI(**fields)
    )


def _azure(**fields: Any) -> Any:
    base: dict[str, Any] = {
        "azure_endpoint": "https://resource.openai.azure.com",
        "api_key": "sk-dummy",
        "api_version": "2024-10-21",
        "azure_deployment": "d",
    }
    renamed = {
        "openai_api_key": "api_key",
        "openai_api_version": "api_version",
        "deployment_name": "azure_deployment",
    }
    for name, value in fields.items():
        base[renamed.get(name, name)] = value
    return AzureChatOpenAI(**base)


def _anthropic(**fields: Any) -> Any:
    base: dict[str, Any] = {"model": "claude-sonnet-4-5", "anthropic_api_key": "sk-dummy", **fields}
    return ChatAnthropic(**base)


MODELS: dict[str, tuple[type, Any, dict[str, Any]]] = {
    "openai": (ChatOpenAI, _openai, OPENAI_VALUES),
    "azure": (AzureChatOpenAI, _azure, AZURE_VALUES),
    "anthropic": (ChatAnthropic, _anthropic, ANTHROPIC_VALUES),
}


def _provider_fields(cls: type) -> set[str]:
    return {name for name in cls.model_fields if early._package(early._origin(cls, name)) in PROVIDERS}  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_every_provider_field_has_a_value_here(kind: str) -> None:
    cls, _, values = MODELS[kind]
    assert _provider_fields(cls) - OPTION_SETTINGS == set(values)


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_the_unset_model_starts_early(kind: str) -> None:
    _, build, _ = MODELS[kind]
    assert may_start_early(build()), why_not_early(build())


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_model_starts_early_exactly_when_every_field_it_sets_is_allow_listed(data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(sorted(MODELS)))
    cls, build, values = MODELS[kind]
    chosen = data.draw(st.sets(st.sampled_from(sorted(values)), max_size=6))
    try:
        chat = build(**{name: values[name] for name in chosen})
    except Exception:  # a combination the class itself refuses
        assume(False)
        return
    plain = {name for name in HTTP_SETTINGS if http_client_refusal(name, getattr(chat, name, None)) is None}
    allowed = PROVIDERS[cls.__module__.partition(".")[0]] | plain  # a plain HTTP client is read by its value
    kept = {name for name in chosen if name not in CLIENTS or getattr(chat, name) is values[name]}
    refusal = why_not_early(chat)
    if refusal is None:
        assert kept <= allowed, sorted(kept - allowed)
    else:  # waits for a setting off the list, or for a client the model did not build (an async-only token)
        assert not kept <= allowed or refusal.endswith("a NoneType"), refusal


def test_the_allow_list_holds_no_client_endpoint_proxy_header_or_stored_state() -> None:
    listed = set().union(*PROVIDERS.values())
    never = {
        "client",
        "async_client",
        "root_client",
        "root_async_client",
        "openai_api_base",
        "anthropic_api_url",
        "base_url",
        "azure_endpoint",
        "openai_proxy",
        "anthropic_proxy",
        "default_headers",
        "default_query",
        "additional_headers",
        "client_args",
        "use_previous_response_id",
        "mcp_servers",
        "container",
        "reuse_last_container",
        "context_management",
        "cached_content",
    }
    assert not listed & never


# ---------------------------------------------------------------- the quoted instances


def test_a_client_built_on_another_server_waits() -> None:
    chat = ChatOpenAI(api_key="sk-dummy", root_client=_ROOT, client=_ROOT.chat.completions)
    assert (
        why_not_early(chat)
        == f"the setting 'client' sends to a server the guardrail does not know: '{ELSEWHERE}/'"
    )


def test_a_client_on_the_providers_own_server_starts_early() -> None:
    root = openai_sdk.OpenAI(api_key="sk-dummy")
    assert may_start_early(ChatOpenAI(api_key="sk-dummy", root_client=root, client=root.chat.completions))


def test_a_client_that_is_no_sdk_client_waits() -> None:
    class Own:
        base_url = "https://api.openai.com/v1"

    assert not may_start_early(ChatOpenAI(api_key="sk-dummy", client=Own(), root_client=Own()))


def test_an_azure_endpoint_on_another_host_waits_and_on_azures_starts_early() -> None:
    assert not may_start_early(_azure(azure_endpoint="http://127.0.0.1:8000"))
    assert may_start_early(_azure(azure_endpoint="https://other.openai.azure.com"))


@pytest.mark.parametrize("variable", ["OPENAI_BASE_URL", "OPENAI_API_BASE"])
def test_a_base_url_from_the_environment_waits(monkeypatch: Any, variable: str) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_BASE", raising=False)
    monkeypatch.setenv(variable, ELSEWHERE)
    assert not may_start_early(ChatOpenAI(api_key="sk-dummy"))


def test_a_gemini_base_url_from_the_environment_waits(monkeypatch: Any) -> None:
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:8000/")
    assert not may_start_early(ChatGoogleGenerativeAI(model="gemini-2.5-flash", google_api_key="dummy"))
    monkeypatch.delenv("GOOGLE_GEMINI_BASE_URL")
    assert may_start_early(ChatGoogleGenerativeAI(model="gemini-2.5-flash", google_api_key="dummy"))


def test_an_anthropic_base_url_from_the_environment_waits(monkeypatch: Any) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:8000")
    assert not may_start_early(ChatAnthropic(model="claude-sonnet-4-5", api_key="sk-dummy"))
    assert anthropic_sdk.Anthropic  # the SDK the setting is given to


def test_previous_response_ids_wait() -> None:
    chat = ChatOpenAI(api_key="sk-dummy", use_responses_api=True, use_previous_response_id=True)
    assert why_not_early(chat) == (
        "the setting 'use_previous_response_id' of ChatOpenAI is not one the guardrail knows to be inert"
    )


# ---------------------------------------------------------------- a tool's extras


def _with_extras(extras: dict[str, Any] | None) -> Any:
    @tool(extras=extras)
    def searching(query: str) -> str:
        """Search."""
        return query

    return searching


EXTRAS = {
    "provider_tool_definition": {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
    "defer_loading": True,
    "allowed_callers": ["code_execution_20250825"],
    "eager_input_streaming": True,
    "input_examples": [{"query": "q"}],
    "async": True,
    "cache_control": {"type": "ephemeral"},
}


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(sorted(EXTRAS)) | st.text(min_size=1, max_size=12), st.just(True), max_size=3
    )
)
def test_a_tool_is_a_client_tool_only_when_its_extras_are_inert(keys: dict[str, Any]) -> None:
    extras = {key: EXTRAS.get(key, value) for key, value in keys.items()}
    assert client_tool(_with_extras(extras or None)) is (set(extras) <= {"cache_control"})


def test_a_built_in_search_behind_a_tool_waits_for_an_agent() -> None:
    searching = _with_extras({"provider_tool_definition": EXTRAS["provider_tool_definition"]})
    assert not may_start_early(ChatAnthropic(model="claude-sonnet-4-5", api_key="sk-dummy"), [searching])
    assert may_start_early(ChatAnthropic(model="claude-sonnet-4-5", api_key="sk-dummy"), [_with_extras(None)])
