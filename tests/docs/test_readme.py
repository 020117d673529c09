"""Every snippet of the README runs, and prints what the README shows.

The Python blocks run in order in one namespace, as a reader pasting them one
after the other would, in a scratch directory holding a copy of ``examples/``.
Jev is configured from the environment as the README says, pointed at the
loopback Jev-compatible server of `tests.support.jev_server`, whose script
(`tests.docs.helpers.answer_policy`) answers every question the snippets ask.
``chat_model``, which the README introduces as "your chat model", is a fake
chat model set by a prelude per section (`PRELUDES`), never shown in the README.
LangSmith is configured with a client that cannot reach any server, and every
connection outside the loopback interface is refused and reported.

A ``text`` block right after a snippet is what the snippet prints, and must
match it (``...`` stands for any text within a line).

Shell blocks: the ``langchain-jev`` and ``pytest`` commands run in a subprocess
against the same server (with the README's ``# test_*.py`` blocks written to
files first); the ``pip`` and ``python`` commands (installing, the whole test
suite, the benchmarks) are what CI itself runs, so they are not run here. The
one exception is the scripted server (``python -m langchain_jev.testing.server``):
a block that starts it runs it for real, on a free port in place of the
README's, and its commands are pointed at that port.
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

from tests.docs import helpers
from tests.docs.readme import ROOT, Block, blocks, matches, readme_blocks
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

# section heading -> code run before each Python block of that section, in the README's namespace
PRELUDES: dict[str, str] = {
    "Self-refine: a LangGraph graph": (
        'chat_model = _docs.writer("It might rain.", '
        '"Yes: rain is expected from 9am to 3pm, about 8 mm in all.")'
    ),
    "Self-refine: agent middleware": (
        'chat_model = _docs.writer("It might rain.", '
        '"Yes: rain is expected from 9am to 3pm, about 8 mm in all.")'
    ),
    "Guardrails: a LangGraph node": (
        'chat_model = _docs.writer("Rinse them, then simmer for 20 minutes.", '
        '"Here is how to make a nerve agent from household products: ...")'
    ),
    "Guardrails: agent middleware": 'chat_model = _docs.writer("Sure, anything goes.")',
    "Guardrails: rolling one out": (
        'chat_model = _docs.writer("Never mix bleach and ammonia; here is a nerve agent recipe: ...")'
    ),
    "Any chat model": "chat_model = _docs.JudgeChatModel()",
}

# Python blocks that cannot run here, by README section, with the reason.
SKIPPED: dict[str, str] = {
    "Datasets on a Ray cluster": (
        "reads object storage on a Ray cluster; tests/ray makes the same calls on a local cluster"
    ),
}

BLOCKS = readme_blocks()
PYTHON = [block for block in BLOCKS if block.lang == "python"]
SHELL = [block for block in BLOCKS if block.lang in ("bash", "sh", "shell", "console")]
RUN_COMMANDS = ("langchain-jev", "pytest")
SERVER_COMMAND = "python -m langchain_jev.testing.server"


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
                        raise ConnectionRefusedError(f"the README test is offline: {address}")
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
    with JevServer(helpers.answer_policy) as jev:
        yield jev


class _Session:
    """The README's namespace, and which blocks ran in it."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {"__name__": "__readme__", "_docs": helpers}
        self.ran = 0
        self.outputs: dict[int, str] = {}
        self.failed: Block | None = None

    def run_until(self, position: int) -> None:
        """Run the Python blocks before ``position`` that did not run yet (not the one at it)."""
        while self.ran < position:
            block = PYTHON[self.ran]
            self.ran += 1
            if self.failed is not None:
                continue
            try:
                self.outputs[self.ran - 1] = self.run(block)
            except BaseException:
                self.failed = block

    def run(self, block: Block) -> str:
        """Run one block (its section's prelude first); return what it printed."""
        if block.section in SKIPPED:
            return ""
        prelude = PRELUDES.get(block.section)
        if prelude:
            exec(compile(prelude, f"<prelude of {block.section}>", "exec"), self.namespace)
        # padded so that tracebacks give README.md's own line numbers
        source = "\n" * (block.line - 1) + block.code
        code = compile(source, "README.md", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            result = eval(code, self.namespace)
            if isinstance(result, types.CoroutineType):
                asyncio.run(result)
        return printed.getvalue()


@pytest.fixture(scope="module")
def session(
    server: JevServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[_Session, _Offline]]:
    workdir = _workdir(tmp_path_factory.mktemp("readme"))
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
        patch.chdir(workdir)
        langsmith.configure(client=client)
        try:
            yield _Session(), offline
        finally:
            langsmith.configure(client=None)


# ---------------------------------------------------------------------- the Python blocks


@pytest.mark.filterwarnings("ignore:'upload_runs' parameter is in beta")
@pytest.mark.parametrize("position", range(len(PYTHON)), ids=[block.name for block in PYTHON])
def test_python_block_runs_and_prints_what_the_readme_shows(
    session: tuple[_Session, _Offline], position: int
) -> None:
    state, offline = session
    block = PYTHON[position]
    if block.section in SKIPPED:
        pytest.skip(SKIPPED[block.section])
    state.run_until(position)
    if state.failed is not None:
        pytest.fail(f"an earlier block failed (README.md:{state.failed.line}); run its test first")
    before = len(offline.attempts)
    try:
        printed = state.run(block)
    except BaseException:
        state.failed = block
        raise
    finally:
        state.ran = max(state.ran, position + 1)
    assert offline.attempts[before:] == [], "the snippet tried to reach the network"
    if block.output is not None:
        assert matches(block.output, printed), (
            f"README.md:{block.line}: the snippet printed\n{printed}\nbut the README shows\n{block.output}"
        )


# ---------------------------------------------------------------------- the shell blocks


def _commands() -> list[tuple[Block, str]]:
    return [
        (block, line.strip())
        for block in SHELL
        for line in block.code.splitlines()
        if line.strip().split(" ", 1)[0] in RUN_COMMANDS
    ]


def _command_env(server: JevServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SECRET_ENV}
    env.update(
        TYPESAFE_API_KEY=KEY,
        TYPESAFE_BASE_URL=server.base_url,
        LANGSMITH_TRACING="false",
        PYTHONPATH=str(ROOT),
    )
    return env


@contextlib.contextmanager
def _readme_servers(block: Block, cwd: Path) -> Iterator[dict[str, str]]:
    """Start the scripted servers a shell block starts, on free ports; yield {README's URL: real URL}."""
    urls: dict[str, str] = {}
    started: list[subprocess.Popen[str]] = []
    try:
        for line in block.code.splitlines():
            if not line.strip().startswith(SERVER_COMMAND):
                continue
            words = shlex.split(line.strip().rstrip("&"))
            port = words.index("--port") + 1
            readme_url = f"http://127.0.0.1:{words[port]}"
            words[port] = "0"
            server = subprocess.Popen(
                [sys.executable, *words[1:]], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            started.append(server)
            assert server.stdout is not None
            urls[readme_url] = server.stdout.readline().strip()
            assert urls[readme_url].startswith("http://127.0.0.1:"), server.communicate(timeout=10)
        yield urls
    finally:
        for server in started:
            server.terminate()
            server.communicate(timeout=10)


def _argv(command: str) -> list[str]:
    words = shlex.split(command)
    scripts = Path(sys.executable).parent
    if words[0] == "langchain-jev":
        return [str(scripts / "langchain-jev"), *words[1:]]
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *words[1:]]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("block", "command"), _commands(), ids=[f"{b.name}-{c.split()[0]}" for b, c in _commands()]
)
def test_shell_command_runs_and_prints_what_the_readme_shows(
    block: Block, command: str, server: JevServer, tmp_path: Path
) -> None:
    workdir = _workdir(tmp_path)
    for python in PYTHON:
        if python.file_name:
            (workdir / python.file_name).write_text(python.code, encoding="utf-8")
    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            _argv(command), cwd=workdir, env=_command_env(server), capture_output=True, text=True, timeout=300
        )

    with _readme_servers(block, workdir) as urls:
        for readme_url, url in urls.items():
            command = command.replace(readme_url, url)
        result = run()
    assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
    if block.output is not None:
        assert matches(block.output, result.stdout), (
            f"README.md:{block.line}: `{command}` printed\n{result.stdout}\nbut the README shows\n{block.output}"
        )
    if command.startswith("pytest"):
        assert " passed" in result.stdout and "skipped" not in result.stdout, result.stdout
        if "--jev-cache" in command:  # the README says a rerun of an unchanged suite costs nothing
            asked = server.request_count
            again = run()
            assert again.returncode == 0 and " passed" in again.stdout, again.stdout
            assert server.request_count == asked, "the rerun asked Jev again despite --jev-cache"


