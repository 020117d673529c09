"""The OpenAI Decisions API (``POST /v1/decisions``) on a loopback port, answering as the Jev test server does.

`DecisionsServer` takes the script `langchain_jev.testing.server.JevServer` takes (a mapping of question
name to entry, or a callable ``(state, questions) -> {name: entry}``), turns each entry into the answer
Jev would give (`wire_answer`) and writes it in the Decisions API's form: a ``noul`` as a ``predicate``'s
probability, a ``score`` or ``choice`` distribution as its list of values and probabilities. So a judge on
OpenAI Decisions and a judge on Jev, scripted alike, are given the same probabilities. The state is the
JSON text ``OpenAIDecisions`` sends as its input (the request's input otherwise, under ``input``).
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

from langchain_jev.testing.server import wire_answer

__all__ = ["DecisionsServer", "decisions_answers"]

Script = Mapping[str, Any] | Callable[[Mapping[str, Any], Mapping[str, Any]], Mapping[str, Any]]


def _state(body: Mapping[str, Any]) -> dict[str, Any]:
    messages = [m for m in body.get("input") or [] if isinstance(m, dict)]
    for message in messages:
        for part in message.get("content") or []:
            if isinstance(part, dict) and part.get("type") == "input_text":
                try:
                    state = json.loads(part["text"])
                except ValueError:
                    continue
                if isinstance(state, dict):
                    return state
    return {"input": body.get("input")}


def _as_jev(question: Mapping[str, Any]) -> dict[str, Any]:
    """A Decisions API question as the Jev question it was asked for."""
    kind = question["type"]
    if kind == "predicate":
        return {"type": "noul"}
    if kind == "score":
        return {"type": "score", "criteria": [level["label"] for level in question["levels"]]}
    return {"type": "choice", "criteria": {c["value"]: c.get("description") for c in question["choices"]}}


def _as_decisions(name: str, question: Mapping[str, Any], answer: Mapping[str, Any]) -> dict[str, Any]:
    """Jev's raw answer in the Decisions API's form."""
    if answer["type"] == "noul":
        return {"type": "predicate", "name": name, "probability": answer["noul"]}
    listed = answer["probabilities"]
    if answer["type"] == "score":
        labels = [level["label"] for level in question["levels"]]
        probabilities = [
            {"value": int(level), "label": labels[int(level)], "probability": p}
            for level, p in listed.items()
        ]
    else:
        probabilities = [{"value": label, "probability": p} for label, p in listed.items()]
    kept = {key: answer[key] for key in ("choice", "score", "confidence") if key in answer}
    return {"type": answer["type"], "name": name, **kept, "probabilities": probabilities}


def decisions_answers(body: Mapping[str, Any], script: Script) -> list[dict[str, Any]]:
    """The answers to a Decisions API request body, from a `JevServer` script."""
    questions = {q["name"]: q for q in body["questions"]}
    entries = script(_state(body), questions) if callable(script) else script
    return [
        _as_decisions(name, question, wire_answer(_as_jev(question), entries[name]))
        for name, question in questions.items()
    ]


class DecisionsServer:
    """The Decisions API on 127.0.0.1 and a free port; a context manager. Records every request body."""

    def __init__(self, script: Script) -> None:
        received: list[dict[str, Any]] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                received.append(body)
                answers = decisions_answers(body, script)
                data = json.dumps({"model": body["model"], "answers": answers}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.received = received
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> DecisionsServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def base_url(self) -> str:
        """The API's base URL (``OPENAI_API_BASE``, or ``OpenAIDecisions(base_url=...)``)."""
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"
