"""A Jev-compatible server on the loopback interface: try the package, and test it, without a key.

Run it in the background and take the settings it prints into your shell; the
command line and `JevDecisionModel` read them from the environment::

    eval "$(python -m langchain_jev.testing.server --answers answers.json --background)"
    langchain-jev judge data.jsonl --judge judge.yaml
    kill $JEV_SERVER_PID

Any key is accepted (the printed ``TYPESAFE_API_KEY`` is a placeholder) unless
``--api-key`` names one. Every answer comes from a script, never from a model: the verdicts are the
ones you wrote down, which is what a CI run of your own judges wants.

It speaks enough of the TypeSafe API for the real typesafe-sdk clients (and so
``JevDecisionModel``, ``TypeSafeClassifier`` and the ``langchain-jev`` command
line with ``--base-url``):

- ``POST /v1/systemone`` with ``{"state", "questions", "model"}`` answers every
  question, from a script or a default, after a configurable delay;
- ``GET /v1/models`` lists one model;
- request bodies sent with ``Content-Encoding: zstd`` are decoded when a zstd
  module exists (``compression.zstd`` on Python 3.14+, ``backports.zstd``), and
  refused with 415 otherwise (build clients with ``compression=False`` then);
- the API key is checked for shape only (``Authorization: Bearer <key>``), or
  against ``api_key=`` when given;
- a body that gives a key twice in one object is refused (400), as a script
  file is (`load_script`): JSON is read by the package's one rule
  (`langchain_jev.models.unique_json`), never by picking one of two values.

Script entries (per question name; ``answers`` may instead be a callable
``(state, questions) -> {name: entry}`` computed per request):

- a number: a noul's probability of yes, or a score's expected value;
- a string: a choice's label (probability 0.9 on it);
- ``{label_or_level: probability}``: a choice's or score's distribution;
- a mapping with a ``"type"``: the wire answer, sent as is (even when malformed);
- ``None``: leave the answer out of the response;
- a callable ``(state, question) -> entry``.

A question the script does not name is never answered for you, with one exception:

- a hazard question of the guardrails (one of `HAZARDS`, by its category's name and prescribed
  instructions) gets "no hazard" (a noul of 0.02), so a guardrail judged with a script of your own
  refuses only what the script flags (script a category by name to flag it);
- any other unnamed question makes the request fail with 422, whose message names the question
  and how to script it, and the server says so once per question (on stderr from the command
  line, as a warning of the ``langchain_jev.testing.server`` logger in Python): a verdict never
  passes on an answer nobody wrote, as with `ScriptedDecisionModel`;
- unless ``default_noul`` (``--noul P``) is given: then an unnamed noul answers that probability,
  which is also said once per question. Scores and choices are always scripted by name.

A script may also answer by what is judged: ``{"answers": {...}, "rules": [...]}``,
where each rule is ``{"when": {state field: text}, "answers": {...}}``. A rule
applies to a request whose state fields contain each of its texts (a field that
is not a string is matched as its JSON); the answers of every rule that applies
go over ``answers``, later rules last. For example::

    {"answers": {"polite": 0.9},
     "rules": [{"when": {"assistant_answer": "Go away"}, "answers": {"polite": 0.1}}]}

In Python, `JevServer` is a context manager that serves from a background thread.
Every request is recorded (`Received`: arrival order and time, headers, body; the
latest ``max_requests`` of them, 10,000 by default), so a test can count requests
or check their spacing. Faults can be injected per
request (`Fault`: an HTTP status with the API's error body, a dropped connection,
extra delay, a raw body). A *marker* field of the state (``marker`` by default)
is echoed as the response's request id (``x-typesafe-request-id``), so a load
test can check that each answer belongs to its input::

    with JevServer({"polite": 0.92, "mode": "answered"}, delay=0.1) as server:
        judge = JevJudge(criteria, model=JevDecisionModel(api_key="sk-test", base_url=server.base_url))
        ...
        assert server.request_count == 1

Command line (``python -m langchain_jev.testing.server --help``):

- ``--answers FILE.json``: the script, a JSON object ``{question name: entry}``
  (inline JSON works too: ``--answers '{"polite": 0.2}'``);
- ``--answer NAME=VALUE``: one entry (a number, a label, or JSON), repeatable, over the file's;
- ``--noul P``: the probability of yes for nouls the script does not name (default: none, so an
  unnamed noul is refused with 422, as any unnamed score or choice is);
- ``--port N`` (default: a free port), ``--host`` (default ``127.0.0.1``);
- ``--latency SECONDS``: wait before each answer, as a real model does;
- ``--model NAME``: the model name reported; ``--api-key KEY``: accept this key only;
- ``--background``: serve from a detached process, and exit once it answers.

Once it answers, it prints (on stdout) the shell lines that point a client at it::

    export TYPESAFE_BASE_URL=http://127.0.0.1:PORT
    export TYPESAFE_API_KEY=sk-jev-scripted

and serves until interrupted (Ctrl-C or SIGTERM). With ``--background`` it also
prints ``export JEV_SERVER_PID=PID`` (``kill $JEV_SERVER_PID`` stops the server)
and exits 0; the wait for the detached server is bounded (`READY_TIMEOUT`). A
``--port`` that is taken is refused (status 2, naming it): the server never
answers on another port than the one asked for, and with no ``--port`` it
takes a free one, so a client pointed at what it printed talks to it and to
nothing else.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import os
import shlex
import signal
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.error import URLError
from urllib.request import ProxyHandler, Request, build_opener

from langchain_jev.models import unique_json
from langchain_jev.testing._unscripted import HAZARD_DEFAULT, how_to_answer, is_hazard_question, question_type

__all__ = [
    "MAX_RECORDED",
    "PLACEHOLDER_KEY",
    "READY_TIMEOUT",
    "Fault",
    "JevServer",
    "Received",
    "load_script",
    "main",
    "scripted_server_reason",
    "wire_answer",
    "zstd_decompress",
]

SYSTEM_ONE_PATH = "/v1/systemone"
MODELS_PATH = "/v1/models"
REQUEST_ID_HEADER = "x-typesafe-request-id"
PLACEHOLDER_KEY = "sk-jev-scripted"
"""The API key the command prints when ``--api-key`` names none (any key is accepted)."""
MAX_RECORDED = 10_000
"""How many of its latest requests a `JevServer` records by default."""
READY_TIMEOUT = 30.0
"""Seconds ``--background`` waits for the detached server to answer before giving up."""


def scripted_server_reason(environ: Mapping[str, str] | None = None) -> str | None:
    """Why the environment points Jev at a scripted server (its key, a loopback URL), or None.

    What prints "scripted" rather than "measured" reads this (the notebooks do): a run whose
    ``TYPESAFE_API_KEY`` is the placeholder this server prints (`PLACEHOLDER_KEY`), or whose
    ``TYPESAFE_BASE_URL`` names a loopback address (``localhost``, ``127.x.x.x``, ``::1``),
    is answered from a script, whatever the numbers look like. ``environ`` defaults to
    ``os.environ``; the key itself is never quoted.

    Example:
        >>> scripted_server_reason({"TYPESAFE_API_KEY": PLACEHOLDER_KEY})
        "TYPESAFE_API_KEY is the scripted server's placeholder key"
        >>> scripted_server_reason({"TYPESAFE_API_KEY": "sk-live", "TYPESAFE_BASE_URL": "http://[::1]:8000"})
        'TYPESAFE_BASE_URL http://[::1]:8000 is a loopback address'
        >>> scripted_server_reason({"TYPESAFE_API_KEY": "sk-live"}) is None
        True

    """
    env = os.environ if environ is None else environ
    if (env.get("TYPESAFE_API_KEY") or "").strip() == PLACEHOLDER_KEY:
        return "TYPESAFE_API_KEY is the scripted server's placeholder key"
    url = (env.get("TYPESAFE_BASE_URL") or "").strip()
    if url and _is_loopback(url):
        return f"TYPESAFE_BASE_URL {url} is a loopback address"
    return None


def _is_loopback(url: str) -> bool:
    import ipaddress
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url if "//" in url else f"//{url}").hostname or "").rstrip(".").lower()
    except ValueError:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


Answerer = Callable[[Any, Mapping[str, Any]], Mapping[str, Any]]
FaultPlan = Callable[["Received"], "Fault | None"]


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
class _Config:
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
    command: bool = False
    """Whether the command line runs the server (its messages then name its flags)."""
    """Where a question the script does not name is said, once (a logger's warning unless given)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    said: set[str] = field(default_factory=set)
    received: deque[Received] = field(default_factory=deque)
    count: int = 0
    in_flight: int = 0
    peak_in_flight: int = 0


class JevServer:
    """A Jev-compatible server on 127.0.0.1 and a free port (or ``port``); a context manager.

    Args:
        answers: a script ``{question name: entry}`` or a callable
            ``(state, questions) -> {name: entry}`` (see the module docstring).
        delay: seconds to wait before answering each request (threads wait in parallel).
        faults: per-request faults, by arrival order (a list whose entries may be
            None), or a callable ``(Received) -> Fault | None``.
        marker_field: the state field echoed as the response's request id.
        model: the model name to report (default: the one the request asked for).
        api_key: when given, other keys get 401.
        keep_bodies: record request bodies (off, each record keeps only the marker
            and the question names, for very long runs).
        max_requests: how many of the latest requests are recorded (`requests`):
            `MAX_RECORDED` (10,000) by default, so a server that runs for weeks keeps
            no more; None records every one. ``request_count`` counts them all.
        default_noul: the probability of yes for nouls the script does not name (hazard
            questions aside); None (the default) refuses an unnamed question with 422.
        host: the address to listen on (the loopback interface by default).
        port: the port to listen on (0, the default, for a free one).

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
        max_requests: int | None = MAX_RECORDED,
        default_noul: float | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        if default_noul is not None and not 0.0 <= default_noul <= 1.0:
            raise ValueError(f"default_noul must be a probability between 0 and 1, got {default_noul!r}")
        if max_requests is not None and (isinstance(max_requests, bool) or max_requests < 0):
            raise ValueError(f"max_requests must be a whole number >= 0 or None, got {max_requests!r}")
        self._config = _Config(
            answers if answers is not None else {},
            delay,
            faults,
            marker_field,
            model,
            api_key,
            keep_bodies,
            default_noul,
            max_requests,
            received=deque(maxlen=max_requests),
        )
        self._address = (host, port)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> JevServer:
        """Start serving in a background thread; returns self.

        Raises:
            OSError: the address cannot be had (a ``port`` in use is never shared).

        """
        if self._thread is not None:
            return self
        server = self._listen()
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def _listen(self) -> _Server:
        """Bind and listen (once), without serving yet: the port is known and held from here."""
        if self._server is None:
            handler = type("_BoundHandler", (_Handler,), {"config": self._config})
            self._server = _Server(self._address, handler)
        return self._server

    def _release(self) -> None:
        """Close this process's listening socket without serving (a forked child keeps its copy)."""
        if self._server is not None and self._thread is None:
            self._server.server_close()
            self._server = None

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._server is None:
            return
        if self._thread is not None:
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
        host = str(host)
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

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
        """The latest requests received (at most ``max_requests``; a copy), in arrival order."""
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
    # Never share a port with another listener: a client pointed at this port must reach this server.
    # (SO_REUSEADDR stays on, as for any HTTP server: on Linux it refuses a port another socket
    # listens on, and lets a restart take a port whose old connections are still closing.)
    allow_reuse_port = False

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
        try:
            answers = _answers(self.config, received.state, questions)
        except _Unscripted as unscripted:
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


class _Unscripted(Exception):
    """A request asks questions the script does not name (and no default answers them)."""


def _unnamed(config: _Config, name: str, question: Any) -> Any:
    """The entry for a question the script does not name, or `_DEFAULT` when it gets none."""
    if is_hazard_question(name, question):
        return HAZARD_DEFAULT
    if question_type(question) == "noul" and config.default_noul is not None:
        flag = "--noul" if config.command else "default_noul"
        _say_once(config, name, f"noul {name!r} is not scripted: answered {config.default_noul:g} ({flag})")
        return config.default_noul
    return _DEFAULT


def _say_once(config: _Config, name: str, message: str) -> None:
    with config.lock:
        if name in config.said:
            return
        config.said.add(name)
    if config.say is not None:
        config.say(message)
    else:
        logging.getLogger(__name__).warning("scripted Jev server: %s", message)


def _answers(config: _Config, state: Any, questions: Mapping[str, Any]) -> dict[str, Any]:
    script = config.answers
    entries: Mapping[str, Any] = script(state, questions) if callable(script) else _by_rules(script, state)
    out: dict[str, Any] = {}
    missing: list[str] = []
    for name, question in questions.items():
        entry = entries.get(name, _DEFAULT)
        if entry is _DEFAULT:
            entry = _unnamed(config, name, question)
        if entry is _DEFAULT:
            missing.append(name)
            continue
        if callable(entry):
            entry = entry(state, question)
        if entry is None:
            continue
        out[name] = wire_answer(question, entry)
    if missing:
        said = []
        for name in missing:
            kind = question_type(questions[name])
            said.append(f"{kind} {name!r}: {how_to_answer(name, kind, command=config.command)}")
            _say_once(config, name, f"the script does not name {said[-1]}")
        raise _Unscripted("the scripted server has no answer for " + "; ".join(said))
    return out


_DEFAULT = object()


def _is_ruled(script: Mapping[str, Any]) -> bool:
    """True for the ``{"answers", "rules"}`` form (a list is never an answer, so no name clashes)."""
    return isinstance(script.get("rules"), list)


def _by_rules(script: Mapping[str, Any], state: Any) -> Mapping[str, Any]:
    """The entries of a script for one request's state (see the module docstring)."""
    if not _is_ruled(script):
        return script
    entries = dict(script.get("answers") or {})
    for rule in script["rules"]:
        if _applies(rule.get("when") or {}, state):
            entries.update(rule.get("answers") or {})
    return entries


def _applies(when: Mapping[str, Any], state: Any) -> bool:
    if not isinstance(state, Mapping):
        return False
    for name, text in when.items():
        value = state.get(name)
        if value is None:
            return False
        found = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if str(text) not in found:
            return False
    return True


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
    if entry is _DEFAULT:
        raise ValueError("wire_answer needs an entry: the server answers no question nobody scripted")
    if kind == "noul":
        return {"type": "noul", "noul": float(entry)}
    if kind == "choice":
        labels = list(question.get("criteria") or {})
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
        spread: Mapping[Any, Any] = _spread(float(entry), top) if isinstance(entry, (int, float)) else entry
        levels_p = {int(k): float(v) for k, v in spread.items()}
        value = sum(level * p for level, p in levels_p.items())
        return {
            "type": "score",
            "score": value,
            "confidence": max(levels_p.values()),
            "legend": {str(i): level for i, level in enumerate(levels)},
            "probabilities": {str(k): v for k, v in levels_p.items()},
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


# --------------------------------------------------------------------------- the command


MAX_SCRIPT_BYTES = 1 << 20
"""The largest script file ``--answers`` reads (as large as a judge file may be)."""


def load_script(source: str) -> dict[str, Any]:
    """Read a script: inline JSON (``{...}``) or the path of a JSON file holding one object.

    Raises:
        ValueError: the file cannot be read, or it is not a JSON object of script entries.

    Example:
        >>> load_script('{"polite": 0.2, "mode": "refused", "helpful": {"1": 0.8, "2": 0.2}}')
        {'polite': 0.2, 'mode': 'refused', 'helpful': {'1': 0.8, '2': 0.2}}

    """
    text = source
    if not source.lstrip().startswith(("{", "[")):
        from langchain_jev.datasets.reading import read_bounded

        try:  # a regular file within bounds: a FIFO, a device or a folder is refused at once
            text = read_bounded(source, MAX_SCRIPT_BYTES).decode("utf-8")
        except OSError as error:
            raise ValueError(f"--answers: cannot read {source}: {error.strerror or error}") from None
        except UnicodeDecodeError as error:
            raise ValueError(f"--answers: {source} is not UTF-8 text: {error.reason}") from None
    try:
        script = unique_json.loads_refusing(text)
    except unique_json.RepeatedKeyError as error:  # an answer scripted twice: refused, never one picked
        raise ValueError(f"--answers: {source}: {error}") from None
    except ValueError as error:
        raise ValueError(f"--answers: {source} is not JSON: {error}") from None
    if not isinstance(script, dict):
        raise ValueError(
            "--answers: the script must be a JSON object {question name: answer}, "
            f"got {type(script).__name__}"
        )
    if _is_ruled(script):
        _check_ruled(script)
    else:
        _check_entries(script, "")
    return script


def _check_ruled(script: Mapping[str, Any]) -> None:
    unknown = sorted(set(script) - {"answers", "rules"})
    if unknown:
        raise ValueError(f"a script with rules has only answers and rules, not {', '.join(unknown)}")
    _check_entries(script.get("answers") or {}, "answers.")
    for index, rule in enumerate(script["rules"]):
        where = f"rules[{index}]"
        if not isinstance(rule, dict) or set(rule) - {"when", "answers"}:
            raise ValueError(f"{where}: a rule is an object {{when: {{field: text}}, answers: {{...}}}}")
        when = rule.get("when")
        if not isinstance(when, dict) or not all(isinstance(v, str) for v in when.values()):
            raise ValueError(f"{where}.when: expected an object {{state field: text it contains}}")
        _check_entries(rule.get("answers") or {}, f"{where}.answers.")


def _check_entries(entries: Any, where: str) -> None:
    if not isinstance(entries, dict):
        raise ValueError(f"{where.rstrip('.') or 'the script'}: expected an object {{question name: answer}}")
    for name, entry in entries.items():
        _check_entry(f"{where}{name}", entry)


def _check_entry(name: str, entry: Any) -> None:
    if entry is None or isinstance(entry, str):
        return
    if isinstance(entry, bool) or not isinstance(entry, (int, float, dict)):
        raise ValueError(
            f"answer for {name!r}: expected a number, a label, a distribution, a wire answer or null, "
            f"got {json.dumps(entry)}"
        )
    if isinstance(entry, (int, float)) and not math.isfinite(entry):
        raise ValueError(f"answer for {name!r}: {entry} is not a finite number")
    if isinstance(entry, dict) and "type" not in entry:
        for key, probability in entry.items():
            if isinstance(probability, bool) or not isinstance(probability, (int, float)):
                raise ValueError(
                    f"answer for {name!r}: the probability of {key!r} must be a number, "
                    f"got {json.dumps(probability)}"
                )


def _parse_answer(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"--answer takes NAME=VALUE, got {text!r}")
    try:
        entry = unique_json.loads_refusing(value)
    except unique_json.RepeatedKeyError as error:
        raise ValueError(f"--answer {name.strip()}: {error}") from None
    except ValueError:
        entry = value  # a bare label
    _check_entry(name.strip(), entry)
    return name.strip(), entry


def _probability(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a probability between 0 and 1, got {text}")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, 0 or more, got {text}")
    return value


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number from 0 to 65535, got {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m langchain_jev.testing.server",
        description=(
            "Serve scripted Jev answers on the loopback interface, so the langchain-jev command line "
            "and JevDecisionModel run without a key or a network. Once it answers, prints the shell "
            "lines that point them at it (export TYPESAFE_BASE_URL=... TYPESAFE_API_KEY=...), then "
            "serves until interrupted (or, with --background, from a detached process)."
        ),
        epilog=(
            "Script entries by question name: a number (a noul's probability of yes, a score's "
            "expected level), a label (a choice), {label_or_level: probability}, a raw wire answer "
            '(an object with "type"), or null (no answer). A question the script does not name is '
            "refused (422, naming it), except a guardrail hazard question (answered 0.02, no hazard) "
            'and, with --noul P, a noul. To answer by what is judged: {"answers": {...}, '
            '"rules": [{"when": {"assistant_answer": "text it contains"}, "answers": {...}}]}. '
            "Any API key is accepted unless --api-key is given."
        ),
    )
    parser.add_argument(
        "--answers", metavar="FILE.json", help="the script: a JSON file (or an inline JSON object)"
    )
    parser.add_argument(
        "--answer",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help="one scripted answer (a number, a label or JSON); repeatable; wins over --answers",
    )
    parser.add_argument(
        "--noul",
        type=_probability,
        default=None,
        metavar="P",
        help="probability of yes for nouls the script does not name (default: none, they are refused)",
    )
    parser.add_argument(
        "--latency",
        "--delay",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="wait this long before each answer (default 0)",
    )
    parser.add_argument("--port", type=_port, default=0, help="port to listen on (default: a free port)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--model", default=None, help="model name to report (default: the one asked for)")
    parser.add_argument("--api-key", default=None, metavar="KEY", help="accept only this API key")
    parser.add_argument(
        "--background",
        action="store_true",
        help="serve from a detached process: print the exports (and JEV_SERVER_PID) once it "
        'answers, then exit; use as eval "$(python -m langchain_jev.testing.server --background)"',
    )
    return parser


def _named(script: Mapping[str, Any]) -> set[str]:
    if not _is_ruled(script):
        return set(script)
    names = set(script.get("answers") or {})
    for rule in script["rules"]:
        names.update(rule.get("answers") or {})
    return names


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until interrupted (or, with ``--background``, until the detached server answers).

    Returns the exit status: 0, or 2 when the options are wrong or the address
    cannot be had (a ``--port`` in use is named and refused, never replaced), or 1
    when the detached server does not answer within `READY_TIMEOUT`. What it prints
    on stdout, once the server answers, is shell: ``export TYPESAFE_BASE_URL=...``,
    ``export TYPESAFE_API_KEY=...`` (and ``export JEV_SERVER_PID=...`` with
    ``--background``).
    """
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        script = load_script(args.answers) if args.answers else {}
        flags = dict(_parse_answer(text) for text in args.answer)
        if _is_ruled(script):
            script["answers"] = {**(script.get("answers") or {}), **flags}
        else:
            script.update(flags)
    except ValueError as error:
        parser.error(str(error))
    if args.background and not hasattr(os, "fork"):
        parser.error("--background needs a POSIX system (fork); run the server in a terminal of its own")
    server = JevServer(
        script,
        delay=args.latency,
        default_noul=args.noul,
        host=args.host,
        port=args.port,
        model=args.model,
        api_key=args.api_key,
        keep_bodies=False,
    )
    server._config.say = lambda message: print(message, file=sys.stderr, flush=True)
    server._config.command = True
    try:
        server._listen()
    except OSError as error:
        print(_listen_problem(args.host, args.port, error), file=sys.stderr, flush=True)
        return 2
    exports = _exports(server.base_url, args.api_key)
    banner = _banner(server.base_url, script, args.noul)
    if args.background:
        return _detach(server, server.base_url, exports, banner)
    print(f"{banner} Ctrl-C stops it.", file=sys.stderr, flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    server.start()
    print("\n".join(exports), flush=True)
    try:
        while not stop.wait(0.2):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


BANNER_NAMES = 6
"""How many scripted question names the command's banner lists before it counts the rest."""


def _banner(base_url: str, script: Mapping[str, Any], noul: float | None) -> str:
    """What the command says once on stderr: what it scripts, and what it does with the rest."""
    named = sorted(_named(script))
    own = [name for name in named if name not in _hazard_names()]
    hazards = len(named) - len(own)
    listed = ", ".join(own[:BANNER_NAMES]) or "none"
    if len(own) > BANNER_NAMES:
        listed += f" and {len(own) - BANNER_NAMES} more"
    if hazards:
        listed += f" (and {hazards} hazard categor{'y' if hazards == 1 else 'ies'})"
    rest = (
        f"any other noul answers {noul:g} (--noul)"
        if noul is not None
        else "any other question is refused with 422, naming it (--noul P answers nouls)"
    )
    return (
        f"scripted Jev-compatible server on {base_url}: questions scripted: {listed}; "
        f"hazard questions not scripted answer {HAZARD_DEFAULT:g} (no hazard); {rest}."
    )


def _hazard_names() -> frozenset[str]:
    from langchain_jev.guardrails.catalog import HAZARDS

    return frozenset(hazard.name for hazard in HAZARDS)


def _exports(base_url: str, api_key: str | None) -> list[str]:
    """The shell lines that point a client at the server (values quoted for the shell)."""
    return [
        f"export TYPESAFE_BASE_URL={shlex.quote(base_url)}",
        f"export TYPESAFE_API_KEY={shlex.quote(api_key or PLACEHOLDER_KEY)}",
    ]


def _listen_problem(host: str, port: int, error: OSError) -> str:
    import errno

    if error.errno == errno.EADDRINUSE:
        return (
            f"cannot listen on {host}:{port}: port {port} is in use by another program; "
            "leave out --port to take a free one (the server prints its URL)"
        )
    return f"cannot listen on {host}:{port}: {error.strerror or error}"


def _detach(server: JevServer, url: str, exports: list[str], banner: str) -> int:
    """Serve from a forked, detached child; return once it answers (0) or has not in time (1)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: a session of its own, no terminal, serving until SIGTERM
        status = 0
        try:
            os.setsid()
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            stop = threading.Event()
            signal.signal(signal.SIGTERM, lambda *_: stop.set())
            signal.signal(signal.SIGINT, lambda *_: stop.set())
            server.start()
            stop.wait()
            server.stop()
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    server._release()  # the child holds the socket now
    if not _answers_within(url, pid, READY_TIMEOUT):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
        print(
            f"the scripted server (pid {pid}) did not answer on {url} within {READY_TIMEOUT:g} s; stopped it",
            file=sys.stderr,
            flush=True,
        )
        return 1
    print(f"{banner} `kill {pid}` stops it.", file=sys.stderr, flush=True)
    print("\n".join([*exports, f"export JEV_SERVER_PID={pid}"]), flush=True)
    return 0


def _answers_within(url: str, pid: int, timeout: float) -> bool:
    """Poll ``GET /v1/models`` until it answers, the child ends, or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    request = Request(url + MODELS_PATH, headers={"Authorization": f"Bearer {PLACEHOLDER_KEY}"})
    opener = build_opener(ProxyHandler({}))  # the loopback server, never a proxy the environment names
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return False  # it ended before answering
        try:
            with opener.open(request, timeout=max(0.1, min(2.0, deadline - time.monotonic()))) as reply:
                return bool(reply.status == 200)
        except URLError as error:
            # 401 (a server that checks --api-key) is an answer too: it is up
            if getattr(error, "code", None) is not None:
                return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


if __name__ == "__main__":
    sys.exit(main())
