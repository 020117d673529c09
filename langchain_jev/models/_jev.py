"""Jev, TypeSafe's System One model, as a LangChain decision model over typesafe-sdk."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from langchain_core.decisions import (
    BaseDecisionModel,
    ClassifierRequest,
    ClassifierResponse,
    Question,
    State,
)
from langchain_core.runnables import RunnableConfig
from pydantic import ConfigDict, Field, PrivateAttr, SecretStr
from typesafe_sdk import (
    AsyncTypeSafeClient,
    RetryPolicy,
    TypeSafeAPIResponseValidationError,
    TypeSafeClient,
)
from typesafe_sdk.constants import (
    API_KEY_ENV,
    BASE_URL_ENV,
    DEFAULT_BASE_URL,
    DEFAULT_MODEL,
    DEFAULT_MODEL_ENV,
)

from langchain_jev._errors import JevConfigurationError, MissingCredentialsError
from langchain_jev._moved import moved_name
from langchain_jev.models._response import DecisionResponse, read_answers, with_answers
from langchain_jev.models._secrets import install_log_filter, redact_data, redact_error, remember_secret
from langchain_jev.models._transport import MAX_RESPONSE_BYTES, AsyncBoundedTransport, BoundedTransport
from langchain_jev.models._wire import QuestionWire, WireResponse, wire_state

__all__ = ["JevDecisionModel"]

_LOOP_CLIENTS = 64
"""The most event loops a `JevDecisionModel` keeps an async client for (closed loops' are dropped first)."""

Wrap = Callable[["JevDecisionModel"], BaseDecisionModel]
"""What puts a Jev model behind a cache (made by `langchain_jev.models._shared_cache`)."""

_shared: list[Wrap | None] = [None]
"""What wraps every `JevDecisionModel` of the process in the shared cache, or None.

Set by `langchain_jev.models._shared_cache.share_cache`: this module knows no cache.
"""


def __getattr__(name: str) -> Any:
    """A name that left this module (``share_cache``), from where it lives now, with a warning."""
    return moved_name(__name__, name)


def _env(name: str) -> str | None:
    return os.environ.get(name, "").strip() or None


def _default_model() -> str:
    return _env(DEFAULT_MODEL_ENV) or DEFAULT_MODEL


def _default_key() -> SecretStr | None:
    key = _env(API_KEY_ENV)
    return SecretStr(key) if key else None


class JevDecisionModel(BaseDecisionModel):
    """Jev answers every question of a request at once, through the official typesafe-sdk.

    Configuration is resolved argument first, then environment, then default:
    ``model`` (``TYPESAFE_DEFAULT_MODEL``, else ``jev-latest``), ``api_key``
    (``TYPESAFE_API_KEY``), ``base_url`` (``TYPESAFE_BASE_URL``, for Jev-compatible
    servers). Pass ``client`` / ``async_client`` to bring your own SDK clients (a
    custom transport, a proxy, tests); then no key is needed here.

    The model builds without a key, as chat models do, so a judge can be defined at
    module level (or collected by pytest) anywhere: the key is needed on the first
    request, read then from ``api_key=`` or ``TYPESAFE_API_KEY``, and its absence
    raises `MissingCredentialsError` (sync and async alike). `resolve_api_key` asks
    for it up front. The key is a `SecretStr`: it never appears in the repr, in
    traces or in errors.
    A transport or authentication failure raises the SDK's own error
    (``typesafe_sdk.TypeSafeError`` and subclasses) after the SDK's retries; an
    answer that comes back malformed is kept out of ``answers`` and reported in
    ``unreadable``, so a judge makes only that criterion an ERROR.

    The clients it makes itself are bounded (`langchain_jev.models._transport`): a
    response body over ``max_response_bytes`` (16 MiB, compressed or inflated)
    raises `ResponseTooLargeError`, and ``timeout`` is each request's deadline,
    from connecting to the last byte of the answer, however slowly it trickles.
    Clients you pass are used as they are: give them a `BoundedTransport` too.

    It works from any event loop, one after another and at once (``asyncio.run`` per
    request, notebooks, a server with a loop per thread): the asynchronous client it
    makes is one per loop, since an ``httpx2`` client's connections belong to the
    loop that opened them; a client you pass as ``async_client=`` is bound to the
    loop you use it on, as any ``httpx2`` client is.

    Example:
        >>> import httpx2, json
        >>> from typesafe_sdk import TypeSafeClient
        >>> from langchain_core.decisions import Noul
        >>> def handler(request):
        ...     body = {"model": "jev-latest", "usage": {"input_tokens": 9, "output_tokens": 1},
        ...             "answers": {"polite": {"type": "noul", "noul": 0.93}}}
        ...     return httpx2.Response(200, json=body)
        >>> client = TypeSafeClient(api_key="sk-test", transport=httpx2.MockTransport(handler))
        >>> jev = JevDecisionModel(client=client)
        >>> jev.invoke({"state": "Thanks a lot!", "questions": {
        ...     "polite": Noul(instructions="Is the message polite?")}}).nouls["polite"].noul
        0.93

    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: str = Field(default_factory=_default_model)
    """The Jev model to ask (``TYPESAFE_DEFAULT_MODEL``, else ``jev-latest``)."""
    api_key: SecretStr | None = Field(default_factory=_default_key, repr=False)
    """API key (``TYPESAFE_API_KEY``); not needed when clients are given."""
    base_url: str | None = Field(default_factory=lambda: _env(BASE_URL_ENV))
    """API root, for Jev-compatible servers (``TYPESAFE_BASE_URL``)."""
    timeout: float | None = None
    """Seconds each HTTP request may take in all, connecting to last byte (the SDK's 10 s when None)."""
    max_response_bytes: int = MAX_RESPONSE_BYTES
    """The cap on a response body, as sent and once inflated (16 MiB)."""
    retry: RetryPolicy | None = Field(default=None, repr=False)
    """The SDK retry policy (the SDK's default when None)."""
    client: TypeSafeClient | None = Field(default=None, exclude=True, repr=False)
    """A ready synchronous SDK client; used as is."""
    async_client: AsyncTypeSafeClient | None = Field(default=None, exclude=True, repr=False)
    """A ready asynchronous SDK client; used as is."""

    _reads_run_config: ClassVar[bool] = False
    """Only the SDK runs inside a request: a judge may call it outside a run context."""

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _wire: QuestionWire = PrivateAttr(default_factory=QuestionWire)
    _own_client: TypeSafeClient | None = PrivateAttr(default=None)
    _own_async_clients: dict[asyncio.AbstractEventLoop, AsyncTypeSafeClient] = PrivateAttr(
        default_factory=dict
    )
    """The async clients this model made, one per event loop (an httpx2 client is bound to its loop)."""
    _cached: tuple[Any, BaseDecisionModel] | None = PrivateAttr(default=None)

    def __init__(self, **kwargs: Any) -> None:
        if isinstance(kwargs.get("api_key"), str):
            kwargs["api_key"] = SecretStr(kwargs["api_key"])
        super().__init__(**kwargs)
        if self.api_key is not None:  # known, so redacted wherever the package writes
            remember_secret(self.api_key.get_secret_value())
        install_log_filter()

    def resolve_api_key(self) -> SecretStr:
        """Return the key requests carry: ``api_key=``, else ``TYPESAFE_API_KEY`` as it is now.

        Raises:
            MissingCredentialsError: there is neither; the message names ``TYPESAFE_API_KEY``.

        Example:
            >>> JevDecisionModel(api_key="sk-test").resolve_api_key()
            SecretStr('**********')

        """
        key = self.api_key or _default_key()
        if key is None:
            raise MissingCredentialsError(
                f"no API key for Jev: set {API_KEY_ENV}, pass api_key= or a typesafe-sdk "
                "client= / async_client=, or give the judge another decision model "
                "(ChatModelDecisionModel for any chat model, or any BaseDecisionModel; "
                "to try the package without a key, langchain_jev.testing.ScriptedDecisionModel "
                "or python -m langchain_jev.testing.server)"
            )
        return key

    @property
    def _provider(self) -> str:
        return "typesafe"

    def invoke(
        self, input: ClassifierRequest, config: RunnableConfig | None = None, **kwargs: Any
    ) -> ClassifierResponse:
        """Answer one request (from the shared cache first, when ``share_cache`` set one)."""
        cached = self._shared_cached()
        if cached is not None:
            return cached.invoke(input, config, **kwargs)
        return super().invoke(input, config, **kwargs)

    async def ainvoke(
        self, input: ClassifierRequest, config: RunnableConfig | None = None, **kwargs: Any
    ) -> ClassifierResponse:
        """Asynchronous `invoke`."""
        cached = self._shared_cached()
        if cached is not None:
            return await cached.ainvoke(input, config, **kwargs)
        return await super().ainvoke(input, config, **kwargs)

    def _untraced(self) -> BaseDecisionModel | None:
        """What a judge may call without run bookkeeping: this model, unless the shared cache answers."""
        kind = type(self)
        if (
            kind.invoke is not JevDecisionModel.invoke
            or kind.ainvoke is not JevDecisionModel.ainvoke
            or kind._classify_and_record is not BaseDecisionModel._classify_and_record
            or kind._aclassify_and_record is not BaseDecisionModel._aclassify_and_record
        ):
            return None
        return self if self._shared_cached() is None else None

    def _shared_cached(self) -> BaseDecisionModel | None:
        """This model behind the shared cache, or None when there is none or it does not serve this model."""
        wrap = _shared[0]
        if wrap is None or self.client is not None or self.async_client is not None:
            return None
        pair = self._cached
        if pair is None or pair[0] is not wrap:
            pair = (wrap, wrap(self))
            self._cached = pair
        return pair[1]

    @property
    def lc_secrets(self) -> dict[str, str]:
        """The constructor argument holding a secret, and its environment variable."""
        return {"api_key": API_KEY_ENV}

    def _settings(self) -> dict[str, Any]:
        given = self.client is not None or self.async_client is not None
        if given and not (self.api_key or _default_key()):
            raise JevConfigurationError(
                "JevDecisionModel was given only one kind of client; pass the other "
                "(client= or async_client=) or api_key= so it can make its own"
            )
        return {
            "api_key": self.resolve_api_key().get_secret_value(),
            "model": self.model,
            "base_url": self.base_url,
            "timeout": self.timeout,
            "retry": self.retry,
        }

    @property
    def endpoint(self) -> str:
        """Where requests go: ``base_url``, else ``TYPESAFE_BASE_URL``, else Jev's own API."""
        return self._endpoint()

    def _endpoint(self) -> str:
        """Where the requests of the clients this model makes go."""
        return self.base_url or _env(BASE_URL_ENV) or DEFAULT_BASE_URL

    def _sync(self) -> TypeSafeClient:
        if self.client is not None:
            return self.client
        with self._lock:
            if self._own_client is None:
                bounded = BoundedTransport(max_bytes=self.max_response_bytes, base_url=self._endpoint())
                self._own_client = TypeSafeClient(**self._settings(), transport=bounded)
            return self._own_client

    def _async(self) -> AsyncTypeSafeClient:
        """The asynchronous client of the running event loop: the given one, else this model's for that loop.

        An httpx2 client's connections belong to the loop they were opened on, so this
        model makes one client per loop (``asyncio.run`` per request, notebooks, servers
        with a loop per thread all work, one after another and at once); a client whose
        loop is closed is dropped, and at most `_LOOP_CLIENTS` are kept.
        """
        if self.async_client is not None:
            return self.async_client
        loop = asyncio.get_running_loop()
        with self._lock:
            clients = self._own_async_clients
            client = clients.get(loop)
            if client is None:
                for other in [other for other in clients if other.is_closed()]:
                    del clients[other]  # its connections died with their loop
                while len(clients) >= _LOOP_CLIENTS:
                    del clients[next(iter(clients))]
                bounded = AsyncBoundedTransport(max_bytes=self.max_response_bytes, base_url=self._endpoint())
                client = clients[loop] = AsyncTypeSafeClient(**self._settings(), transport=bounded)
            return client

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        body, wired = wire_state(state), self._wire(questions)
        try:
            return self._convert(
                self._sync().system_one(body, wired, model=self.model, response_model=WireResponse)
            )
        except TypeSafeAPIResponseValidationError as error:
            return self._recover(error)
        except Exception as error:  # a server may echo the key in its error body or headers
            failure = redact_error(error)
        raise failure from None  # raised outside the handler: no unredacted error rides along as its context

    async def _aclassify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        if self.async_client is None and self.client is not None and self.api_key is None:
            return await super()._aclassify(state, questions)  # only a sync client: run it in a thread
        body, wired = wire_state(state), self._wire(questions)
        try:
            response = await self._async().system_one(
                body, wired, model=self.model, response_model=WireResponse
            )
        except TypeSafeAPIResponseValidationError as error:
            return self._recover(error)
        except Exception as error:  # a server may echo the key in its error body or headers
            failure = redact_error(error)
        else:
            return self._convert(response)
        raise failure from None  # raised outside the handler: no unredacted error rides along as its context

    def close(self) -> None:
        """Close the SDK clients this model made itself (injected ones are the caller's)."""
        if self._own_client is not None:
            self._own_client.close()

    async def aclose(self) -> None:
        """Close the SDK clients this model made itself: the sync one, and the running loop's async one.

        The async clients of other loops are dropped (their connections belong to loops
        that cannot be reached from here; a closed loop's are gone with it).
        """
        self.close()
        loop = asyncio.get_running_loop()
        with self._lock:
            clients = dict(self._own_async_clients)
            self._own_async_clients.clear()
        mine = clients.get(loop)
        if mine is not None:
            await mine.aclose()

    def _convert(self, response: WireResponse) -> DecisionResponse:
        answers, unreadable = read_answers(response.answers)
        if response.unreadable:  # answers the body gave twice: unreadable, never one of them picked
            unreadable = {**unreadable, **response.unreadable}
        return with_answers(
            answers,
            model=response.model,
            unreadable=unreadable,
            usage=dict(response.usage.__dict__),
            request_id=redact_data(response.__dict__.get("_request_id")),  # a header: not in the body
        )

    def _recover(self, error: TypeSafeAPIResponseValidationError) -> DecisionResponse:
        """Keep the readable answers of a response in which only some answers are malformed."""
        redact_error(error)  # a server may echo the key anywhere in the body or headers
        body = error.body
        raw = body.get("answers") if isinstance(body, Mapping) else None
        if not error.field_path.startswith("answers.") or not isinstance(raw, Mapping):
            raise error from None
        answers, unreadable = read_answers(raw)
        usage = body.get("usage")
        return DecisionResponse(
            model=str(body.get("model") or self.model),
            answers=answers,
            unreadable=unreadable,
            usage=usage if isinstance(usage, Mapping) else None,
            request_id=redact_data(error.request_id),
        )
