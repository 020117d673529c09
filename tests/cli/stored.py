"""Two judged runs of the labelled weather rows, for the tests of the commands that read results files.

`judged_runs` judges the weather rows (with a ``human`` label) twice over a loopback
server, in this process (`judge_rows`), and returns the paths: ``data``, ``a`` and
``b`` (results files), ``judge`` (the weather judge) and ``folder``. `guarded` runs a command in
this process under a hang guard: a command that blocks (on a FIFO) fails its test
instead of hanging the suite, and the FIFOs it names are released so its thread ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from langchain_jev.cli import main
from langchain_jev.testing.server import JevServer
from tests.cli.helpers import (
    WEATHER_JUDGE,
    expected_weather_verdicts,
    weather_answers,
    weather_rows,
    write_jsonl,
)

KEY = "sk-test-stored-runs-0123456789"
HANG_GUARD = 120.0
"""Seconds a command may take before its test fails as hung (generous: a guard, not a timing)."""


def labelled_rows() -> list[dict[str, Any]]:
    """The weather rows with the people's verdict under ``human``."""
    expected = expected_weather_verdicts()
    return [{**row, "human": "pass" if expected[row["id"]] else "fail"} for row in weather_rows()]


def judged_runs(folder: Path, server: JevServer) -> dict[str, Path]:
    """The labelled rows judged twice (``a`` and ``b``) with the weather judge; see the module docstring."""
    data = write_jsonl(folder / "rows.jsonl", labelled_rows())
    paths = {"folder": folder, "data": data, "judge": WEATHER_JUDGE}
    for name in ("a", "b"):
        paths[name] = judge_rows(data, folder / f"{name}.jsonl", server)
    return paths


def judge_rows(data: Path, out: Path, server: JevServer) -> Path:
    """Judge ``data`` with the weather judge into ``out`` (the ``human`` label left out of the state)."""
    old = os.environ.get("TYPESAFE_API_KEY")
    os.environ["TYPESAFE_API_KEY"] = KEY
    try:
        code = main(["judge", str(data), "--judge", str(WEATHER_JUDGE), "--base-url", server.base_url,
                     "--max-retries", "0", "--workers", "1", "--quiet", "--ignore-field", "human",
                     "--out", str(out)])  # fmt: skip
        assert code in (0, 1), code
    finally:
        if old is None:
            os.environ.pop("TYPESAFE_API_KEY", None)
        else:
            os.environ["TYPESAFE_API_KEY"] = old
    return out


def header_and_rows(path: Path) -> tuple[dict[str, Any], list[str]]:
    """A results file's header, parsed, and its other lines as they are."""
    first, *rest = path.read_text(encoding="utf-8").splitlines()
    return json.loads(first), rest


def with_header(path: Path, source: Path, header: Mapping[str, Any]) -> Path:
    """Write ``source``'s records under another header to ``path``."""
    _, rows = header_and_rows(source)
    path.write_text("\n".join([json.dumps(header), *rows]) + "\n", encoding="utf-8")
    return path


def guarded(argv: list[str], *, fifos: Iterable[Path] = ()) -> int:
    """``main(argv)`` in a thread; fail the test when it has not ended within `HANG_GUARD` seconds."""
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["code"] = main(argv)
        except BaseException as error:  # handed to the test
            result["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_GUARD)
    if thread.is_alive():
        for fifo in fifos:  # a reader blocked on the FIFO gets its end, so the thread ends
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(10)
        pytest.fail(f"{argv[0]} did not end within {HANG_GUARD:.0f} s: it blocks on what it reads")
    if "error" in result:
        raise result["error"]
    return int(result["code"])


def server_answers() -> Any:
    """The scripted answers of the weather rows (and a first-shown preference for comparisons)."""

    def answer(state: Mapping[str, Any], questions: Mapping[str, Any]) -> dict[str, Any]:
        if any(name.endswith(("__1", "__2")) for name in questions):
            return dict.fromkeys(questions, "answer_1")
        return weather_answers(state, questions)

    return answer
