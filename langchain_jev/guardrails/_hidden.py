"""Runs nobody but an allow-listed tracer sees: our own checks, and drafts nobody has checked yet.

A guardrail's battery run carries the text it judges (a request it may refuse),
and a model run whose reply is checked before it is shown carries the unchecked
draft. Every callback handler riding in such a run would receive that text: a
stream (LangGraph's ``stream_mode="messages"``, ``astream_events``,
``astream_log``), a handler that posts each finished message (``on_llm_end``),
a tracer that forwards run outputs to a chat UI. So which handlers may see a
hidden run is an **allow-list**: record-only tracers named by class, exactly
(LangSmith's `LangChainTracer` by default, `DEFAULT_TRACERS`; a guardrail's
``allowed_tracers`` setting adds others). Every other handler is left out,
whichever way it would reach the run:

- `hidden_config`: the config's callbacks (a list, or a manager's handlers and
  inheritable handlers) keep only the allowed tracers; the run is tagged
  ``nostream`` (LangGraph's tag for "do not stream this model's tokens") and the
  tags given; LangGraph's stream writer (``stream_mode="custom"``,
  ``get_stream_writer()``) writes nothing and the parent stream a subgraph writes
  to is gone;
- `hidden_context` / `enter_hidden`: the code runs with that config as the
  *context* config too (so a model called inside ``_generate`` without its config,
  ``get_stream_writer()``, ``dispatch_custom_event`` inherit it), with every
  handler that langchain-core's context hooks would add (``collect_runs``, a
  ``tracing_v2_enabled`` tracer of another class, any ``register_configure_hook``)
  taken out of the context; a hook that would create a handler of another class
  from an environment variable, or langchain's debug mode (which prints every
  run), cannot be taken out, so the run is refused (`JevConfigurationError`);
- the gate, where handlers are gathered: every run started inside a hidden run
  gets its handlers from langchain-core's one gathering point (``_configure``,
  behind ``CallbackManager.configure`` and its async twin), and there, inside a
  hidden run, a handler is kept only when its class is an allowed tracer or it
  was in the hidden run's own config when the run was entered (the draft's tap).
  So a model's own handlers (``callbacks=``, a binding's
  ``with_config(callbacks=...)``, ``with_listeners``), wherever the model is held
  (a dict, a tuple, a private attribute, a function, any depth), are never given
  the run; `hidden_runnable` also calls the model as a copy without the handlers
  it names itself.

`visible_config` is the other half: the same config with *only* the streaming
handlers (`is_stream_handler`), for what a guardrail releases once it is judged
(the chunks of a reply judged as it streams), so the streams see it and the
trace, which holds the hidden draft already, does not see it twice.
`unstreamed_config` leaves out the streams alone, for runs that hold nothing
secret but are not the answer (a self-refine loop's drafts and judge).

Nothing here imports LangGraph (its config keys are named here): self-refine and
the guardrails share it.

Example:
    >>> from langchain_core.tracers.event_stream import _AstreamEventsCallbackHandler
    >>> from langchain_core.tracers.langchain import LangChainTracer
    >>> from langchain_core.tracers.stdout import ConsoleCallbackHandler
    >>> traced, printed = LangChainTracer(), ConsoleCallbackHandler()
    >>> streamed = _AstreamEventsCallbackHandler()
    >>> config = hidden_config({"callbacks": [traced, printed, streamed], "tags": ["mine"]}, "jev_guardrail")
    >>> config["callbacks"] == [traced], config["tags"]
    (True, ['mine', 'nostream', 'langsmith:nostream', 'jev_guardrail'])

"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import Context, ContextVar
from typing import Any, TypeVar

from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler, BaseCallbackManager
from langchain_core.callbacks import manager as callback_manager
from langchain_core.globals import get_debug
from langchain_core.language_models import BaseLanguageModel
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.base import RunnableBindingBase
from langchain_core.runnables.config import ensure_config, set_config_context
from langchain_core.tracers._streaming import _StreamingCallbackHandler
from langchain_core.tracers.context import _configure_hooks, tracing_v2_callback_var
from langchain_core.tracers.core import _TracerCore
from langchain_core.tracers.langchain import LangChainTracer
from langchain_core.tracers.stdout import ConsoleCallbackHandler
from langchain_core.utils.env import env_var_is_set
from pydantic import BaseModel

from langchain_jev._errors import JevConfigurationError

__all__ = [
    "DEFAULT_TRACERS",
    "NOSTREAM_TAGS",
    "Tracers",
    "check_hidden_runs",
    "check_tracers",
    "enter_hidden",
    "hidden_config",
    "hidden_context",
    "hidden_method",
    "hidden_runnable",
    "is_stream_handler",
    "stream_handlers",
    "unstreamed_config",
    "visible_config",
]

Tracers = tuple[type[BaseCallbackHandler], ...]
"""The classes of the handlers a hidden run may carry (matched exactly: a subclass is another class)."""

DEFAULT_TRACERS: Tracers = (LangChainTracer,)
"""The tracers every hidden run may carry: LangSmith's."""

