"""A jury member that could not answer never lends its silence to a pass.

A member that fails (raises, times out, answers unreadably) is left out; a
question fewer members than the quorum answered is that criterion's ERROR,
reported as such with what the members that did answer found, and it keeps the
verdict from passing. The command line counts such a row in its exit code, as it
counts a row a single failing model could not judge: a jury whose members are all
down exits as one model that is down does (3), whatever the mix of failures. The
same holds through the Python API (sync and async), a LangSmith evaluator and its
summary.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.decisions import Noul
from langsmith.run_trees import RunTree

from langchain_jev import JevCriterion, JevJudge, Outcome
from langchain_jev.langsmith import JevRunEvaluator, jev_summary_evaluator
from langchain_jev.models import JuryDecisionModel
from langchain_jev.testing import ScriptedDecisionModel
from langchain_jev.testing.server import Fault, JevServer, Received
from tests.cli.helpers import read_results, run_cli, write_jsonl
from tests.spec.test_jury_files import CRITERIA

POLITE = JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)
MALFORMED = {"type": "noul", "noul": "very"}
"""An answer no reader can read: the member answered, but said nothing usable."""


def behaviour(kind: str, name: str) -> ScriptedDecisionModel:
    """A member that passes, fails, raises, times out (past a 0.2 s jury timeout) or answers unreadably."""
    entries: dict[str, Any] = {
        "passes": 0.95,
        "fails": 0.1,
        "raises": ConnectionError(f"{name} is down"),
        "times out": 0.95,
        "malformed": MALFORMED,
    }
    return ScriptedDecisionModel(
        {"polite": entries[kind]}, model=name, delay=1.0 if kind == "times out" else 0.0
    )


def judged(jury: JuryDecisionModel, asynchronous: bool) -> Any:
    judge = JevJudge([POLITE], model=jury)
    if asynchronous:
        return asyncio.run(judge.ajudge("Hi?", "Go away."))
    return judge.judge("Hi?", "Go away.")


MODES = pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])


@MODES
def test_the_answering_member_s_fail_stands_and_the_verdict_does_not_pass(asynchronous: bool) -> None:
    """The issue: one member down, the other finds every row FAILED; the jury reported PASSED."""
    jury = JuryDecisionModel({"jev": behaviour("fails", "jev"), "gpt": behaviour("raises", "gpt")})

    verdict = judged(jury, asynchronous)

    finding = verdict.finding("polite")
    assert finding.outcome is Outcome.ERROR
    assert verdict.passed is False
    assert (
        "1 of 2 jury members answered, the quorum is 2 (gpt: ConnectionError: gpt is down)" in finding.detail
    )
    assert 'the members that answered: jev: not met: "Is `assistant_answer` polite?"' in finding.detail
    assert verdict.response.panel.short_of_quorum == ["polite"]


@MODES
@pytest.mark.parametrize(
    "kinds",
    [
        ("raises", "times out", "malformed"),
        ("malformed", "malformed", "malformed"),
        ("passes", "times out", "malformed"),
        ("times out", "passes", "raises"),
    ],
    ids=["raise+timeout+malformed", "all malformed", "one passes, two down", "timeout+pass+raise"],
)
def test_a_jury_short_of_its_quorum_never_passes_whatever_the_failures(
    asynchronous: bool, kinds: tuple[str, ...]
) -> None:
    members = {f"m{i}": behaviour(kind, f"m{i}") for i, kind in enumerate(kinds)}
    jury = JuryDecisionModel(members, timeout=0.2)

    verdict = judged(jury, asynchronous)

    assert verdict.finding("polite").outcome is Outcome.ERROR
    assert verdict.passed is False


@MODES
def test_a_met_quorum_decides_and_a_silent_member_is_simply_left_out(asynchronous: bool) -> None:
    members = {"a": behaviour("passes", "a"), "b": behaviour("passes", "b"), "c": behaviour("raises", "c")}
    verdict = judged(JuryDecisionModel(members, quorum=2), asynchronous)
    assert verdict.finding("polite").outcome is Outcome.PASSED and verdict.passed


def test_a_jury_inside_a_jury_short_of_its_quorum_is_silent_to_the_outer_jury_too() -> None:
    inner = JuryDecisionModel({"x": behaviour("passes", "x"), "y": behaviour("raises", "y")})
    outer = JuryDecisionModel({"panel": inner, "z": behaviour("passes", "z")})
    verdict = judged(outer, False)
    assert verdict.finding("polite").outcome is Outcome.ERROR and not verdict.passed
    assert "panel: " in verdict.finding("polite").detail


KINDS = st.sampled_from(["passes", "fails", "raises", "malformed"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kinds=st.lists(KINDS, min_size=2, max_size=5), data=st.data())
def test_silence_never_passes_a_verdict(kinds: list[str], data: st.DataObject) -> None:
    quorum = data.draw(st.integers(1, len(kinds)), label="quorum")
    combine = data.draw(st.sampled_from(["mean", "vote", "max"]), label="combine")
    members = {f"m{i}": behaviour(kind, f"m{i}") for i, kind in enumerate(kinds)}
    jury = JuryDecisionModel(members, quorum=quorum, combine=combine)  # type: ignore[arg-type]
    answered = sum(kind in ("passes", "fails") for kind in kinds)
    if all(kind == "raises" for kind in kinds):
        with pytest.raises(ConnectionError):
            judged(jury, False)
        return

    verdict = judged(jury, False)

    if answered < quorum:  # short of the quorum: ERROR, and never a pass
        assert verdict.finding("polite").outcome is Outcome.ERROR
        assert not verdict.passed
    else:  # the quorum answered: the silent members change nothing
        answering = {name: m for name, m in members.items() if kinds[int(name[1:])] in ("passes", "fails")}
        alone = (
            judged(JuryDecisionModel(answering, quorum=quorum, combine=combine), False)
            if len(answering) > 1
            else None
        )  # type: ignore[arg-type]
        if alone is not None:
            assert verdict.finding("polite").outcome is alone.finding("polite").outcome
            assert verdict.passed is alone.passed


def test_a_langsmith_evaluator_and_its_summary_score_a_silent_jury_as_not_passed() -> None:
    jury = JuryDecisionModel({"jev": behaviour("fails", "jev"), "gpt": behaviour("raises", "gpt")})
    evaluator = JevRunEvaluator(JevJudge([POLITE], model=jury))
    run = RunTree(name="target", run_type="chain", inputs={"question": "Hi?"})
    run.end(outputs={"answer": "Go away."})

    results = {r.key: r for r in evaluator.evaluate_run(run)["results"]}

    assert results["polite"].value == "ERROR" and results["polite"].score is None
    assert results["jev_pass"].score == 0.0
    summary = {r.key: r for r in jev_summary_evaluator(evaluator)([run], [None])["results"]}  # type: ignore[list-item]
    assert summary["jev_pass_rate"].score == 0.0


# ---------------------------------------------------------------------- the command line


def members_down(*down: str, slow: str | None = None, malformed: str | None = None) -> Any:
    """Faults by model: a 500 for ``down``, a long delay for ``slow``, an unreadable answer for ``malformed``."""

    def plan(received: Received) -> Fault | None:
        if received.model in down:
            return Fault(status=500)
        if received.model == slow:
            return Fault(delay=5.0)
        if received.model == malformed:
            answers = dict.fromkeys(received.questions, MALFORMED)
            return Fault(body={"model": malformed, "answers": answers, "usage": {}})
        return None

    return plan


def judge_rows(tmp_path: Path, model: str, plan: Any) -> tuple[Any, list[dict[str, Any]]]:
    judge = tmp_path / "judge.yaml"
    judge.write_text(model + CRITERIA, encoding="utf-8")
    data = write_jsonl(
        tmp_path / "rows.jsonl", [{"id": f"r{i}", "answer": f"Go away {i}."} for i in range(4)]
    )
    out = tmp_path / "results.jsonl"
    with JevServer({"polite": 0.1}, faults=plan) as server:
        done = run_cli(
            "judge",
            data,
            "--judge",
            judge,
            "--out",
            out,
            "--max-retries",
            "0",
            TYPESAFE_BASE_URL=server.base_url,
        )
    return done, read_results(out)


@pytest.mark.slow
def test_the_command_line_does_not_turn_one_member_s_outage_green(tmp_path: Path) -> None:
    done, records = judge_rows(tmp_path, "model:\n  jury: [jev:jev-a, jev:jev-b]\n", members_down("jev-b"))

    assert done.returncode == 3, done.stdout + done.stderr
    assert [r["passed"] for r in records] == [False] * 4
    assert [r["findings"][0]["outcome"] for r in records] == ["ERROR"] * 4
    assert "the members that answered: jev-a: not met" in records[0]["findings"][0]["detail"]
    assert "pass rate 0.0%" in done.stdout
    assert "4 rows had a criterion the model could not judge" in done.stdout


@pytest.mark.slow
def test_a_jury_all_down_exits_as_one_model_that_is_down(tmp_path: Path) -> None:
    for folder in ("one", "jury"):
        (tmp_path / folder).mkdir()
    single, _ = judge_rows(tmp_path / "one", "model: jev:jev-a\n", members_down("jev-a"))
    mixed = "model:\n  jury: [jev:jev-a, jev:jev-b, jev:jev-c]\n  timeout: 2\n"
    jury, records = judge_rows(
        tmp_path / "jury", mixed, members_down("jev-a", slow="jev-b", malformed="jev-c")
    )

    assert single.returncode == 3, single.stdout + single.stderr
    assert jury.returncode == single.returncode, jury.stdout + jury.stderr
    for record in records:  # ERROR findings (the malformed member answered), or, under load, all three late
        assert record["passed"] is False
        assert "error" in record or record["findings"][0]["outcome"] == "ERROR", record
