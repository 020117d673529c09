"""Every snippet of the README and of every docs page runs, and prints what the page shows.

Each file is read as a reader pastes it: its Python blocks run in order in one
namespace of its own, in a scratch directory holding a copy of ``examples/``,
after the Python blocks of the files it builds on (`FOLLOWS`: a page that reuses
the README's ``judge`` says so in its text). Jev is configured from the
environment, as the pages say, pointed at the loopback Jev-compatible server of
`tests.support.jev_server` answering from ``examples/weather_answers.json``, the
script the pages give their readers, which answers every question the snippets
ask; the pages' ``chat_model`` is the ``scripted_chat_model()`` they show. LangSmith is configured with a client
that cannot reach any server, and every connection outside the loopback
interface is refused and reported.

A ``text`` block right after a snippet is what the snippet prints, and must
match it (``...`` stands for any text within a line).

Shell blocks: a block that starts the scripted server
(``python -m langchain_jev.testing.server``) runs whole, in bash, as the reader
runs it: with no ``TYPESAFE_*`` variable set but the ones the server prints. In
other blocks the ``langchain-jev`` and ``pytest`` commands run in a subprocess
against the test's server (with the pages' ``# test_*.py`` blocks written to
files first); the ``pip`` and ``python`` commands (installing, the whole test
suite, the benchmarks) are what CI itself runs, so they are not run here.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import io
import os
import shlex
import shutil
import socket
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import langsmith
import pytest
from langsmith import Client
from urllib3.util import Retry

from langchain_jev.testing.server import load_script
from tests.docs import helpers
from tests.docs.markdown import ROOT, Block, blocks, doc_files, file_blocks, matches
from tests.support.jev_server import JevServer

KEY = "sk-readme-test"
SECRET_ENV = (
    "TYPESAFE_API_KEY",
    "TYPESAFE_BASE_URL",
    "TYPESAFE_DEFAULT_MODEL",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "LANGSMITH_API_KEY",
    "LANGCHAIN_API_KEY",
)

# file -> the files whose Python blocks a reader of it ran first (the page says so)
FOLLOWS: dict[str, tuple[str, ...]] = dict.fromkeys(
    (
        "docs/getting-started.md",
        "docs/judges.md",
        "docs/langsmith.md",
        "docs/comparing.md",
        "docs/string-evaluator.md",
        "docs/self-refine.md",
        "docs/pytest.md",
        "docs/decision-models.md",
        "docs/caching.md",
    ),
    ("README.md",),
)

# (file, section) -> code run before each Python block of that section, in the file's namespace
PRELUDES: dict[tuple[str, str], str] = {
    # this section's chat model judges (it answers the judge prompt), where the page's writes answers
    ("docs/decision-models.md", "Any chat model"): "chat_model = _docs.JudgeChatModel()",
}

# (file, section) -> why its Python blocks cannot run here
SKIPPED: dict[tuple[str, str], str] = {
    ("docs/ray.md", "In Python"): (
        "reads object storage on a Ray cluster; tests/ray makes the same calls on a local cluster"
    ),
    ("docs/langsmith.md", "Monitor a production project"): (
        "reads a live LangSmith project; tests/monitor/test_monitor.py makes the same calls against"
        " the fake LangSmith API"
    ),
}

FILES = doc_files()
BLOCKS: dict[str, list[Block]] = {source: file_blocks(source) for source in FILES}
PYTHON: dict[str, list[Block]] = {s: [b for b in found if b.lang == "python"] for s, found in BLOCKS.items()}
SHELL = [block for found in BLOCKS.values() for block in found if block.lang in ("bash", "sh", "shell", "console")]
RUN_COMMANDS = ("langchain-jev", "pytest")
CI_COMMANDS = ("python", "pip")
SERVER_COMMAND = "python -m langchain_jev.testing.server"
ALL_PYTHON = [block for source in FILES for block in PYTHON[source]]


# ---------------------------------------------------------------------- the scratch world


class _Offline:
    """Refuses and records every connection outside the loopback interface."""

    def __init__(self) -> None:
        self.attempts: list[Any] = []

    @contextlib.contextmanager
    def guard(self) -> Iterator[None]:
        def guarded(original: Any) -> Any:
            def connect(sock: socket.socket, address: Any) -> Any:
                if sock.family in (socket.AF_INET, socket.AF_INET6):
                    host = str(address[0])
                    if host not in ("127.0.0.1", "::1", "localhost"):
                        self.attempts.append(address)
                        raise ConnectionRefusedError(f"the docs test is offline: {address}")
                return original(sock, address)

            return connect

        with (
            mock.patch.object(socket.socket, "connect", guarded(socket.socket.connect)),
            mock.patch.object(socket.socket, "connect_ex", guarded(socket.socket.connect_ex)),
        ):
            yield


def _dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _workdir(tmp: Path) -> Path:
    shutil.copytree(ROOT / "examples", tmp / "examples")
    return tmp


@pytest.fixture(scope="module")
def server() -> Iterator[JevServer]:
    with JevServer(load_script(str(ROOT / "examples" / "weather_answers.json"))) as jev:
        yield jev


class _Session:
    """One file's namespace and scratch directory, and which of its blocks ran."""

    def __init__(self, source: str, workdir: Path) -> None:
        self.source = source
        self.workdir = workdir
        self.namespace: dict[str, Any] = {"__name__": "__docs__", "_docs": helpers}
        self.ran = 0
        self.failed: Block | None = None
        for earlier in FOLLOWS.get(source, ()):
            for block in PYTHON[earlier]:
                self.run(block)

    def run_until(self, position: int) -> None:
        """Run the file's Python blocks before ``position`` that did not run yet (not the one at it)."""
        while self.ran < position:
            block = PYTHON[self.source][self.ran]
            self.ran += 1
            if self.failed is not None:
                continue
            try:
                self.run(block)
            except BaseException:
                self.failed = block

    def run(self, block: Block) -> str:
        """Run one block (its section's prelude first), in the file's directory; return what it printed."""
        if (block.source, block.section) in SKIPPED:
            return ""
        with contextlib.chdir(self.workdir):
            prelude = PRELUDES.get((block.source, block.section))
            if prelude:
                exec(compile(prelude, f"<prelude of {block.section}>", "exec"), self.namespace)
            # padded so that tracebacks give the file's own line numbers
            source = "\n" * (block.line - 1) + block.code
            code = compile(source, block.source, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                result = eval(code, self.namespace)
                if isinstance(result, types.CoroutineType):
                    asyncio.run(result)
        return printed.getvalue()


class _World:
    """The sessions of every file, made on first use, and the offline guard they run under."""

    def __init__(self, root: pytest.TempPathFactory, offline: _Offline) -> None:
        self.root = root
        self.offline = offline
        self.sessions: dict[str, _Session] = {}

    def session(self, source: str) -> _Session:
        if source not in self.sessions:
            workdir = _workdir(self.root.mktemp(Path(source).stem))
            self.sessions[source] = _Session(source, workdir)
        return self.sessions[source]


@pytest.fixture(scope="module")
def world(server: JevServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[_World]:
    offline = _Offline()
    client = Client(
        api_key="fake-langsmith-key",
        api_url=f"http://127.0.0.1:{_dead_port()}",
        auto_batch_tracing=False,
        retry_config=Retry(total=0),
    )
    with pytest.MonkeyPatch.context() as patch, offline.guard():
        for name in SECRET_ENV:
            patch.delenv(name, raising=False)
        patch.setenv("TYPESAFE_API_KEY", KEY)
        patch.setenv("TYPESAFE_BASE_URL", server.base_url)
        patch.setenv("LANGSMITH_TRACING", "false")
        patch.setenv("LANGCHAIN_TRACING_V2", "false")
        langsmith.configure(client=client)
        try:
            yield _World(tmp_path_factory, offline)
        finally:
            langsmith.configure(client=None)


# ---------------------------------------------------------------------- the Python blocks


@pytest.mark.filterwarnings("ignore:'upload_runs' parameter is in beta")
@pytest.mark.parametrize("block", ALL_PYTHON, ids=[block.name for block in ALL_PYTHON])
def test_python_block_runs_and_prints_what_the_page_shows(world: _World, block: Block) -> None:
    if (block.source, block.section) in SKIPPED:
        pytest.skip(SKIPPED[(block.source, block.section)])
    state = world.session(block.source)
    position = PYTHON[block.source].index(block)
    state.run_until(position)
    if state.failed is not None:
        pytest.fail(f"an earlier block failed ({state.failed.where}); run its test first")
    before = len(world.offline.attempts)
    try:
        printed = state.run(block)
    except BaseException:
        state.failed = block
        raise
    finally:
        state.ran = max(state.ran, position + 1)
    assert world.offline.attempts[before:] == [], "the snippet tried to reach the network"
    if block.output is not None:
        assert matches(block.output, printed), (
            f"{block.where}: the snippet printed\n{printed}\nbut the page shows\n{block.output}"
        )


# ---------------------------------------------------------------------- the shell blocks


def _starts_server(block: Block) -> bool:
    return SERVER_COMMAND in block.code


def _lines(code: str) -> list[str]:
    """A shell block's commands, a line ending in a backslash joined with the next (as the shell does)."""
    return code.replace("\\\n", " ").splitlines()


def _commands() -> list[tuple[Block, str]]:
    return [
        (block, " ".join(line.split()))
        for block in SHELL
        if not _starts_server(block)
        for line in _lines(block.code)
        if line.strip().split(" ", 1)[0] in RUN_COMMANDS
    ]


def _base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SECRET_ENV}
    env.update(
        LANGSMITH_TRACING="false",
        PYTHONPATH=str(ROOT),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    return env


def _command_env(server: JevServer) -> dict[str, str]:
    return {**_base_env(), "TYPESAFE_API_KEY": KEY, "TYPESAFE_BASE_URL": server.base_url}


def _argv(command: str) -> list[str]:
    words = shlex.split(command)
    scripts = Path(sys.executable).parent
    if words[0] == "langchain-jev":
        return [str(scripts / "langchain-jev"), *words[1:]]
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *words[1:]]


def _write_test_files(workdir: Path) -> None:
    for block in ALL_PYTHON:
        if block.file_name:
            (workdir / block.file_name).write_text(block.code, encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("block", "command"), _commands(), ids=[f"{b.name}-{c.split()[0]}" for b, c in _commands()]
)
def test_shell_command_runs_and_prints_what_the_page_shows(
    block: Block, command: str, server: JevServer, tmp_path: Path
) -> None:
    workdir = _workdir(tmp_path)
    _write_test_files(workdir)

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            _argv(command), cwd=workdir, env=_command_env(server), capture_output=True, text=True, timeout=300
        )

    result = run()
    assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
    if block.output is not None:
        assert matches(block.output, result.stdout), (
            f"{block.where}: `{command}` printed\n{result.stdout}\nbut the page shows\n{block.output}"
        )
    if command.startswith("pytest"):
        assert " passed" in result.stdout and "skipped" not in result.stdout, result.stdout
        if "--jev-cache" in command:  # the page says a rerun of an unchanged suite costs nothing
            asked = server.request_count
            again = run()
            assert again.returncode == 0 and " passed" in again.stdout, again.stdout
            assert server.request_count == asked, "the rerun asked Jev again despite --jev-cache"


