"""Bounded HTTP for the decision models: a size cap on every response body, a deadline on every request.

`BoundedTransport` (sync) and `AsyncBoundedTransport` wrap an ``httpx2``
transport, by default the one typesafe-sdk would make itself (its connection
limits, the proxy the environment names for the endpoint), and are what a
`JevDecisionModel` gives the SDK clients it makes. Every caller of the model
(the library, the command line, Ray, the guardrails) goes through them.

- **Size.** A response whose ``Content-Length`` is over the cap is refused before
  its body is read. The body is then counted as it arrives (compressed), and
  inflated here, chunk by chunk (``gzip``, ``deflate``, and ``zstd`` where Python
  has it), counting what it inflates to; past the cap the request stops with a
  `ResponseTooLargeError` that names the limit. What the client sees is the
  inflated body, so ``httpx2`` never inflates anything itself, and an encoding
  that cannot be inflated here is refused. The request asks only for the
  encodings that can be.
- **Time.** A request has a deadline, not a wait per read: from the moment it is
  handed to the transport to the last byte of its body. It is the request's own
  timeout (typesafe-sdk's ``timeout``) unless given. Every socket operation of the
  default transport waits at most what is left of it (so a server that sends its
  headers or its body one byte a second is cut off at the deadline, not at
  a read timeout that each byte restarts); an async request runs under an
  ``anyio`` cancel scope. A request past its deadline raises ``httpx2.ReadTimeout``,
  which typesafe-sdk reports as its ``TypeSafeAPITimeoutError`` (and retries as
  its policy says).

Example:
    >>> import httpx2
    >>> def huge(request):
    ...     return httpx2.Response(200, content=b" " * 2048)
    >>> bounded = BoundedTransport(httpx2.MockTransport(huge), max_bytes=1024)
    >>> httpx2.Client(transport=bounded).get("http://jev.test/")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    langchain_jev._errors.ResponseTooLargeError: the response to GET http://jev.test/ is larger than ...

"""

from __future__ import annotations

import contextvars
import math
import sys
import time
import urllib.request
import zlib
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any, Generic, Protocol, TypeVar

import anyio
import httpcore2
import httpx2
from typesafe_sdk._core.config import DEFAULT_LIMITS  # the SDK's pool: keep what its own client keeps

from langchain_jev._errors import ResponseTooLargeError

__all__ = [
    "DEFAULT_DEADLINE",
    "MAX_RESPONSE_BYTES",
    "AsyncBoundedTransport",
    "BoundedTransport",
    "accepted_encodings",
]

MAX_RESPONSE_BYTES = 16 * 2**20
"""The default cap on a response body, compressed and inflated: 16 MiB (a Jev answer is a few KiB)."""

DEFAULT_DEADLINE = 60.0
"""The deadline (seconds) of a request that carries no timeout of its own and was given none."""

_CHUNK = 64 * 1024
"""At most this many inflated bytes are produced at once."""


# --------------------------------------------------------------------------- inflating


class _Inflater(Protocol):
    def feed(self, data: bytes) -> Iterator[bytes]: ...

    def flush(self) -> Iterator[bytes]: ...


class _Zlib:
    """gzip (``wbits`` 31, members one after another) or deflate (zlib-wrapped, else raw)."""

    def __init__(self, gzip: bool) -> None:
        self._gzip = gzip
        self._wbits = zlib.MAX_WBITS | 16 if gzip else zlib.MAX_WBITS
        self._inflater = zlib.decompressobj(self._wbits)
        self._first = True

    def feed(self, data: bytes) -> Iterator[bytes]:
        while data:
            try:
                out = self._inflater.decompress(data, _CHUNK)
            except zlib.error as error:
                if self._gzip or not self._first:
                    raise httpx2.DecodingError(f"the body is not valid {self._name}: {error}") from None
                self._wbits = -zlib.MAX_WBITS  # deflate without its zlib wrapper, as some servers send it
                self._inflater = zlib.decompressobj(self._wbits)
                self._first = False
                continue
            self._first = False
            if out:
                yield out
            data = self._inflater.unconsumed_tail
            if not data and self._inflater.eof and self._inflater.unused_data:
                data = self._inflater.unused_data  # another gzip member
                self._inflater = zlib.decompressobj(self._wbits)

    def flush(self) -> Iterator[bytes]:
        out = self._inflater.flush()
        if out:
            yield out

    @property
    def _name(self) -> str:
        return "gzip" if self._gzip else "deflate"


def _zstd_class() -> Any:
    try:
        if sys.version_info >= (3, 14):
            from compression.zstd import ZstdDecompressor  # type: ignore[import-not-found,unused-ignore]
        else:
            from backports.zstd import ZstdDecompressor  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    return ZstdDecompressor


