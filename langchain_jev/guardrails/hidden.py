"""Runs a consumer of a stream never sees: our own checks, and drafts nobody has checked yet.

LangGraph streams (``stream_mode="messages"``) and LangChain's event streams
(``astream_events``, ``astream_log``) are callback handlers that ride along in a
run's config and hand every nested run's inputs, tokens and outputs to the
consumer. A guardrail's battery run carries the text it judges, and a model run
whose reply is checked before it is shown carries the unchecked draft, so those
runs are started with `hidden_config`: the same config with every streaming
handler taken out (tracers such as LangSmith's and the user's own handlers stay,
so the operator's trace still holds them), and tagged ``nostream`` (LangGraph's
tag for "do not stream this model's tokens") with the tags given.

LangGraph's other way out of a node is its stream writer (``stream_mode="custom"``,
``get_stream_writer()``) and the parent stream a subgraph writes to: a hidden
config carries a runtime whose stream writer writes nothing, and no parent stream.

A handler of the caller's own that forwards tokens (one that implements
``on_llm_new_token`` and is not a tracer, such as ``StreamingStdOutCallbackHandler``
or an ``AsyncIteratorCallbackHandler`` feeding a web socket) is a stream too.

`hidden_context` runs code with the hidden config as the *context* config too, so
whatever reads its config from the context inherits it: a chat model that calls
another model inside ``_generate`` without passing its config, ``get_stream_writer()``,
``dispatch_custom_event``.

`visible_config` is the other half: the same config with *only* the streaming
handlers, for what a guardrail releases once it is judged (the chunks of a reply
judged as it streams), so the streams see it and the trace, which holds the
hidden draft already, does not see it twice.

Nothing here imports LangGraph (its config keys are named here): self-refine and
the guardrails share it.

Example:
    >>> from langchain_core.tracers.event_stream import _AstreamEventsCallbackHandler
    >>> from langchain_core.tracers.stdout import ConsoleCallbackHandler
    >>> kept, streamed = ConsoleCallbackHandler(), _AstreamEventsCallbackHandler()
    >>> config = hidden_config({"callbacks": [kept, streamed], "tags": ["mine"]}, "jev_guardrail")
    >>> config["callbacks"] == [kept], config["tags"]
    (True, ['mine', 'nostream', 'langsmith:nostream', 'jev_guardrail'])

"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import Context
from typing import Any

from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler, BaseCallbackManager
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config, set_config_context
from langchain_core.tracers._streaming import _StreamingCallbackHandler
from langchain_core.tracers.core import _TracerCore

__all__ = [
    "NOSTREAM_TAGS",
    "hidden_config",
    "hidden_context",
    "is_stream_handler",
    "stream_handlers",
    "visible_config",
]

_RUNTIME = "__pregel_runtime"
"""LangGraph's config key of a node's runtime (which holds its stream writer)."""
_PARENT_STREAM = "__pregel_stream"
"""LangGraph's config key of the stream a subgraph writes its parent's chunks to."""

NOSTREAM_TAGS: tuple[str, ...] = ("nostream", "langsmith:nostream")
"""The tags LangGraph's ``stream_mode="messages"`` skips a model run for (current and older releases)."""


def _forwards_tokens(handler: Any) -> bool:
    """True for a handler of the caller's that implements ``on_llm_new_token`` (a tracer only records)."""
    if isinstance(handler, _TracerCore):
        return False
    for base in (BaseCallbackHandler, AsyncCallbackHandler):
        if isinstance(handler, base):
            return type(handler).on_llm_new_token is not base.on_llm_new_token
    return False


def is_stream_handler(handler: Any) -> bool:
    """True for a callback handler that feeds a consumer's stream rather than a trace.

    These are the handlers of ``astream_events``, ``astream_log`` and LangGraph's
    ``"messages"`` stream (all implement LangChain's streaming-handler protocol),
    and any handler that forwards tokens (implements ``on_llm_new_token``) and
    is not a tracer.

    Example:
        >>> from langchain_core.callbacks import StdOutCallbackHandler, StreamingStdOutCallbackHandler
        >>> is_stream_handler(StreamingStdOutCallbackHandler()), is_stream_handler(StdOutCallbackHandler())
        (True, False)

    """
    return isinstance(handler, _StreamingCallbackHandler) or _forwards_tokens(handler)


