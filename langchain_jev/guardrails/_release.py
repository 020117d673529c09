"""Releasing a judged reply to the caller's streams, chunk by chunk: `Release`.

The model's draft runs hidden (no streaming handler sees it), so what the door
lets through once it is judged must be shown by the door itself. A `Release` is a
chat model run of the caller's, started on the caller's config (the guarded
model's run, or the model node's in an agent) with only its **streaming handlers**
(`langchain_jev.guardrails._hidden.visible_config`): LangGraph's
``stream_mode="messages"`` (``stream(version="v2")`` too) and ``astream_events``
/ ``astream_log`` see it as the model's run, with the node's metadata, and receive
each judged chunk as an ``on_llm_new_token``; tracers do not see it twice (they
record the hidden draft).

The run starts at the first chunk shown (nothing judged clean yet, no run) and
ends with the reply released, or fails with the error that stopped the step.
Its chunks carry the streamed message's id, so LangGraph does not show the same
reply again when the step returns it. A handler that reads the newer protocol
events (``stream_events(version="v3")``, LangGraph's v2 messages handler) is given
each judged chunk as those events too (``on_stream_event``; see
`langchain_jev.guardrails._protocol`), as it is shown, and the events that end
the message when the run ends.

Example:
    >>> from langchain_core.callbacks import BaseCallbackHandler
    >>> from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage
    >>> class Tokens(BaseCallbackHandler):
    ...     seen: list = []
    ...     def on_llm_new_token(self, token, **kwargs):
    ...         self.seen.append(token)
    >>> release = Release({"callbacks": [Tokens()]}, [HumanMessage("hi")], "chat")
    >>> release.show(AIMessageChunk("Hello", id="run-1"))
    >>> release.end(AIMessage("Hello", id="run-1"))
    >>> Tokens.seen, release.opened
    (['Hello'], True)

"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from langchain_core.callbacks import (
    AsyncCallbackManager,
    AsyncCallbackManagerForLLMRun,
    BaseCallbackManager,
    CallbackManager,
    CallbackManagerForLLMRun,
)
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, LLMResult
from langchain_core.runnables import RunnableConfig

from langchain_jev.guardrails._chunks import token_text
from langchain_jev.guardrails._hidden import visible_config
from langchain_jev.guardrails._protocol import added_events, ending_events, protocol_readers

__all__ = ["Release"]

M = TypeVar("M", CallbackManager, AsyncCallbackManager)


def _manager(config: RunnableConfig, kind: type[M]) -> M:
    """A callback manager of ``kind`` over ``config``'s handlers, parent run, tags and metadata.

    Unlike ``CallbackManager.configure``, it adds no tracer of its own (the
    environment's LangSmith tracer): the run is for the streams alone.
    """
    callbacks = config.get("callbacks")
    if isinstance(callbacks, BaseCallbackManager):
        manager = kind(
            handlers=list(callbacks.handlers),
            inheritable_handlers=list(callbacks.inheritable_handlers),
            parent_run_id=callbacks.parent_run_id,
            tags=list(callbacks.tags),
            inheritable_tags=list(callbacks.inheritable_tags),
            metadata=dict(callbacks.metadata),
            inheritable_metadata=dict(callbacks.inheritable_metadata),
        )
    else:
        handlers = list(callbacks or [])
        manager = kind(handlers=handlers, inheritable_handlers=list(handlers))
    manager.add_tags(list(config.get("tags") or []))
    manager.add_metadata(dict(config.get("metadata") or {}))
    return manager


def _generation(chunk: AIMessageChunk) -> ChatGenerationChunk:
    return ChatGenerationChunk(message=chunk)


def _result(message: AIMessage) -> LLMResult:
    return LLMResult(generations=[[ChatGeneration(message=message)]])


class Release:
    """What the door shows the caller's streams of a judged reply: one chat model run, fed chunk by chunk.

    Args:
        config: the caller's config (None: the running one); only its streaming
            handlers see the run.
        messages: the messages the model was called on (the run's input).
        name: the run's name (the model's).

    """

    def __init__(self, config: RunnableConfig | None, messages: Sequence[BaseMessage], name: str) -> None:
        self.config = visible_config(config)
        self.messages = list(messages)
        self.name = name
        self._run: CallbackManagerForLLMRun | None = None
        self._arun: AsyncCallbackManagerForLLMRun | None = None
        self._closed = False
        self._protocol = protocol_readers(self.config)
        self._shown: AIMessageChunk | None = None

    @property
    def opened(self) -> bool:
        """True once a chunk was shown (the run started)."""
        return self._run is not None or self._arun is not None

    @property
    def closed(self) -> bool:
        """True once the run ended or failed."""
        return self._closed

    def _start_args(self) -> tuple[dict[str, Any], list[list[BaseMessage]]]:
        return {"name": self.name}, [self.messages]

    def _added(self, chunk: AIMessageChunk) -> list[dict[str, Any]]:
        """The protocol events ``chunk`` adds (none when no handler reads them); ``chunk`` counts as shown."""
        if not self._protocol:
            return []
        events = added_events(self._shown, chunk)
        self._shown = chunk if self._shown is None else self._shown + chunk
        return events

    def _ending(self) -> list[dict[str, Any]]:
        return ending_events(self._shown) if self._shown is not None else []

    def _failed(self, error: BaseException) -> list[dict[str, Any]]:
        return [{"event": "error", "message": str(error)}] if self._shown is not None else []

    # ------------------------------------------------------------------ sync

    def show(self, chunk: AIMessageChunk) -> None:
        """Show ``chunk`` to the streams (starting the run at the first one)."""
        if self._closed:
            return
        if self._run is None:
            serialized, messages = self._start_args()
            manager = _manager(self.config, CallbackManager)
            self._run = manager.on_chat_model_start(serialized, messages, name=self.name)[0]
        self._run.on_llm_new_token(token_text(chunk), chunk=_generation(chunk))
        for event in self._added(chunk):
            self._run.on_stream_event(event)  # type: ignore[arg-type]

    def end(self, message: AIMessage) -> None:
        """End the run with the reply released (nothing when no chunk was shown)."""
        if self._run is not None and not self._closed:
            self._closed = True
            for event in self._ending():
                self._run.on_stream_event(event)  # type: ignore[arg-type]
            self._run.on_llm_end(_result(message))

    def fail(self, error: BaseException) -> None:
        """End the run with the error that stopped the step (nothing when no chunk was shown)."""
        if self._run is not None and not self._closed:
            self._closed = True
            for event in self._failed(error):
                self._run.on_stream_event(event)  # type: ignore[arg-type]
            self._run.on_llm_error(error)

    # ------------------------------------------------------------------ async

    async def ashow(self, chunk: AIMessageChunk) -> None:
        """Asynchronous `show`."""
        if self._closed:
            return
        if self._arun is None:
            serialized, messages = self._start_args()
            manager = _manager(self.config, AsyncCallbackManager)
            self._arun = (await manager.on_chat_model_start(serialized, messages, name=self.name))[0]
        await self._arun.on_llm_new_token(token_text(chunk), chunk=_generation(chunk))
        for event in self._added(chunk):
            await self._arun.on_stream_event(event)  # type: ignore[arg-type]

    async def aend(self, message: AIMessage) -> None:
        """Asynchronous `end`."""
        if self._arun is not None and not self._closed:
            self._closed = True
            for event in self._ending():
                await self._arun.on_stream_event(event)  # type: ignore[arg-type]
            await self._arun.on_llm_end(_result(message))

    async def afail(self, error: BaseException) -> None:
        """Asynchronous `fail`."""
        if self._arun is not None and not self._closed:
            self._closed = True
            for event in self._failed(error):
                await self._arun.on_stream_event(event)  # type: ignore[arg-type]
            await self._arun.on_llm_error(error)
