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

from langchain_jev._errors import JevConfigurationError

__all__ = ["PacedDecisionModel", "ParentLimiter", "RateLimiter", "TokenBucket"]


class TokenBucket:
    """A token bucket: ``rate`` tokens per second, holding at most ``capacity``.

    `take` takes a token when one is there, at the time given, and otherwise says
    how long until one will be, taking nothing: a caller waits that long and asks
    again. Tokens are never promised ahead of time, so a caller that wakes late
    (a busy machine did not run it) cannot spend several promised tokens at once:
    requests leave at least ``1 / rate`` seconds apart, beyond a burst of
    ``capacity``.

    Example:
        >>> bucket = TokenBucket(rate=2.0)
        >>> bucket.take(0.0), bucket.take(0.0), bucket.take(0.25), bucket.take(0.5)
        (0.0, 0.5, 0.25, 0.0)

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

    def take(self, now: float) -> float:
        """At time ``now`` (seconds): 0.0 and a token taken, or the seconds until there is one."""
        if self._updated is not None:
            elapsed = max(0.0, now - self._updated)
            self._tokens = min(self.capacity, self._tokens + elapsed * self.rate)
        self._updated = now
        if self._tokens >= 1.0 - _EPSILON:  # a token short of one by rounding is a token
            self._tokens = max(0.0, self._tokens - 1.0)
            return 0.0
        return (1.0 - self._tokens) / self.rate


_EPSILON = 1e-9
"""Tokens short of a whole one by less than this are whole: ``now + wait`` may round to ``now``."""


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

    def take(self) -> float:
        """Take a token now if there is one (0.0); else the seconds until there is one (nothing taken)."""
        with self._lock:
            return self._bucket.take(self._clock())

    def acquire(self) -> float:
        """Wait (blocking) for a token; return the seconds waited."""
        waited = 0.0
        while (wait := self.take()) > 0:
            time.sleep(wait)
            waited += wait
        return waited

    async def aacquire(self) -> float:
        """Wait (without blocking the loop) for a token; return the seconds waited."""
        waited = 0.0
        while (wait := self.take()) > 0:
            await asyncio.sleep(wait)
            waited += wait
        return waited


class ParentLimiter(RateLimiter):
    """A rate limiter whose tokens come from another process's limiter, so one rate holds for all.

    ``ask`` is that limiter's `RateLimiter.take` across the process boundary:
    0.0 when a token was taken for the caller, else the seconds until there is
    one; this limiter waits them on the event loop and asks again. Asynchronous use only.

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

    def take(self) -> float:
        """Not available: the tokens are granted asynchronously."""
        raise RuntimeError("a worker's rate limiter is asynchronous: use aacquire()")

    async def aacquire(self) -> float:
        """Ask for a token until one is granted, waiting as told; return the seconds waited."""
        waited = 0.0
        while (wait := await self._ask()) > 0:
            await asyncio.sleep(wait)
            waited += wait
        return waited


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
