"""A jury's results keep every member's answers (``panel``), strict and redacted; deciding them again
(``rejudge``) decides by every member as the run did; ``calibrate`` measures each member beside the jury,
on the terminal, in ``--json`` and in the report, whose opened row shows who said what."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import pytest
from langchain_core.decisions import ChoiceAnswer

from langchain_jev import JevJudge, Outcome
from langchain_jev._errors import ResultsError
from langchain_jev.calibration import Confusion, NoRequestModel, calibrate, redecide
from langchain_jev.calibration._panel import member_record
from langchain_jev.cli import main
from langchain_jev.datasets._rows import FieldMap, map_row, row_key
from langchain_jev.datasets.results import ResultsFile, panel_data, record_line, stored_panel, verdict_record
from langchain_jev.models import JuryDecisionModel
from langchain_jev.models._response import DecisionResponse, JuryPanel
from langchain_jev.report import render_report
from langchain_jev.testing import ScriptedDecisionModel
from tests.calibration.jury_helpers import DOWN_ON, HELPFUL, POLITE, jury_judge, labelled_rows, members

KEY = "sk-test-jury-member-0123456789abcdef"


def records(judge: JevJudge, rows: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """What `langchain-jev judge` writes for the rows, judged here."""
    items = rows if rows is not None else labelled_rows()
    fields = FieldMap.of(ignored=["ok"])
    found = []
    for number, row in enumerate(items, 1):
        data = map_row(row, fields, ()).input
        found.append(verdict_record(number, number, row_key(row), row["id"], judge.invoke(data)))
    return found


def strict_loads(line: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(line, parse_constant=refuse)


# ---------------------------------------------------------------------- the record


def test_a_jury_s_record_keeps_each_member_s_answers_and_the_failed_member() -> None:
    """The record kept the combined answer only: who said what was lost once the row was written."""
    record = records(jury_judge())[DOWN_ON - 1]
    panel = strict_loads(record_line(record))["panel"]
    assert panel["combine"] == "mean" and panel["disagreement"] == pytest.approx(1 / 3)
    assert panel["failed"] == {"flaky": "ConnectionError: flaky is down"}
    assert panel["members"]["sharp"] == {
        "model": "sharp",
        "answers": {
            "polite": {"type": "noul", "noul": 0.9},
            "helpful": {"type": "score", "score": pytest.approx(2.8), "confidence": 0.8,
                        "probabilities": {"3": 0.8, "2": 0.2}},
        },
    }
    read = stored_panel(panel, {"polite": POLITE, "helpful": HELPFUL})
    assert {name: a.noul for name, a in read.answers_to("polite").items()} == {"sharp": 0.9, "lenient": 0.8}
    assert read.answers_to("helpful")["sharp"].legend == dict(enumerate(HELPFUL.levels))


def test_a_record_without_a_jury_has_no_panel() -> None:
    judge = JevJudge([POLITE], model=ScriptedDecisionModel({"polite": 0.9}))
    assert "panel" not in records(judge)[0]


def test_a_member_s_answer_no_json_can_carry_is_kept_as_unreadable_and_the_line_stays_strict() -> None:
    odd = ChoiceAnswer.model_construct(type="choice", choice="warm", probabilities={"warm": math.nan}, confidence=1.0)
    panel = JuryPanel(combine="mean", members={"odd": DecisionResponse(model="odd", answers={"tone": odd})})
    record = {"row": 1, "key": "k", "passed": False, "findings": [], "panel": panel_data(panel)}
    stored = strict_loads(record_line(record))["panel"]["members"]["odd"]
    assert stored["answers"] == {} and stored["unreadable"]["tone"].startswith("not a finite noul, score or choice")


def test_a_key_a_failed_member_echoed_is_redacted_from_the_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
    leaky = ScriptedDecisionModel({"polite": ConnectionError(f"refused for key {KEY}")}, model="leaky")
    judge = JevJudge([POLITE], model=JuryDecisionModel([ScriptedDecisionModel({"polite": 0.9}), leaky], quorum=1))
    line = record_line(records(judge)[0])
    assert KEY not in line and "leaky" in strict_loads(line)["panel"]["failed"]


# ---------------------------------------------------------------------- deciding again


def vote_judge() -> JevJudge:
    """A vote jury at 0.75: sharp (0.9) and lenient (0.8) pass odd rows, flaky (0.7) never reaches the bar.

    Each member's vote is a yes at 0.5, so the combined answer is 2/3 or 1 of yes; the verdict
    counts each member's own pass against 0.75 instead, and the majority passes odd rows.
    """
    strict = dataclasses.replace(POLITE, minimum=0.75)
    return JevJudge([strict], model=JuryDecisionModel(members(), combine="vote", quorum=2))


@pytest.mark.parametrize("which", ["vote", "split"])
def test_deciding_a_jury_s_stored_answers_again_decides_by_every_member_as_the_run_did(which: str) -> None:
    """Without the panel a vote was decided on its share of yes (0.67 < 0.75: FAILED, though the
    majority passed), and a split beyond the jury's bound came back PASSED instead of INCONCLUSIVE."""
    if which == "vote":
        judge = vote_judge()
    else:
        judge = JevJudge([POLITE], model=JuryDecisionModel(members(), quorum=2, disagreement=0.2))
    stored = records(judge)
    again = JevJudge(judge.criteria, NoRequestModel(), min_confidence=judge.min_confidence)
    assert [redecide(again, r).finding("polite").outcome.value for r in stored] == [
        r["findings"][0]["outcome"] for r in stored
    ]
    assert {r["findings"][0]["outcome"] for r in stored} >= ({"PASSED"} if which == "vote" else {"INCONCLUSIVE"})
    assert redecide(again, stored[0]).response.panel.members["sharp"].answers["polite"].noul == 0.9


