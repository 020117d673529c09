"""Test doubles shared across the test directories.

- `decode` and `MockWire`: the Jev API for the real typesafe-sdk clients over
  ``httpx2.MockTransport``. A wire records every request and its decoded body; a
  subclass says what it answers (`MockWire.respond`), and `system_one` builds the
  usual System One reply. `JevWire` is the scripted wire every test directory
  uses; `noul`, `choice` and `score` build its raw answers.
- `ReplyingChatModel`: a real LangChain chat model that replies from a list and
  records every conversation it was sent; it works inside ``create_agent``.
- `RunRecorder`: a tracer that keeps every finished trace.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx2
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tracers.base import BaseTracer
from langchain_core.tracers.schemas import Run
from pydantic import Field, PrivateAttr
from typesafe_sdk import AsyncTypeSafeClient, RetryPolicy, TypeSafeClient

from langchain_jev.models import JevDecisionModel

# ---------------------------------------------------------------- Jev over MockTransport


def decode(request: httpx2.Request) -> dict[str, Any]:
    """The JSON body the SDK sent (zstd-compressed or not; the ``request`` part of a multipart
    request, which the SDK sends when the state holds images, with each asset's bytes under
    ``"_parts"``)."""
    body = request.content
    if request.headers.get("content-encoding") == "zstd":
        from backports import zstd

        body = zstd.decompress(body)
    kind = request.headers.get("content-type", "")
    if kind.startswith("multipart/form-data"):
        boundary = kind.split("boundary=", 1)[1].encode()
        parts: dict[str, bytes] = {}
        for part in body.split(b"--" + boundary)[1:-1]:
            head, _, content = part[2:-2].partition(b"\r\n\r\n")  # each part sits between CRLFs
            name = head.split(b'name="', 1)[1].split(b'"', 1)[0].decode()
            parts[name] = content
        data: dict[str, Any] = json.loads(parts.pop("request"))
        data["_parts"] = parts
        return data
    data = json.loads(body)
    return data


def system_one(
    body: Mapping[str, Any],
    answers: Mapping[str, Any],
    *,
    input_tokens: int,
    output_tokens: int,
    request_id: str | None = None,
) -> httpx2.Response:
    """A 200 System One reply to the request ``body``, with these raw answers and usage."""
    return httpx2.Response(
        200,
        json={
            "model": body["model"],
            "answers": dict(answers),
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        },
        headers={"x-typesafe-request-id": request_id} if request_id is not None else None,
    )


class MockWire:
    """The Jev API over ``httpx2.MockTransport``: records every request, answers with `respond`."""

    api_key = "sk-test"
    """The key the clients of `model` send."""

    def __init__(self) -> None:
        self.requests: list[httpx2.Request] = []
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def respond(self, body: dict[str, Any], index: int) -> httpx2.Response:
        """The response to the ``index``-th request (from 0), whose decoded body is ``body``."""
        raise NotImplementedError

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = decode(request)
        with self._lock:
            index = len(self.bodies)
            self.requests.append(request)
            self.bodies.append(body)
        return self.respond(body, index)

    async def handle_async(self, request: httpx2.Request) -> httpx2.Response:
        return self(request)

    @property
    def calls(self) -> int:
        return len(self.bodies)

    def model(
        self, mode: str = "both", *, retry: RetryPolicy | None = None, **kwargs: Any
    ) -> JevDecisionModel:
        """Jev over this wire, retries off by default. ``mode`` "sync" or "async" gives it only
        that client, so the other path fails loudly."""
        retry = retry if retry is not None else RetryPolicy(max_retries=0)
        clients: dict[str, Any] = {}
        if mode in ("sync", "both"):
            clients["client"] = TypeSafeClient(
                api_key=self.api_key, transport=httpx2.MockTransport(self), retry=retry
            )
        if mode in ("async", "both"):
            clients["async_client"] = AsyncTypeSafeClient(
                api_key=self.api_key, transport=httpx2.MockTransport(self.handle_async), retry=retry
            )
        return JevDecisionModel(**clients, **kwargs)


API_KEY = "sk-test-0123456789abcdef"


def noul(p: float) -> dict[str, Any]:
    return {"type": "noul", "noul": p}


def choice(label: str, probabilities: Mapping[str, float] | None = None) -> dict[str, Any]:
    probabilities = dict(probabilities or {label: 1.0})
    return {
        "type": "choice",
        "choice": label,
        "probabilities": probabilities,
        "confidence": max(probabilities.values()),
    }


def score(probabilities: Mapping[int, float], levels: list[Any]) -> dict[str, Any]:
    return {
        "type": "score",
        "score": sum(level * p for level, p in probabilities.items()),
        "legend": {str(i): text for i, text in enumerate(levels)},
        "probabilities": {str(k): v for k, v in probabilities.items()},
        "confidence": max(probabilities.values()),
    }


class JevWire(MockWire):
    """System One answered from a script; records every request body (the one Jev wire double).

    ``answers`` maps a question name to its raw answer, or to a function of the
    request body that returns one; a list of such mappings answers successive
    requests in turn (a request past the end gets a 500). Questions the script
    does not name get ``default`` (None: no answer, which the judge reads as a
    missing answer). ``status``, ``body``, ``error`` and ``responder`` replace the
    answer with a failure status, a raw body, a transport error or a function of
    the request body.
    """

    api_key = API_KEY

    def __init__(
        self,
        answers: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        *,
        default: Mapping[str, Any] | None = None,
        status: int = 200,
        body: Any = None,
        error: Exception | None = None,
        responder: Callable[[dict[str, Any]], httpx2.Response] | None = None,
        input_tokens: int = 120,
    ) -> None:
        super().__init__()
        self.script: list[dict[str, Any]] | None = (
            [dict(turn) for turn in answers] if isinstance(answers, Sequence) else None
        )
        self.answers = dict(answers) if isinstance(answers, Mapping) else {}
        self.default = default
        self.status = status
        self.body = body
        self.error = error
        self.responder = responder
        self.input_tokens = input_tokens

    def respond(self, body: dict[str, Any], index: int) -> httpx2.Response:
        if self.error is not None:
            raise self.error
        if self.responder is not None:
            return self.responder(body)
        if self.body is not None:
            content = self.body if isinstance(self.body, (bytes, str)) else json.dumps(self.body)
            return httpx2.Response(self.status, content=content, headers={"content-type": "application/json"})
        if self.status != 200:
            return httpx2.Response(self.status, json={"error": {"message": f"failure {self.status}"}})
        script = self.answers
        if self.script is not None:
            if index >= len(self.script):
                return httpx2.Response(500, json={"error": {"message": "no more scripted answers"}})
            script = self.script[index]
        answers = {}
        for name in body["questions"]:
            answer = script.get(name, self.default)
            if answer is not None:
                answers[name] = answer(body) if callable(answer) else answer
        return system_one(
            body,
            answers,
            input_tokens=self.input_tokens,
            output_tokens=len(answers),
            request_id=f"req_{index + 1}",
        )


# ---------------------------------------------------------------- chat model


class ReplyingChatModel(BaseChatModel):
    """Replies with ``replies`` in turn and records every conversation it was sent.

    A reply is an AIMessage (sent as a copy), a string, or a callable
    ``(messages) -> AIMessage | str``. ``paths`` says whether each call came through
    the sync or the async path. ``bind_tools`` returns the model itself, so it works
    inside ``create_agent``.
    """

    replies: list[Any] = Field(default_factory=list)
    _received: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _paths: list[str] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "replying-test-chat"

    @property
    def received(self) -> list[list[BaseMessage]]:
        """The conversation of every call, in order."""
        return list(self._received)

    @property
    def paths(self) -> list[str]:
        """``"sync"`` or ``"async"`` for every call, in order."""
        return list(self._paths)

    @property
    def calls(self) -> int:
        return len(self._received)

    def _reply(self, messages: list[BaseMessage], path: str) -> ChatResult:
        with self._lock:
            index = len(self._received)
            self._received.append(list(messages))
            self._paths.append(path)
        if index >= len(self.replies):
            raise AssertionError(f"the chat model was called {index + 1} times; scripted {len(self.replies)}")
        reply = self.replies[index]
        if callable(reply):
            reply = reply(list(messages))
        message = AIMessage(content=reply) if isinstance(reply, str) else reply.model_copy()
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._reply(messages, "sync")

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._reply(messages, "async")

    def bind_tools(self, tools: Any, **kwargs: Any) -> ReplyingChatModel:  # type: ignore[override]
        return self


# ---------------------------------------------------------------- tracing


class RunRecorder(BaseTracer):
    """Keeps every finished root run (with its children), as a tracer such as LangSmith's sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.roots: list[Run] = []

    def _persist_run(self, run: Run) -> None:
        self.roots.append(run)

    @property
    def runs(self) -> list[Run]:
        """Every run of every trace, depth first in the order they started."""
        return walk(self.roots)

    def of_type(self, run_type: str) -> list[Run]:
        return [run for run in self.runs if run.run_type == run_type]

    def parents(self, name: str) -> list[str | None]:
        """The name of the parent run of every run called ``name``."""
        runs = self.runs
        by_id = {run.id: run for run in runs}
        found = [
            by_id.get(run.parent_run_id) if run.parent_run_id else None for run in runs if run.name == name
        ]
        return [parent.name if parent is not None else None for parent in found]


def walk(runs: list[Run]) -> list[Run]:
    """Every run of a trace, depth first."""
    found: list[Run] = []
    for run in runs:
        found.append(run)
        found.extend(walk(run.child_runs))
    return found