_RUNTIME = "__pregel_runtime"
"""LangGraph's config key of a node's runtime (which holds its stream writer)."""
_PARENT_STREAM = "__pregel_stream"
"""LangGraph's config key of the stream a subgraph writes its parent's chunks to."""

NOSTREAM_TAGS: tuple[str, ...] = ("nostream", "langsmith:nostream")
"""The tags LangGraph's ``stream_mode="messages"`` skips a model run for (current and older releases)."""

_HIDDEN: ContextVar[Tracers | None] = ContextVar("jev_hidden_run", default=None)
"""The tracers of the hidden run the code is in (None: it is in none)."""
_ADMITTED: ContextVar[tuple[Tracers, frozenset[int], tuple[Any, ...]] | None] = ContextVar(
    "jev_hidden_admitted", default=None
)
"""Inside a hidden run: its tracers, and the ids of the handlers its own config held when it was entered
(the handlers themselves ride along, so an id is never reused while it counts)."""
_GATE: list[Callable[..., Any]] = []
"""langchain-core's handler gathering, as it was before the gate was put in front of it (once)."""


_TOKEN_HOOKS = ("on_llm_new_token", "on_stream_event")
"""The hooks a handler is given a model's tokens by: chunks, and the newer protocol's events (v3)."""


def _class_forwards_tokens(cls: type) -> bool:
    """True for a handler class that implements a token hook (`_TOKEN_HOOKS`) and is no tracer.

    (A tracer records.)
    """
    if issubclass(cls, _TracerCore):
        return False
    for base in (BaseCallbackHandler, AsyncCallbackHandler):
        if issubclass(cls, base):
            return any(getattr(cls, hook, None) is not getattr(base, hook, None) for hook in _TOKEN_HOOKS)
    return False


def _forwards_tokens(handler: Any) -> bool:
    """True for a handler of the caller's that implements a token hook (a tracer only records)."""
    return _class_forwards_tokens(type(handler))


def is_stream_handler(handler: Any) -> bool:
    """True for a callback handler that feeds a consumer's stream rather than a trace.

    These are the handlers of ``astream_events``, ``astream_log`` and LangGraph's
    ``"messages"`` stream (all implement LangChain's streaming-handler protocol),
    and any handler that forwards tokens (implements ``on_llm_new_token``, or
    ``on_stream_event`` for the newer protocol's events) and is not a tracer. It
    says who is shown what a guardrail releases; who may see a
    hidden run is an allow-list (`hidden_config`).

    Example:
        >>> from langchain_core.callbacks import StdOutCallbackHandler, StreamingStdOutCallbackHandler
        >>> is_stream_handler(StreamingStdOutCallbackHandler()), is_stream_handler(StdOutCallbackHandler())
        (True, False)

    """
    return isinstance(handler, _StreamingCallbackHandler) or _forwards_tokens(handler)


