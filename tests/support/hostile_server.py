"""A hostile Jev-compatible server on the loopback interface: bodies without end, bombs, trickles, echoes.

One server serves every behaviour; the first path segment of the request picks
it, so a model pointed at ``server.url("endless")`` gets endless bodies and one
pointed at ``server.url("echo")`` gets the key back in every field it can:

- ``endless``: 200 with no length, then bytes until the client goes away;
- ``chunked``: the same as chunked transfer encoding;
- ``huge``: ``Content-Length: 10000000000``, then bytes until the client goes away;
- ``gzip-bomb`` / ``zstd-bomb`` / ``deflate-bomb``: a compressed stream of JSON
  whitespace that inflates without end (a few KiB on the wire per GiB inflated);
- ``gzip-gzip-bomb``: the gzip bomb compressed again (``Content-Encoding: gzip, gzip``);
- ``br``: a body declared as brotli;
- ``slow-body``: a valid answer, one byte each `HostileServer.interval` seconds;
- ``slow-headers``: the status line, then the headers one byte at a time;
- ``silent``: the headers, then nothing;
- ``echo``: a valid response whose model name, request id, choice label, score
  level, unknown answer type, malformed answer value and response headers are
  the bearer token the request carried;
- ``echo-invalid``: a 200 whose body fails the SDK's validation outside the
  answers (``usage`` is the token), so the SDK raises
  ``TypeSafeAPIResponseValidationError`` with the token in its body;
- ``echo-401``: a 401 whose error message and body echo the token.

Every endless body stops after `HostileServer.give_up_after` seconds, so a
client without bounds (the code before them) fails instead of hanging for ever.
`HostileServer.sent` counts the bytes each behaviour put on the wire.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["BEHAVIOURS", "HostileServer", "echo_body"]

BEHAVIOURS = (
    "endless",
    "chunked",
    "huge",
    "gzip-bomb",
    "deflate-bomb",
    "zstd-bomb",
    "gzip-gzip-bomb",
    "br",
    "slow-body",
    "slow-headers",
    "silent",
    "echo",
    "echo-invalid",
    "echo-401",
)

_BLOCK = b" " * (1 << 20)
"""One MiB of JSON whitespace: what the bombs inflate to, again and again."""


def echo_body(token: str, questions: dict[str, Any]) -> dict[str, Any]:
    """A valid System One body with ``token`` in every string field a server controls."""
    answers: dict[str, Any] = {}
    for name, question in questions.items():
        kind = question.get("type") if isinstance(question, dict) else None
        if kind == "choice":
            answers[name] = {
                "type": "choice",
                "choice": token,
                "confidence": 0.9,
                "probabilities": {token: 1.0},
            }
        elif kind == "score":
            answers[name] = {"type": "score", "score": 1.0, "confidence": 0.9, "probabilities": {token: 1.0}}
        else:
            answers[name] = {"type": "noul", "noul": token}
    answers[f"extra-{token}"] = {"type": token}  # an answer of a type of a later API: logged and left out
    return {"model": token, "usage": {"input_tokens": 1, "output_tokens": 1}, "answers": answers}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        token = self.headers.get("authorization", "").removeprefix("Bearer ").strip()
        behaviour = self.path.strip("/").split("/", 1)[0]
        with contextlib.suppress(OSError):  # the client hung up: what a bounded client does
            getattr(self, "_" + behaviour.replace("-", "_"))(token, _questions(raw, self.headers))
        self.close_connection = True

    # ------------------------------------------------------------ helpers

    def _head(self, status: int = 200, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Connection", "close")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()

    def _write(self, data: bytes, behaviour: str) -> None:
        self.wfile.write(data)
        self.server.count(behaviour, len(data))

    def _stream(self, pieces: Iterator[bytes], behaviour: str, chunked: bool = False) -> None:
        end = time.monotonic() + self.server.give_up_after
        for piece in pieces:
            if time.monotonic() > end or self.server.stopping.is_set():
                break
            if not piece:
                continue
            self._write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece, behaviour)

    def _trickle(self, data: bytes, behaviour: str) -> None:
        end = time.monotonic() + self.server.give_up_after
        for byte in data:
            if time.monotonic() > end or self.server.stopping.wait(self.server.interval):
                return
            self._write(bytes([byte]), behaviour)
            self.wfile.flush()

    # ------------------------------------------------------------ behaviours

    def _endless(self, token: str, questions: dict[str, Any]) -> None:
        self._head()
        self._stream(_forever(_BLOCK), "endless")

    def _chunked(self, token: str, questions: dict[str, Any]) -> None:
        self._head(headers={"Transfer-Encoding": "chunked"})
        self._stream(_forever(_BLOCK), "chunked", chunked=True)

    def _huge(self, token: str, questions: dict[str, Any]) -> None:
        self._head(headers={"Content-Length": str(10 * 10**9)})
        self._stream(_forever(_BLOCK), "huge")

    def _gzip_bomb(self, token: str, questions: dict[str, Any]) -> None:
        self._head(headers={"Content-Encoding": "gzip"})
        self._stream(_deflated(zlib.MAX_WBITS | 16, _forever(_BLOCK)), "gzip-bomb")

    def _deflate_bomb(self, token: str, questions: dict[str, Any]) -> None:
        self._head(headers={"Content-Encoding": "deflate"})
        self._stream(_deflated(zlib.MAX_WBITS, _forever(_BLOCK)), "deflate-bomb")

    def _gzip_gzip_bomb(self, token: str, questions: dict[str, Any]) -> None:
        self._head(headers={"Content-Encoding": "gzip, gzip"})
        inner = _deflated(zlib.MAX_WBITS | 16, _forever(_BLOCK))
        self._stream(_deflated(zlib.MAX_WBITS | 16, inner), "gzip-gzip-bomb")

    def _zstd_bomb(self, token: str, questions: dict[str, Any]) -> None:
        try:
            from compression.zstd import ZstdCompressor  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            from backports.zstd import ZstdCompressor  # type: ignore[import-not-found,no-redef,unused-ignore]

        self._head(headers={"Content-Encoding": "zstd"})
        compressor = ZstdCompressor()
        pieces = (compressor.compress(block, ZstdCompressor.FLUSH_BLOCK) for block in _forever(_BLOCK))
        self._stream(pieces, "zstd-bomb")

    def _br(self, token: str, questions: dict[str, Any]) -> None:
        body = b'{"model": "m", "usage": {}, "answers": {}}'
        self._head(headers={"Content-Encoding": "br", "Content-Length": str(len(body))})
        self._write(body, "br")

    def _slow_body(self, token: str, questions: dict[str, Any]) -> None:
        body = json.dumps(echo_body("slow", questions)).encode() + b" " * 4096
        self._head(headers={"Content-Length": str(len(body))})
        self.wfile.flush()
        self._trickle(body, "slow-body")

    def _slow_headers(self, token: str, questions: dict[str, Any]) -> None:
        self._write(b"HTTP/1.1 200 OK\r\n", "slow-headers")
        self.wfile.flush()
        self._trickle(b"X-Padding: " + b"a" * 8000 + b"\r\n\r\n", "slow-headers")

    def _silent(self, token: str, questions: dict[str, Any]) -> None:
        self._head(headers={"Content-Length": "100"})
        self.wfile.flush()
        self.server.stopping.wait(self.server.give_up_after)

    def _echo(self, token: str, questions: dict[str, Any]) -> None:
        body = json.dumps(echo_body(token, questions)).encode()
        headers = {"Content-Length": str(len(body)), "x-typesafe-request-id": token, "X-Echo": token}
        self._head(headers=headers)
        self._write(body, "echo")

    def _echo_invalid(self, token: str, questions: dict[str, Any]) -> None:
        payload = {"model": token, "usage": token, "answers": {}, "detail": f"Bearer {token}"}
        body = json.dumps(payload).encode()
        self._head(headers={"Content-Length": str(len(body)), "x-typesafe-request-id": token})
        self._write(body, "echo-invalid")

    def _echo_401(self, token: str, questions: dict[str, Any]) -> None:
        payload = {
            "error": {"message": f"invalid key Bearer {token}", "type": "authentication_error", "key": token}
        }
        body = json.dumps(payload).encode()
        self._head(401, headers={"Content-Length": str(len(body)), "X-Echo": token})
        self._write(body, "echo-401")


def _forever(block: bytes) -> Iterator[bytes]:
    while True:
        yield block


def _deflated(wbits: int, pieces: Iterator[bytes]) -> Iterator[bytes]:
    compressor = zlib.compressobj(9, zlib.DEFLATED, wbits)
    for piece in pieces:
        out = compressor.compress(piece)
        if out:
            yield out
        else:
            yield compressor.flush(zlib.Z_SYNC_FLUSH)


def _questions(raw: bytes, headers: Any) -> dict[str, Any]:
    if headers.get("content-encoding") == "zstd":
        from tests.support.jev_server import zstd_decompress

        if zstd_decompress is None:
            return {}
        raw = zstd_decompress(raw)
    try:
        body = json.loads(raw or b"{}")
    except ValueError:
        return {}
    questions = body.get("questions") if isinstance(body, dict) else None
    return questions if isinstance(questions, dict) else {}


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, interval: float, give_up_after: float) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.interval = interval
        self.give_up_after = give_up_after
        self.stopping = threading.Event()
        self.sent: Counter[str] = Counter()
        self._lock = threading.Lock()

    def count(self, behaviour: str, size: int) -> None:
        with self._lock:
            self.sent[behaviour] += size


class HostileServer:
    """The hostile server on 127.0.0.1 and a free port, serving from a background thread; a context manager.

    Args:
        interval: seconds between the bytes of a trickle.
        give_up_after: seconds after which an endless body or a trickle stops.
    """

    def __init__(self, interval: float = 0.2, give_up_after: float = 60.0) -> None:
        self._server = _Server(interval, give_up_after)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def url(self, behaviour: str) -> str:
        """The base URL whose requests get ``behaviour`` (one of `BEHAVIOURS`)."""
        if behaviour not in BEHAVIOURS:
            raise ValueError(f"unknown behaviour {behaviour!r}; one of {', '.join(BEHAVIOURS)}")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/{behaviour}"

    @property
    def sent(self) -> Counter[str]:
        """Bytes put on the wire, by behaviour."""
        with self._server._lock:
            return Counter(self._server.sent)