def test_a_panel_that_cannot_be_read_is_said_by_row() -> None:
    record = records(jury_judge())[0]
    record["panel"]["members"]["sharp"] = "not a response"
    with pytest.raises(ResultsError, match="row 1: its jury panel: jury member 'sharp': not a stored response"):
        redecide(JevJudge([POLITE, HELPFUL], NoRequestModel()), record)


def test_a_member_s_own_record_is_the_one_it_would_have_written_alone() -> None:
    judge = jury_judge()
    alone = JevJudge([POLITE, HELPFUL], NoRequestModel())
    for stored, mine in zip(records(judge), records(JevJudge([POLITE, HELPFUL], model=members()["sharp"])), strict=True):
        own = member_record(alone, stored, "sharp")
        assert own is not None and "panel" not in own
        assert [(f["outcome"], f.get("answer")) for f in own["findings"]] == [
            (f["outcome"], f.get("answer")) for f in mine["findings"]
        ]
    assert member_record(alone, records(judge)[DOWN_ON - 1], "flaky") is None  # it failed on that row


# ---------------------------------------------------------------------- calibration


@pytest.mark.parametrize("combine", ["mean", "vote", "max"])
def test_each_member_is_measured_as_if_it_had_judged_alone(combine: str) -> None:
    calibration = calibrate(jury_judge(combine), labelled_rows(), "ok")
    assert [m.name for m in calibration.members] == ["sharp", "lenient", "flaky"]
    for member in calibration.members:
        model = members()[member.name]
        rows = [r for r in labelled_rows() if not (member.name == "flaky" and r["id"] == f"r{DOWN_ON}")]
        solo = calibrate(JevJudge([POLITE, HELPFUL], model=model), rows, "ok")  # an independent run
        for name in ("polite", "helpful"):
            assert member.criterion(name).confusion == solo.criterion(name).confusion
            assert member.criterion(name).auroc == solo.criterion(name).auroc
        assert member.overall is not None and solo.overall is not None
        assert member.overall.confusion == solo.overall.confusion
    sharp, lenient, flaky = calibration.members
    assert sharp.criterion("polite").confusion.kappa == 1.0 and lenient.criterion("polite").confusion.kappa == 0.0
    assert flaky.rows == 11


def test_the_jury_s_own_figures_count_a_vote_as_its_verdict_did() -> None:
    """The jury's agreement was computed from the combined answer alone: a vote jury's 2 of 3 yes
    (0.67 < 0.75) counted as a fail on rows its verdict passed, so the jury looked worse than it was."""
    judge = vote_judge()
    rows = labelled_rows()
    calibration = calibrate(judge, rows, "ok")
    verdicts = records(judge)
    passed = [r["findings"][0]["outcome"] == Outcome.PASSED.value for r in verdicts]
    assert calibration.criterion("polite").confusion == Confusion.of(passed, [r["ok"] for r in rows])
    assert any(d.criterion == "polite" for d in calibration.disagreements()) is (
        passed != [r["ok"] for r in rows]
    )


def test_a_single_model_s_calibration_has_no_members() -> None:
    judge = JevJudge([POLITE], model=members()["sharp"])
    calibration = calibrate(judge, labelled_rows(), "ok")
    assert calibration.members == [] and calibration.members_table() == ""
    assert calibration.to_dict()["members"] == []


def write_results(path: Path, judge: JevJudge, data: Path) -> Path:
    from langchain_jev.datasets._fingerprint import judge_description
    from langchain_jev.report._provenance import run_description
    from langchain_jev.spec import load_spec

    spec = load_spec(SPEC)
    with ResultsFile(path, judge=judge_description(spec, "jury"), run=run_description(dataset=str(data))) as out:
        for record in records(judge):
            out.write(record)
    return path


