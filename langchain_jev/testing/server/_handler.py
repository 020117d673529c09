"""The scripted server's HTTP side: a request (`Received`), what is done to it (`Fault`), and its handler.

- `Config`: the settings and the record of requests a server and its handler threads share
  (under its lock);
- `Server`, `Handler`: a threading HTTP server that never shares its port, and the handler of
  ``POST /v1/systemone`` (answered by the script, `langchain_jev.testing.server._script`) and
  ``GET /v1/models``: each request is recorded, faulted when a `Fault` says so, checked (key,
  path, encoding, body) and answered;
- `zstd_decompress`: the zstd decoder of ``Content-Encoding: zstd`` bodies, when Python has one.

A question the script does not name is said once (`say_once`), as a warning of the
``langchain_jev.testing.server`` logger unless the command line says it on stderr.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from langchain_jev.models import _unique_json as unique_json
from langchain_jev.testing.server._script import Answerer, Unscripted, answers_for

__all__ = [
    "MODELS_PATH",
    "REQUEST_ID_HEADER",
    "SYSTEM_ONE_PATH",
    "Config",
    "Fault",
    "FaultPlan",
    "Handler",
    "Received",
    "Server",
    "say_once",
    "zstd_decompress",
]

LOGGER = "langchain_jev.testing.server"
"""The logger a question nobody scripted is said on (the face's name, where users look for it)."""

SYSTEM_ONE_PATH = "/v1/systemone"
MODELS_PATH = "/v1/models"
REQUEST_ID_HEADER = "x-typesafe-request-id"


FaultPlan = Callable[["Received"], "Fault | None"]
"""A function choosing the fault of each request (None: answer it)."""


def _zstd() -> Callable[[bytes], bytes] | None:
    try:
        from compression.zstd import decompress  # type: ignore[import-not-found]
    except ImportError:
        try:
            from backports.zstd import decompress  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:
            return None
    return decompress  # type: ignore[no-any-return]


zstd_decompress = _zstd()
"""The zstd decompressor the server uses, or None when Python has none."""


@dataclass(frozen=True)
class Fault:
    """What to do to one request instead of (or before) answering it.

    ``status``: answer with this HTTP status and an API error body.
    ``drop``: close the connection without a response (a network failure).
    ``delay``: seconds to wait first (added to the server's delay).
    ``retry_after``: seconds for a ``retry-after`` header (with ``status``).
    ``body``: with status 200 (the default when only ``body`` is given), send this JSON as is;
    ``bytes`` are sent as they are (a body JSON cannot be made to say, such as a key given twice).
    """

    status: int | None = None
    drop: bool = False
    delay: float = 0.0
    retry_after: float | None = None
    body: Any = None


@dataclass(frozen=True)
class Received:
    """One request the server received."""

    number: int
    """Arrival order, from 1."""
    time: float
    """``time.monotonic()`` when the request was read."""
    method: str
    path: str
    headers: dict[str, str]
    body: Any = None
    """The decoded JSON body (None when there was none or it was not JSON)."""

    @property
    def state(self) -> Any:
        """The request's ``state``."""
        return self.body.get("state") if isinstance(self.body, dict) else None

    @property
    def questions(self) -> dict[str, Any]:
        """The request's ``questions`` by name."""
        value = self.body.get("questions") if isinstance(self.body, dict) else None
        return value if isinstance(value, dict) else {}

    @property
    def model(self) -> str | None:
        """The model the request asked for."""
        value = self.body.get("model") if isinstance(self.body, dict) else None
        return value if isinstance(value, str) else None


@dataclass
class Config:
    """The settings and the record of requests a server and its handler threads share."""

    answers: Mapping[str, Any] | Answerer
    delay: float
    faults: Sequence[Fault | None] | FaultPlan | None
    marker_field: str
    model: str | None
    api_key: str | None = field(repr=False)
    keep_bodies: bool
    default_noul: float | None = None
    max_requests: int | None = None
    say: Callable[[str], None] | None = None
    """Where a question the script does not name is said, once (a logger's warning unless given)."""
    command: bool = False
    """Whether the command line runs the server (its messages then name its flags)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    said: set[str] = field(default_factory=set)
    received: deque[Received] = field(default_factory=deque)
    count: int = 0
    in_flight: int = 0
    peak_in_flight: int = 0


class Server(ThreadingHTTPServer):
    """A threading HTTP server that never shares its port (see `allow_reuse_port`)."""

    daemon_threads = True
    request_queue_size = 1024  # many clients connect at once under load
    # Never share a port with another listener: a client pointed at this port must reach this server.
    # (SO_REUSEADDR stays on, as for any HTTP server: on Linux it refuses a port another socket
    # listens on, and lets a restart take a port whose old connections are still closing.)
    allow_reuse_port = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up is no news in a test; stay quiet."""


class Handler(BaseHTTPRequestHandler):
    """Answers one connection's requests from its `Config` (bound on a subclass per server)."""

    config: Config
    protocol_version = "HTTP/1.1"
    server_version = "JevTestServer/1"
    # Headers and body go out in two writes; with Nagle's algorithm the body would
    # wait for the client's delayed ACK (some 40 ms) on every response.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def do_GET(self) -> None:
        received = self._receive(None)
        if self._faulted(received):
            return
        if self.path.split("?")[0] != MODELS_PATH:
            self._error(HTTPStatus.NOT_FOUND, f"no such path: {self.path}")
            return
        name = self.config.model or "jev-test"
        self._json(200, {"models": [{"name": name, "description": "test", "release_date": "2025-01-01"}]})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body, problem = self._decode(raw)
        received = self._receive(body)
        try:
            self._answer(received, problem)
        except Exception as error:  # a bug in a script: answer 500 rather than hang up
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"test server: {type(error).__name__}: {error}")
        finally:
            with self.config.lock:
                self.config.in_flight -= 1

    def _answer(self, received: Received, problem: tuple[int, str] | None) -> None:
        if self._faulted(received):
            return
        if not self._authorised():
            self._error(HTTPStatus.UNAUTHORIZED, "invalid API key")
            return
        if self.path.split("?")[0] != SYSTEM_ONE_PATH:
            self._error(HTTPStatus.NOT_FOUND, f"no such path: {self.path}")
            return
        if problem is not None:
            self._error(problem[0], problem[1])
            return
        if not isinstance(received.body, dict) or "state" not in received.body:
            self._error(HTTPStatus.UNPROCESSABLE_ENTITY, "body must be an object with state and questions")
            return
        questions = received.questions
        if not questions:
            self._error(HTTPStatus.UNPROCESSABLE_ENTITY, "questions must be a non-empty object")
            return
        if self.config.delay > 0:
            time.sleep(self.config.delay)
        config = self.config
        try:
            answers = answers_for(
                config.answers,
                received.state,
                questions,
                default_noul=config.default_noul,
                command=config.command,
                say_once=functools.partial(say_once, config),
            )
        except Unscripted as unscripted:
            self._error(HTTPStatus.UNPROCESSABLE_ENTITY, str(unscripted))
            return
        state = received.state
        marker = state.get(self.config.marker_field) if isinstance(state, dict) else None
        request_id = str(marker) if marker is not None else f"req-{received.number}"
        payload = {
            "model": self.config.model or received.model or "jev-test",
            "answers": answers,
            "usage": {"input_tokens": 10 * len(questions), "output_tokens": len(questions)},
        }
        self._json(200, payload, {REQUEST_ID_HEADER: request_id})

    # ---------------------------------------------------------------- helpers

    def _receive(self, body: Any) -> Received:
        config = self.config
        with config.lock:
            config.count += 1
            config.in_flight += 1 if self.command == "POST" else 0
            config.peak_in_flight = max(config.peak_in_flight, config.in_flight)
            received = Received(
                config.count,
                time.monotonic(),
                self.command,
                self.path.split("?")[0],
                {k.lower(): v for k, v in self.headers.items() if k.lower() != "authorization"},
                body,
            )
            kept = received
            if not config.keep_bodies:  # a light record: the marker and question names, no headers
                light = _light(body, config) if isinstance(body, dict) else None
                kept = replace(received, headers={}, body=light)
            config.received.append(kept)
        return received

    def _decode(self, raw: bytes) -> tuple[Any, tuple[int, str] | None]:
        encoding = (self.headers.get("Content-Encoding") or "").strip().lower()
        if encoding == "zstd":
            if zstd_decompress is None:
                return None, (415, "zstd bodies need a zstd module; send compression=False")
            raw = zstd_decompress(raw)
        elif encoding not in ("", "identity"):
            return None, (415, f"unsupported Content-Encoding {encoding!r}")
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        if raw and content_type != "application/json":
            return None, (415, f"expected application/json, got {content_type!r}")
        if not raw:
            return None, None
        try:
            return unique_json.loads_refusing(raw), None
        except unique_json.RepeatedKeyError as error:  # Jev would not pick one of two values either
            return None, (400, f"body is ambiguous: {error}")
        except ValueError as error:
            return None, (400, f"body is not JSON: {error}")

    def _authorised(self) -> bool:
        header = self.headers.get("Authorization") or ""
        scheme, _, key = header.partition(" ")
        if scheme != "Bearer" or not key.strip():
            return False
        return self.config.api_key is None or key == self.config.api_key

    def _faulted(self, received: Received) -> bool:
        fault = _fault_for(self.config.faults, received)
        if fault is None:
            return False
        if fault.delay > 0:
            time.sleep(fault.delay)
        if fault.drop:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return True
        if fault.status is None and fault.body is None:
            return False
        status = fault.status or 200
        headers = {REQUEST_ID_HEADER: f"req-{received.number}"}
        if fault.retry_after is not None:
            headers["retry-after"] = f"{fault.retry_after:g}"
        if isinstance(fault.body, (bytes, bytearray)):
            self._send(status, bytes(fault.body), headers)
        elif fault.body is not None:
            self._json(status, fault.body, headers)
        else:
            phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "error"
            self._json(status, {"error": {"message": f"injected fault: {phrase}", "type": "fault"}}, headers)
        return True

    def _error(self, status: int, message: str) -> None:
        self._json(int(status), {"error": {"message": message, "type": "invalid_request"}})

    def _json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
        self._send(status, json.dumps(payload).encode(), headers)

    def _send(self, status: int, data: bytes, headers: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _light(body: dict[str, Any], config: Config) -> dict[str, Any]:
    """Keep only the marker and question names of a body."""
    state = body.get("state")
    marker = state.get(config.marker_field) if isinstance(state, dict) else None
    light_state = {config.marker_field: marker} if marker is not None else {}
    return {"state": light_state, "questions": dict.fromkeys(body.get("questions") or {})}


def _fault_for(faults: Sequence[Fault | None] | FaultPlan | None, received: Received) -> Fault | None:
    if faults is None:
        return None
    if callable(faults):
        return faults(received)
    index = received.number - 1
    return faults[index] if index < len(faults) else None


def say_once(config: Config, name: str, message: str) -> None:
    """Say ``message`` about question ``name`` unless it was said (on ``config.say``, else the logger)."""
    with config.lock:
        if name in config.said:
            return
        config.said.add(name)
    if config.say is not None:
        config.say(message)
    else:
        logging.getLogger(LOGGER).warning("scripted Jev server: %s", message)
