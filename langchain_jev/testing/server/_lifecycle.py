"""The scripted server's lifecycle: `JevServer` binds, serves from a background thread, stops, and counts.

One object a test holds: its settings (the script, the delay, the faults) can be changed while it
serves, and what it received is read back (`requests`, `request_count`, `times`, `markers`,
`peak_in_flight`). The command line (`langchain_jev.testing.server._command`) binds it first
(``_listen``) to name a taken port before it prints anything, and hands the socket to a
detached child (``_release``).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_jev.testing.server._handler import (
    SYSTEM_ONE_PATH,
    Config,
    Fault,
    FaultPlan,
    Handler,
    Received,
    Server,
)
from langchain_jev.testing.server._script import Answerer

__all__ = ["MAX_RECORDED", "JevServer"]

MAX_RECORDED = 10_000
"""How many of its latest requests a `JevServer` records by default."""


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
        self._config = Config(
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
        self._server: Server | None = None
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

    def _listen(self) -> Server:
        """Bind and listen (once), without serving yet: the port is known and held from here."""
        if self._server is None:
            handler = type("_BoundHandler", (Handler,), {"config": self._config})
            self._server = Server(self._address, handler)
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
