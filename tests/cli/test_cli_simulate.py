"""``langchain-jev simulate``: a conversation per row of personas and goals, judge's results file.

The app is a real LangGraph graph in a module of its own (``--app
sim_app:graph``), the judge a judge file asked of the loopback Jev server
(`JevServer`) through the real typesafe-sdk client; the interrupted run is a
real subprocess stopped with Ctrl-C, as ``judge``'s are.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from langchain_jev.cli import main
from langchain_jev.testing.server import JevServer
from tests.cli.helpers import FAKE_KEY, ROOT, read_header, read_results, run_cli, start_cli, write_jsonl

APP = """
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph


def answer(state):
    said = state["messages"][-1].content
    if "crash" in said:
        raise RuntimeError("the app fell over")
    return {"messages": [AIMessage("Answer to " + said)]}


graph = (
    StateGraph(MessagesState).add_node("agent", answer).add_edge(START, "agent").add_edge("agent", END)
    .compile(checkpointer=InMemorySaver())
)
not_an_app = 42
"""

JUDGE = """
criteria:
  - name: helpful
    kind: noul
    instructions: Does `assistant_answer` help with `user_question`?
    minimum: 0.7
"""

STOP = "Has the user said goodbye?"


def answers(state: Mapping[str, Any], questions: Mapping[str, Any]) -> dict[str, Any]:
    """Helpful unless the user asked for something rude; the stop question passes on a goodbye."""
    asked = str(state.get("user_question", ""))
    return {"helpful": 0.2 if "rude" in asked else 0.9, "stop": 0.95 if "Bye" in asked else 0.05}


def _files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "sim_app.py").write_text(APP, encoding="utf-8")
    judge = tmp_path / "judge.yaml"
    judge.write_text(JUDGE, encoding="utf-8")
    return judge, tmp_path


ROWS = [
    {"id": "long", "persona": "A chatty user", "goal": "Talk", "script": [f"long {n}." for n in range(1, 8)]},
    {"id": "bye", "goal": "Leave", "script": ["bye one.", "Bye now.", "never said."]},
    {"id": "rude", "goal": "Be rude", "script": "Say something rude."},
    {"id": "crash", "goal": "Break it", "script": ["Please crash."]},
]


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    judge, folder = _files(tmp_path)
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setenv("TYPESAFE_API_KEY", FAKE_KEY)
    return judge, write_jsonl(tmp_path / "personas.jsonl", ROWS)


def _simulate(data: Path, judge: Path, server: JevServer, *extra: str | Path) -> list[str]:
    return [
        "simulate", str(data), "--app", "sim_app:graph", "--judge", str(judge),
        "--base-url", server.base_url, "--max-retries", "0", "--quiet", *map(str, extra),
    ]  # fmt: skip


def _asked(server: JevServer) -> list[str]:
    return [r.body["state"]["user_question"] for r in server.requests if r.path.endswith("/systemone")]


def test_each_row_is_a_conversation_judged_once_per_turn(
    setup: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge, data = setup
    out = tmp_path / "results.jsonl"
    with JevServer(answers) as server:
        code = main(_simulate(data, judge, server, "--out", out, "--max-turns", "5", "--stop-when", STOP))
        asked = _asked(server)
    said = capsys.readouterr()
    assert code == 3, said.err  # the conversation whose app raised was not judged whole
    records = {r["id"]: r for r in read_results(out)}
    # max_turns held: the script had seven turns, five were said and judged, one request each
    assert records["long"]["simulation"] == {"ending": "max_turns", "turns": 5, "stops": ["FAILED"] * 5}
    assert asked.count("long 5.") == 1 and "long 6." not in asked
    # the stop question passed on the second turn: the third was never said
    assert records["bye"]["simulation"]["ending"] == "stopped" and "never said." not in asked
    assert [m["content"] for m in records["bye"]["conversation"]] == [
        "bye one.",
        "Answer to bye one.",
        "Bye now.",
        "Answer to Bye now.",
    ]
    assert len(asked) == 5 + 2 + 1  # long, bye, rude; the crashed turn asked nothing
    assert records["rude"]["passed"] is False and records["rude"]["findings"][0]["outcome"] == "FAILED"
    assert records["rude"]["findings"][0]["answer"] == {"type": "noul", "noul": 0.2}  # rejudge reads it
    # the app that raised: an error record, never a pass
    assert records["crash"]["passed"] is False
    assert records["crash"]["error"] == "RuntimeError: the app fell over"
    assert records["long"]["passed"] is True
    header = read_header(out)
    assert header["judge"]["simulation"] == {
        "app": "sim_app:graph",
        "user_model": None,
        "max_turns": 5,
        "stop_when": {"instructions": STOP, "minimum": 0.8},
    }
    assert "4 rows" in said.out


def test_the_report_and_compare_read_a_simulation_run(
    setup: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge, data = setup
    first, second, page = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "report.html"
    with JevServer(answers) as server:
        assert main(_simulate(data, judge, server, "--out", first, "--max-turns", "2", "--html", page)) == 3
        assert main(_simulate(data, judge, server, "--out", second, "--max-turns", "3")) == 3
    html = page.read_text(encoding="utf-8")
    assert "simulate:" in html and "helpful" in html
    capsys.readouterr()
    assert main(["compare", str(first), str(second)]) == 0
    shown = capsys.readouterr().out
    assert "4 rows compared (joined by key)" in shown  # the conversations of both runs, row by row
    assert "simulation max_turns 2 -> 3" in shown  # and what ran them differently


def test_resume_refuses_another_simulation_and_bad_options_are_named(
    setup: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge, data = setup
    out = tmp_path / "results.jsonl"
    with JevServer(answers) as server:
        main(_simulate(data, judge, server, "--out", out, "--max-turns", "2"))
        capsys.readouterr()
        assert main(_simulate(data, judge, server, "--out", out, "--max-turns", "3", "--resume")) == 2
        assert "simulation max_turns 2 -> 3" in capsys.readouterr().err
        for app, said in [("sim_app:not_an_app", "int is not a runnable"), ("nosuch:graph", "cannot import")]:
            args = _simulate(data, judge, server, "--out", tmp_path / "x.jsonl")
            args[args.index("sim_app:graph")] = app
            assert main(args) == 2
            assert f"--app {app}: {said}" in capsys.readouterr().err
        unscripted = write_jsonl(tmp_path / "unscripted.jsonl", [{"persona": "A user", "goal": "Chat"}])
        assert main(_simulate(unscripted, judge, server, "--out", tmp_path / "y.jsonl")) == 2
        assert "no 'script' and no user model" in capsys.readouterr().err


@pytest.mark.slow
def test_an_interrupted_run_resumes_without_repeating_a_finished_conversation(tmp_path: Path) -> None:
    judge, folder = _files(tmp_path)
    rows = [
        {"id": f"r{n}", "goal": "Talk", "script": [f"row {n} first.", f"row {n} second."]}
        for n in range(1, 31)
    ]
    data = write_jsonl(tmp_path / "personas.jsonl", rows)
    out = tmp_path / "results.jsonl"
    env = {"PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)])}
    with JevServer(answers, delay=0.05) as server:
        args = [*_simulate(data, judge, server, "--out", out, "--concurrency", "1")]
        process = start_cli(*args, **env)
        try:
            deadline = time.monotonic() + 90
            while len(_complete_lines(out)) < 6:  # the header and five conversations
                assert process.poll() is None, process.communicate()
                assert time.monotonic() < deadline, "the run wrote too few lines"
                time.sleep(0.02)
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
        assert process.returncode == 130, err
        assert "run again with --resume" in err
        kept = read_results(out)
        finished = {r["id"] for r in kept}
        assert 5 <= len(finished) < 30
        server.reset()
        resumed = run_cli(*args, "--resume", PYTHONPATH=env["PYTHONPATH"])
        asked = _asked(server)
    assert resumed.returncode == 0, resumed.stderr
    records = read_results(out)
    assert sorted(int(r["id"][1:]) for r in records) == list(range(1, 31))  # each once
    again = {question.split()[1] for question in asked}
    assert not again & {name[1:] for name in finished}  # no finished conversation was run again
    assert len(asked) == 2 * (30 - len(finished))
    assert f"resuming: {len(finished)} row(s) already judged" in resumed.stderr


def _complete_lines(path: Path) -> list[str]:
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    return [line for line in text.splitlines()[: text.count("\n")] if json.loads(line)]


def test_the_user_model_may_be_a_provider_model_string_as_model_takes(
    setup: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    judge, data = setup
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    out = tmp_path / "results.jsonl"
    with JevServer(answers) as server:
        # every row is scripted, so the model is built (from the string) but never asked
        assert main(_simulate(data, judge, server, "--out", out, "--user-model", "openai:gpt-4o-mini")) == 3
        assert read_header(out)["judge"]["simulation"]["user_model"] == "openai:gpt-4o-mini"
        capsys.readouterr()
        args = _simulate(data, judge, server, "--out", tmp_path / "x.jsonl", "--user-model", "nosuch:model")
        assert main(args) == 2
    said = capsys.readouterr().err
    assert (
        "--user-model nosuch:model: cannot import it" in said
        and "nor is it a provider:model chat model" in said
    )
