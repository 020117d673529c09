"""A Jev wire double: the real typesafe-sdk client over httpx2.MockTransport.

`JevWire` records every request body the SDK sends (as every `tests.fakes.MockWire`
does) and answers with realistic System One bodies, computed per question from a
script (or returns a raw body, a status code, or raises a transport error).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import httpx2

from tests.fakes import MockWire, system_one

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
    """Answers System One requests from a script; records what was sent."""

    api_key = API_KEY

    def __init__(
        self,
        answers: Mapping[str, Any] | None = None,
        *,
        status: int = 200,
        body: Any = None,
        error: Exception | None = None,
        responder: Callable[[dict[str, Any]], httpx2.Response] | None = None,
    ) -> None:
        super().__init__()
        self.answers = dict(answers or {})
        self.status = status
        self.body = body
        self.error = error
        self.responder = responder

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
        answers = {}
        for name in body["questions"]:
            if name in self.answers:
                answer = self.answers[name]
                answers[name] = answer(body) if callable(answer) else answer
        return system_one(
            body, answers, input_tokens=120, output_tokens=len(answers), request_id=f"req_{index + 1}"
        )
