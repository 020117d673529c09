"""The LangChain agent types the middleware builds on, imported in one place, and the package's base.

They come with ``langchain``, which the ``middleware`` extra installs; without it,
importing a middleware raises an `ImportError` that names the extra.

`JevAgentMiddleware` is the base of every middleware of the package: it holds
what LangChain's own decision-model middleware (``AutoModeMiddleware``,
``ModelRefusalMiddleware``) sets, so no middleware of the package can leave it out.
"""

from __future__ import annotations

from typing import Any, TypeVar

from langchain_jev._extras import missing_extra

try:
    from langchain.agents.middleware.types import (
        AgentMiddleware,
        AgentState,
        ExtendedModelResponse,
        ModelRequest,
        ModelResponse,
        OmitFromInput,
        PrivateStateAttr,
        TracePolicy,
        hook_config,
        omit_payload,
    )
except ImportError as error:  # pragma: no cover - exercised in a subprocess by the tests
    raise missing_extra("langchain_jev.middleware", "langchain", "middleware") from error

__all__ = [
    "PAYLOAD_OMITTED",
    "AgentMiddleware",
    "AgentState",
    "ExtendedModelResponse",
    "JevAgentMiddleware",
    "ModelRequest",
    "ModelResponse",
    "OmitFromInput",
    "PrivateStateAttr",
    "hook_config",
]

StateT = TypeVar("StateT", bound=AgentState[Any])

PAYLOAD_OMITTED = TracePolicy(process_inputs=omit_payload)
"""The trace policy of every middleware of the package: its hook spans record no input.

A hook span (``wrap_model_call``, ``wrap_tool_call``) would copy the request (the
conversation, the state, a tool call's arguments), which is the text a guardrail
judges, into the trace once more per middleware. The span and its timing stay;
the messages stay on the model's own run, and what a check asked and answered on
its judge's run.
"""


class JevAgentMiddleware(AgentMiddleware[StateT, Any, Any]):
    """The base of the package's agent middleware: hook spans traced without their input payload.

    Example:
        >>> JevAgentMiddleware.trace_policy.process_inputs({"request": "the judged text"})
        {}

    """

    trace_policy = PAYLOAD_OMITTED