_ZSTD = _zstd_class()
"""The zstd decompressor httpx2 would use (``compression.zstd``, ``backports.zstd``), or None."""


class _Zstd:
    """zstd, frames one after another, never more than `_CHUNK` bytes at once."""

    def __init__(self) -> None:
        self._inflater = _ZSTD()

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            while True:
                out = self._inflater.decompress(data, _CHUNK)
                data = b""
                if out:
                    yield out
                if self._inflater.eof:
                    rest = self._inflater.unused_data
                    if not rest:
                        return
                    self._inflater, data = _ZSTD(), rest
                elif self._inflater.needs_input:
                    return
        except Exception as error:  # the module's ZstdError
            raise httpx2.DecodingError(f"the body is not valid zstd: {error}") from None

    def flush(self) -> Iterator[bytes]:
        yield from ()


_INFLATERS: dict[str, Callable[[], _Inflater]] = {
    "gzip": lambda: _Zlib(gzip=True),
    "x-gzip": lambda: _Zlib(gzip=True),
    "deflate": lambda: _Zlib(gzip=False),
}
if _ZSTD is not None:
    _INFLATERS["zstd"] = _Zstd


def accepted_encodings() -> str:
    """The ``Accept-Encoding`` a bounded request sends: the encodings inflated here.

    Example:
        >>> accepted_encodings().startswith("gzip, deflate")
        True

    """
    return ", ".join(name for name in _INFLATERS if name != "x-gzip")


# --------------------------------------------------------------------------- the shared core


class _Deadline:
    """When one request must be done by, and the timeouts that leaves."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds

    @classmethod
    def of(cls, request: httpx2.Request, given: float | None) -> _Deadline:
        """The request's deadline: ``given``, else its own timeout (the largest part), else the default."""
        if given is None:
            timeouts = request.extensions.get("timeout") or {}
            parts = [t for t in timeouts.values() if isinstance(t, (int, float)) and math.isfinite(t)]
            given = max(parts) if parts else DEFAULT_DEADLINE
        return cls(float(given))

    def remaining(self) -> float:
        return self._end - time.monotonic()

    def clamp(self, timeout: float | None) -> float:
        """``timeout`` cut to what is left; raise when nothing is."""
        left = self.remaining()
        if left <= 0:
            raise httpcore2.ReadTimeout(self.message())
        return left if timeout is None else min(timeout, left)

    def check(self) -> None:
        if self.remaining() <= 0:
            raise httpx2.ReadTimeout(self.message())

    def message(self) -> str:
        return f"the request passed its deadline of {self.seconds:g} s"


_CURRENT: contextvars.ContextVar[_Deadline | None] = contextvars.ContextVar(
    "langchain_jev_request_deadline", default=None
)
"""The deadline of the request this thread is sending, for the socket operations of the sync transport."""


def _clamp_timeouts(request: httpx2.Request, deadline: _Deadline) -> None:
    timeouts = request.extensions.get("timeout") or {}
    left = max(deadline.remaining(), 0.0)
    request.extensions["timeout"] = {
        name: left if value is None else min(float(value), left)
        for name, value in {**dict.fromkeys(("connect", "read", "write", "pool")), **timeouts}.items()
    }


def _where(request: httpx2.Request) -> str:
    url = request.url
    return f"{request.method} {url.scheme}://{url.netloc.decode('ascii', 'replace')}{url.path}"


