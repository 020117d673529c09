"""Every output a command writes whole is complete or as it was: a full disk never leaves one cut short.

``compare --json``, ``compare --judge --json`` and ``calibrate --json`` left an empty
or cut file behind on a full disk (0 bytes, or cut at 8 KiB) while exiting 2;
``--write-judge`` left a cut judge, and every HTML page was written in place. Here
each output is first written whole (in this process: the previous file), then the
command runs again in a child process whose files may grow to half of it
(``RLIMIT_FSIZE``: the kernel refuses with ``EFBIG``, as a full disk refuses with
``ENOSPC``). The command exits 2 naming the output, and the previous file is left
byte for byte, with nothing beside it; without a previous file, none is left. The
results file ``--resume`` rewrites (with the rows it keeps) is one more such output.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from langchain_jev.cli import main
from langchain_jev.testing.server import JevServer
from tests.cli.helpers import cli_command, cli_env, write_jsonl
from tests.cli.stored import KEY, judge_rows, judged_runs, labelled_rows

pytestmark = [
    pytest.mark.usefixtures("stored_key"),
    pytest.mark.slow,  # subprocesses and a loopback server
    pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX"),
]



@pytest.fixture(scope="module")
def stored_runs(stored_server: JevServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two runs of the labelled rows, and ``c``: the same examples answered otherwise (for --judge, by id)."""
    paths = judged_runs(tmp_path_factory.mktemp("outputs"), stored_server)
    other = [{**row, "answer": row["answer"] + " (Checked twice.)"} for row in labelled_rows()]
    data_c = write_jsonl(paths["folder"] / "other.jsonl", other)
    paths["c"] = judge_rows(data_c, paths["folder"] / "c.jsonl", stored_server)
    return paths


Command = Callable[[dict[str, Path], JevServer, Path], list[str]]


def _model(stored_server: JevServer) -> list[str]:
    return ["--base-url", stored_server.base_url, "--max-retries", "0"]


COMMANDS: dict[str, Command] = {
    "compare --json": lambda r, s, out: ["compare", str(r["a"]), str(r["b"]), "--json", str(out)],
    "compare --html": lambda r, s, out: ["compare", str(r["a"]), str(r["b"]), "--html", str(out)],
    "compare --judge --json": lambda r, s, out: ["compare", str(r["a"]), str(r["c"]), "--on", "id", "--judge",
                                                 str(r["judge"]), *_model(s), "--json", str(out)],
    "compare --judge --out": lambda r, s, out: ["compare", str(r["a"]), str(r["c"]), "--on", "id", "--judge",
                                                str(r["judge"]), *_model(s), "--out", str(out)],
    "compare --judge --html": lambda r, s, out: ["compare", str(r["a"]), str(r["c"]), "--on", "id", "--judge",
                                                 str(r["judge"]), *_model(s), "--html", str(out)],
    "calibrate --json": lambda r, s, out: ["calibrate", str(r["data"]), "--judge", str(r["judge"]), "--results",
                                           str(r["a"]), "--label", "human", "--json", str(out)],
    "calibrate --write-judge": lambda r, s, out: ["calibrate", str(r["data"]), "--judge", str(r["judge"]),
                                                  "--results", str(r["a"]), "--label", "human", "--write-judge",
                                                  str(out)],
    "calibrate --html": lambda r, s, out: ["calibrate", str(r["data"]), "--judge", str(r["judge"]), "--results",
                                           str(r["a"]), "--label", "human", "--html", str(out)],
    "rejudge --out": lambda r, s, out: ["rejudge", str(r["a"]), "--judge", str(r["judge"]), "--out", str(out)],
    "rejudge --html": lambda r, s, out: ["rejudge", str(r["a"]), "--judge", str(r["judge"]), "--html", str(out)],
}  # fmt: skip
NEEDS_PAGES = {name for name in COMMANDS if "--html" in name}


def run_limited(argv: list[str], limit: int) -> subprocess.CompletedProcess[str]:
    """The command in a child process whose files may grow to ``limit`` bytes (SIGXFSZ is ignored by Python)."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    return subprocess.run(cli_command(*argv), env=cli_env(TYPESAFE_API_KEY=KEY, MPLBACKEND="Agg"),
                          preexec_fn=limited, capture_output=True, text=True, timeout=300)  # fmt: skip


def leftovers(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".partial") or ".resume" in name)


@pytest.mark.parametrize("previous", [True, False], ids=["over the previous file", "a new file"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_full_disk_leaves_the_previous_output_whole_or_none(
    command: str, previous: bool, stored_runs: dict[str, Path], stored_server: JevServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    if command in NEEDS_PAGES:
        pytest.importorskip("matplotlib")
    if not previous and command not in ("compare --json", "calibrate --write-judge", "rejudge --out"):
        pytest.skip("one command of each kind of output without a previous file is enough")
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
    out = tmp_path / ("out.html" if "--html" in command else "out.yaml" if "judge" in command.split()[-1]
                      else "out.jsonl" if command.endswith("--out") else "out.json")  # fmt: skip
    argv = COMMANDS[command](stored_runs, stored_server, out)
    assert main(argv) in (0, 1, 3), capsys.readouterr().err  # written whole: the previous output
    capsys.readouterr()
    whole = out.read_bytes()
    assert len(whole) > 1024
    if not previous:
        out.unlink()
    done = run_limited(argv, len(whole) // 2)
    assert done.returncode == 2, done.stderr
    assert "internal error" not in done.stderr
    assert f"{out}: File too large" in done.stderr, done.stderr
    if previous:
        assert out.read_bytes() == whole
    else:
        assert not out.exists()
    assert leftovers(tmp_path) == []


def test_a_full_disk_while_the_run_s_page_is_written_leaves_the_previous_page(
    stored_runs: dict[str, Path], stored_server: JevServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
    page, results = tmp_path / "report.html", tmp_path / "results.jsonl"
    argv = ["judge", str(stored_runs["data"]), "--judge", str(stored_runs["judge"]), *_model(stored_server), "--workers", "1",
            "--quiet", "--ignore-field", "human", "--out", str(results), "--html", str(page)]  # fmt: skip
    assert main(argv) in (0, 1)
    capsys.readouterr()
    whole = page.read_bytes()
    assert len(whole) > 2 * (results.stat().st_size + 4096)  # room for the results, not for the page
    done = run_limited(argv, len(whole) // 2)
    assert done.returncode == 2, done.stderr
    assert f"{page}: File too large" in done.stderr, done.stderr
    assert page.read_bytes() == whole
    assert leftovers(tmp_path) == []


def test_a_full_disk_while_resume_rewrites_the_results_leaves_them_as_they_were(
    stored_runs: dict[str, Path], stored_server: JevServer, tmp_path: Path
) -> None:
    results = tmp_path / "results.jsonl"
    whole = stored_runs["a"].read_bytes()
    results.write_bytes(whole)  # every row done: --resume rewrites the file with what it keeps
    argv = ["judge", str(stored_runs["data"]), "--judge", str(stored_runs["judge"]), *_model(stored_server),
            "--workers", "1", "--quiet", "--ignore-field", "human", "--out", str(results), "--resume"]  # fmt: skip
    done = run_limited(argv, len(whole) // 2)
    assert done.returncode == 2, done.stderr
    assert f"cannot resume from {results}: File too large" in done.stderr, done.stderr
    assert results.read_bytes() == whole
    assert leftovers(tmp_path) == []
