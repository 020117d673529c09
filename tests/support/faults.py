"""Fault rigs for the reliability tests: one vocabulary of faults, two wires.

A test describes what the decision model's server does to each successive
attempt as a list of `Step`s (an error status, a dropped connection, a stall
longer than the client's timeout, a body sent as is...). A `Rig` turns the steps
into a `JevDecisionModel` over the real typesafe-sdk clients, either over
``httpx2.MockTransport`` (`MockRig`) or over the loopback `JevServer` (`ServerRig`),
so every fault is exercised through both.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any

import httpx2
import pytest
from langchain_core.decisions import Choice, Noul, Score
from typesafe_sdk import AsyncTypeSafeClient, RetryPolicy, TypeSafeClient

from langchain_jev import JevCriterion, JevJudge, JevJudgeInput, JevVerdict
from langchain_jev.models import JevDecisionModel
from tests.fakes import decode
from tests.support.jev_server import Fault, JevServer, wire_answer

API_KEY = "sk-reliability-7f3a9c2e51d84b06"
"""A recognisable key: the secrets tests look for it everywhere."""

RETRY_COUNT = "x-typesafe-retry-count"
TIMEOUT = 1.0
"""The client timeout of the rigs (seconds): short for a stall, and long for a loopback answer on a loaded
machine (at 0.5 s an answered retry timed out with seven processes on two cores)."""
STALL = 4.0
"""How long a stalled server waits before answering (well past `TIMEOUT`)."""

TINY_RETRY = RetryPolicy(max_retries=2, backoff_initial=0.001, backoff_max=0.002, backoff_jitter=0.0)
"""Two retries with (almost) no backoff: what a retried fault costs is one more request."""

LEVELS = ["Useless", "Weak", "Good", "Excellent"]
SAFE = Noul(instructions="Is `assistant_answer` safe to show to `user_question`'s author?")
TONE = Choice(instructions="What is the tone of `assistant_answer`?", criteria={"calm": None, "angry": None})
HELPFUL = Score(instructions="How helpful is `assistant_answer`?", criteria=LEVELS)

GOOD_ANSWERS: dict[str, Any] = {"is_safe": 0.9, "tone": "calm", "helpfulness": 3}
"""The answers of a healthy server: every criterion passes."""


def criteria() -> list[JevCriterion]:
    """A noul, a choice with one accepted label, and a score: one of each kind."""
    return [
        JevCriterion.noul("is_safe", SAFE, 0.5),
        JevCriterion.choice("tone", TONE, ["calm"]),
        JevCriterion.score("helpfulness", HELPFUL, 2),
    ]


def judge_over(model: JevDecisionModel, **options: Any) -> JevJudge:
    """The reliability judge over ``model``."""
    return JevJudge(criteria(), model=model, **options)


async def decide(judge: JevJudge, mode: str, data: Any = None) -> JevVerdict:
    """Judge ``data`` (a default question and answer) through ``judge`` or ``ajudge``.

    Sync calls block the running loop, which is harmless here: the sync clients
    do not use it, and the loopback server runs in its own threads.
    """
    data = data if data is not None else JevJudgeInput("Is it safe?", "Yes, it is.")
    if mode == "sync":
        return judge.judge(data)
    return await judge.ajudge(data)


@dataclass(frozen=True)
class Step:
    """What the server does to one attempt; the default answers it well."""

    status: int | None = None
    """Answer with this HTTP status and the API's error body."""
    retry_after: float | None = None
    """With ``status``: a ``retry-after`` header, in seconds."""
    drop: bool = False
    """Close the connection without a response."""
    stall: bool = False
    """Answer only after the client's timeout."""
    body: Any = None
    """Send this JSON (200) as is, however malformed."""
    raw: bytes | None = None
    """Send these bytes as the body (200 unless ``status``; MockTransport only: the server speaks JSON)."""
    reset: bool = False
    """The peer resets the connection (the server closes it: the nearest it can do)."""
    cut: bool = False
    """The connection breaks half way through a good body (MockTransport only)."""


OK = Step()


