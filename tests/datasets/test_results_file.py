"""The results file's header (the judge that wrote it), resuming only the same judge, and its one-writer lock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from langchain_jev.datasets._fingerprint import differences, fingerprint, judge_description
from langchain_jev.datasets._lock import ResultsLock, ResultsLockedError
from langchain_jev.datasets.results import ResultsError, ResultsFile, is_header, read_header, resume_results
from langchain_jev.spec import load_spec

SPEC: dict[str, Any] = {
    "name": "support",
    "criteria": [
        {"kind": "noul", "name": "polite", "instructions": "Is `assistant_answer` polite?", "minimum": 0.7},
        {"kind": "score", "name": "helpful", "instructions": "Helpful?", "levels": ["no", "some", "yes"], "minimum": 1},
        {"kind": "check", "name": "json", "check": {"answer_is_json": True}, "defect": "not JSON"},
    ],
}


def _described(spec: dict[str, Any] | None = None, model: str = "jev-latest") -> dict[str, Any]:
    return judge_description(load_spec(json.loads(json.dumps(spec or SPEC))), model)


def _changed(**edits: Any) -> dict[str, Any]:
    spec = json.loads(json.dumps(SPEC))
    for path, value in edits.items():
        index, key = path.split("__")
        spec["criteria"][int(index[1:])][key] = value
    return spec


def _write(path: Path, judge: dict[str, Any], rows: int) -> None:
    with ResultsFile(path, judge=judge) as results:
        for row in range(1, rows + 1):
            results.write({"row": row, "line": row, "key": f"k{row}", "passed": True, "findings": []})


# ----------------------------------------------------------------------------- fingerprint


def test_the_same_judge_has_the_same_fingerprint_whatever_its_file_spells_out() -> None:
    explicit = json.loads(json.dumps(SPEC))
    explicit.update({"min_confidence": 0.6, "fail_on_error": False, "description": "other words", "name": "x"})
    assert fingerprint(_described(explicit)) == fingerprint(_described())


@pytest.mark.parametrize(
    ("after", "model", "expected"),
    [
        (_changed(c0__name="courteous"), "jev-latest", ["criterion 'polite' renamed to 'courteous'"]),
        (_changed(c1__minimum=2), "jev-latest", ["criterion 'helpful' changed: minimum 1.0 -> 2.0"]),
        (_changed(c0__instructions="Kind?"), "jev-latest",
         ["criterion 'polite' changed: instructions \"Is `assistant_answer` polite?\" -> \"Kind?\""]),
        ({**SPEC, "criteria": SPEC["criteria"][:2]}, "jev-latest", ["criterion 'json' removed"]),
        ({**SPEC, "criteria": [*SPEC["criteria"], {"kind": "noul", "name": "short", "instructions": "Short?",
                                                   "minimum": 0.5}]}, "jev-latest", ["criterion 'short' added"]),
        ({**SPEC, "min_confidence": 0.8}, "jev-latest", ["option min_confidence 0.6 -> 0.8"]),
        (SPEC, "jev-canary", ["model 'jev-latest' -> 'jev-canary'"]),
        ({**SPEC, "criteria": SPEC["criteria"][::-1]}, "jev-latest", ["the criteria are in another order"]),
    ],
)
def test_differences_say_what_changed(after: dict[str, Any], model: str, expected: list[str]) -> None:
    before, changed = _described(), _described(after, model)
    assert fingerprint(before) != fingerprint(changed)
    assert differences(before, changed) == expected


# ----------------------------------------------------------------------------- header and resume


def test_a_results_file_starts_with_its_header_and_readers_skip_it(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    judge = _described()
    _write(path, judge, 2)
    header = read_header(path)
    assert header is not None and is_header(header)
    assert header["format"] == 1
    assert header["judge"] == judge
    assert header["fingerprint"] == fingerprint(judge)
    seen: list[int] = []
    resumed = resume_results(path, lambda record: seen.append(record["row"]), judge=judge)
    assert seen == [1, 2] and sorted(resumed.done) == [1, 2]
    assert read_header(path) == header  # kept through the rewrite
    with ResultsFile(path, append=True, judge=judge) as results:  # appending adds no second header
        results.write({"row": 3, "line": 3, "key": "k3", "passed": True})
    assert sum(is_header(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()) == 1


def test_resume_with_another_judge_is_refused_and_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    _write(path, _described(), 3)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('{"row": 4, "line": 4, "key": "k4", "passed": false, "error": "X: y"}\n{"row": 5')  # to drop
    before = path.read_bytes()
    with pytest.raises(ResultsError) as caught:
        resume_results(path, judge=_described(_changed(c0__name="courteous", c1__minimum=2)))
    message = str(caught.value)
    assert "was written by another judge" in message
    assert "criterion 'polite' renamed to 'courteous'" in message
    assert "criterion 'helpful' changed: minimum 1.0 -> 2.0" in message
    assert path.read_bytes() == before


def test_resume_refuses_a_results_file_that_does_not_name_its_judge(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    original = '{"row": 1, "line": 1, "key": "k1", "passed": true}\n'
    path.write_text(original, encoding="utf-8")
    with pytest.raises(ResultsError, match="does not say which judge wrote it"):
        resume_results(path, judge=_described())
    assert path.read_text(encoding="utf-8") == original
    path.write_text("", encoding="utf-8")  # an empty file is an empty start
    assert resume_results(path, judge=_described()).done == {}


def test_results_on_stdout_have_no_header(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    results = ResultsFile("-", judge=_described())
    results.write({"row": 1, "key": "k", "passed": True})
    results.close()
    assert capsysbinary.readouterr().out == b'{"row": 1, "key": "k", "passed": true}\n'


# ----------------------------------------------------------------------------- one writer


def test_a_second_lock_on_the_same_results_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    script = (
        "import sys, time\n"
        "from langchain_jev.datasets._lock import ResultsLock\n"
        f"lock = ResultsLock({str(path)!r}); lock.acquire(); print('locked', flush=True); sys.stdin.read()\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(ResultsLockedError) as caught:
            ResultsLock(path).acquire()
        assert str(caught.value).startswith(f"{path} is being written by another run (pid {holder.pid})")
    finally:
        holder.kill()  # killed: the system drops its lock, though its lock file stays
        holder.wait()
    assert (tmp_path / ".results.jsonl.lock").exists()
    lock = ResultsLock(path)
    lock.acquire()  # a lock file left by a killed run locks nothing
    lock.release()
    assert not (tmp_path / ".results.jsonl.lock").exists()


def test_only_files_are_locked(tmp_path: Path) -> None:
    assert ResultsLock.applies_to(tmp_path / "new.jsonl")
    assert not ResultsLock.applies_to("-")
    if os.path.exists(os.devnull):
        assert not ResultsLock.applies_to(os.devnull)
