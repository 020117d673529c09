"""The model's draft: its call running beside the door's checks, held until they are clean.

The door starts the model's call before its input is judged (``concurrent_input``)
or while it judges the reply chunk by chunk (``stream_chunks``). That call is a
`Draft`: it runs hidden (`langchain_jev.guardrails._hidden.enter_hidden`: no
handler but the allowed tracers sees it, as the context config too) in a worker
thread (sync) or a task (async), and the door reads it as it goes:

- its **tokens**: with ``capture``, a `DraftTap` rides in the hidden config. It
  is a streaming handler, so the chat model streams (as it would for
  ``stream_mode="messages"``), and it keeps the chunks of the draft's first model
  run (a model nested inside that run is not the reply's author, its tokens are
  not kept). Nobody else sees them: they are the door's to judge and release;
- its **output** (or error) when the call returns;
- **dropping** it: async, the task is cancelled (the model's request with it);
  sync, Python cannot stop a thread, so the door stops waiting at once, a
  streaming draft is stopped at its next token (the tap raises), and a call that
  does not stream runs to its end in the worker thread and its reply is dropped.

Where a call may start before its input is judged is an allow-list of its own
(`langchain_jev.guardrails._early.may_start_early`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.messages import AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk, GenerationChunk
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.utils import coro_with_context

from langchain_jev._errors import GuardrailStop
from langchain_jev.guardrails._chunks import token_text
from langchain_jev.guardrails._hidden import DEFAULT_TRACERS, Tracers, enter_hidden

__all__ = ["DROP_WAIT", "Draft", "DraftDropped", "DraftTap", "DraftView"]


DROP_WAIT = 5.0
"""Seconds a cancelled draft's task is given to end before the door goes on without it."""


class DraftDropped(Exception):
    """Raised into a dropped draft's model call at its next token, to stop it."""


@dataclass(frozen=True)
class DraftView:
    """What the door has of a draft so far."""

    chunks: tuple[AIMessageChunk, ...]
    """Every chunk the draft's model streamed, in order."""
    tokens: tuple[str, ...]
    """The text of each chunk that carries text, in order."""
    done: bool
    """True when the call has returned."""
    output: Any = None
    """The call's output, once done."""

    @property
    def message_id(self) -> str | None:
        """The id of the streamed message (its chunks'), None before any chunk."""
        return next((chunk.id for chunk in self.chunks if chunk.id), None)


