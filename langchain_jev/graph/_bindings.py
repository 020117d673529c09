"""What keeps a guarded runnable behind its door when LangChain composes it: bindings and caught stops.

`GuardedBinding` is the binding LangChain makes of a guarded runnable (``bind``,
``with_config``, ``with_retry``) whose ``with_fallbacks`` goes behind the same
door; `returning_stops` and `areturning_stops` return a guardrail's stop instead of raising it, for
``batch(..., return_exceptions=True)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig

from langchain_jev._errors import GuardrailStop

__all__ = ["GuardedBinding", "areturning_stops", "kept", "rebound", "returning_stops"]


class GuardedBinding(RunnableBinding[Any, Any]):  # type: ignore[no-redef]
    """A guarded runnable bound to a config or arguments: its fallbacks, too, go behind the door.

    LangChain's binding keeps its class through ``bind``, ``with_config`` and
    ``with_retry`` (which it hands to the bound runnable); ``with_fallbacks`` is
    handed to the bound guarded runnable the same way.
    """

    def with_fallbacks(self, *args: Any, **kwargs: Any) -> GuardedBinding:  # type: ignore[override]
        """The bound guarded runnable's ``with_fallbacks`` (same arguments), bound the same way."""
        return rebound(self, self.bound.with_fallbacks(*args, **kwargs))


def rebound(binding: RunnableBinding[Any, Any], bound: Runnable[Any, Any]) -> GuardedBinding:
    """A `GuardedBinding` of ``bound`` with everything ``binding`` binds."""
    return GuardedBinding(
        bound=bound,
        kwargs=binding.kwargs,
        config=binding.config,
        config_factories=binding.config_factories,
        custom_input_type=binding.custom_input_type,
        custom_output_type=binding.custom_output_type,
    )


def kept(binding: Runnable[Any, Any]) -> Runnable[Any, Any]:
    """``binding`` (of a guarded runnable) as a `GuardedBinding`."""
    if not isinstance(binding, RunnableBinding):  # pragma: no cover - LangChain binds with a RunnableBinding
        return binding
    return rebound(binding, binding.bound)


def returning_stops(call: Callable[..., Any]) -> Callable[..., Any]:
    def kept(value: Any, config: RunnableConfig) -> Any:
        try:
            return call(value, config)
        except GuardrailStop as stop:
            return stop

    return kept


def areturning_stops(acall: Callable[..., Any]) -> Callable[..., Any]:
    async def kept(value: Any, config: RunnableConfig) -> Any:
        try:
            return await acall(value, config)
        except GuardrailStop as stop:
            return stop

    return kept
