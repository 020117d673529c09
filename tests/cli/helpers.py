"""Helpers for the command-line tests: running the CLI in a subprocess, and datasets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.support.signals import interruptible

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
WEATHER_DATA = EXAMPLES / "weather.jsonl"
WEATHER_JUDGE = EXAMPLES / "weather_judge.yaml"
FAKE_KEY = "sk-test-not-a-real-key"


def cli_env(**extra: str) -> dict[str, str]:
    """The environment of a CLI subprocess: a fake key, and no real endpoint or tracing."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TYPESAFE_", "LANGSMITH_", "LANGCHAIN_"))}
    env["TYPESAFE_API_KEY"] = FAKE_KEY
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def cli_command(*args: str | os.PathLike[str]) -> list[str]:
    return [sys.executable, "-m", "langchain_jev.cli", *map(str, args)]


def run_cli(*args: str | os.PathLike[str], timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``langchain-jev ARGS`` to the end and capture its output."""
    return subprocess.run(
        cli_command(*args), env=cli_env(**env), capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


def start_cli(
    *args: str | os.PathLike[str], start_new_session: bool = False, **env: str
) -> subprocess.Popen[str]:
    """Start ``langchain-jev ARGS`` without waiting (to kill it part way), in a session of its own if asked.

    Its SIGINT is at the default whatever the suite was started with, so a Ctrl-C the test sends it counts.
    """
    return subprocess.Popen(
        interruptible(cli_command(*args)),
        env=cli_env(**env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        start_new_session=start_new_session,
    )


def judge_args(data: Path, server_url: str, *extra: str | os.PathLike[str], judge: Path = WEATHER_JUDGE) -> list[str]:
    return ["judge", str(data), "--judge", str(judge), "--base-url", server_url, "--max-retries", "0", *map(str, extra)]


def read_results(path: Path) -> list[dict[str, Any]]:
    """Every record of a results file, parsed (a line that does not parse fails the test); not its header."""
    from langchain_jev.datasets.results import is_header

    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [record for record in records if not is_header(record)]


def read_header(path: Path) -> dict[str, Any]:
    """The header line of a results file (it must have one)."""
    from langchain_jev.datasets.results import is_header

    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert is_header(first), first
    return dict(first)


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    return path


def weather_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in WEATHER_DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def numbered_rows(count: int, *, vague_every: int = 4) -> list[dict[str, Any]]:
    """Rows of a simple dataset: every ``vague_every``-th answer is vague (fails helpfulness)."""
    rows = []
    for index in range(1, count + 1):
        vague = index % vague_every == 0
        rows.append(
            {
                "id": f"r{index}",
                "marker": f"m{index}",
                "question": f"What is the weather in town {index} tomorrow?",
                "answer": "It will be nice." if vague else f"Rain from 9am to noon in town {index}, about 3 mm.",
                "search_required": False,
            }
        )
    return rows


def weather_answers(state: Mapping[str, Any], questions: Mapping[str, Any]) -> dict[str, Any]:
    """Scripted answers that depend on the row: vague answers fail; asking back is a clarification."""
    answer = str(state.get("assistant_answer", ""))
    vague = answer == "It will be nice." or "Oslo is usually" in answer
    asks_back = answer.rstrip().endswith("?")
    ungrounded = "Heavy snow" in answer
    return {
        "is_grounded": 0.1 if ungrounded else 0.95,
        "helpfulness": 1.0 if vague else 2.8,
        "mode": "clarification_needed" if asks_back else "answered",
        "has_details": 0.2 if vague else 0.9,
    }


def expected_weather_verdicts() -> dict[str, bool]:
    """What `weather_answers` makes of each example row (worked out by hand from the file)."""
    return {
        "dublin-umbrella": True,
        "springfield": True,
        "paris-sun": True,
        "oslo-no-search": False,  # skipped a required search, vague
        "why-rain": True,
        "tokyo-ungrounded": False,  # not grounded in its context
        "needless-search": False,  # searched when no search was required
        "madrid-vague": False,  # vague: unhelpful, no details
    }


def table_row(stdout: str, name: str) -> list[str]:
    """The cells of the table row that starts with ``name``."""
    for line in stdout.splitlines():
        cells = line.split()
        if cells and cells[0] == name:
            return cells
    raise AssertionError(f"no table row {name!r} in:\n{stdout}")


def only(items: Sequence[Any]) -> Any:
    assert len(items) == 1, items
    return items[0]


WORKERS = pytest.mark.parametrize("workers", ["1", "2"], ids=["one-process", "two-workers"])
"""Run a test with rows judged in the command's own process and in two worker processes."""


def marked_processes(marker: str) -> dict[int, tuple[int, str]]:
    """Live processes whose environment holds ``JEV_TEST_RUN=marker``: pid -> (parent pid, command)."""
    found: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if f"JEV_TEST_RUN={marker}".encode() not in environ.split(b"\0"):
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] == "Z":  # a zombie has finished; only its parent has not read its exit code yet
            continue
        found[int(entry.name)] = (int(fields[1]), command)
    return found


def worker_pids(command_pid: int, marker: str) -> list[int]:
    """The worker processes of the command ``command_pid`` (started through a fork server or spawned)."""
    processes = marked_processes(marker)
    servers = {pid for pid, (parent, command) in processes.items() if parent == command_pid and "forkserver" in command}
    return sorted(
        pid
        for pid, (parent, command) in processes.items()
        if parent in servers or (parent == command_pid and "spawn_main" in command)
    )


def wait_for_no_processes(marker: str, timeout: float = 20.0) -> dict[int, tuple[int, str]]:
    """Wait until no process carries ``marker``; return those left at the timeout."""
    deadline = time.monotonic() + timeout
    while (left := marked_processes(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left
