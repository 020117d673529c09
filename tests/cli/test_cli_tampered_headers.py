"""A results file whose header was edited into something else is bad input for every command that reads it.

``compare`` on a header naming the judge ``5`` (or with ``judge.options`` not a
mapping) stopped with ``internal error: TypeError`` (exit 70). Every command that
reads a results file (``compare``, ``compare --html``, ``compare --judge``,
``rejudge``, ``calibrate --results`` and ``judge --resume``) now refuses a header
with a field of the wrong type in one line, exit 2, naming the file and the field,
before it reads or asks anything. The fields of the table are the issue's two and
one of each kind besides (the marker, the format, the fingerprint, the judge, its
options and criteria, the run and its columns, command and target);
`tests.datasets.test_header` covers every field and any value.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from langchain_jev.testing.server import JevServer
from tests.cli.stored import guarded, header_and_rows, with_header

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("stored_key")]  # a loopback server, judged runs

TAMPERED: list[tuple[str, Any, str]] = [
    ("judge", 5, "judge is 5"),
    ("judge.options", [1], "judge.options is [1], not an object"),
    ("judge.options", "strict", "judge.options is \"strict\", not an object"),
    ("judge.criteria", 5, "judge.criteria is 5, not a list"),
    ("judge.criteria.0", "noul", "judge.criteria[0] is \"noul\", not an object"),
    ("judge.criteria.1.minimum", "high", "judge.criteria[1].minimum"),
    ("judge.options.min_confidence", True, "judge.options.min_confidence"),
    ("judge.model", 5, "judge.model is 5, not text"),
    ("langchain_jev", 5, "langchain_jev is 5, not 'results'"),
    ("format", "1", "format is \"1\", not a whole number"),
    ("fingerprint", 5, "fingerprint is 5, not text"),
    ("run", [1], "run is [1], not an object"),
    ("run.fields", 5, "run.fields is 5, not an object"),
    ("run.fields.names", [1], "run.fields.names is [1], not an object"),
    ("run.dataset_path", 5, "run.dataset_path is 5, not text"),
    ("run.command", "langchain-jev judge", "run.command is \"langchain-jev judge\", not a list"),
    ("run.fail_under", "80%", "run.fail_under is \"80%\", not a number"),
]  # fmt: skip
COMMANDS = ["compare", "compare --html", "compare --judge", "rejudge", "calibrate --results", "judge --resume"]





def tampered_file(stored_runs: dict[str, Path], folder: Path, field: str, value: Any) -> Path:
    header, _ = header_and_rows(stored_runs["b"])
    holder: Any = header
    parts = [int(p) if p.isdigit() else p for p in field.split(".")]
    for part in parts[:-1]:
        holder = holder[part]
    holder[parts[-1]] = value
    return with_header(folder / "b.jsonl", stored_runs["b"], header)


def argv(command: str, stored_runs: dict[str, Path], stored_server: JevServer, bad: Path, folder: Path) -> list[str]:
    model = ["--base-url", stored_server.base_url, "--max-retries", "0"]
    judge = str(stored_runs["judge"])
    if command == "compare":
        return ["compare", str(stored_runs["a"]), str(bad)]
    if command == "compare --html":
        return ["compare", str(stored_runs["a"]), str(bad), "--html", str(folder / "page.html")]
    if command == "compare --judge":
        return ["compare", str(stored_runs["a"]), str(bad), "--judge", judge, *model]
    if command == "rejudge":
        return ["rejudge", str(bad), "--judge", judge, "--out", str(folder / "again.jsonl")]
    if command == "calibrate --results":
        return ["calibrate", str(stored_runs["data"]), "--judge", judge, "--results", str(bad), "--label", "human", *model]
    return ["judge", str(stored_runs["data"]), "--judge", judge, "--out", str(bad), "--resume", "--workers", "1",
            "--quiet", "--ignore-field", "human", *model]  # fmt: skip


@pytest.mark.parametrize(("field", "value", "said"), TAMPERED, ids=[f"{f}={v!r}" for f, v, _ in TAMPERED])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_tampered_header_is_bad_input_naming_the_file_and_the_field(
    command: str, field: str, value: Any, said: str, stored_runs: dict[str, Path], stored_server: JevServer, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad = tampered_file(stored_runs, tmp_path, field, value)
    kept = bad.read_bytes()
    before = stored_server.request_count
    code = guarded(argv(command, stored_runs, stored_server, bad, tmp_path))
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert "internal error" not in captured.err and "Traceback" not in captured.err, captured.err
    errors = [line for line in captured.err.splitlines() if line.startswith("langchain-jev: error: ")]
    assert len(errors) == 1, captured.err
    assert f"{bad}: line 1, its header: {said}" in errors[0], errors[0]
    assert stored_server.request_count == before  # nothing asked
    assert bad.read_bytes() == kept  # nothing rewritten (--resume refuses before it rewrites)
    assert not (tmp_path / "page.html").exists() and not (tmp_path / "again.jsonl").exists()


def test_the_untampered_file_is_read_by_every_command(
    stored_runs: dict[str, Path], stored_server: JevServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in ("compare", "rejudge", "calibrate --results"):
        copy = tmp_path / "b.jsonl"
        shutil.copyfile(stored_runs["b"], copy)
        code = guarded(argv(command, stored_runs, stored_server, copy, tmp_path))
        assert code in (0, 1), capsys.readouterr().err
