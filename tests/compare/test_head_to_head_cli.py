"""``langchain-jev compare A B --judge SPEC``: each row's two answers judged head to head over the real
SDK and a loopback server: one request per row whatever the number of criteria, position bias is
INCONCLUSIVE, ``--out`` / ``--json`` / ``--html`` written (never over an input), and every kind of bad
input refused in one line with exit 2."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from langchain_jev.cli import main
from langchain_jev.testing.server import Fault, JevServer

pytestmark = pytest.mark.slow  # a loopback server, and the judge runs it compares

KEY = "sk-test-head-to-head-0123456789"
GOOD = "Yes: rain from 9am to 3pm, about 8 mm; take an umbrella."
VAGUE = "It might rain, or not."
CRITERIA = {
    "helpful": {"kind": "noul", "name": "helpful", "instructions": "Does `assistant_answer` help?", "minimum": 0.5},
    "specific": {"kind": "noul", "name": "specific", "instructions": "Does `assistant_answer` give times?",
                 "minimum": 0.5},
    "tone": {"kind": "choice", "name": "tone", "instructions": "What is the tone of `assistant_answer`?",
             "options": {"warm": "Friendly", "cold": "Curt"}, "accepted": ["warm"]},
    "checked": {"kind": "check", "name": "checked", "check": {"tool_not_called": "search"},
                "defect": "no question"},
}
ROWS = 6
JUDGED = {"helpful": 0.9, "specific": 0.9, "tone": "warm"}
"""What the server answers when the runs to compare are judged."""
B_BETTER = {1, 2, 3, 4}
"""The rows whose answer B improved (A's is vague there, B's on the others)."""


def spec_file(folder: Path, *names: str) -> Path:
    path = folder / f"judge-{'-'.join(names)}.yaml"
    path.write_text(yaml.safe_dump({"criteria": [CRITERIA[n] for n in names]}, sort_keys=False), encoding="utf-8")
    return path


def dataset(folder: Path, name: str, answers: Mapping[int, str], **extra: Any) -> Path:
    path = folder / f"{name}.jsonl"
    rows = [
        {"id": f"q{n}", "question": f"Will it rain in town {n} tomorrow?", "expected": "Rain from 9am.",
         "context": [f"Town {n}: rain 9am-3pm."], "region": "north", "answer": answers[n], **extra}
        for n in range(1, ROWS + 1)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def prefers(good: str) -> Any:
    """A consistent model: ``good`` is better, whichever place it is shown in."""

    def answer(state: Mapping[str, Any], questions: Mapping[str, Any]) -> dict[str, Any]:
        said = {}
        for name in questions:
            if not name.endswith(("__1", "__2")):
                continue
            pair = state["comparison_1" if name.endswith("__1") else "comparison_2"]
            said[name] = "answer_1" if pair["answer_1"] == good else "answer_2" if pair["answer_2"] == good else (
                "equally_good")
        return said

    return answer


def first_shown(state: Mapping[str, Any], questions: Mapping[str, Any]) -> dict[str, Any]:
    """An order-sensitive model: the answer shown first always wins."""
    return dict.fromkeys(questions, "answer_1")


@pytest.fixture(scope="module")
def server() -> Any:
    with JevServer(JUDGED) as running:
        yield running


@pytest.fixture(scope="module")
def runs(server: JevServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same six examples answered by two runs (A vague on rows 1-4, B vague on 5-6), each judged."""
    folder = tmp_path_factory.mktemp("head-to-head")
    old = os.environ.get("TYPESAFE_API_KEY")
    os.environ["TYPESAFE_API_KEY"] = KEY
    try:
        spec = spec_file(folder, "helpful", "specific", "tone", "checked")
        paths = {
            "folder": folder,
            "spec": spec,
            "one": spec_file(folder, "helpful"),
            "data_a": dataset(folder, "a", {n: VAGUE if n in B_BETTER else GOOD for n in range(1, ROWS + 1)}),
            "data_b": dataset(folder, "b", {n: GOOD if n in B_BETTER else VAGUE for n in range(1, ROWS + 1)}),
        }
        both = {n: {"answer_a": VAGUE if n in B_BETTER else GOOD, "answer_b": GOOD if n in B_BETTER else VAGUE}
                for n in range(1, ROWS + 1)}
        columns = folder / "columns.jsonl"
        columns.write_text("".join(
            json.dumps({"id": f"q{n}", "question": f"Will it rain in town {n}?", **both[n]}) + "\n"
            for n in range(1, ROWS + 1)
        ), encoding="utf-8")
        paths["columns"] = columns
        for name, data, extra in (
            ("a", paths["data_a"], ()),
            ("b", paths["data_b"], ()),
            ("col_a", columns, ("--answer-field", "answer_a")),
            ("col_b", columns, ("--answer-field", "answer_b")),
        ):
            paths[name] = folder / f"{name}.results.jsonl"
            code = main(["judge", str(data), "--judge", str(spec), "--base-url", server.base_url, "--max-retries",
                         "0", "--workers", "1", "--quiet", "--out", str(paths[name]), *extra])
            assert code in (0, 1), code
        return paths
    finally:
        if old is None:
            os.environ.pop("TYPESAFE_API_KEY", None)
        else:
            os.environ["TYPESAFE_API_KEY"] = old


