"""A fake LangSmith API on loopback that records every request a real ``langsmith.Client`` sends.

`fake_langsmith_api` answers ``{}`` to everything unless given an `Answer`;
`rules_api` is the answer of the endpoints that deploying a rule calls: the
projects and datasets looked up by name (``GET /api/v2/sessions``,
``GET /api/v2/datasets``) and the rule created (``POST /api/v1/runs/rules/decision-models``).
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

RULES_PATH = "/api/v1/runs/rules/decision-models"
"""Where a decision-model rule is created."""


@dataclass(frozen=True)
class Posted:
    """One request the fake API received."""

    method: str
    path: str
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        """The body, read as JSON."""
        return json.loads(self.body)


Answer = Callable[[Posted], "tuple[int, Any] | None"]
"""What the fake API answers a request: (status, JSON body), or None for ``200 {}``."""


@contextmanager
def fake_langsmith_api(answer: Answer | None = None) -> Iterator[tuple[str, list[Posted]]]:
    """Serve the fake API; yield its URL and the list of what it receives (answered ``{}`` by default)."""
    posted: list[Posted] = []

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            size = int(self.headers.get("content-length") or 0)
            request = Posted(self.command, self.path, self.rfile.read(size), dict(self.headers.items()))
            posted.append(request)
            status, reply = (answer(request) if answer is not None else None) or (200, {})
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps(reply).encode())

        do_POST = do_PATCH = do_GET = _record

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", posted
    finally:
        server.shutdown()


def rules_api(projects: Mapping[str, str] | None = None, datasets: Mapping[str, str] | None = None) -> Answer:
    """Answer the look-ups of ``projects`` and ``datasets`` (name -> id) and create rules, echoing them.

    A created rule's id is ``rule-<n>``, counted from 1 (see `rule_id`).
    """
    known = {"/api/v2/sessions": dict(projects or {}), "/api/v2/datasets": dict(datasets or {})}
    created = [0]
    lock = threading.Lock()
    stamp = "2026-01-01T00:00:00Z"

    def answer(request: Posted) -> tuple[int, Any] | None:
        parts = urlsplit(request.path)
        if request.method == "GET" and parts.path in known:
            names = parse_qs(parts.query).get("name", [])
            found = [(name, known[parts.path][name]) for name in names if name in known[parts.path]]
            items = [
                {
                    "id": id_,
                    "name": name,
                    "start_time": stamp,
                    "modified_at": stamp,
                    "tenant_id": "t",
                    "type": "PROJECT",
                    "session_count": 0,
                }
                for name, id_ in found
            ]
            return 200, {"items": items, "next_cursor": None}
        if request.method == "POST" and parts.path == RULES_PATH:
            body = request.json()
            with lock:
                created[0] += 1
                number = created[0]
            return 200, {
                "id": rule_id(number),
                "created_at": stamp,
                "updated_at": stamp,
                "display_name": body["display_name"],
                "evaluator_version": 1,
                "sampling_rate": body.get("sampling_rate", 1.0),
                "tenant_id": str(uuid.UUID(int=0)),
                "session_id": body.get("session_id"),
                "dataset_id": body.get("dataset_id"),
            }
        return None

    return answer


def rule_id(number: int) -> str:
    """The id `rules_api` gives the ``number``-th rule it creates."""
    return f"rule-{number}"
