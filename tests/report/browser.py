"""A real headless Chromium for the report tests, driven over the DevTools protocol (no downloads).

`open_page` starts the system's Chromium with a throw-away profile and no
background networking, opens a file, and reports what a person's browser would
have shown: console errors, uncaught exceptions, every request the page made,
and a screenshot. The protocol runs over the websocket client that ships with
the package's dependencies.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium")


def find_chromium() -> str | None:
    """The path of a Chromium on this machine, or None."""
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class PageVisit:
    """What loading a page showed."""

    console_errors: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    screenshot: bytes = b""
    title: str = ""
    text_length: int = 0
    svg_count: int = 0
    load_seconds: float = 0.0
    """From navigating to the page's load event (its inline script has run by then)."""
    probes: list[Any] = field(default_factory=list)
    """What each probe expression returned (JSON-decoded), in order."""


class _Session:
    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 30,
    ) -> dict[str, Any]:
        number = next(self.ids)
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.socket.send(json.dumps(message))
        deadline = time.monotonic() + timeout
        while True:
            reply = json.loads(self.socket.recv(timeout=max(0.1, deadline - time.monotonic())))
            if reply.get("id") == number:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, session: str | None = None, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == method and e.get("sessionId") == session for e in self.events):
            self.events.append(json.loads(self.socket.recv(timeout=max(0.1, deadline - time.monotonic()))))

    def drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        with contextlib.suppress(TimeoutError):
            while time.monotonic() < deadline:
                self.events.append(
                    json.loads(self.socket.recv(timeout=max(0.05, deadline - time.monotonic())))
                )


def open_page(
    chromium: str, path: Path, width: int = 1200, height: int = 1600, probes: Sequence[str] = ()
) -> PageVisit:
    """Load ``path`` from disk in headless Chromium and report what happened."""
    return open_pages(chromium, [path], width, height, {path: probes})[0]


def open_pages(
    chromium: str,
    paths: list[Path],
    width: int = 1200,
    height: int = 1600,
    probes: Mapping[Path, Sequence[str]] | None = None,
) -> list[PageVisit]:
    """Load each of ``paths`` from disk in a tab of its own of one headless Chromium; report each.

    ``probes`` are JavaScript expressions run in a page after it loaded, in order (each returns
    ``JSON.stringify(...)`` of what it found, like a person clicking and reading); what they
    return is in `PageVisit.probes`, and what they caused (errors, requests) is reported too.
    """
    profile = tempfile.mkdtemp(prefix="jev-chromium-")
    process = subprocess.Popen(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-sync",
            "--disable-extensions",
            f"--user-data-dir={profile}",
            "--remote-debugging-port=0",
            "--remote-debugging-address=127.0.0.1",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = Path(profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.exists() and len(port_file.read_text().splitlines()) >= 2):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("Chromium did not start its DevTools endpoint")
            time.sleep(0.1)
        port, browser_path = port_file.read_text().splitlines()[:2]
        with connect(
            f"ws://127.0.0.1:{port}{browser_path}", max_size=64 * 1024 * 1024, open_timeout=20
        ) as socket:
            cdp = _Session(socket)
            visits = [_visit(cdp, path, width, height, (probes or {}).get(path, ())) for path in paths]
            with contextlib.suppress(Exception):
                cdp.send("Browser.close", timeout=5)
            return visits
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)


def _visit(cdp: _Session, path: Path, width: int, height: int, probes: Sequence[str]) -> PageVisit:
    target = cdp.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        cdp.send(f"{domain}.enable", session=session)
    cdp.send(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        session=session,
    )
    cdp.events.clear()
    started = time.perf_counter()
    cdp.send("Page.navigate", {"url": path.resolve().as_uri()}, session=session)
    cdp.wait_for("Page.loadEventFired", session, timeout=120)
    loaded = time.perf_counter() - started
    cdp.drain(0.5)
    visit = PageVisit(load_seconds=loaded)
    for expression in probes:
        answer = cdp.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session
        )
        if "exceptionDetails" in answer:
            raise RuntimeError(f"probe failed: {json.dumps(answer['exceptionDetails'])[:500]}")
        value = answer["result"].get("value")
        visit.probes.append(json.loads(value) if isinstance(value, str) else value)
    if probes:
        cdp.drain(0.3)
    for event in cdp.events:
        if event.get("sessionId") != session:
            continue
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            visit.console_errors.append(json.dumps(params.get("args"))[:300])
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            visit.console_errors.append(params["entry"].get("text", "")[:300])
        elif method == "Runtime.exceptionThrown":
            visit.exceptions.append(json.dumps(params.get("exceptionDetails"))[:300])
        elif method == "Network.requestWillBeSent":
            visit.requests.append(params["request"]["url"])
    probe = cdp.send(
        "Runtime.evaluate",
        {
            "expression": "JSON.stringify([document.title, document.body.innerText.length, "
            "document.querySelectorAll('svg').length])",
            "returnByValue": True,
        },
        session=session,
    )
    visit.title, visit.text_length, visit.svg_count = json.loads(probe["result"]["value"])
    shot = cdp.send("Page.captureScreenshot", {"format": "png"}, session=session)
    visit.screenshot = base64.b64decode(shot["data"])
    cdp.send("Target.closeTarget", {"targetId": target})
    return visit


def blank_share(png: bytes) -> float:
    """The share of the screenshot's pixels that are the page's background colour (1.0: blank)."""
    import io

    import numpy as np
    from matplotlib import image

    pixels = (image.imread(io.BytesIO(png), format="png")[..., :3] * 255).round().astype(np.int64)
    packed = (pixels[..., 0] << 16 | pixels[..., 1] << 8 | pixels[..., 2]).ravel()
    counts = np.bincount(packed)
    return float(counts.max() / packed.size) if packed.size else 1.0