def _size(count: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= size and count % size == 0:
            return f"{count // size} {unit}"
    return f"{count} bytes"


class _Guard:
    """What a response may be: its declared size checked, its body counted and inflated within the cap."""

    def __init__(self, request: httpx2.Request, response: httpx2.Response, max_bytes: int) -> None:
        self._where = _where(request)
        self._max = max_bytes
        self._received = 0
        self._inflated = 0
        length = response.headers.get("content-length")
        if length is not None and length.strip().isdigit() and int(length) > max_bytes:
            raise self._error(f"its Content-Length is {int(length)} bytes")
        names = [
            part.strip().lower()
            for part in response.headers.get("content-encoding", "").split(",")
            if part.strip() and part.strip().lower() != "identity"
        ]
        unknown = [name for name in names if name not in _INFLATERS]
        if unknown:
            raise httpx2.DecodingError(
                f"the response to {self._where} is encoded as {', '.join(unknown)}, which is not "
                f"inflated here (accepted: {accepted_encodings()})"
            )
        self._stages = [_INFLATERS[name]() for name in reversed(names)]  # the last applied comes off first
        self.headers = httpx2.Headers(response.headers)
        if names:
            del self.headers["content-encoding"]
            self.headers.pop("content-length", None)

    def _error(self, why: str) -> ResponseTooLargeError:
        return ResponseTooLargeError(
            f"the response to {self._where} is larger than the limit of {_size(self._max)} "
            f"(max_response_bytes={self._max}): {why}",
            limit=self._max,
        )

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        """The inflated bytes of one received chunk."""
        self._received += len(chunk)
        if self._received > self._max:
            raise self._error(f"more than {self._max} bytes were sent")
        yield from self._out(self._through(0, [chunk]))

    def flush(self) -> Iterator[bytes]:
        """What the inflaters still hold at the end of the body, each stage's through the stages after it."""
        for index, stage in enumerate(self._stages):
            yield from self._out(self._through(index + 1, stage.flush()))

    def _through(self, start: int, pieces: Iterable[bytes]) -> Iterable[bytes]:
        for stage in self._stages[start:]:
            pieces = _fed(stage, pieces)
        return pieces

    def _out(self, pieces: Iterable[bytes]) -> Iterator[bytes]:
        for piece in pieces:
            self._inflated += len(piece)
            if self._inflated > self._max:
                raise self._error(f"it inflates to more than {self._max} bytes")
            yield piece


def _fed(stage: _Inflater, pieces: Iterable[bytes]) -> Iterator[bytes]:
    for piece in pieces:
        yield from stage.feed(piece)


def _ask_for_what_inflates(request: httpx2.Request) -> None:
    request.headers["Accept-Encoding"] = accepted_encodings()


def _proxy_for(base_url: str | None) -> str | None:
    """The proxy the environment names for ``base_url`` (``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``)."""
    if not base_url:
        return None
    url = httpx2.URL(base_url)
    proxies = urllib.request.getproxies_environment()
    bypass = getattr(urllib.request, "proxy_bypass_environment")  # noqa: B009 (not in typeshed)
    if url.host and bypass(url.host, proxies):
        return None
    return proxies.get(url.scheme) or proxies.get("all")


# --------------------------------------------------------------------------- sync


class _DeadlineStream(httpcore2.NetworkStream):
    """A connection's socket whose every wait ends by the current request's deadline."""

    def __init__(self, inner: httpcore2.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _clamped(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _clamped(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> Any:
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, _clamped(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore2.NetworkBackend):
    """The pool's network backend, with the current request's deadline on every connection it opens."""

    def __init__(self, inner: httpcore2.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore2.NetworkStream:
        stream = self._inner.connect_tcp(host, port, _clamped(timeout), local_address, socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore2.NetworkStream:
        return _DeadlineStream(self._inner.connect_unix_socket(path, _clamped(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(min(seconds, _clamped(seconds) or 0.0))


def _clamped(timeout: float | None) -> float | None:
    deadline = _CURRENT.get()
    return timeout if deadline is None else deadline.clamp(timeout)


def _default_transport(base_url: str | None) -> httpx2.HTTPTransport:
    transport = httpx2.HTTPTransport(limits=DEFAULT_LIMITS, proxy=_proxy_for(base_url))
    pool = getattr(transport, "_pool", None)  # httpx2 keeps its httpcore2 pool there
    backend = getattr(pool, "_network_backend", None)
    if backend is not None:
        pool._network_backend = _DeadlineBackend(backend)  # type: ignore[union-attr]
    return transport


_Inner = TypeVar("_Inner", httpx2.BaseTransport, httpx2.AsyncBaseTransport)


class _Bounds(Generic[_Inner]):
    """What both transports keep: the transport they wrap, the cap on a body, the deadline."""

    def __init__(
        self,
        inner: _Inner | None = None,
        *,
        max_bytes: int = MAX_RESPONSE_BYTES,
        deadline: float | None = None,
        base_url: str | None = None,
    ) -> None:
        self.max_bytes, self.deadline = _checked(max_bytes, deadline)
        self._inner: _Inner = inner if inner is not None else self._default(base_url)

    def _default(self, base_url: str | None) -> _Inner:
        """The transport that sends when none is given (the environment's proxy for ``base_url``)."""
        raise NotImplementedError

    def _deadline_of(self, request: httpx2.Request) -> _Deadline:
        """The request's deadline, its timeouts clamped to it, asking only for what inflates."""
        deadline = _Deadline.of(request, self.deadline)
        _clamp_timeouts(request, deadline)
        _ask_for_what_inflates(request)
        return deadline


def _rebodied(response: httpx2.Response, guard: _Guard, stream: Any) -> httpx2.Response:
    """``response`` with its body read through ``stream`` (capped and inflated by ``guard``)."""
    return httpx2.Response(
        response.status_code, headers=guard.headers, stream=stream, extensions=response.extensions
    )


class _SyncBody(httpx2.SyncByteStream):
    def __init__(self, inner: httpx2.SyncByteStream, guard: _Guard, deadline: _Deadline) -> None:
        self._inner, self._guard, self._deadline = inner, guard, deadline

    def __iter__(self) -> Iterator[bytes]:
        chunks = iter(self._inner)
        while True:
            token = _CURRENT.set(self._deadline)
            try:
                chunk = next(chunks, None)
            finally:
                _CURRENT.reset(token)
            if chunk is None:
                break
            self._deadline.check()
            yield from self._guard.feed(chunk)
        yield from self._guard.flush()

    def close(self) -> None:
        self._inner.close()


class BoundedTransport(_Bounds[httpx2.BaseTransport], httpx2.BaseTransport):
    """An ``httpx2`` transport whose responses are size-capped and whose requests have a deadline.

    Args:
        inner: the transport that sends (default: the one typesafe-sdk would make,
            with its connection limits and the environment's proxy for ``base_url``).
        max_bytes: the cap on a response body, compressed and inflated
            (`MAX_RESPONSE_BYTES`, 16 MiB, by default).
        deadline: seconds a request may take in all; None takes the request's own
            timeout (the SDK's ``timeout``) as its deadline.
        base_url: where the requests go, to pick the environment's proxy for it.

    Raises:
        JevConfigurationError: ``max_bytes`` or ``deadline`` is not a positive number.

    Example:
        >>> import httpx2
        >>> from typesafe_sdk import TypeSafeClient
        >>> client = TypeSafeClient(api_key="sk-test", transport=BoundedTransport(max_bytes=2**20))

    """

    def _default(self, base_url: str | None) -> httpx2.BaseTransport:
        return _default_transport(base_url)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request`` by its deadline; its response's body capped and inflated as it is read."""
        deadline = self._deadline_of(request)
        token = _CURRENT.set(deadline)
        try:
            deadline.check()
            response = self._inner.handle_request(request)
        finally:
            _CURRENT.reset(token)
        try:
            deadline.check()
            guard = _Guard(request, response, self.max_bytes)
        except BaseException:
            response.close()
            raise
        assert isinstance(response.stream, httpx2.SyncByteStream)
        return _rebodied(response, guard, _SyncBody(response.stream, guard, deadline))

    def close(self) -> None:
        """Close the transport it wraps."""
        self._inner.close()


# --------------------------------------------------------------------------- async


class _AsyncBody(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, guard: _Guard, deadline: _Deadline) -> None:
        self._inner, self._guard, self._deadline = inner, guard, deadline

    async def __aiter__(self) -> AsyncIterator[bytes]:
        chunks = self._inner.__aiter__()
        while True:
            try:
                with anyio.fail_after(max(self._deadline.remaining(), 0.0)):
                    chunk = await chunks.__anext__()
            except StopAsyncIteration:
                break
            except TimeoutError:
                raise httpx2.ReadTimeout(self._deadline.message()) from None
            for piece in self._guard.feed(chunk):
                yield piece
        for piece in self._guard.flush():
            yield piece

    async def aclose(self) -> None:
        await self._inner.aclose()


class AsyncBoundedTransport(_Bounds[httpx2.AsyncBaseTransport], httpx2.AsyncBaseTransport):
    """The async twin of `BoundedTransport` (same arguments); its deadline is an ``anyio`` cancel scope.

    Example:
        >>> from typesafe_sdk import AsyncTypeSafeClient
        >>> client = AsyncTypeSafeClient(api_key="sk-test", transport=AsyncBoundedTransport(deadline=5.0))

    """

    def _default(self, base_url: str | None) -> httpx2.AsyncBaseTransport:
        return httpx2.AsyncHTTPTransport(limits=DEFAULT_LIMITS, proxy=_proxy_for(base_url))

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request`` by its deadline; its response's body capped and inflated as it is read."""
        deadline = self._deadline_of(request)
        try:
            with anyio.fail_after(max(deadline.remaining(), 0.0)):
                response = await self._inner.handle_async_request(request)
        except TimeoutError:
            raise httpx2.ReadTimeout(deadline.message(), request=request) from None
        try:
            guard = _Guard(request, response, self.max_bytes)
        except BaseException:
            await response.aclose()
            raise
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        return _rebodied(response, guard, _AsyncBody(response.stream, guard, deadline))

    async def aclose(self) -> None:
        """Close the transport it wraps."""
        await self._inner.aclose()


def _checked(max_bytes: Any, deadline: Any) -> tuple[int, float | None]:
    from langchain_jev._errors import checked_number, checked_whole

    size = f"max_response_bytes must be a whole number of bytes > 0, got {max_bytes!r}"
    checked_whole(max_bytes, lambda count: count > 0, size)
    if deadline is None:
        return max_bytes, None
    seconds = f"deadline must be a number of seconds > 0, got {deadline!r}"
    return max_bytes, checked_number(deadline, lambda value: value > 0, seconds)
