"""The scripted Jev-compatible server, as users run it: ``python -m langchain_jev.testing.server``."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.decisions import Noul

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.models import JevDecisionModel
from langchain_jev.testing.server import JevServer, load_script, main
from langchain_jev.testing.server._command import _answers_within
from tests.cli.helpers import ROOT, WEATHER_DATA, WEATHER_JUDGE
from tests.support.signals import interruptible
from tests.testing.helpers import GOOD, judge_on

KEY = "sk-any-key-at-all"
POLITE = JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TYPESAFE_", "LANGSMITH_", "LANGCHAIN_"))}
    env["TYPESAFE_API_KEY"] = KEY
    return env


def exported(lines: str) -> dict[str, str]:
    """The variables of ``export NAME=VALUE`` shell lines, read as a shell would."""
    variables: dict[str, str] = {}
    for line in lines.splitlines():
        words = shlex.split(line)
        assert words[0] == "export" and len(words) == 2, f"not an export line: {line!r}"
        name, _, value = words[1].partition("=")
        variables[name] = value
    return variables


class Served:
    """A server subprocess and the settings it printed for the shell."""

    def __init__(self, *args: str) -> None:
        command = [sys.executable, "-m", "langchain_jev.testing.server", *args]
        self.process = subprocess.Popen(
            interruptible(command),
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        stdout = self.process.stdout
        assert stdout is not None
        read: list[str] = []
        reader = threading.Thread(
            target=lambda: read.extend([stdout.readline(), stdout.readline()]), daemon=True
        )
        reader.start()
        reader.join(timeout=60)  # a hang guard: a server that prints no exports fails, never hangs
        if reader.is_alive():
            self.process.kill()
        lines = "".join(read)
        assert lines.startswith("export TYPESAFE_BASE_URL=http://127.0.0.1:"), lines + (
            self.process.stderr.read() if self.process.stderr else ""
        )
        self.exports = exported(lines)
        self.url = self.exports["TYPESAFE_BASE_URL"]

    def stop(self, sig: int = signal.SIGTERM) -> subprocess.CompletedProcess[str]:
        self.process.send_signal(sig)
        out, err = self.process.communicate(timeout=10)
        return subprocess.CompletedProcess(self.process.args, self.process.returncode, out, err)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    script = tmp_path / "answers.json"
    script.write_text(json.dumps({"helpfulness": {"1": 0.8, "2": 0.2}, "mode": "refused"}), encoding="utf-8")
    server = Served("--answers", str(script), "--answer", "mode=answered", "--noul", "0.2", "--port", "0")
    try:
        yield server
    finally:
        if server.process.poll() is None:
            server.stop()


# ---------------------------------------------------------------------- the command, end to end


@pytest.mark.slow
def test_the_command_line_judges_with_the_scripted_answers(served: Served, tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "langchain_jev.cli", "judge", str(WEATHER_DATA), "--judge", str(WEATHER_JUDGE),
         "--base-url", served.url, "--out", str(out)],
        env=_env(), capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    header, *rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert header["langchain_jev"] == "results"
    assert len(rows) == 8
    for row in rows:
        findings = {f["name"]: f for f in row["findings"]}
        assert findings["helpfulness"]["outcome"] == "FAILED"  # scripted at level 1.2, needs 2
        assert findings["helpfulness"]["value"] == pytest.approx(1.2)
        assert findings["mode"]["outcome"] == "PASSED"  # --answer mode=answered wins over the file
        assert findings["has_details"]["outcome"] == "FAILED"  # --noul 0.2 for nouls not named
    assert "helpfulness                 score        0       8" in done.stdout


@pytest.mark.slow
def test_a_default_given_by_flag_is_said_once_per_question_on_stderr(served: Served) -> None:
    jev = JevDecisionModel(api_key=KEY, base_url=served.url)
    judge = JevJudge([POLITE], model=jev)
    try:
        assert [judge.judge("Hi?", "Hello!").finding("polite").value for _ in range(3)] == [0.2, 0.2, 0.2]
    finally:
        jev.close()
    stderr = served.stop().stderr
    assert stderr.count("noul 'polite' is not scripted: answered 0.2 (--noul)") == 1, stderr
    assert "any other noul answers 0.2 (--noul)" in stderr


@pytest.mark.slow
def test_the_command_line_refuses_what_nobody_scripted_naming_it_and_its_flags(tmp_path: Path) -> None:
    server = Served("--answer", "mode=answered")  # a script of one's own, no --noul
    try:
        out = tmp_path / "results.jsonl"
        done = subprocess.run(
            [sys.executable, "-m", "langchain_jev.cli", "judge", str(WEATHER_DATA), "--judge", str(WEATHER_JUDGE),
             "--base-url", server.url, "--out", str(out), "--max-retries", "0"],
            env=_env(), capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )  # fmt: skip
    finally:
        stderr = server.stop().stderr
    assert done.returncode == 3, done.stdout + done.stderr  # rows not judged: never a pass
    assert "8 rows: 0 passed" in done.stdout
    # the summary quotes the server's refusal: each question and how to answer it
    assert "the first: TypeSafeUnprocessableEntityError" in done.stdout, done.stdout
    assert "score 'helpfulness': script it (--answer helpfulness=2, or in the --answers file)" in done.stdout
    assert "noul 'has_details': script it (--answer has_details=0.9, or in the --answers file), or answer " \
        "every unscripted noul with --noul P" in done.stdout  # fmt: skip
    # the server says it once per question, however many rows asked, and said up front what it does
    assert stderr.count("the script does not name score 'helpfulness'") == 1, stderr
    assert stderr.count("the script does not name noul 'has_details'") == 1, stderr
    assert "any other question is refused with 422, naming it (--noul P answers nouls)" in stderr
    assert "hazard questions not scripted answer 0.02 (no hazard)" in stderr


def test_the_banner_counts_the_hazard_categories_it_scripts_rather_than_listing_them() -> None:
    from langchain_jev.testing.server._command import _banner

    banner = _banner("http://127.0.0.1:1", load_script(str(ROOT / "examples" / "weather_answers.json")), None)
    assert "questions scripted: answer_relevance, citations, completeness, context_relevance, goal_reached, " \
        "groundedness and 13 more (and 4 hazard categories);" in banner  # fmt: skip
    assert "violent_crimes" not in banner and len(banner) < 350, banner


@pytest.mark.slow
def test_jev_decision_model_gets_the_scripted_verdict_then_the_server_stops_cleanly(
    sigint_at_start: str, served: Served
) -> None:
    jev = JevDecisionModel(api_key=KEY, base_url=served.url)
    judge = JevJudge([POLITE], model=jev)
    try:
        verdict = judge.judge("Can you help?", "Go away.")
    finally:
        jev.close()
    assert verdict.summary() == "passed=false [polite=FAILED]"
    assert verdict.finding("polite").answer.noul == pytest.approx(0.2)

    stopped = served.stop(signal.SIGINT)
    assert stopped.returncode == 0 and "Traceback" not in stopped.stderr, stopped.stderr


@pytest.mark.slow
def test_sigterm_stops_it_with_status_0(served: Served) -> None:
    stopped = served.stop(signal.SIGTERM)
    assert stopped.returncode == 0 and "Traceback" not in stopped.stderr, stopped.stderr


@pytest.mark.slow
@pytest.mark.parametrize("background", [False, True], ids=["foreground", "background"])
def test_a_port_in_use_is_refused_naming_it_with_status_2_never_served_elsewhere(background: bool) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "langchain_jev.testing.server", "--port", str(port),
             *(["--background"] if background else [])],
            env=_env(), capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""  # nothing to export: no client is pointed anywhere
    assert done.stderr.startswith(f"cannot listen on 127.0.0.1:{port}: port {port} is in use")
    assert "leave out --port" in done.stderr and "Traceback" not in done.stderr


def test_a_port_another_http_server_holds_is_refused_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    with JevServer({}) as other:
        port = int(other.base_url.rsplit(":", 1)[1])
        assert main(["--port", str(port)]) == 2
        assert other.request_count == 0
    captured = capsys.readouterr()
    assert captured.out == "" and f"port {port} is in use" in captured.err


@pytest.mark.slow
def test_without_port_each_server_takes_a_free_port_and_prints_what_to_export() -> None:
    first, second = Served("--answer", "polite=0.9"), Served("--answer", "polite=0.9")
    try:
        assert first.exports.keys() == {"TYPESAFE_BASE_URL", "TYPESAFE_API_KEY"}
        assert first.exports["TYPESAFE_API_KEY"].startswith("sk-")
        assert first.url != second.url  # two at once: no fixed port to fight over
        jev = JevDecisionModel(api_key=first.exports["TYPESAFE_API_KEY"], base_url=first.url)
        try:
            assert JevJudge([POLITE], model=jev).judge("Hi?", "Hello!").passed
        finally:
            jev.close()
    finally:
        first.stop()
        second.stop()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
def test_background_exports_a_server_the_command_line_uses_from_the_environment_until_killed(
    tmp_path: Path,
) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    env = {k: v for k, v in _env().items() if k != "TYPESAFE_API_KEY"}
    started = subprocess.run(  # returns at once: it holds neither stdout nor stderr open
        [sys.executable, "-m", "langchain_jev.testing.server", "--answers", "examples/weather_answers.json",
         "--background"],
        env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    exports = exported(started.stdout)
    assert exports.keys() == {"TYPESAFE_BASE_URL", "TYPESAFE_API_KEY", "JEV_SERVER_PID"}
    pid = int(exports["JEV_SERVER_PID"])
    try:
        assert _alive(pid)
        done = subprocess.run(  # no --base-url: the command line reads TYPESAFE_BASE_URL
            [sys.executable, "-m", "langchain_jev.cli", "judge", "examples/weather.jsonl",
             "--judge", "examples/weather_judge.yaml", "--out", "results.jsonl", "--quiet"],
            env={**env, **exports}, capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "8 rows: 4 passed, 4 failed, pass rate 50.0%" in done.stdout
    finally:
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 30  # a hang guard, not a timing
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), "kill $JEV_SERVER_PID did not stop the server"


def test_the_wait_for_a_background_server_is_bounded() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    started = time.monotonic()
    assert not _answers_within(f"http://127.0.0.1:{port}", os.getpid(), 0.3)  # nobody answers
    assert time.monotonic() - started < 30  # a hang guard: it gave up


# ---------------------------------------------------------------------- its parts, in process


def test_in_process_the_server_serves_the_real_sdk_path() -> None:
    with JevServer(GOOD) as server:
        jev = JevDecisionModel(api_key=KEY, base_url=server.base_url)
        try:
            verdict = judge_on(jev).judge("Can you help?", "Sure: here it is.")
        finally:
            jev.close()
        assert verdict.passed and server.request_count == 1


def test_default_noul_answers_the_nouls_the_script_does_not_name() -> None:
    with JevServer({}, default_noul=0.35) as server:
        jev = JevDecisionModel(api_key=KEY, base_url=server.base_url)
        try:
            verdict = JevJudge([POLITE], model=jev).judge("Hi?", "Hello!")
        finally:
            jev.close()
    assert verdict.finding("polite").answer.noul == pytest.approx(0.35)


def test_rules_answer_by_what_is_judged() -> None:
    script = {
        "answers": {"polite": 0.9},
        "rules": [
            {"when": {"assistant_answer": "Go away"}, "answers": {"polite": 0.1}},
            {"when": {"assistant_answer": "Go away", "user_question": "boss"}, "answers": {"polite": 0.3}},
        ],
    }
    with JevServer(load_script(json.dumps(script))) as server:
        jev = JevDecisionModel(api_key=KEY, base_url=server.base_url)
        judge = JevJudge([POLITE], model=jev)
        try:
            nouls = [
                judge.judge(question, answer).finding("polite").answer.noul
                for question, answer in [("Hi?", "Hello!"), ("Hi?", "Go away."), ("My boss?", "Go away.")]
            ]
        finally:
            jev.close()
    assert nouls == pytest.approx([0.9, 0.1, 0.3])  # no rule; the first; both, the later last


def test_the_example_script_loads() -> None:  # the README test runs it against the weather judge
    script = load_script(str(ROOT / "examples" / "weather_answers.json"))
    assert {"when", "answers"} == set(script["rules"][0])


def test_a_script_is_a_file_or_inline_json(tmp_path: Path) -> None:
    path = tmp_path / "answers.json"
    path.write_text('{"polite": 0.2, "mode": "refused", "missing": null}', encoding="utf-8")
    assert load_script(str(path)) == {"polite": 0.2, "mode": "refused", "missing": None}
    assert load_script('{"polite": 0.4}') == {"polite": 0.4}


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("[0.2]", "must be a JSON object {question name: answer}, got list"),
        ('{"polite": true}', "answer for 'polite': expected a number, a label"),
        ('{"helpful": {"1": "high"}}', "answer for 'helpful': the probability of '1' must be a number"),
        ('{"polite": ', "is not JSON"),
        ("no-such-file.json", "cannot read no-such-file.json"),
        ('{"rules": [], "other": 1}', "a script with rules has only answers and rules, not other"),
        ('{"rules": [{"when": {"a": 1}}]}', "rules[0].when: expected an object {state field: text"),
        ('{"rules": [{"if": {}}]}', "rules[0]: a rule is an object"),
        ('{"rules": [{"when": {}, "answers": {"polite": true}}]}', "answer for 'rules[0].answers.polite'"),
    ],
)
def test_a_bad_script_names_what_is_wrong(
    source: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=re.escape(message)):
        load_script(source)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--noul", "1.5"], "--noul: must be a probability between 0 and 1, got 1.5"),
        (["--latency", "-1"], "--latency/--delay: must be a number of seconds, 0 or more, got -1"),
        (["--port", "70000"], "--port: must be a port number from 0 to 65535, got 70000"),
        (["--answer", "polite"], "--answer takes NAME=VALUE, got 'polite'"),
        (["--answers", "[1]"], "the script must be a JSON object"),
    ],
)
def test_bad_flags_are_refused_with_status_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