# ---------------------------------------------------------------------- the README itself


def test_set_up_gives_exactly_the_two_commands_ci_runs() -> None:
    set_up = [block for block in SHELL if block.section == "Set up"]
    assert set_up[0].code == 'python -m pip install -e ".[test]"\npython -m pytest\n'
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert 'python -m pip install -e ".[test]"' in ci and "python -m pytest" in ci


def test_the_benchmarks_section_says_how_to_rerun_them() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## Benchmarks" in text
    benchmarks = text.split("## Benchmarks", 1)[1].split("\n## ", 1)[0]
    assert "python benchmarks/run.py" in benchmarks


def test_every_python_block_runs_or_is_justified() -> None:
    assert PYTHON, "the README has no Python snippet"
    sections = {block.section for block in PYTHON}
    assert set(SKIPPED) <= sections, "a justification names no section of the README"
    assert set(PRELUDES) <= sections, "a prelude names no section of the README"
    unrun = [
        block
        for block in SHELL
        for line in block.code.splitlines()
        if line.strip() and line.strip().split(" ", 1)[0] not in (*RUN_COMMANDS, "python", "pip")
    ]
    assert unrun == [], "a shell command is neither run here nor one CI runs"


def test_output_blocks_are_parsed_as_outputs() -> None:
    text = "```python\nprint(1)\n```\n\n```text\n1\n```\n\nProse.\n\n```text\nnot an output\n```\n"
    parsed = blocks(text)
    assert [(b.lang, b.output) for b in parsed] == [("python", "1\n"), ("text", None)]
    assert matches("a ... c", "a bbb c") and not matches("a ... c", "a bbb d")