def check_tracers(tracers: Any, setting: str = "allowed_tracers") -> Tracers:
    """``tracers`` as a tuple of handler classes that may record hidden runs, checked.

    Each must be a callback handler class (not an instance) and not a stream's:
    the caller vouches that it records, and never shows a run's content to a user.

    Raises:
        JevConfigurationError: naming ``setting`` and the offending value.

    Example:
        >>> from langchain_core.tracers.stdout import ConsoleCallbackHandler
        >>> check_tracers([ConsoleCallbackHandler])
        (<class 'langchain_core.tracers.stdout.ConsoleCallbackHandler'>,)
        >>> check_tracers([ConsoleCallbackHandler()])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JevConfigurationError: allowed_tracers takes callback handler classes ...

    """
    if isinstance(tracers, type):
        raise JevConfigurationError(
            f"{setting} must be a list of tracer classes, got {tracers.__name__} alone"
        )
    if isinstance(tracers, (str, bytes)) or not isinstance(tracers, Iterable):
        raise JevConfigurationError(
            f"{setting} must be a list of tracer classes, got {type(tracers).__name__}"
        )
    found: list[type[BaseCallbackHandler]] = []
    for tracer in tracers:
        if not isinstance(tracer, type) or not issubclass(tracer, BaseCallbackHandler):
            what = tracer.__name__ if isinstance(tracer, type) else f"an instance of {type(tracer).__name__}"
            raise JevConfigurationError(
                f"{setting} takes callback handler classes (such as LangChainTracer), got {what}"
            )
        if issubclass(tracer, _StreamingCallbackHandler) or _class_forwards_tokens(tracer):
            raise JevConfigurationError(
                f"{setting} takes record-only tracers; {tracer.__name__} feeds a stream, which would "
                "show the hidden runs to whoever reads it"
            )
        if tracer not in found:
            found.append(tracer)
    return tuple(found)


def _allowed(tracers: Tracers) -> Callable[[Any], bool]:
    return lambda handler: type(handler) in tracers


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
    return []  # callbacks of no known shape: none of them is known to be allowed


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


def _quiet(
    config: RunnableConfig | None, keep: Callable[[Any], bool], tags: tuple[str, ...]
) -> RunnableConfig:
    base = ensure_config(config)
    extra = [tag for tag in (*NOSTREAM_TAGS, *tags) if tag not in (base.get("tags") or [])]
    quiet: RunnableConfig = {
        **base,
        "callbacks": _keeping(base.get("callbacks"), keep),
        "tags": [*(base.get("tags") or []), *extra],
    }
    if "configurable" in base:
        quiet["configurable"] = _without_stream_writer(base["configurable"])
    return quiet


def hidden_config(
    config: RunnableConfig | None = None, *tags: str, tracers: Tracers = DEFAULT_TRACERS
) -> RunnableConfig:
    """The config of a run no handler but an allowed tracer may see.

    It is ``config`` (or the running one) with only the handlers whose class is
    one of ``tracers`` (exactly), with a LangGraph runtime whose stream writer
    writes nothing and no parent stream, tagged ``nostream`` and ``tags``. The
    run is still traced under its parent by the allowed tracers.
    """
    return _quiet(config, _allowed(tracers), tags)


def unstreamed_config(config: RunnableConfig | None = None, *tags: str) -> RunnableConfig:
    """The config of a run no stream shows (its tokens are not the answer), which every other handler sees.

    For runs that hold nothing secret: ``config`` without its streaming handlers
    (`is_stream_handler`), stream writer and parent stream, tagged ``nostream`` and ``tags``.
    """
    return _quiet(config, lambda handler: not is_stream_handler(handler), tags)


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


def check_hidden_runs(tracers: Tracers = DEFAULT_TRACERS) -> None:
    """Refuse hidden runs where langchain-core would add a handler to them that no context can take out.

    Raises:
        JevConfigurationError: langchain's debug mode is on, or a configure hook
            creates a handler from an environment variable, and its class is not
            one of ``tracers``; the message names it and the way out.

    """
    if get_debug() and ConsoleCallbackHandler not in tracers:
        raise JevConfigurationError(
            "langchain's debug mode (set_debug(True)) prints every run, the guardrail's hidden runs "
            "too (the text it judges, the drafts it holds back); turn it off, or add "
            "ConsoleCallbackHandler to allowed_tracers to print them on purpose"
        )
    for _, _, handler_class, env_var in _configure_hooks:
        creates = env_var is not None and handler_class is not None and env_var_is_set(env_var)
        if creates and handler_class not in tracers:
            name = getattr(handler_class, "__name__", "handler")
            raise JevConfigurationError(
                f"the environment variable {env_var} adds a {name} to every run, the guardrail's "
                f"hidden runs too; unset it, or add {name} to allowed_tracers if it only records"
            )


