"""A Jev wire double: the real typesafe-sdk client over httpx2.MockTransport.

`JevWire` records every request body the SDK sends and answers with realistic
System One bodies, computed per question from a script (or returns a raw body,
a status code, or raises a transport error).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

import httpx2
from typesafe_sdk import AsyncTypeSafeClient, RetryPolicy, TypeSafeClient

from langchain_jev import JevDecisionModel

API_KEY = "sk-test-0123456789abcdef"


def decode(request: httpx2.Request) -> dict[str, Any]:
    body = request.content
    if request.headers.get("content-encoding") == "zstd":
        from backports import zstd

        body = zstd.decompress(body)
    return json.loads(body)


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


class JevWire:
    """Answers System One requests from a script; records what was sent."""

    def __init__(
        self,
        answers: Mapping[str, Any] | None = None,
        *,
        status: int = 200,
        body: Any = None,
        error: Exception | None = None,
        responder: Callable[[dict[str, Any]], httpx2.Response] | None = None,
    ) -> None:
        self.answers = dict(answers or {})
        self.status = status
        self.body = body
        self.error = error
        self.responder = responder
        self.requests: list[httpx2.Request] = []
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = decode(request)
        with self._lock:
            self.requests.append(request)
            self.bodies.append(body)
        if self.error is not None:
            raise self.error
        if self.responder is not None:
            return self.responder(body)
        if self.body is not None:
            content = self.body if isinstance(self.body, (bytes, str)) else json.dumps(self.body)
            return httpx2.Response(self.status, content=content, headers={"content-type": "application/json"})
        if self.status != 200:
            return httpx2.Response(self.status, json={"error": {"message": f"failure {self.status}"}})
        answers = {}
        for name in body["questions"]:
            if name in self.answers:
                answer = self.answers[name]
                answers[name] = answer(body) if callable(answer) else answer
        return httpx2.Response(
            200,
            json={
                "model": body["model"],
                "answers": answers,
                "usage": {"input_tokens": 120, "output_tokens": len(answers)},
            },
            headers={"x-typesafe-request-id": f"req_{len(self.bodies)}"},
        )

    async def handle_async(self, request: httpx2.Request) -> httpx2.Response:
        return self(request)

    @property
    def calls(self) -> int:
        return len(self.bodies)

    def model(self, **kwargs: Any) -> JevDecisionModel:
        retry = kwargs.pop("retry", RetryPolicy(max_retries=0))
        client = TypeSafeClient(api_key=API_KEY, transport=httpx2.MockTransport(self), retry=retry)
        async_client = AsyncTypeSafeClient(
            api_key=API_KEY, transport=httpx2.MockTransport(self.handle_async), retry=retry
        )
        return JevDecisionModel(client=client, async_client=async_client, **kwargs)
