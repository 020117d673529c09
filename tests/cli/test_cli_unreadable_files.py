"""Every file a command reads is a regular file, or a one-line refusal at once (exit 2): never a read that never ends.

``/dev/zero`` given as a results file used to be read without end (its first line
has none), and a FIFO blocked the command for ever; the commands that read results
files (``compare``, ``compare --judge``, ``rejudge``, ``calibrate --results``), the
datasets their headers name, judge files (``judge --judge``, ``validate``), the
results file ``--resume`` continues and the ``--cache`` are all read by one reader that refuses a
device, a FIFO, a socket or a folder, also behind a symlink, naming the file. Each
command runs in this process under a hang guard (`tests.cli.stored.guarded`): a
command that blocks fails its test instead of hanging the suite.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from langchain_jev.testing.server import JevServer
from tests.cli.stored import guarded, header_and_rows, with_header

pytestmark = [
    pytest.mark.usefixtures("stored_key"),
    pytest.mark.slow,  # a loopback server and judged runs
    pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, sockets and /dev/zero are POSIX"),
]





@pytest.fixture
def bad_files(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """A path of each kind that is not a regular file: a character device, a FIFO, a folder, a socket, links."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    listening = socket.socket(socket.AF_UNIX)
    sock = tmp_path / "s.jsonl"  # short: a socket's path has a small limit
    listening.bind(str(sock))
    zero_link = tmp_path / "zero.jsonl"
    zero_link.symlink_to("/dev/zero")
    fifo_link = tmp_path / "pipe-link.jsonl"
    fifo_link.symlink_to(fifo)
    try:
        yield {"/dev/zero": Path("/dev/zero"), "a FIFO": fifo, "a folder": folder, "a socket": sock,
               "a link to /dev/zero": zero_link, "a link to a FIFO": fifo_link}
    finally:
        listening.close()


KINDS = ["/dev/zero", "a FIFO", "a folder", "a socket", "a link to /dev/zero", "a link to a FIFO"]
SAID = {"/dev/zero": "a character device, not a regular file", "a FIFO": "a FIFO (a named pipe), not a regular file",
        "a folder": "a folder, not a regular file", "a socket": "a socket, not a regular file",
        "a link to /dev/zero": "a character device, not a regular file",
        "a link to a FIFO": "a FIFO (a named pipe), not a regular file"}  # fmt: skip


def _one_error(capsys: pytest.CaptureFixture[str], code: int, *named: str) -> str:
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert "internal error" not in captured.err and "Traceback" not in captured.err, captured.err
    errors = [line for line in captured.err.splitlines() if line.startswith("langchain-jev: error: ")]
    assert len(errors) == 1, captured.err
    said = captured.err[captured.err.index(errors[0]) :]  # the error, with the lines it lists under it
    for text in named:
        assert text in said, (text, said)
    return said


def _commands(stored_runs: dict[str, Path], stored_server: JevServer, bad: Path) -> dict[str, list[str]]:
    model = ["--base-url", stored_server.base_url, "--max-retries", "0"]
    return {
        "compare": ["compare", str(stored_runs["a"]), str(bad)],
        "compare (A)": ["compare", str(bad), str(stored_runs["b"])],
        "compare --judge": ["compare", str(stored_runs["a"]), str(bad), "--judge", str(stored_runs["judge"]), *model],
        "rejudge": ["rejudge", str(bad), "--judge", str(stored_runs["judge"])],
        "calibrate --results": ["calibrate", str(stored_runs["data"]), "--judge", str(stored_runs["judge"]), "--results",
                                str(bad), "--label", "human", *model],
    }  # fmt: skip