@contextmanager
def enter_hidden(config: RunnableConfig, tracers: Tracers = DEFAULT_TRACERS) -> Iterator[Context]:
    """Enter a hidden run: ``config`` (made by `hidden_config`) as the context config, and no context handler.

    Yields the context to run the code in (``context.run(f, ...)``, or
    ``coro_with_context(coro, context)`` for a coroutine). In it, every handler a
    langchain-core context hook would add whose class is not one of ``tracers`` is
    taken out, and `hidden_runnable` strips a model's own handlers.

    Raises:
        JevConfigurationError: a handler would be added that no context can take out
            (langchain's debug mode, a hook that creates one from an environment variable).

    """
    check_hidden_runs(tracers)
    _install_gate()
    own = tuple(_handlers(config.get("callbacks")))
    with set_config_context(config) as context:
        context.run(_HIDDEN.set, tracers)
        context.run(_ADMITTED.set, (tracers, frozenset(id(handler) for handler in own), own))
        keep = _allowed(tracers)
        hooked: list[ContextVar[Any]] = [tracing_v2_callback_var, *(hook[0] for hook in _configure_hooks)]
        for var in hooked:
            handler = context.run(var.get)
            if handler is not None and not keep(handler):
                context.run(var.set, None)
        yield context


@contextmanager
def hidden_context(
    *tags: str, config: RunnableConfig | None = None, tracers: Tracers = DEFAULT_TRACERS
) -> Iterator[Context]:
    """Run code as a hidden run: `hidden_config` of ``config`` (default: the running one), entered.

    Yields the context to run the code in.
    """
    with enter_hidden(hidden_config(config, *tags, tracers=tracers), tracers) as context:
        yield context


# ---------------------------------------------------------------- the gate


def _gated(*args: Any, **kwargs: Any) -> Any:
    """langchain-core's ``_configure``, then, inside a hidden run, only the handlers it admits."""
    manager = _GATE[0](*args, **kwargs)
    admitted = _ADMITTED.get()
    if admitted is not None:
        tracers, ids, _ = admitted
        for handler in [*manager.handlers, *manager.inheritable_handlers]:
            if type(handler) not in tracers and id(handler) not in ids:
                manager.remove_handler(handler)
    return manager


def _install_gate() -> None:
    """Put the gate in front of langchain-core's handler gathering (once; it acts only in a hidden run).

    Every callback manager a run is given is made by ``_configure`` in
    ``langchain_core.callbacks.manager`` (``CallbackManager.configure`` and
    ``AsyncCallbackManager.configure`` look it up when they run), so a handler that
    is not admitted there is in no run started inside a hidden one, however the
    runnable that carries it is held.
    """
    if _GATE:
        return
    _GATE.append(callback_manager._configure)
    callback_manager._configure = _gated


# ---------------------------------------------------------------- a model's own handlers


def _handlers(callbacks: Any) -> list[Any]:
    if isinstance(callbacks, BaseCallbackManager):
        return [*callbacks.handlers, *callbacks.inheritable_handlers]
    return list(callbacks) if isinstance(callbacks, list) else []


def _kept_or_none(callbacks: Any, keep: Callable[[Any], bool]) -> Any:
    """``callbacks`` with only the handlers ``keep`` accepts, or None when it keeps them all."""
    if all(keep(handler) for handler in _handlers(callbacks)):
        return None
    return _keeping(callbacks, keep)


def _filtered_factory(
    factory: Callable[[RunnableConfig], RunnableConfig], keep: Callable[[Any], bool]
) -> Callable[[RunnableConfig], RunnableConfig]:
    def made(config: RunnableConfig) -> RunnableConfig:
        produced = factory(config)
        kept = _kept_or_none(produced.get("callbacks"), keep)
        return produced if kept is None else {**produced, "callbacks": kept}

    return made