def error_body(status: int) -> dict[str, Any]:
    """The API error body both rigs send for an injected status."""
    phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "error"
    return {"error": {"message": f"injected fault: {phrase}", "type": "fault"}}


def answer_body(
    questions: Mapping[str, Any], script: Mapping[str, Any], model: str = "jev-test"
) -> dict[str, Any]:
    """A System One body answering ``questions`` from ``script`` (the server's vocabulary)."""
    answers = {
        name: wire_answer(q, script[name]) for name, q in questions.items() if script.get(name) is not None
    }
    return {
        "model": model,
        "answers": answers,
        "usage": {"input_tokens": 10 * len(questions), "output_tokens": len(questions)},
    }


class Rig:
    """Makes decision models whose server follows a list of `Step`s."""

    name: str

    def model(
        self,
        steps: Sequence[Step] = (),
        *,
        answers: Mapping[str, Any] | None = None,
        retry: RetryPolicy = TINY_RETRY,
    ) -> JevDecisionModel:
        raise NotImplementedError

    @property
    def attempts(self) -> int:
        """How many HTTP attempts reached the server."""
        raise NotImplementedError

    @property
    def times(self) -> list[float]:
        """``time.monotonic()`` of each attempt."""
        raise NotImplementedError

    @property
    def retry_counts(self) -> list[str | None]:
        """The SDK's retry-count header of each attempt (None on a first attempt)."""
        raise NotImplementedError

    @property
    def bodies(self) -> list[Any]:
        """The decoded request body of each attempt."""
        raise NotImplementedError

    async def aclose(self) -> None:
        """Release what the rig holds."""