class Draft:
    """One model call running beside the door: its chunks, its output, and a way to drop it.

    Start one with `Draft.start` (sync: a worker thread) or `Draft.astart`
    (async: a task, from the running loop).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._changed = threading.Condition()
        self._chunks: list[AIMessageChunk] = []
        self._tokens: list[str] = []
        self._done = False
        self._output: Any = None
        self._error: BaseException | None = None
        self._dropped = False
        self._loop = loop
        self._event = asyncio.Event() if loop is not None else None
        self._task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ the worker's side

    def add(self, chunk: AIMessageChunk) -> None:
        """Keep a chunk the model streamed (raises `DraftDropped` once the draft is dropped)."""
        with self._changed:
            if self._dropped:
                raise DraftDropped("the guardrail dropped this draft")
            self._chunks.append(chunk)
            text = token_text(chunk)
            if text:
                self._tokens.append(text)
        self._notify()

    def finish(self, output: Any = None, error: BaseException | None = None) -> None:
        """Record the call's output, or its error."""
        with self._changed:
            self._done, self._output, self._error = True, output, error
        self._notify()

    @property
    def dropped(self) -> bool:
        """True once the door dropped the draft."""
        return self._dropped

    def _notify(self) -> None:
        with self._changed:
            self._changed.notify_all()
        if self._loop is not None and self._event is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                self._loop.call_soon_threadsafe(self._event.set)

    # ------------------------------------------------------------------ the door's side

    def _ready(self, chunks: int | None, tokens: int | None) -> bool:
        if self._done:
            return True
        if chunks is None and tokens is None:
            return False
        return (chunks is None or len(self._chunks) >= chunks) and (
            tokens is None or len(self._tokens) >= tokens
        )

    def _view(self) -> DraftView:
        if self._done and self._error is not None:
            raise self._error
        return DraftView(tuple(self._chunks), tuple(self._tokens), self._done, self._output)

    def wait(self, *, chunks: int | None = None, tokens: int | None = None) -> DraftView:
        """Wait until the draft has ``chunks`` chunks and ``tokens`` tokens, or is done.

        Neither given: until it is done.

        Raises:
            Exception: the call's error, once it is done with one.

        """
        with self._changed:
            self._changed.wait_for(lambda: self._ready(chunks, tokens))
            return self._view()

    async def await_(self, *, chunks: int | None = None, tokens: int | None = None) -> DraftView:
        """Asynchronous `wait`."""
        if self._event is None:  # pragma: no cover - an async draft has its event
            raise RuntimeError("a sync draft is waited on with wait()")
        while True:
            self._event.clear()
            with self._changed:
                if self._ready(chunks, tokens):
                    return self._view()
            await self._event.wait()

    def drop(self) -> None:
        """Drop the draft: nothing it writes from now on is kept; a streaming call stops at its next token."""
        with self._changed:
            self._dropped = True

    async def adrop(self) -> None:
        """Drop the draft and cancel its task (and so the model's request).

        The task is given `DROP_WAIT` seconds to end; one that ignores its
        cancellation is left behind, dropped.
        """
        self.drop()
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=DROP_WAIT)

    # ------------------------------------------------------------------ starting

    @staticmethod
    def _config(config: RunnableConfig, draft: Draft, capture: bool) -> RunnableConfig:
        if not capture:
            return config
        tap = DraftTap(draft)
        callbacks = config.get("callbacks")
        if isinstance(callbacks, BaseCallbackManager):
            manager = callbacks.copy()
            manager.add_handler(tap, inherit=True)
            return {**config, "callbacks": manager}
        return {**config, "callbacks": [*(callbacks or []), tap]}

    @classmethod
    def start(
        cls, invoke: Any, config: RunnableConfig, *, capture: bool, tracers: Tracers = DEFAULT_TRACERS
    ) -> Draft:
        """Call ``invoke(config)`` in a worker thread, as a hidden run (`enter_hidden`) only ``tracers`` see.

        ``config`` is the hidden config of the call (`hidden_config`); with
        ``capture`` the draft's `DraftTap` is added to it.
        """
        draft = cls()
        run_config = cls._config(config, draft, capture)
        parent = contextvars.copy_context()

        def work() -> None:
            try:
                with enter_hidden(run_config, tracers) as context:
                    output = context.run(invoke, run_config)
            except BaseException as error:
                draft.finish(error=error)
            else:
                draft.finish(output=output)

        threading.Thread(target=parent.run, args=(work,), name="jev-guardrail-draft", daemon=True).start()
        return draft

    @classmethod
    def astart(
        cls, ainvoke: Any, config: RunnableConfig, *, capture: bool, tracers: Tracers = DEFAULT_TRACERS
    ) -> Draft:
        """Start ``await ainvoke(config)`` as a task of the running loop (see `start`)."""
        draft = cls(asyncio.get_running_loop())
        run_config = cls._config(config, draft, capture)

        async def work() -> None:
            try:
                with enter_hidden(run_config, tracers) as context:
                    output = await coro_with_context(ainvoke(run_config), context)
            except asyncio.CancelledError as cancelled:
                draft.finish(error=cancelled)
                raise
            except (Exception, GuardrailStop) as error:  # a guarded model inside stopped its turn
                draft.finish(error=error)
            else:
                draft.finish(output=output)

        draft._task = asyncio.create_task(work(), name="jev-guardrail-draft")
        return draft


class DraftTap(BaseCallbackHandler):
    """The door's own streaming handler in a draft's hidden config: it keeps the first model run's chunks.

    Being a streaming handler, it makes a chat model stream; it keeps the chunks of
    the first model run started in the draft (the reply's author) and raises
    `DraftDropped` at the next token once the draft is dropped.
    """

    run_inline = True
    raise_error = True

    def __init__(self, draft: Draft) -> None:
        self.draft = draft
        self.model_run: UUID | None = None

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Note the first model run of the draft."""
        if self.model_run is None:
            self.model_run = run_id

    def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Note the first model run of the draft (a text model)."""
        if self.model_run is None:
            self.model_run = run_id

    def on_llm_new_token(
        self,
        token: str | list[str | dict[str, Any]],
        *,
        chunk: GenerationChunk | ChatGenerationChunk | None = None,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        """Keep a chunk of the first model run; stop the call once the draft is dropped."""
        if run_id != self.model_run:
            if self.draft.dropped:
                raise DraftDropped("the guardrail dropped this draft")
            return
        if isinstance(chunk, ChatGenerationChunk) and isinstance(chunk.message, AIMessageChunk):
            self.draft.add(chunk.message)
        else:
            self.draft.add(AIMessageChunk(content=token if isinstance(token, str) else list(token)))

    def tap_output_aiter(self, run_id: UUID, output: Any) -> Any:
        """Streaming-handler protocol: the output stream, untouched."""
        return output

    def tap_output_iter(self, run_id: UUID, output: Any) -> Any:
        """Streaming-handler protocol: the output stream, untouched."""
        return output
