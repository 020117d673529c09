"""The scripted server's command line: ``python -m langchain_jev.testing.server``.

`main` reads the options (the script of ``--answers`` and ``--answer``, ``--noul``, the address,
``--latency``), binds first (a taken ``--port`` is refused, naming it), says on stderr what it
scripts, prints the shell lines that point a client at it, and serves until interrupted, or
(``--background``) from a detached child it waits for (`READY_TIMEOUT`). The options are drawn
in `langchain_jev.testing.server`.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import shlex
import signal
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.error import URLError
from urllib.request import ProxyHandler, Request, build_opener

from langchain_jev.testing._unscripted import HAZARD_DEFAULT
from langchain_jev.testing.server._environment import PLACEHOLDER_KEY
from langchain_jev.testing.server._handler import MODELS_PATH
from langchain_jev.testing.server._lifecycle import JevServer
from langchain_jev.testing.server._script import is_ruled, load_script, parse_answer, scripted_names

__all__ = ["BANNER_NAMES", "READY_TIMEOUT", "main"]

READY_TIMEOUT = 30.0
"""Seconds ``--background`` waits for the detached server to answer before giving up."""


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
        flags = dict(parse_answer(text) for text in args.answer)
        if is_ruled(script):
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
    named = sorted(scripted_names(script))
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
    from langchain_jev.guardrails._catalog import HAZARDS

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
