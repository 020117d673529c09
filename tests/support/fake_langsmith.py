"""A fake LangSmith API on loopback that records every request a real ``langsmith.Client`` sends."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Posted:
    """One request the fake API received."""

    method: str
    path: str
    body: bytes


@contextmanager
def fake_langsmith_api() -> Iterator[tuple[str, list[Posted]]]:
    """Serve the fake API; yield its URL and the list of what it receives (answered ``{}``)."""
    posted: list[Posted] = []

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            size = int(self.headers.get("content-length") or 0)
            posted.append(Posted(self.command, self.path, self.rfile.read(size)))
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(b"{}")

        do_POST = do_PATCH = do_GET = _record

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", posted
    finally:
        server.shutdown()
