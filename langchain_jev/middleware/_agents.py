"""The LangChain agent types the middleware builds on, imported in one place.

They come with ``langchain``, which the ``middleware`` extra installs; without it,
importing a middleware raises an `ImportError` that names the extra.
"""

from __future__ import annotations

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
        hook_config,
    )
except ImportError as error:  # pragma: no cover - exercised in a subprocess by the tests
    raise missing_extra("langchain_jev.middleware", "langchain", "middleware") from error

__all__ = [
    "AgentMiddleware",
    "AgentState",
    "ExtendedModelResponse",
    "ModelRequest",
    "ModelResponse",
    "OmitFromInput",
    "PrivateStateAttr",
    "hook_config",
]
