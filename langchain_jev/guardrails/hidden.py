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

`hidden_context` runs code with the hidden config as the *context* config too, so
whatever reads its config from the context inherits it: a chat model that calls
another model inside ``_generate`` without passing its config, ``get_stream_writer()``,
``dispatch_custom_event``.
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
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import Context
from typing import Any

from langchain_core.callbacks import BaseCallbackManager
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config, set_config_context
from langchain_core.tracers._streaming import _StreamingCallbackHandler

__all__ = ["NOSTREAM_TAGS", "hidden_config", "hidden_context", "is_stream_handler"]

_RUNTIME = "__pregel_runtime"
"""LangGraph's config key of a node's runtime (which holds its stream writer)."""
_PARENT_STREAM = "__pregel_stream"
"""LangGraph's config key of the stream a subgraph writes its parent's chunks to."""

NOSTREAM_TAGS: tuple[str, ...] = ("nostream", "langsmith:nostream")
"""The tags LangGraph's ``stream_mode="messages"`` skips a model run for (current and older releases)."""


def is_stream_handler(handler: Any) -> bool:
    """True for a callback handler that feeds a consumer's stream rather than a trace.

    These are the handlers of ``astream_events``, ``astream_log`` and LangGraph's
    ``"messages"`` stream: all implement LangChain's streaming-handler protocol.
    """
    return isinstance(handler, _StreamingCallbackHandler)


def _without_stream_handlers(callbacks: Any) -> Any:
    if callbacks is None:
        return None
    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
        for handler in [*manager.handlers, *manager.inheritable_handlers]:
            if is_stream_handler(handler):
                manager.remove_handler(handler)
        return manager
    if isinstance(callbacks, list):
        return [handler for handler in callbacks if not is_stream_handler(handler)]
    return callbacks  # pragma: no cover - callbacks are a manager, a list or None


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


@contextmanager
def hidden_context(*tags: str, config: RunnableConfig | None = None) -> Iterator[Context]:
    """Run code whose runnables read their config from the context as `hidden_config` runs.

    ``config`` is the config to hide (default: the running one). Yields the
    context to run the code in (``context.run(f, ...)``, or
    ``coro_with_context(coro, context)`` for a coroutine).
    """
    with set_config_context(hidden_config(config, *tags)) as context:
        yield context