def _keeping(callbacks: Any, keep: Callable[[Any], bool]) -> Any:
    """``callbacks`` (a manager, copied, or a list) with only the handlers ``keep`` accepts."""
    if callbacks is None:
        return None
    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
        for handler in [*manager.handlers, *manager.inheritable_handlers]:
            if not keep(handler):
                manager.remove_handler(handler)
        return manager
    if isinstance(callbacks, list):
        return [handler for handler in callbacks if keep(handler)]
    return callbacks  # pragma: no cover - callbacks are a manager, a list or None


def _without_stream_handlers(callbacks: Any) -> Any:
    return _keeping(callbacks, lambda handler: not is_stream_handler(handler))


def stream_handlers(config: RunnableConfig | None = None) -> list[Any]:
    """The streaming handlers of ``config`` (or the running one): who would see a token now."""
    callbacks = ensure_config(config).get("callbacks")
    if isinstance(callbacks, BaseCallbackManager):
        handlers = [*callbacks.handlers, *callbacks.inheritable_handlers]
    elif isinstance(callbacks, list):
        handlers = list(callbacks)
    else:
        handlers = []
    unique = list({id(handler): handler for handler in handlers}.values())
    return [handler for handler in unique if is_stream_handler(handler)]


def _write_nothing(_: Any) -> None:
    """A stream writer that writes nothing."""


def _without_stream_writer(configurable: Any) -> Any:
    if not isinstance(configurable, dict) or not (_RUNTIME in configurable or _PARENT_STREAM in configurable):
        return configurable
    kept = {key: value for key, value in configurable.items() if key != _PARENT_STREAM}
    runtime = kept.get(_RUNTIME)
    if dataclasses.is_dataclass(runtime) and hasattr(runtime, "stream_writer"):
        kept[_RUNTIME] = dataclasses.replace(runtime, stream_writer=_write_nothing)  # type: ignore[type-var]
    return kept


def hidden_config(config: RunnableConfig | None = None, *tags: str) -> RunnableConfig:
    """The config of a run no stream consumer may see.

    It is ``config`` (or the running one) without streaming handlers, with a
    LangGraph runtime whose stream writer writes nothing and no parent stream,
    tagged ``nostream`` and ``tags``.

    Tracers (LangSmith's among them) and other handlers are kept, so the run is
    still traced under its parent.
    """
    base = ensure_config(config)
    extra = [tag for tag in (*NOSTREAM_TAGS, *tags) if tag not in (base.get("tags") or [])]
    hidden: RunnableConfig = {
        **base,
        "callbacks": _without_stream_handlers(base.get("callbacks")),
        "tags": [*(base.get("tags") or []), *extra],
    }
    if "configurable" in base:
        hidden["configurable"] = _without_stream_writer(base["configurable"])
    return hidden


def visible_config(config: RunnableConfig | None = None) -> RunnableConfig:
    """The config of a run only the stream consumers see.

    It is ``config`` (or the running one) with its streaming handlers alone (tracers
    and other handlers left out).

    What a guardrail releases after judging it runs with this config, so it reaches
    ``stream_mode="messages"`` and ``astream_events`` as a run of the caller's, and
    the trace, which records the hidden draft already, does not hold it twice.
    """
    base = ensure_config(config)
    return {**base, "callbacks": _keeping(base.get("callbacks"), is_stream_handler)}


@contextmanager
def hidden_context(*tags: str, config: RunnableConfig | None = None) -> Iterator[Context]:
    """Run code whose runnables read their config from the context as `hidden_config` runs.

    ``config`` is the config to hide (default: the running one). Yields the
    context to run the code in (``context.run(f, ...)``, or
    ``coro_with_context(coro, context)`` for a coroutine).
    """
    with set_config_context(hidden_config(config, *tags)) as context:
        yield context