def compare(server: JevServer, runs: dict[str, Path], *args: Any, a: str = "a", b: str = "b") -> list[str]:
    return ["compare", str(runs[a]), str(runs[b]), "--base-url", server.base_url, "--max-retries", "0",
            *map(str, args)]


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)


def row_of(stdout: str, name: str) -> list[str]:
    return next(line.split() for line in stdout.splitlines() if line.split()[:1] == [name])


# ---------------------------------------------------------------------- judging head to head


def test_each_row_s_answers_are_judged_head_to_head_in_one_request(
    server: JevServer, runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    server.answers = prefers(GOOD)
    server.reset()
    folder = runs["folder"]
    out, page, figures = folder / "h2h.jsonl", folder / "h2h.html", folder / "h2h.json"

    code = main(compare(server, runs, "--judge", runs["spec"], "--on", "id", "--out", out, "--html", page,
                        "--json", figures))

    stdout = capsys.readouterr().out
    assert code == 0, stdout
    assert server.request_count == ROWS  # one per row: 3 criteria, both orders, one request
    for received in server.requests:
        assert sorted(received.questions) == sorted(f"{n}__{i}" for n in ("helpful", "specific", "tone") for i in (1, 2))
        state = received.state
        assert "assistant_answer" not in state and "tool_calls" not in state
        assert state["expected_output"] == "Rain from 9am." and state["region"] == "north"
        assert {state["comparison_1"]["answer_1"], state["comparison_1"]["answer_2"]} == {GOOD, VAGUE}
    assert row_of(stdout, "helpful") == ["helpful", "2", "4", "0", "0", "0", "0.688", "no", "clear", "winner"]
    assert row_of(stdout, "overall")[:6] == ["overall", "2", "4", "0", "0", "0"]
    assert "6 rows compared head to head (joined by id), 1 request each" in stdout
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["langchain_jev"] == "pairwise" and lines[0]["a"]["results"] == str(runs["a"])
    assert [(r["row"], r["preferred"]) for r in lines[1:]] == [(n, "B" if n in B_BETTER else "A") for n in range(1, 7)]
    assert lines[1]["findings"][0]["orders"] == ["B", "B"] and lines[1]["key_b"] != lines[1]["key"]
    assert json.loads(figures.read_text())["criteria"][0]["b"] == 4
    html = page.read_text(encoding="utf-8")
    assert '"pairwise":true' in html and html.count("<script") == 2


def test_one_request_per_row_whatever_the_number_of_criteria(
    server: JevServer, runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    server.answers = prefers(GOOD)
    for spec in (runs["one"], runs["spec"]):
        server.reset()
        assert main(compare(server, runs, "--judge", spec, "--on", "id")) == 0
        assert server.request_count == ROWS
    capsys.readouterr()


def test_an_order_sensitive_model_is_inconclusive_not_a_winner(
    server: JevServer, runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    server.answers = first_shown
    out = runs["folder"] / "biased.jsonl"
    assert main(compare(server, runs, "--judge", runs["spec"], "--on", "id", "--out", out)) == 0
    stdout = capsys.readouterr().out
    for name in ("helpful", "specific", "tone"):
        assert row_of(stdout, name)[1:6] == ["0", "0", "0", "6", "0"]  # no win, no tie: 6 undecided
    assert "inconclusive: 18 position bias" in stdout
    records = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert {f["preference"] for r in records for f in r["findings"]} == {"INCONCLUSIVE"}
    assert records[0]["findings"][0]["orders"] == ["A", "B"]


def test_two_answer_columns_of_one_dataset_join_by_key(
    server: JevServer, runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    server.answers = prefers(GOOD)
    server.reset()
    assert main(compare(server, runs, "--judge", runs["one"], a="col_a", b="col_b")) == 0
    stdout = capsys.readouterr().out
    assert row_of(stdout, "helpful")[1:3] == ["2", "4"] and "(joined by key)" in stdout
    state = server.requests[0].state
    assert "answer_a" not in state and "answer_b" not in state  # each side's own column is left out


def test_rows_the_model_could_not_compare_are_errors_and_exit_3(
    server: JevServer, runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    server.answers = prefers(GOOD)
    server.faults = lambda received: Fault(status=400) if received.number % 3 == 0 else None
    server.reset()
    out = runs["folder"] / "errors.jsonl"
    try:
        code = main(compare(server, runs, "--judge", runs["spec"], "--on", "id", "--out", out, "--concurrency", "1"))
    finally:
        server.faults = None
    stdout = capsys.readouterr().out
    assert code == 3
    assert row_of(stdout, "helpful")[5] == "2" and "2 could not be compared" in stdout
    errors = [json.loads(line) for line in out.read_text().splitlines()[1:] if "error" in line]
    assert len(errors) == 2 and all("preferred" not in r and r["error"].startswith("TypeSafe") for r in errors)


def test_a_server_that_cannot_be_reached_is_said_in_one_line(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["compare", str(runs["a"]), str(runs["b"]), "--judge", str(runs["spec"]), "--on", "id",
                 "--base-url", "http://127.0.0.1:9", "--max-retries", "0"])
    err = capsys.readouterr().err
    assert code == 3 and err.count("\n") == 1 and "cannot connect to http://127.0.0.1:9" in err


# ---------------------------------------------------------------------- refused, in one line


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, captured
    assert captured.err.count("\n") == 1 and message in captured.err, captured.err
    assert captured.out == ""


def test_a_bad_judge_file_is_refused(server: JevServer, runs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    bad = runs["folder"] / "bad.yaml"
    bad.write_text("criteria:\n  - {kind: noul, name: x}\n", encoding="utf-8")
    refused(capsys, compare(server, runs, "--judge", bad, "--on", "id"), f"the judge file is invalid: {bad}:2: ")
    checks = runs["folder"] / "checks.yaml"
    checks.write_text(yaml.safe_dump({"criteria": [CRITERIA["checked"]]}), encoding="utf-8")
    refused(capsys, compare(server, runs, "--judge", checks, "--on", "id"), "at least one question criterion")


def test_files_of_different_datasets_are_refused(
    server: JevServer, runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    refused(capsys, compare(server, runs, "--judge", runs["spec"]), "share no row (joined by key)")
    refused(capsys, compare(server, runs, "--judge", runs["spec"], "--on", "id", b="col_b"),
            "row 1 (q1): the user_question of A and B differ")


def test_runs_that_answered_alike_are_refused(
    server: JevServer, runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    refused(capsys, compare(server, runs, "--judge", runs["spec"], b="a"), "same answer on every row (6)")


def test_a_row_whose_state_cannot_be_recovered_is_refused(
    server: JevServer, runs: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = dataset(tmp_path, "moved", dict.fromkeys(range(1, ROWS + 1), GOOD))
    results = tmp_path / "moved.results.jsonl"
    server.answers = JUDGED
    assert main(["judge", str(data), "--judge", str(runs["spec"]), "--base-url", server.base_url, "--quiet",
                 "--workers", "1", "--out", str(results)]) in (0, 1)
    capsys.readouterr()
    lines = data.read_text().splitlines()
    lines[2] = lines[2].replace("town 3", "town three")
    data.write_text("\n".join(lines) + "\n")
    argv = ["compare", str(runs["a"]), str(results), "--judge", str(runs["spec"]), "--on", "id",
            "--base-url", server.base_url]
    refused(capsys, argv, f"row 3 (q3): B's judged state cannot be recovered: rows changed in {data} since "
                          "they were judged: 3")
    data.unlink()
    refused(capsys, argv, "row 1 (q1): B's judged state cannot be recovered: the judged rows could not be read")


def test_a_results_file_that_does_not_say_its_dataset_is_refused(
    server: JevServer, runs: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bare = tmp_path / "bare.jsonl"
    bare.write_text("".join(line + "\n" for line in runs["b"].read_text().splitlines()[1:]))
    argv = ["compare", str(runs["a"]), str(bare), "--judge", str(runs["spec"]), "--on", "id"]
    refused(capsys, argv, f"B ({bare}) does not record the dataset it judged")


def test_no_output_is_written_over_an_input(
    server: JevServer, runs: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    before = {name: runs[name].read_bytes() for name in ("a", "b", "data_a", "spec")}
    link = tmp_path / "link.jsonl"
    link.symlink_to(runs["a"])
    relative = os.path.relpath(runs["b"])
    for option, path in (("--out", runs["a"]), ("--out", link), ("--html", relative), ("--json", runs["data_a"]),
                         ("--out", runs["spec"])):
        refused(capsys, compare(server, runs, "--judge", runs["spec"], "--on", "id", option, path),
                f"{option} {path} is an input of this comparison")
    refused(capsys, compare(server, runs, "--html", link), "--html")  # comparing stored verdicts too
    assert {name: runs[name].read_bytes() for name in before} == before


def test_a_file_of_head_to_head_records_is_not_read_as_results(
    server: JevServer, runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    server.answers = prefers(GOOD)
    out = runs["folder"] / "records.jsonl"
    assert main(compare(server, runs, "--judge", runs["one"], "--on", "id", "--out", out)) == 0
    capsys.readouterr()
    refused(capsys, ["compare", str(runs["a"]), str(out)], "holds head-to-head comparisons")
    refused(capsys, ["compare", str(runs["a"]), str(runs["b"]), "--out", str(out)], "give --judge SPEC")
