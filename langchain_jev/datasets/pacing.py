"""Rate limiting for both engines: a token bucket, a model that waits for it, a limiter fed by another.

`TokenBucket` is the arithmetic alone (time goes in, a wait comes out), so it
can be tested without a clock. `RateLimiter` applies it with real time, for
threads and event loops alike, and `PacedDecisionModel` puts it in front of a
decision model so that only requests that reach the model are paced (a cache
placed in front of it answers hits without waiting).
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.decisions import (
    BaseDecisionModel,
    ClassifierRequest,
    ClassifierResponse,
    Question,
    State,
)
from langchain_core.runnables import RunnableConfig
from pydantic import ConfigDict, Field

from langchain_jev.errors import JevConfigurationError

__all__ = ["PacedDecisionModel", "ParentLimiter", "RateLimiter", "TokenBucket"]


class TokenBucket:
    """A token bucket: ``rate`` tokens per second, holding at most ``capacity``.

    `reserve` takes a token at a given time and returns how long to wait before
    using it. Tokens may be reserved ahead (the bucket goes into debt), so
    concurrent callers queue up, each ``1 / rate`` seconds after the one before.

    Example:
        >>> bucket = TokenBucket(rate=2.0)
        >>> [bucket.reserve(0.0) for _ in range(3)]
        [0.0, 0.5, 1.0]
        >>> bucket.reserve(10.0)
        0.0

    """

    def __init__(self, rate: float, capacity: float = 1.0) -> None:
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not math.isfinite(rate):
            raise JevConfigurationError(f"rate must be a positive number, got {rate!r}")
        if rate <= 0:
            raise JevConfigurationError(f"rate must be a positive number, got {rate!r}")
        if not capacity >= 1:
            raise JevConfigurationError(f"capacity must be at least 1, got {capacity!r}")
        self.rate = float(rate)
        self.capacity = float(capacity)
        self._tokens = float(capacity)
        self._updated: float | None = None

    def reserve(self, now: float) -> float:
        """Take one token at time ``now`` (seconds); return the seconds to wait before using it."""
        if self._updated is not None:
            elapsed = max(0.0, now - self._updated)
            self._tokens = min(self.capacity, self._tokens + elapsed * self.rate)
        self._updated = now
        self._tokens -= 1.0
        return 0.0 if self._tokens >= 0 else -self._tokens / self.rate


class RateLimiter:
    """At most ``rate`` requests per second (bursts up to ``burst``), across threads and tasks.

    Example:
        >>> limiter = RateLimiter(1000.0)
        >>> limiter.acquire()  # the first token is free
        0.0

    """

    def __init__(
        self,
        rate: float,
        burst: float = 1.0,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._bucket = TokenBucket(rate, burst)
        self._clock = clock
        self._lock = threading.Lock()

    @property
    def rate(self) -> float:
        """Requests per second."""
        return self._bucket.rate

    def reserve(self) -> float:
        """Take a token now, without waiting; return the seconds to wait before using it."""
        with self._lock:
            return self._bucket.reserve(self._clock())

    def acquire(self) -> float:
        """Wait (blocking) for a token; return the seconds waited."""
        wait = self.reserve()
        if wait > 0:
            time.sleep(wait)
        return wait

    async def aacquire(self) -> float:
        """Wait (without blocking the loop) for a token; return the seconds waited."""
        wait = self.reserve()
        if wait > 0:
            await asyncio.sleep(wait)
        return wait


class ParentLimiter(RateLimiter):
    """A rate limiter whose tokens come from another process's limiter, so one rate holds for all.

    ``ask`` returns the seconds the granting side says to wait; this limiter
    waits them on the event loop. Asynchronous use only.

    Example:
        >>> import asyncio
        >>> async def grant() -> float:
        ...     return 0.0
        >>> asyncio.run(ParentLimiter(5.0, grant).aacquire())
        0.0

    """

    def __init__(self, rate: float, ask: Callable[[], Awaitable[float]]) -> None:
        super().__init__(rate)
        self._ask = ask

    def reserve(self) -> float:
        """Not available: the tokens are granted asynchronously."""
        raise RuntimeError("a worker's rate limiter is asynchronous: use aacquire()")

    async def aacquire(self) -> float:
        """Ask for a token, wait as told; return the seconds waited."""
        wait = await self._ask()
        if wait > 0:
            await asyncio.sleep(wait)
        return wait


class PacedDecisionModel(BaseDecisionModel):
    """A decision model that waits for a `RateLimiter` before each request to ``inner``.

    It adds no run of its own: the inner model traces its request as usual.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> paced = PacedDecisionModel(inner=ScriptedDecisionModel({"ok": 0.9}), limiter=RateLimiter(50))
        >>> paced.invoke({"state": "hi", "questions": {"ok": Noul(instructions="Ok?")}}).nouls["ok"].noul
        0.9

    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: BaseDecisionModel
    """The model asked."""
    limiter: RateLimiter = Field(exclude=True)
    """The limiter waited for before each request."""
    model: str = ""
    """The inner model's name."""

    def __init__(self, **kwargs: Any) -> None:
        inner = kwargs.get("inner")
        if isinstance(inner, BaseDecisionModel) and not kwargs.get("model"):
            kwargs["model"] = inner.model
        super().__init__(**kwargs)

    @property
    def _provider(self) -> str:
        return self.inner._provider

    def invoke(
        self, input: ClassifierRequest, config: RunnableConfig | None = None, **kwargs: Any
    ) -> ClassifierResponse:
        """Wait for the limiter, then ask the inner model."""
        self.limiter.acquire()
        return self.inner.invoke(input, config, **kwargs)

    async def ainvoke(
        self, input: ClassifierRequest, config: RunnableConfig | None = None, **kwargs: Any
    ) -> ClassifierResponse:
        """Asynchronous `invoke`."""
        await self.limiter.aacquire()
        return await self.inner.ainvoke(input, config, **kwargs)

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        self.limiter.acquire()
        return self.inner._classify(state, questions)

    async def _aclassify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        await self.limiter.aacquire()
        return await self.inner._aclassify(state, questions)