_DEPTH = 8
"""How deep `hidden_runnable` reads runnables held by runnables."""


def _binding_update(binding: RunnableBindingBase[Any, Any], keep: Callable[[Any], bool]) -> dict[str, Any]:
    update: dict[str, Any] = {}
    kept = _kept_or_none(binding.config.get("callbacks"), keep)
    if kept is not None:
        update["config"] = {**binding.config, "callbacks": kept}
    if binding.config_factories:  # what a factory adds (with_listeners) is known only once it runs
        update["config_factories"] = [_filtered_factory(f, keep) for f in binding.config_factories]
    return update


def _strippable(value: Any) -> bool:
    """True for a runnable that may carry handlers of its own (a pydantic one; checked cheaply first)."""
    return isinstance(value, BaseModel) and isinstance(value, Runnable)


def _held_update(runnable: BaseModel, keep: Callable[[Any], bool], depth: int) -> dict[str, Any]:
    """The fields of ``runnable`` holding runnables (a binding's model, a judge's model), stripped."""
    update: dict[str, Any] = {}
    for name in type(runnable).model_fields:
        value = getattr(runnable, name, None)
        if _strippable(value):
            stripped = _without_own_handlers(value, keep, depth + 1)
            if stripped is not value:
                update[name] = stripped
        elif isinstance(value, (list, tuple)) and any(_strippable(item) for item in value):
            items = [_without_own_handlers(item, keep, depth + 1) for item in value]
            if any(new is not old for new, old in zip(items, value, strict=True)):
                update[name] = type(value)(items)
    return update


def _without_own_handlers(runnable: Any, keep: Callable[[Any], bool], depth: int = 0) -> Any:
    """``runnable``, or a copy of it and of what it holds, without the handlers it carries itself.

    Its own ``callbacks`` (a model's), a binding's config and listeners, and the
    same of every runnable it holds in a field (a binding's, a sequence's, a
    fallback's, a judge's decision model, a wrapper's inner model), read down to
    `_DEPTH` levels; what is deeper, or a function's insides, is its own.
    """
    if depth > _DEPTH or not isinstance(runnable, BaseModel):
        return runnable
    update: dict[str, Any] = {}
    if isinstance(runnable, BaseLanguageModel):
        kept = _kept_or_none(runnable.callbacks, keep)
        if kept is not None:
            update["callbacks"] = kept
    elif isinstance(runnable, RunnableBindingBase):
        update = _binding_update(runnable, keep)
    update.update(_held_update(runnable, keep, depth))
    return runnable.model_copy(update=update) if update else runnable


def hidden_runnable(runnable: Runnable[Any, Any]) -> Runnable[Any, Any]:
    """The runnable to call now: inside a hidden run, a copy without the handlers it carries itself.

    A chat model's ``callbacks=``, a binding's ``with_config(callbacks=...)`` and
    the handlers ``with_listeners`` adds are the model's own, not the config's, so
    `hidden_config` cannot take them out: inside a hidden run (`enter_hidden`) the
    model is called as a copy that keeps of them only the allowed tracers, through
    every runnable it holds (bindings, retries, sequences, fallbacks, a battery's
    judge and decision model; a function's insides are its own). Outside a hidden
    run it is ``runnable`` itself.
    """
    tracers = _HIDDEN.get()
    if tracers is None:
        return runnable
    stripped: Runnable[Any, Any] = _without_own_handlers(runnable, _allowed(tracers))
    return stripped


M = TypeVar("M", bound=Callable[..., Any])


def hidden_method(method: M) -> M:
    """A runnable's bound ``method`` (``battery.invoke``), bound to its `hidden_runnable` copy instead.

    A step carries the bound method that runs it, so an editor follows the yield to
    that code; inside a hidden run the driver calls it on the copy without the
    runnable's own handlers.
    """
    owner = getattr(method, "__self__", None)
    if not isinstance(owner, Runnable):
        return method
    hidden: M = getattr(hidden_runnable(owner), method.__name__)
    return hidden