SERVER_BLOCKS = [block for block in SHELL if _starts_server(block)]


@pytest.mark.slow
@pytest.mark.parametrize("block", SERVER_BLOCKS, ids=[block.name for block in SERVER_BLOCKS])
def test_a_block_that_starts_the_scripted_server_runs_as_written(block: Block, tmp_path: Path) -> None:
    """The block runs whole in bash with no key set: the server it starts says what to export."""
    workdir = _workdir(tmp_path)
    # whatever the block leaves running is stopped: the reader's own `kill $JEV_SERVER_PID` comes later
    script = "set -euo pipefail\ntrap 'kill ${JEV_SERVER_PID:-} 2>/dev/null || true' EXIT\n" + block.code
    result = subprocess.run(
        ["bash", "-c", script], cwd=workdir, env=_base_env(), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"{block.where}\n{result.stdout}\n{result.stderr}"
    if block.output is not None:
        assert matches(block.output, result.stdout), (
            f"{block.where}: the block printed\n{result.stdout}\nbut the page shows\n{block.output}"
        )


# ---------------------------------------------------------------------- the files themselves


def test_the_readme_gives_exactly_the_two_commands_ci_runs() -> None:
    first = next(block for block in BLOCKS["README.md"] if block.section == "Running the tests")
    assert first.code == 'python -m pip install -e ".[test]"\npython -m pytest\n'
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert 'python -m pip install -e ".[test]"' in ci and "python -m pytest" in ci


def test_the_benchmarks_page_says_how_to_rerun_them() -> None:
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert "python benchmarks/run.py" in text


def test_every_python_block_runs_or_is_justified() -> None:
    assert PYTHON["README.md"], "the README has no Python snippet"
    sections = {(block.source, block.section) for block in ALL_PYTHON}
    assert set(SKIPPED) <= sections, "a justification names no section with Python"
    assert set(PRELUDES) <= sections, "a prelude names no section with Python"
    assert set(FOLLOWS) <= set(FILES) and {f for fs in FOLLOWS.values() for f in fs} <= set(FILES)
    unrun = [
        (block.where, line)
        for block in SHELL
        if not _starts_server(block)
        for line in _lines(block.code)
        if line.strip() and line.strip().split(" ", 1)[0] not in (*RUN_COMMANDS, *CI_COMMANDS)
    ]
    assert unrun == [], "a shell command is neither run here nor one CI runs"


def test_output_blocks_are_parsed_as_outputs() -> None:
    text = "```python\nprint(1)\n```\n\n```text\n1\n```\n\nProse.\n\n```text\nnot an output\n```\n"
    parsed = blocks(text)
    assert [(b.lang, b.output) for b in parsed] == [("python", "1\n"), ("text", None)]
    assert matches("a ... c", "a bbb c") and not matches("a ... c", "a bbb d")
    assert [" ".join(line.split()) for line in _lines("langchain-jev judge a \\\n  --out b\npytest\n")] == [
        "langchain-jev judge a --out b",
        "pytest",
    ]
