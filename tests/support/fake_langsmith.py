"""A fake LangSmith API on loopback that records every request a real ``langsmith.Client`` sends.

`fake_langsmith_api` answers ``{}`` to everything unless given an `Answer`;
`rules_api` is the answer of the endpoints that deploying a rule calls: the
projects and datasets looked up by name (``GET /api/v2/sessions``,
``GET /api/v2/datasets``) and the rule created (``POST /api/v1/runs/rules/decision-models``).
"""

from __future__ import annotations

import datetime
import json
import threading
import time
import urllib.parse
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


# ---------------------------------------------------------------------- a project with traced runs


@dataclass
class Recorded:
    """One request the fake project API received: what was asked, when, and how it was answered."""

    method: str
    path: str
    body: bytes
    status: int
    at: float

    def json(self) -> Any:
        """The request body as JSON (None when there is none)."""
        return json.loads(self.body) if self.body else None


@dataclass
class FakeProject:
    """A LangSmith API holding one project's runs, served on loopback, recording every request.

    It answers what ``langsmith.Client`` calls to monitor a project: ``GET /info``,
    ``GET /sessions?name=`` (the project), ``POST /api/v2/runs/query`` (the
    window, ``is_root``, ``ids``, ``selects`` and cursor pages, as the real API:
    only ``id`` unless ``selects`` asks for more), ``GET
    /api/v2/threads/{id}/traces`` and ``POST /feedback``, which keeps each feedback
    id once and answers 409 when an id comes again. ``refuse(status, headers,
    times)`` answers the next feedback requests with an error (a 429 with
    ``Retry-After``, a 500).
    """

    name: str = "prod-chat"
    project_id: str = "7f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
    runs: list[dict[str, Any]] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    feedback: dict[str, dict[str, Any]] = field(default_factory=dict)
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)
    _refusals: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    delay: float = 0.0

    def add_run(
        self,
        *,
        start: datetime.datetime,
        inputs: dict[str, Any],
        outputs: dict[str, Any] | None,
        run_id: str | None = None,
        thread_id: str | None = None,
        ended: bool = True,
        parent: str | None = None,
    ) -> str:
        """Add a traced run (a root run unless ``parent``); return its id."""
        run_id = run_id or str(uuid.uuid4())
        self.runs.append(
            {
                "id": run_id,
                "name": "chat",
                "run_type": "CHAIN",
                "status": "SUCCESS" if ended else "PENDING",
                "start_time": start.isoformat(),
                "end_time": (start + datetime.timedelta(seconds=1)).isoformat() if ended else None,
                "inputs": inputs,
                "outputs": outputs,
                "trace_id": parent or run_id,
                "project_id": self.project_id,
                "thread_id": thread_id,
                "is_root": parent is None,
                "extra": {"metadata": {"thread_id": thread_id}} if thread_id else {},
            }
        )
        return run_id

    def refuse(self, status: int, headers: dict[str, str] | None = None, times: int = 1) -> None:
        """Answer the next ``times`` feedback requests with ``status`` (and ``headers``), keeping nothing."""
        with self.lock:
            self._refusals.extend([(status, dict(headers or {}))] * times)

    def feedback_posts(self) -> list[Recorded]:
        """Every ``POST /feedback`` received, answered or refused."""
        return [r for r in self.requests if r.method == "POST" and r.path.startswith("/feedback")]

    def queries(self) -> list[dict[str, Any]]:
        """The body of every ``POST /api/v2/runs/query``."""
        return [r.json() for r in self.requests if r.path.startswith("/api/v2/runs/query")]

    # ------------------------------------------------------------ answering

    def answer(self, method: str, path: str, body: bytes) -> tuple[int, dict[str, str], Any]:
        parts = urllib.parse.urlsplit(path)
        query = urllib.parse.parse_qs(parts.query)
        route = parts.path
        if route == "/info":
            return 200, {}, {"version": "0.16.40", "instance_flags": {}, "batch_ingest_config": {}}
        if route == "/sessions":
            if query.get("name", [None])[0] != self.name:
                return 200, {}, []
            return 200, {}, [{"id": self.project_id, "name": self.name, "tenant_id": str(uuid.UUID(int=1)),
                              "start_time": "2025-01-01T00:00:00+00:00", "reference_dataset_id": None}]  # fmt: skip
        if route == "/api/v2/runs/query" and method == "POST":
            return 200, {}, self._query(json.loads(body or b"{}"))
        if route.startswith("/api/v2/threads/") and route.endswith("/traces"):
            thread_id = urllib.parse.unquote(route.split("/")[4])
            return 200, {}, self._thread(thread_id, query)
        if route == "/feedback" and method == "POST":
            return self._feedback(json.loads(body or b"{}"))
        return 404, {}, {"detail": f"no route {method} {route}"}

    def _query(self, body: dict[str, Any]) -> dict[str, Any]:
        lo = _moment(body.get("min_start_time")) or datetime.datetime.now(datetime.UTC) - datetime.timedelta(
            days=1
        )
        hi = _moment(body.get("max_start_time")) or datetime.datetime.now(datetime.UTC)
        ids = set(body.get("ids") or ())
        matched = [
            run
            for run in self.runs
            if run["project_id"] in (body.get("project_ids") or ())
            and lo <= _moment(run["start_time"]) <= hi  # type: ignore[operator]
            and (not ids or run["id"] in ids)
            and (body.get("is_root") is None or run["is_root"] == body["is_root"])
        ]
        matched.sort(key=lambda run: run["start_time"], reverse=True)  # newest first, as LangSmith lists them
        offset = int(body.get("cursor") or 0)
        size = int(body.get("page_size") or 100)
        page = matched[offset : offset + size]
        selects = [name.lower() for name in body.get("selects") or ["ID"]]
        items = [{key: run.get(key) for key in ["id", *selects] if key in run} for run in page]
        more = offset + size < len(matched)
        return {"items": items, "next_cursor": str(offset + size) if more else None}

    def _thread(self, thread_id: str, query: dict[str, list[str]]) -> dict[str, Any]:
        turns = [r for r in self.runs if r["thread_id"] == thread_id and r["is_root"]]
        turns.sort(key=lambda run: run["start_time"])
        selects = [name.lower() for name in query.get("selects", [])]
        items = [
            {key: run.get(key if key != "trace_id" else "id") for key in ["trace_id", *selects]}
            for run in turns
        ]
        return {"items": items, "next_cursor": None}

    def _feedback(self, body: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
        with self.lock:
            if self._refusals:
                status, headers = self._refusals.pop(0)
                return status, headers, {"detail": "refused"}
            if body.get("id") in self.feedback:
                return 409, {}, {"detail": "feedback already exists"}
            self.feedback[body["id"]] = body
        return 200, {}, body


@contextmanager
def fake_project(project: FakeProject | None = None) -> Iterator[FakeProject]:
    """Serve ``project`` (a new `FakeProject` when None) on loopback; its ``url`` is the API's address."""
    served = project or FakeProject()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        wbufsize = 1 << 16  # the head and the body leave in one write (flushed after each request)
        disable_nagle_algorithm = True  # no 40 ms wait on loopback for the client's delayed ACK

        def _answer(self) -> None:
            size = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(size)
            if served.delay:
                time.sleep(served.delay)
            status, headers, payload = served.answer(self.command, self.path, body)
            data = json.dumps(payload).encode()
            with served.lock:
                served.requests.append(Recorded(self.command, self.path, body, status, time.monotonic()))
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_POST = do_PATCH = do_GET = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    served.url = f"http://127.0.0.1:{server.server_port}"
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()


def _moment(text: Any) -> datetime.datetime | None:
    if not text:
        return None
    moment = datetime.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)