COMMANDS = ["compare", "compare (A)", "compare --judge", "rejudge", "calibrate --results"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_results_file_that_is_not_a_regular_file_is_refused_at_once(
    command: str, kind: str, stored_runs: dict[str, Path], stored_server: JevServer, bad_files: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad = bad_files[kind]
    before = stored_server.request_count
    code = guarded(_commands(stored_runs, stored_server, bad)[command], fifos=[bad_files["a FIFO"]])
    _one_error(capsys, code, f"cannot read {bad}: {SAID[kind]}")
    assert stored_server.request_count == before  # refused before any request


@pytest.mark.parametrize("kind", ["/dev/zero", "a FIFO", "a socket", "a link to a FIFO"])
def test_a_dataset_the_header_names_that_is_not_a_regular_file_is_refused_not_read(
    kind: str, stored_runs: dict[str, Path], stored_server: JevServer, bad_files: dict[str, Path], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    header, _ = header_and_rows(stored_runs["b"])
    header["run"] = {**header["run"], "dataset": str(bad_files[kind]), "dataset_path": str(bad_files[kind])}
    tampered = with_header(tmp_path / "b.jsonl", stored_runs["b"], header)
    model = ["--base-url", stored_server.base_url, "--max-retries", "0"]
    code = guarded(["compare", str(stored_runs["a"]), str(tampered), "--judge", str(stored_runs["judge"]), *model],
                   fifos=[bad_files["a FIFO"]])
    _one_error(capsys, code, "B's judged state cannot be recovered", f"{bad_files[kind]}: {SAID[kind]}")


@pytest.mark.parametrize("command", ["compare", "rejudge"])
def test_a_page_whose_dataset_is_a_fifo_is_drawn_without_its_states(
    command: str, stored_runs: dict[str, Path], bad_files: dict[str, Path], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("matplotlib")
    fifo = bad_files["a FIFO"]
    header, _ = header_and_rows(stored_runs["b"])
    header["run"] = {**header["run"], "dataset": str(fifo), "dataset_path": str(fifo)}
    tampered = with_header(tmp_path / "b.jsonl", stored_runs["b"], header)
    page = tmp_path / "page.html"
    argv = (["compare", str(stored_runs["a"]), str(tampered)] if command == "compare"
            else ["rejudge", str(tampered), "--judge", str(stored_runs["judge"])])  # fmt: skip
    code = guarded([*argv, "--html", str(page)], fifos=[fifo])
    captured = capsys.readouterr()
    assert code in (0, 1), captured.err
    if command == "rejudge":  # the run's page says why the rows show no state
        assert "not a regular file" in page.read_text(encoding="utf-8")
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("kind", ["a FIFO", "/dev/zero", "a socket"])
@pytest.mark.parametrize("where", ["judge --judge", "validate", "rejudge --judge", "judge DATA"])
def test_a_judge_file_or_dataset_that_is_not_a_regular_file_is_refused_at_once(
    where: str, kind: str, stored_runs: dict[str, Path], stored_server: JevServer, bad_files: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad = str(bad_files[kind])
    model = ["--base-url", stored_server.base_url, "--max-retries", "0", "--workers", "1", "--quiet"]
    argv: dict[str, list[str]] = {
        "judge --judge": ["judge", str(stored_runs["data"]), "--judge", bad, *model],
        "validate": ["validate", bad],
        "rejudge --judge": ["rejudge", str(stored_runs["a"]), "--judge", bad],
        "judge DATA": ["judge", bad, "--judge", str(stored_runs["judge"]), *model],
    }
    code = guarded(argv[where], fifos=[bad_files["a FIFO"]])
    _one_error(capsys, code, bad, SAID[kind])


def test_resuming_a_fifo_is_refused_not_read(
    stored_runs: dict[str, Path], stored_server: JevServer, bad_files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = bad_files["a FIFO"]
    code = guarded(["judge", str(stored_runs["data"]), "--judge", str(stored_runs["judge"]), "--base-url", stored_server.base_url,
                    "--workers", "1", "--quiet", "--out", str(fifo), "--resume"], fifos=[fifo])
    _one_error(capsys, code, f"cannot read {fifo}: a FIFO (a named pipe), not a regular file")


def test_a_results_line_past_the_bound_is_refused_by_its_number(
    stored_runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from langchain_jev.datasets._reading import MAX_LINE_BYTES

    lines = stored_runs["a"].read_bytes().splitlines(keepends=True)
    long = tmp_path / "long.jsonl"
    with open(long, "wb") as out:  # a record padded past the bound: read no further than the bound
        out.writelines(lines[:2])
        out.write(lines[2].rstrip(b"\n") + b" " * MAX_LINE_BYTES + b"\n")
        out.writelines(lines[3:])
    code = guarded(["rejudge", str(long), "--judge", str(stored_runs["judge"])])
    _one_error(capsys, code, f"cannot read {long}: line 3 is longer than 64 MiB, the most a line may hold")


@pytest.mark.parametrize("kind", ["/dev/zero", "a FIFO", "a folder", "a link to a FIFO"])
def test_a_cache_that_is_not_a_regular_file_is_named_as_what_it_is(
    kind: str, stored_runs: dict[str, Path], stored_server: JevServer, bad_files: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad = bad_files[kind]
    code = guarded(["judge", str(stored_runs["data"]), "--judge", str(stored_runs["judge"]), "--base-url",
                    stored_server.base_url, "--workers", "1", "--quiet", "--cache", str(bad)],
                   fifos=[bad_files["a FIFO"]])  # fmt: skip
    _one_error(capsys, code, f"cannot open the response cache at '{bad}': {SAID[kind]}")
