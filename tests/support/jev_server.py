"""A loopback Jev-compatible HTTP server for tests and benchmarks (standard library only).

It speaks enough of the TypeSafe API for the real typesafe-sdk clients (and so
``JevDecisionModel`` and the ``langchain-jev`` command line with ``--base-url``):

- ``POST /v1/systemone`` with ``{"state", "questions", "model"}`` answers every
  question, from a script or a default, after a configurable delay;
- ``GET /v1/models`` lists one model;
- request bodies sent with ``Content-Encoding: zstd`` are decoded when a zstd
  module exists (``compression.zstd`` on Python 3.14+, ``backports.zstd``), and
  refused with 415 otherwise (build clients with ``compression=False`` then);
- the API key is checked for shape only (``Authorization: Bearer <key>``), or
  against ``api_key=`` when given.

Every request is recorded (`Received`: arrival order and time, headers, body),
so a test can count requests or check their spacing. Faults can be injected per
request (an HTTP status with the API's error body, a dropped connection, extra
delay, a raw body). A *marker* field of the state (``marker`` by default) is
echoed as the response's request id (``x-typesafe-request-id``), so a load test
can check that each answer belongs to its input.

Usage:

    with JevServer({"polite": 0.92, "mode": "answered"}, delay=0.1) as server:
        client = TypeSafeClient(api_key="sk-test", base_url=server.base_url)
        ...
        assert server.request_count == 1

Script entries (per question name; ``answers`` may instead be a callable
``(state, questions) -> {name: entry}`` computed per request):

- a number: a noul's probability of yes, or a score's expected value;
- a string: a choice's label (probability 0.9 on it);
- ``{label_or_level: probability}``: a choice's or score's distribution;
- a mapping with a ``"type"``: the wire answer, sent as is (even when malformed);
- ``None``: leave the answer out of the response;
- a callable ``(state, question) -> entry``.

Questions the script does not name get a default: a noul 0.9, a score its top
level, a choice its first label.

Run ``python -m tests.support.jev_server --delay 0.1`` to serve on a free port
until interrupted (the URL is printed).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Fault", "JevServer", "Received", "zstd_decompress"]

SYSTEM_ONE_PATH = "/v1/systemone"
MODELS_PATH = "/v1/models"
REQUEST_ID_HEADER = "x-typesafe-request-id"

Answerer = Callable[[Any, Mapping[str, Any]], Mapping[str, Any]]
FaultPlan = Callable[["Received"], "Fault | None"]


def _zstd() -> Callable[[bytes], bytes] | None:
    try:
        from compression.zstd import decompress  # type: ignore[import-not-found]
    except ImportError:
        try:
            from backports.zstd import decompress  # type: ignore[import-not-found,no-redef]
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
    ``body``: with status 200 (the default when only ``body`` is given), send this JSON as is.
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
class _Config:
    answers: Mapping[str, Any] | Answerer
    delay: float
    faults: Sequence[Fault | None] | FaultPlan | None
    marker_field: str
    model: str | None
    api_key: str | None
    keep_bodies: bool
    lock: threading.Lock = field(default_factory=threading.Lock)
    received: list[Received] = field(default_factory=list)
    count: int = 0
    in_flight: int = 0
    peak_in_flight: int = 0


class JevServer:
    """A Jev-compatible server on 127.0.0.1 and a free port; a context manager.

    Args:
        answers: a script ``{question name: entry}`` or a callable
            ``(state, questions) -> {name: entry}`` (see the module docstring).
        delay: seconds to wait before answering each request (threads wait in parallel).
        faults: per-request faults, by arrival order (a list whose entries may be
            None), or a callable ``(Received) -> Fault | None``.
        marker_field: the state field echoed as the response's request id.
        model: the model name to report (default: the one the request asked for).
        api_key: when given, other keys get 401.
        keep_bodies: record request bodies (turn off for very long runs).

    Example:
        >>> import httpx2
        >>> with JevServer({"ok": 0.8}) as server:
        ...     reply = httpx2.post(server.base_url + "/v1/systemone",
        ...         headers={"Authorization": "Bearer sk-test"},
        ...         json={"state": {"marker": "row-1"}, "questions": {"ok": {"type": "noul",
        ...               "instructions": "Ok?"}}})
        >>> reply.json()["answers"]["ok"], reply.headers["x-typesafe-request-id"]
        ({'type': 'noul', 'noul': 0.8}, 'row-1')
    """

    def __init__(
        self,
        answers: Mapping[str, Any] | Answerer | None = None,
        *,
        delay: float = 0.0,
        faults: Sequence[Fault | None] | FaultPlan | None = None,
        marker_field: str = "marker",
        model: str | None = None,
        api_key: str | None = None,
        keep_bodies: bool = True,
    ) -> None:
        self._config = _Config(
            answers if answers is not None else {},
            delay,
            faults,
            marker_field,
            model,
            api_key,
            keep_bodies,
        )
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> JevServer:
        """Start serving in a background thread; returns self."""
        if self._server is not None:
            return self
        handler = type("_BoundHandler", (_Handler,), {"config": self._config})
        server = _Server(("127.0.0.1", 0), handler)
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> JevServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # ---------------------------------------------------------------- settings

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``: pass it as ``base_url`` / ``--base-url``."""
        if self._server is None:
            raise RuntimeError("the server is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def delay(self) -> float:
        """Seconds to wait before answering."""
        return self._config.delay

    @delay.setter
    def delay(self, value: float) -> None:
        self._config.delay = value

    @property
    def answers(self) -> Mapping[str, Any] | Answerer:
        """The script (or answering function)."""
        return self._config.answers

    @answers.setter
    def answers(self, value: Mapping[str, Any] | Answerer) -> None:
        self._config.answers = value

    @property
    def faults(self) -> Sequence[Fault | None] | FaultPlan | None:
        """Faults by arrival order, or a function choosing them."""
        return self._config.faults

    @faults.setter
    def faults(self, value: Sequence[Fault | None] | FaultPlan | None) -> None:
        self._config.faults = value

    # ---------------------------------------------------------------- observations

    @property
    def requests(self) -> list[Received]:
        """The requests received so far (a copy), in arrival order."""
        with self._config.lock:
            return list(self._config.received)

    @property
    def request_count(self) -> int:
        """How many requests arrived (every path, faults included)."""
        with self._config.lock:
            return self._config.count

    @property
    def peak_in_flight(self) -> int:
        """The most requests being handled at once."""
        with self._config.lock:
            return self._config.peak_in_flight

    def times(self, path: str = SYSTEM_ONE_PATH) -> list[float]:
        """Arrival times (``time.monotonic()``) of the requests to ``path``."""
        return [r.time for r in self.requests if r.path == path]

    def markers(self) -> list[str]:
        """The marker of every System One request that carried one, in arrival order."""
        field_name = self._config.marker_field
        return [
            str(r.state[field_name])
            for r in self.requests
            if isinstance(r.state, dict) and field_name in r.state
        ]

    def reset(self) -> None:
        """Forget the requests received so far (counters included)."""
        with self._config.lock:
            self._config.received.clear()
            self._config.count = 0
            self._config.peak_in_flight = self._config.in_flight


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # many clients connect at once under load

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up is no news in a test; stay quiet."""


class _Handler(BaseHTTPRequestHandler):
    config: _Config
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
        answers = _answers(self.config.answers, received.state, questions)
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
            if not config.keep_bodies and isinstance(body, dict):
                kept = replace(received, body=_light(body, config))
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
            return json.loads(raw), None
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
        if fault.body is not None:
            self._json(status, fault.body, headers)
        else:
            phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "error"
            self._json(status, {"error": {"message": f"injected fault: {phrase}", "type": "fault"}}, headers)
        return True

    def _error(self, status: int, message: str) -> None:
        self._json(int(status), {"error": {"message": message, "type": "invalid_request"}})

    def _json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _light(body: dict[str, Any], config: _Config) -> dict[str, Any]:
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


def _answers(script: Mapping[str, Any] | Answerer, state: Any, questions: Mapping[str, Any]) -> dict[str, Any]:
    entries: Mapping[str, Any] = script(state, questions) if callable(script) else script
    out: dict[str, Any] = {}
    for name, question in questions.items():
        entry = entries.get(name, _DEFAULT)
        if callable(entry):
            entry = entry(state, question)
        if entry is None:
            continue
        out[name] = wire_answer(question, entry)
    return out


_DEFAULT = object()


def wire_answer(question: Mapping[str, Any], entry: Any) -> Any:
    """Turn a script entry into the wire answer to ``question`` (see the module docstring).

    Example:
        >>> wire_answer({"type": "noul"}, 0.3)
        {'type': 'noul', 'noul': 0.3}
        >>> wire_answer({"type": "choice", "criteria": {"a": None, "b": None}}, "b")["choice"]
        'b'
    """
    kind = question.get("type")
    if isinstance(entry, Mapping) and "type" in entry:
        return dict(entry)
    if kind == "noul":
        return {"type": "noul", "noul": 0.9 if entry is _DEFAULT else float(entry)}
    if kind == "choice":
        labels = list(question.get("criteria") or {})
        if entry is _DEFAULT:
            entry = labels[0]
        if isinstance(entry, str):
            rest = [label for label in labels if label != entry]
            share = 0.1 / len(rest) if rest else 0.0
            entry = {label: (0.9 if label == entry or not rest else share) for label in labels}
        probabilities = {str(k): float(v) for k, v in entry.items()}
        chosen = max(probabilities, key=lambda k: probabilities[k])
        return {
            "type": "choice",
            "choice": chosen,
            "confidence": probabilities[chosen],
            "probabilities": probabilities,
        }
    if kind == "score":
        levels = list(question.get("criteria") or [])
        top = len(levels) - 1
        if entry is _DEFAULT:
            entry = float(top)
        if isinstance(entry, (int, float)):
            entry = _spread(float(entry), top)
        probabilities = {int(k): float(v) for k, v in entry.items()}
        value = sum(level * p for level, p in probabilities.items())
        return {
            "type": "score",
            "score": value,
            "confidence": max(probabilities.values()),
            "legend": {str(i): level for i, level in enumerate(levels)},
            "probabilities": {str(k): v for k, v in probabilities.items()},
        }
    return {"type": kind or "noul", "noul": 0.9}


def _spread(value: float, top: int) -> dict[int, float]:
    """A distribution over levels 0..top whose expected value is ``value``."""
    value = min(max(value, 0.0), float(top))
    low = math.floor(value)
    high = min(low + 1, top)
    upper = value - low
    probabilities = dict.fromkeys(range(top + 1), 0.0)
    probabilities[low] += 1.0 - upper
    probabilities[high] += upper
    return probabilities


def main(argv: Sequence[str] | None = None) -> None:
    """Serve until interrupted: ``python -m tests.support.jev_server --delay 0.1``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--answers", type=json.loads, default={}, help="a JSON script")
    args = parser.parse_args(argv)
    with JevServer(args.answers, delay=args.delay) as server:
        print(server.base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
