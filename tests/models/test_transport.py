"""Responses are bounded: a size cap on every body (as sent and inflated) and a deadline on every request.

Every case goes through `JevDecisionModel` and the real typesafe-sdk clients, sync
and async, to the loopback `HostileServer`, which sends endless, huge, compressed
and slow bodies. A model asks once (no retries), so each case is one request.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest
from langchain_core.decisions import Noul
from typesafe_sdk import RetryPolicy, TypeSafeAPITimeoutError, TypeSafeClient, TypeSafeError

from langchain_jev import ResponseTooLargeError
from langchain_jev.models import JevDecisionModel
from langchain_jev.models._transport import (
    MAX_RESPONSE_BYTES,
    AsyncBoundedTransport,
    BoundedTransport,
    accepted_encodings,
)
from tests.support.hostile_server import HostileServer

KEY = "sk-bounded-4c1d9e7f2a6b8305"
QUESTIONS = {"ok": Noul(instructions="Is it ok?")}
NO_RETRY = RetryPolicy(max_retries=0)
HANG_GUARD = 20.0
"""No case may take this long: the bounds under test are ~1 s; this only stops a hang."""


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    with HostileServer(interval=0.2, give_up_after=HANG_GUARD) as server:
        yield server


def model(server: HostileServer, behaviour: str, **options: Any) -> JevDecisionModel:
    return JevDecisionModel(api_key=KEY, base_url=server.url(behaviour), retry=NO_RETRY, **options)


async def ask(jev: JevDecisionModel, mode: str) -> Any:
    request = {"state": "Hi", "questions": QUESTIONS}
    try:
        if mode == "sync":
            return jev.invoke(request)  # type: ignore[arg-type]
        return await asyncio.wait_for(jev.ainvoke(request), HANG_GUARD)  # type: ignore[arg-type]
    finally:
        await jev.aclose()


MODES = pytest.mark.parametrize("mode", ["sync", "async"])


@MODES
@pytest.mark.parametrize("behaviour", ["endless", "chunked"])
async def test_an_endless_body_stops_at_the_cap_with_an_error_naming_it(
    hostile: HostileServer, behaviour: str, mode: str
) -> None:
    with pytest.raises(ResponseTooLargeError) as caught:
        await ask(model(hostile, behaviour, max_response_bytes=2**20), mode)
    message = str(caught.value)
    assert "larger than the limit of 1 MiB (max_response_bytes=1048576)" in message
    assert "more than 1048576 bytes were sent" in message and f"/{behaviour}/v1/systemone" in message
    assert caught.value.limit == 2**20


@MODES
async def test_the_default_cap_is_16_mib(hostile: HostileServer, mode: str) -> None:
    started = time.monotonic()
    with pytest.raises(ResponseTooLargeError, match=r"limit of 16 MiB \(max_response_bytes=16777216\)"):
        await ask(model(hostile, "endless"), mode)
    assert model(hostile, "endless").max_response_bytes == MAX_RESPONSE_BYTES == 16 * 2**20
    assert time.monotonic() - started < HANG_GUARD


@MODES
async def test_a_declared_10_gb_body_is_refused_before_it_is_read(hostile: HostileServer, mode: str) -> None:
    with pytest.raises(ResponseTooLargeError, match="its Content-Length is 10000000000 bytes"):
        await ask(model(hostile, "huge"), mode)


@MODES
@pytest.mark.parametrize("behaviour", ["gzip-bomb", "deflate-bomb", "gzip-gzip-bomb"])
async def test_a_compression_bomb_stops_where_it_inflates_past_the_cap(
    hostile: HostileServer, behaviour: str, mode: str
) -> None:
    with pytest.raises(ResponseTooLargeError, match="it inflates to more than 2097152 bytes"):
        await ask(model(hostile, behaviour, max_response_bytes=2 * 2**20), mode)


@MODES
async def test_a_zstd_bomb_stops_where_it_inflates_past_the_cap(hostile: HostileServer, mode: str) -> None:
    assert accepted_encodings() == "gzip, deflate, zstd"  # the test extra brings zstd (typesafe-sdk[zstd])
    with pytest.raises(ResponseTooLargeError, match="it inflates to more than 2097152 bytes"):
        await ask(model(hostile, "zstd-bomb", max_response_bytes=2 * 2**20), mode)


@MODES
async def test_an_encoding_that_is_not_inflated_here_is_refused_not_passed_on(
    hostile: HostileServer, mode: str
) -> None:
    with pytest.raises(
        TypeSafeError, match=r"encoded as br, which is not inflated here \(accepted: gzip, deflate"
    ):
        await ask(model(hostile, "br"), mode)


@MODES
@pytest.mark.parametrize("behaviour", ["slow-body", "slow-headers"])
async def test_a_trickle_is_cut_off_at_the_request_deadline_not_a_read_timeout(
    hostile: HostileServer, behaviour: str, mode: str
) -> None:
    # one byte every 0.2 s: each read returns well within the 1 s timeout, for minutes
    started = time.monotonic()
    with pytest.raises(TypeSafeAPITimeoutError):
        await ask(model(hostile, behaviour, timeout=1.0), mode)
    assert time.monotonic() - started < 5.0


@MODES
async def test_a_silent_server_still_times_out(hostile: HostileServer, mode: str) -> None:
    with pytest.raises(TypeSafeAPITimeoutError):
        await ask(model(hostile, "silent", timeout=0.5), mode)


# ----------------------------------------------------------------------- the transport on its own


def _gzip(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    return compressor.compress(data) + compressor.flush()


BODY = b'{"model": "jev-latest", "usage": {}, "answers": {"ok": {"type": "noul", "noul": 0.75}}}'


@pytest.mark.parametrize(
    ("encoding", "content"),
    [
        ("identity", BODY),
        ("gzip", _gzip(BODY)),
        ("gzip", _gzip(BODY[:40]) + _gzip(BODY[40:])),  # two gzip members
        ("deflate", zlib.compress(BODY)),
        ("deflate", zlib.compress(BODY)[2:-4]),  # raw deflate, as some servers send it
        ("gzip, gzip", _gzip(_gzip(BODY))),
    ],
    ids=["identity", "gzip", "gzip-members", "deflate", "raw-deflate", "gzip-gzip"],
)
def test_bodies_within_the_cap_arrive_inflated_as_sent(encoding: str, content: bytes) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        assert request.headers["accept-encoding"] == accepted_encodings()
        return httpx2.Response(200, headers={"Content-Encoding": encoding}, content=content)

    transport = BoundedTransport(httpx2.MockTransport(handler), max_bytes=len(BODY) + 64)
    client = TypeSafeClient(api_key=KEY, transport=transport, retry=NO_RETRY)
    jev = JevDecisionModel(client=client, api_key=KEY)
    assert jev.invoke({"state": "x", "questions": QUESTIONS}).nouls["ok"].noul == 0.75


def test_the_cap_counts_inflated_bytes_exactly() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"Content-Encoding": "gzip"}, content=_gzip(b"x" * 1001))

    with httpx2.Client(transport=BoundedTransport(httpx2.MockTransport(handler), max_bytes=1001)) as client:
        assert client.get("http://jev.test/").content == b"x" * 1001
    with (
        httpx2.Client(transport=BoundedTransport(httpx2.MockTransport(handler), max_bytes=1000)) as client,
        pytest.raises(ResponseTooLargeError, match="inflates to more than 1000 bytes"),
    ):
        client.get("http://jev.test/")


async def test_the_async_transport_streams_and_caps_a_body_it_is_handed() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(100):
            yield b" " * 1024

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=chunks())

    transport = AsyncBoundedTransport(httpx2.MockTransport(handler), max_bytes=50 * 1024)
    async with httpx2.AsyncClient(transport=transport) as client:
        with pytest.raises(ResponseTooLargeError, match="more than 51200 bytes were sent"):
            await client.get("http://jev.test/")


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "16"])
def test_a_cap_that_is_not_a_positive_whole_number_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_response_bytes must be a whole number of bytes > 0"):
        BoundedTransport(httpx2.MockTransport(lambda r: httpx2.Response(200)), max_bytes=bad)


@pytest.mark.parametrize("bad", [0, -2.0, float("inf"), float("nan"), "5"])
def test_a_deadline_that_is_not_a_positive_number_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError, match="deadline must be a number of seconds > 0"):
        AsyncBoundedTransport(httpx2.MockTransport(lambda r: httpx2.Response(200)), deadline=bad)


def test_the_default_transport_keeps_the_proxy_the_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    from langchain_jev.models._transport import _proxy_for

    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.test:3128")
    monkeypatch.setenv("NO_PROXY", "internal.test")
    assert _proxy_for("https://api.typesafe.ai") == "http://proxy.test:3128"
    assert _proxy_for("https://jev.internal.test") is None
    assert _proxy_for("http://plain.test") is None
