"""Which models may start before their input is judged: an allow-list, `may_start_early`.

With ``concurrent_input`` the door starts the model's call beside its input
check, so the provider reads a request that may be refused. That is safe only
where the call can do nothing but write a reply the door holds back; a provider
that searches the web, runs code or calls MCP servers acts on the request before
its verdict. So the door starts a model early only when it can name everything
the call carries, and anything it cannot name waits for the verdict:

- **the model**: a chat (or text) model, through bindings and retries; a
  function or any other runnable may act on what it reads. Its class, and every
  class it inherits from, is langchain-core's, this package's, one of the
  provider classes the door knows (`PROVIDERS`: langchain-openai's,
  langchain-anthropic's, langchain-google-genai's) or the caller's own code (a
  class defined outside the installed packages, whose behaviour is the caller's;
  everything it holds, wherever, is read whole: `_early_held`); a
  model class of any other installed package waits, since the door does not
  know its settings;
- **its settings**: every setting of a known provider class that differs from
  its default is one the door knows to be inert (`PROVIDERS`); ``mcp_servers``,
  a container, ``cached_content``, context management, a search model (its name
  says ``search``, ``deep-research``, ``sonar`` or ``:online``), a server other
  than the provider's own (another server speaking its API may act on a model's
  name alone), an SDK client that cannot be shown to send to the provider's own
  server (one the caller built, or one the SDK pointed elsewhere from its
  environment: ``OPENAI_BASE_URL``), an HTTP client that is not a plain one
  (`langchain_jev.guardrails._servers.http_client_refusal`: its transport, mounts, hooks or auth may send the
  request anywhere), a proxy, extra headers, previous-response ids
  (``use_previous_response_id``) and any setting not named wait;
  ``model_kwargs`` and ``extra_body`` are read as call options;
- **its call options** (what ``bind``, ``bind_tools`` and an agent's model
  settings add, and ``model_kwargs`` / ``extra_body``): each is one the door
  knows to be inert (`INERT_OPTIONS`), and every tool among them (``tools``,
  ``functions``) and every tool an agent binds is a recognised client tool
  (`client_tool`): one the caller runs, which the model can only ask for (a
  ``BaseTool`` with nothing in its ``extras`` but `INERT_TOOL_EXTRAS`: a
  builder sends ``provider_tool_definition`` as a built-in tool).

Example:
    >>> from langchain_core.language_models import GenericFakeChatModel
    >>> chat = GenericFakeChatModel(messages=iter([]))
    >>> may_start_early(chat), may_start_early(chat.bind(tools=[{"google_search": {}}]))
    (True, False)
    >>> why_not_early(chat.bind(web_search_options={}))
    "the call option 'web_search_options' is not one the guardrail knows to be inert"

"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, is_typeddict

from langchain_core.language_models import BaseLanguageModel
from langchain_core.runnables import Runnable
from langchain_core.runnables.base import RunnableBindingBase
from langchain_core.tools import BaseTool
from pydantic import BaseModel

from langchain_jev.guardrails._early_held import attributes_refusal, held_refusal
from langchain_jev.guardrails._early_held import installed_roots as _installed_roots
from langchain_jev.guardrails._servers import (
    CLIENT_SETTINGS,
    CLIENTS,
    ENDPOINTS,
    HTTP_SETTINGS,
    client_refusal,
    endpoint_refusal,
    http_client_refusal,
)

__all__ = ["INERT_OPTIONS", "PROVIDERS", "client_tool", "may_start_early", "why_not_early"]

_TOOL_OPTIONS = frozenset({"tools", "functions"})
"""Call options that hold tools (each must be a client tool)."""

INERT_OPTIONS = frozenset(
    {
        *_TOOL_OPTIONS,
        "tool_choice",
        "tool_config",
        "function_call",
        "parallel_tool_calls",
        "strict",
        "stop",
        "response_format",
        "response_mime_type",
        "response_json_schema",
        "response_schema",
        "ls_structured_output_format",
        "temperature",
        "top_p",
        "top_k",
        "max_tokens",
        "max_completion_tokens",
        "max_output_tokens",
        "seed",
        "n",
        "presence_penalty",
        "frequency_penalty",
        "logprobs",
        "top_logprobs",
        "logit_bias",
        "stream_options",
        "stream_usage",
        "user",
        "metadata",
        "prompt_cache_key",
        "safety_identifier",
        "reasoning",
        "reasoning_effort",
        "thinking",
        "thinking_budget",
        "include_thoughts",
        "effort",
        "verbosity",
        "service_tier",
        "safety_settings",
        "output_config",
    }
)
"""Call options that shape a reply and nothing else (a tool option's tools are checked too)."""

_OPENAI = frozenset(
    {
        "model_name",
        "temperature",
        "openai_api_key",
        "openai_organization",
        "request_timeout",
        "stream_usage",
        "max_retries",
        "presence_penalty",
        "frequency_penalty",
        "seed",
        "logprobs",
        "top_logprobs",
        "logit_bias",
        "streaming",
        "n",
        "top_p",
        "max_tokens",
        "reasoning_effort",
        "reasoning",
        "verbosity",
        "tiktoken_model_name",
        "http_socket_options",
        "stream_chunk_timeout",
        "stop",
        "include_response_headers",
        "disabled_params",
        "include",
        "prompt_cache_options",
        "service_tier",
        "store",
        "truncation",
        "use_responses_api",
        "deployment_name",
        "openai_api_version",
        "azure_ad_token",
        "azure_ad_token_provider",
        "azure_ad_async_token_provider",
        "model_version",
        "openai_api_type",
        "validate_base_url",
    }
)
_ANTHROPIC = frozenset(
    {
        "model",
        "max_tokens",
        "temperature",
        "top_k",
        "top_p",
        "default_request_timeout",
        "max_retries",
        "stop_sequences",
        "anthropic_api_key",
        "betas",
        "streaming",
        "stream_usage",
        "thinking",
        "output_config",
        "reasoning_effort",
        "inference_geo",
    }
)
_GOOGLE = frozenset(
    {
        "google_api_key",
        "credentials",
        "vertexai",
        "project",
        "location",
        "api_version",
        "model",
        "temperature",
        "frequency_penalty",
        "presence_penalty",
        "top_p",
        "top_k",
        "max_output_tokens",
        "n",
        "max_retries",
        "timeout",
        "response_modalities",
        "media_resolution",
        "image_config",
        "thinking_budget",
        "include_thoughts",
        "safety_settings",
        "seed",
        "labels",
        "default_metadata",
        "streaming",
        "convert_system_message_to_human",
        "stop",
        "response_mime_type",
        "response_schema",
        "reasoning_effort",
        "thinking_config",
    }
)

PROVIDERS: Mapping[str, frozenset[str]] = {
    "langchain_openai": _OPENAI,
    "langchain_anthropic": _ANTHROPIC,
    "langchain_google_genai": _GOOGLE,
}
"""The provider packages whose chat models the door knows: each with the settings it knows to be inert.

Any other setting of theirs that differs from its default (``mcp_servers``,
``container``, ``cached_content``, ``context_management``, one a new release
adds) makes the model wait for its verdict; ``model_kwargs`` and ``extra_body``
are read as call options (`INERT_OPTIONS`).
"""

_OPTION_SETTINGS = frozenset({"model_kwargs", "extra_body"})
"""Settings whose keys go into the request as call options."""

_OWN_PACKAGES = frozenset({"langchain_core", "langchain_jev"})
"""Packages whose model classes are fakes or base classes: every setting of theirs only writes a reply."""

_BASES = frozenset({"BaseLanguageModel", "BaseChatModel", "BaseLLM", "LLM", "SimpleChatModel"})

_SEARCH_MODELS = ("search", "deep-research", ":online", "sonar")
"""Words in a model's name that say its provider searches the web on every request."""

_DEPTH = 4
"""How deep models held by models are read (a wrapper's inner model, and its own)."""

# ---------------------------------------------------------------- tools


INERT_TOOL_EXTRAS = frozenset({"cache_control"})
"""Keys of a ``BaseTool``'s ``extras`` a builder may send without the provider acting (prompt caching).

Any other key waits: ``provider_tool_definition`` is sent instead of the tool (a built-in web search),
``defer_loading`` and ``allowed_callers`` hand the tool to a provider's tool search or code execution."""


def _named(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _only(tool: Mapping[str, Any], keys: set[str] | frozenset[str]) -> bool:
    return set(tool) <= keys


def _set(tool: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of a tool that are set (a key holding None is not)."""
    return {str(key): value for key, value in tool.items() if value is not None}


def _function_tool(tool: Mapping[str, Any]) -> bool:
    kind = tool.get("type")
    if kind == "function" and "function" in tool:  # OpenAI chat completions (and langchain's own format)
        function = tool["function"]
        return (
            _only(tool, {"type", "function"})
            and isinstance(function, Mapping)
            and _only(_set(function), {"name", "description", "parameters", "strict"})
            and _named(function.get("name"))
        )
    if kind == "function":  # OpenAI responses
        return _only(tool, {"type", "name", "description", "parameters", "strict"}) and _named(
            tool.get("name")
        )
    if kind == "custom" and "input_schema" not in tool:  # OpenAI custom (free-form) tool
        return _only(tool, {"type", "name", "description", "format"}) and _named(tool.get("name"))
    if kind in (None, "custom") and "input_schema" in tool:  # Anthropic client tool
        keys = {"type", "name", "description", "input_schema", "cache_control", "strict"}
        return _only(tool, keys) and _named(tool.get("name")) and isinstance(tool["input_schema"], Mapping)
    if kind is None and "function_declarations" in tool:  # Gemini: function declarations only
        declarations = tool["function_declarations"]
        return (
            _only(tool, {"function_declarations"})
            and isinstance(declarations, list)
            and all(isinstance(d, Mapping) and _named(d.get("name")) for d in declarations)
        )
    if kind is None:  # an OpenAI function schema
        return _only(tool, {"name", "description", "parameters", "strict"}) and _named(tool.get("name"))
    return False


def client_tool(tool: Any) -> bool:
    """True for a tool the caller runs, which the model can only ask for: one the door recognises.

    A ``BaseTool``; a function, a pydantic model class or a ``TypedDict``
    (langchain converts them to function schemas); or a function schema in one of
    the shapes the providers' client tools take (OpenAI's chat and responses
    ``function`` tools and ``custom`` tools, Anthropic's tools with an
    ``input_schema``, Gemini's function declarations), with no key besides those
    shapes'. Anything else (a provider's built-in tool such as ``web_search``,
    ``{"google_search": {}}``, ``mcp``, or an unknown key) is not.

    Example:
        >>> client_tool({"type": "function", "function": {"name": "lookup"}})
        True
        >>> client_tool({"type": "web_search_preview"}), client_tool({"code_execution": {}})
        (False, False)

    """
    if isinstance(tool, BaseTool):  # its extras go into the tool a builder sends: only inert ones
        extras = tool.extras if tool.extras is not None else {}
        return isinstance(extras, Mapping) and set(extras) <= INERT_TOOL_EXTRAS
    if isinstance(tool, type):
        return issubclass(tool, BaseModel) or is_typeddict(tool)
    if inspect.isfunction(tool) or inspect.ismethod(tool):
        return True
    if isinstance(tool, BaseModel):  # a provider SDK's tool object (Gemini's types.Tool)
        tool = tool.model_dump(exclude_none=True)
    if isinstance(tool, Mapping):
        return _function_tool(_set(tool))
    return False


# ---------------------------------------------------------------- options and settings


def _options_refusal(options: Mapping[str, Any] | None, where: str) -> str | None:
    """Why these call options may act, or None when each is inert and every tool a client tool."""
    if options is None:
        return None
    if not isinstance(options, Mapping):
        return f"the {where} are not a mapping"
    for key, value in options.items():
        if key not in INERT_OPTIONS:
            return f"the {where} {key!r} is not one the guardrail knows to be inert"
        if key in _TOOL_OPTIONS and value is not None:
            refusal = _tools_refusal(value)
            if refusal is not None:
                return refusal
    return None


def _tools_refusal(tools: Any) -> str | None:
    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Sequence):
        return f"the tools are not a list: {type(tools).__name__}"
    for tool in tools:
        if not client_tool(tool):
            return f"the tool {_tool_label(tool)} is not a client tool the guardrail recognises"
    return None


def _tool_label(tool: Any) -> str:
    if isinstance(tool, BaseModel) and not isinstance(tool, BaseTool):
        tool = tool.model_dump(exclude_none=True)
    if isinstance(tool, Mapping):
        kind = tool.get("type")
        return repr(kind) if isinstance(kind, str) else repr(sorted(_set(tool))[:3])
    return type(tool).__name__


@cache
def _callers(cls: type) -> bool:
    """True for a class of the caller's own code: defined outside every installed package."""
    module = sys.modules.get(cls.__module__)
    file = getattr(module, "__file__", None)
    if file is None:  # defined interactively, or by exec
        return True
    path = Path(file).resolve()
    return not any(path.is_relative_to(root) for root in _installed_roots())


def _package(cls: type) -> str:
    return cls.__module__.partition(".")[0]


def _class_refusal(model: BaseLanguageModel[Any]) -> str | None:
    """Why the model's class is unknown, or None when the door knows it or it is the caller's own."""
    for cls in type(model).__mro__:
        if not (isinstance(cls, type) and issubclass(cls, BaseLanguageModel)) or cls.__name__ in _BASES:
            continue
        package = _package(cls)
        if package in _OWN_PACKAGES or package in PROVIDERS or _callers(cls):
            continue
        return f"{cls.__name__} ({package}) is a model class the guardrail does not know the settings of"
    return None


@cache
def _origin(cls: type, name: str) -> type:
    """The class that first declared the setting ``name`` of ``cls`` (its most basic declarer)."""
    declared = [base for base in cls.__mro__ if name in inspect.get_annotations(base)]
    return declared[-1] if declared else cls


def _differs(model: BaseLanguageModel[Any], name: str, origin: type) -> bool:
    fields = getattr(origin, "model_fields", {})
    field = fields.get(name) or type(model).model_fields[name]
    try:
        default = field.get_default(call_default_factory=True)
    except Exception:  # a default that cannot be made: treat as set
        return True
    value = getattr(model, name, None)
    try:
        return bool(value != default)
    except Exception:  # values that cannot be compared
        return value is not default


def _held_check(runnable: Runnable[Any, Any], depth: int) -> str | None:
    return _refusal(runnable, None, None, depth)


def _held_refusal(model: BaseLanguageModel[Any], name: str | None, value: Any, depth: int) -> str | None:
    """Why what a model holds (in the caller's setting ``name``, or else anywhere) may act, or None."""
    if name is not None:
        return held_refusal(value, f"the setting {name!r}", depth, _held_check, callers=_callers)
    return attributes_refusal(
        model, depth, _held_check, callers=_callers, origin=lambda attribute: _origin(type(model), attribute)
    )


def _settings_refusal(model: BaseLanguageModel[Any], depth: int) -> str | None:
    """Why one of the model's settings may make its provider act, or None."""
    for name in type(model).model_fields:
        origin = _origin(type(model), name)
        package = _package(origin)
        value = getattr(model, name, None)
        if package in _OWN_PACKAGES:
            continue
        if package not in PROVIDERS and _callers(origin):  # the caller's own: read what it holds
            refusal = _held_refusal(model, name, value, depth)
        elif name in _OPTION_SETTINGS:
            refusal = _options_refusal(value, f"{name} entry")
        elif name in ENDPOINTS and package in PROVIDERS:
            refusal = endpoint_refusal(name, value)
        elif name in CLIENT_SETTINGS and package in PROVIDERS:
            refusal = client_refusal(name, value, CLIENTS.get(package, ()))
        elif name in HTTP_SETTINGS and package in PROVIDERS:
            refusal = http_client_refusal(name, value)
        elif name not in PROVIDERS.get(package, frozenset()) and _differs(model, name, origin):
            refusal = (
                f"the setting {name!r} of {type(model).__name__} is not one the guardrail knows to be inert"
            )
        else:
            refusal = None
        if refusal is not None:
            return refusal
    refusal = _held_refusal(model, None, None, depth)
    if refusal is not None:
        return refusal
    if not any(_package(cls) in PROVIDERS for cls in type(model).__mro__):
        return None
    model_name = getattr(model, "model_name", None) or getattr(model, "model", None)
    if isinstance(model_name, str) and any(word in model_name.lower() for word in _SEARCH_MODELS):
        return f"the model {model_name!r} searches the web with every request"
    return None


# ---------------------------------------------------------------- the decision


def why_not_early(
    model: Any, tools: Sequence[Any] | None = None, options: Mapping[str, Any] | None = None
) -> str | None:
    """Why ``model`` must wait for its input's verdict, or None when it may start before it.

    ``tools`` and ``options`` are what the call will add (an agent's tools and
    model settings, bound at the call). See the module docs for the rule.

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> why_not_early(GenericFakeChatModel(messages=iter([])), [{"type": "mcp", "server_url": "..."}])
        "the tool 'mcp' is not a client tool the guardrail recognises"

    """
    return _refusal(model, tools, options, 0)


def _refusal(
    model: Any, tools: Sequence[Any] | None, options: Mapping[str, Any] | None, depth: int
) -> str | None:
    if depth > _DEPTH:
        return "the models it holds are nested too deep to be read"
    if tools is not None:
        refusal = _tools_refusal(tools)
        if refusal is not None:
            return refusal
    refusal = _options_refusal(options, "call option")
    if refusal is not None:
        return refusal
    bound = model
    while isinstance(bound, RunnableBindingBase):
        refusal = _options_refusal(bound.kwargs, "call option")
        if refusal is not None:
            return refusal
        bound = bound.bound
    if not isinstance(bound, BaseLanguageModel):
        return f"{type(bound).__name__} is not a chat model: it may act on what it reads"
    return _class_refusal(bound) or _settings_refusal(bound, depth)


def may_start_early(
    model: Any, tools: Sequence[Any] | None = None, options: Mapping[str, Any] | None = None
) -> bool:
    """True when ``model`` may be called before its input is judged: the door can tell it only writes a reply.

    Example:
        >>> may_start_early(lambda messages: "hi")
        False

    """
    return why_not_early(model, tools, options) is None