SPEC = {
    "criteria": [
        {"kind": "noul", "name": "polite", "instructions": "Is `assistant_answer` polite?", "minimum": 0.5},
        {"kind": "score", "name": "helpful", "instructions": "How helpful is `assistant_answer`?",
         "levels": ["No", "Partly", "Mostly", "Fully"], "minimum": 2},
    ]
}


@pytest.fixture
def jury_run(tmp_path: Path) -> dict[str, Path]:
    import yaml

    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in labelled_rows()), encoding="utf-8")
    spec = tmp_path / "judge.yaml"
    spec.write_text(yaml.safe_dump(SPEC), encoding="utf-8")
    results = write_results(tmp_path / "results.jsonl", jury_judge(), data)
    return {"data": data, "spec": spec, "results": results, "folder": tmp_path}


def test_calibrate_prints_each_member_beside_the_jury_and_writes_them_to_json_and_the_report(
    jury_run: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = jury_run["folder"]
    code = main([
        "calibrate", str(jury_run["data"]), "--judge", str(jury_run["spec"]), "--label", "ok",
        "--results", str(jury_run["results"]), "--json", str(folder / "c.json"), "--html", str(folder / "c.html"),
    ])
    out = capsys.readouterr().out
    assert code == 0, out
    table = out[out.index("the jury's members against the same labels"):].splitlines()[1:]
    assert table[1].split() == ["criterion", "model", "n", "AUROC", "Brier", "acc.", "kappa", "f-pass", "f-fail"]
    assert table[2].split()[:3] == ["polite", "jury", "12"] and table[3].split()[:2] == ["sharp", "12"]
    assert table[3].split()[-3:] == ["1.00", "0.00", "0.00"]  # sharp: kappa 1, no false pass or fail
    assert table[5].split()[:2] == ["flaky", "11"]
    assert any(line.split()[:2] == ["overall", "jury"] for line in table)
    figures = json.loads((folder / "c.json").read_text())
    assert [m["name"] for m in figures["members"]] == ["sharp", "lenient", "flaky"]
    assert figures["members"][1]["criteria"][0]["false_pass_rate"] == 1.0
    page = (folder / "c.html").read_text(encoding="utf-8")
    assert 'id="members-table"' in page and "flaky is down" in page  # the failed member, in its row


def test_rejudge_reads_the_panel_and_writes_it_again(jury_run: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    out = jury_run["folder"] / "again.jsonl"
    assert main(["rejudge", str(jury_run["results"]), "--judge", str(jury_run["spec"]), "--out", str(out)]) == 0
    capsys.readouterr()
    lines = [strict_loads(line) for line in out.read_text().splitlines()[1:]]
    before = [strict_loads(line) for line in jury_run["results"].read_text().splitlines()[1:]]
    assert [r["panel"] for r in lines] == [r["panel"] for r in before]


def test_results_written_before_the_panel_read_as_they_did(jury_run: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    old = jury_run["folder"] / "old.jsonl"
    lines = jury_run["results"].read_text().splitlines()
    old.write_text("\n".join([lines[0]] + [json.dumps({k: v for k, v in json.loads(x).items() if k != "panel"}) for x in lines[1:]]) + "\n")
    code = main(["calibrate", str(jury_run["data"]), "--judge", str(jury_run["spec"]), "--label", "ok", "--results", str(old)])
    out = capsys.readouterr().out
    assert code == 0 and "the jury's members" not in out and "polite" in out
    assert main(["rejudge", str(old), "--judge", str(jury_run["spec"])]) == 0


# ---------------------------------------------------------------------- the report


def island(page: str) -> Any:
    return json.loads(page.split('id="jev-data">', 1)[1].split("</script>", 1)[0])


def test_an_opened_row_of_the_report_carries_who_said_what() -> None:
    stored = records(jury_judge())
    rows = island(render_report(JevJudge([POLITE, HELPFUL], NoRequestModel()), stored, title="jury"))["rows"]
    row = next(r for r in rows if r["n"] == DOWN_ON)
    assert row["j"]["m"] == ["sharp", "lenient"] and row["j"]["x"] == [["flaky", "ConnectionError: flaky is down"]]
    polite = row["f"][0]
    assert polite["v"] == [[0, {"type": "noul", "noul": 0.9}, 0.9], [1, {"type": "noul", "noul": 0.8}, 0.8]]
    alone = records(JevJudge([POLITE], model=members()["sharp"]))
    assert all("j" not in r for r in island(render_report(JevJudge([POLITE], NoRequestModel()), alone))["rows"])