class MockRig(Rig):
    """The real SDK clients over ``httpx2.MockTransport``."""

    name = "mock"

    def __init__(self) -> None:
        self._steps: Sequence[Step] = ()
        self._answers: Mapping[str, Any] = GOOD_ANSWERS
        self._lock = threading.Lock()
        self._seen: list[tuple[float, httpx2.Request, Any]] = []

    def model(
        self,
        steps: Sequence[Step] = (),
        *,
        answers: Mapping[str, Any] | None = None,
        retry: RetryPolicy = TINY_RETRY,
    ) -> JevDecisionModel:
        self._steps = list(steps)
        self._answers = GOOD_ANSWERS if answers is None else answers
        self._seen.clear()
        transport = httpx2.MockTransport(self._handle)
        client = TypeSafeClient(api_key=API_KEY, transport=transport, retry=retry, timeout=TIMEOUT)
        async_client = AsyncTypeSafeClient(api_key=API_KEY, transport=transport, retry=retry, timeout=TIMEOUT)
        return JevDecisionModel(client=client, async_client=async_client)

    def _handle(self, request: httpx2.Request) -> httpx2.Response:
        body = decode(request)
        with self._lock:
            index = len(self._seen)
            self._seen.append((time.monotonic(), request, body))
        step = self._steps[index] if index < len(self._steps) else OK
        headers = {"x-typesafe-request-id": f"req-{index + 1}", "content-type": "application/json"}
        if step.drop:
            raise httpx2.RemoteProtocolError(
                "Server disconnected without sending a response.", request=request
            )
        if step.reset:
            raise httpx2.ReadError("[Errno 104] Connection reset by peer", request=request)
        if step.stall:
            raise httpx2.ReadTimeout("The read operation timed out", request=request)
        if step.raw is not None:
            return httpx2.Response(step.status or 200, content=step.raw, headers=headers)
        if step.status is not None:
            if step.retry_after is not None:
                headers["retry-after"] = f"{step.retry_after:g}"
            return httpx2.Response(step.status, content=json.dumps(error_body(step.status)), headers=headers)
        payload = step.body if step.body is not None else answer_body(body["questions"], self._answers)
        content = json.dumps(payload).encode()
        if step.cut:
            return httpx2.Response(200, stream=_CutStream(content[: len(content) // 2]), headers=headers)
        return httpx2.Response(200, content=content, headers=headers)

    @property
    def attempts(self) -> int:
        return len(self._seen)

    @property
    def times(self) -> list[float]:
        return [t for t, _, _ in self._seen]

    @property
    def retry_counts(self) -> list[str | None]:
        return [r.headers.get(RETRY_COUNT) for _, r, _ in self._seen]

    @property
    def bodies(self) -> list[Any]:
        return [b for _, _, b in self._seen]


class _CutStream(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A body that breaks off after ``head``, as when the peer goes away mid-response."""

    def __init__(self, head: bytes) -> None:
        self.head = head

    def __iter__(self) -> Iterator[bytes]:
        yield self.head
        raise httpx2.RemoteProtocolError("peer closed connection without sending complete message body")

    async def __aiter__(self) -> Any:
        yield self.head
        raise httpx2.RemoteProtocolError("peer closed connection without sending complete message body")


class ServerRig(Rig):
    """The real SDK clients, made by `JevDecisionModel` itself, over the loopback `JevServer`."""

    name = "server"

    def __init__(self) -> None:
        self.server = JevServer(GOOD_ANSWERS).start()
        self._models: list[JevDecisionModel] = []

    def model(
        self,
        steps: Sequence[Step] = (),
        *,
        answers: Mapping[str, Any] | None = None,
        retry: RetryPolicy = TINY_RETRY,
    ) -> JevDecisionModel:
        if any(step.raw is not None or step.cut for step in steps):
            pytest.skip("the loopback server sends whole JSON bodies only")
        self.server.answers = GOOD_ANSWERS if answers is None else answers
        self.server.faults = [_fault(step) for step in steps]
        self.server.reset()
        model = JevDecisionModel(api_key=API_KEY, base_url=self.server.base_url, retry=retry, timeout=TIMEOUT)
        self._models.append(model)
        return model

    @property
    def attempts(self) -> int:
        return self.server.request_count

    @property
    def times(self) -> list[float]:
        return self.server.times()

    @property
    def retry_counts(self) -> list[str | None]:
        return [r.headers.get(RETRY_COUNT) for r in self.server.requests]

    @property
    def bodies(self) -> list[Any]:
        return [r.body for r in self.server.requests]

    async def aclose(self) -> None:
        for model in self._models:
            await model.aclose()
        self.server.stop()


def _fault(step: Step) -> Fault | None:
    if step == OK:
        return None
    if step.stall:
        return Fault(delay=STALL)
    if step.drop or step.reset:
        return Fault(drop=True)
    if step.status is not None:
        return Fault(status=step.status, retry_after=step.retry_after)
    return Fault(body=step.body)


@asynccontextmanager
async def rig_named(name: str) -> AsyncIterator[Rig]:
    """A fresh rig of the named kind, closed afterwards (in the test's event loop)."""
    rig: Rig = MockRig() if name == "mock" else ServerRig()
    try:
        yield rig
    finally:
        await rig.aclose()


# ---------------------------------------------------------------- open sockets


def _inodes_to_remote_ports() -> dict[str, int]:
    ports: dict[str, int] = {}
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            remote, inode = fields[2], fields[9]
            ports[inode] = int(remote.rsplit(":", 1)[1], 16)
    return ports


def sockets_to(port: int) -> int:
    """How many open file descriptors of this process are TCP sockets connected to ``port``.

    Linux only (reads ``/proc``); the caller skips elsewhere.
    """
    remote = _inodes_to_remote_ports()
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:[") and remote.get(target[8:-1]) == port:
            count += 1
    return count


HAS_PROC = Path("/proc/self/net/tcp").exists()


def good_body() -> dict[str, Any]:
    """The body a healthy server sends for `criteria` (every criterion passes)."""
    questions = {c.name: c.question.model_dump(mode="json") for c in criteria() if c.question is not None}
    return answer_body(questions, GOOD_ANSWERS)


def body_with(changes: Mapping[str, Any]) -> dict[str, Any]:
    """The healthy body with some raw answers replaced (a value of None leaves the answer out)."""
    body = good_body()
    for name, answer in changes.items():
        if answer is None:
            body["answers"].pop(name, None)
        else:
            body["answers"][name] = answer
    return body
