"""Stored answers decided again: the same verdicts a fresh run gives, no request, changed questions refused."""

from __future__ import annotations

import json

import pytest
from langchain_core.decisions import NoulAnswer

from langchain_jev._errors import JevConfigurationError, RedecideError, ResultsError
from langchain_jev.datasets._redecide import NoRequestModel, redecide, redecide_records
from langchain_jev.datasets._stored import read_results
from langchain_jev.datasets.results import header_record, record_line, stored_answer
from tests.calibration.helpers import WEATHER_SPEC, build, inputs, records_of, scripted, spec_with

LENIENT = spec_with(criteria={"is_grounded": {"minimum": 0.05}, "helpfulness": {"minimum": 1}})
STRICT = spec_with(
    min_confidence=0.95,
    fail_on_inconclusive=True,
    criteria={"has_details": {"minimum": 0.95}, "helpfulness": {"minimum": 3}},
)


def test_each_finding_keeps_its_raw_answer_and_the_fingerprint_of_its_question() -> None:
    records = records_of(build(WEATHER_SPEC, scripted()))
    first = {f["name"]: f for f in records[0]["findings"]}  # dublin-umbrella: everything asked
    assert first["is_grounded"]["answer"] == {"type": "noul", "noul": 0.95}
    assert first["helpfulness"]["answer"]["type"] == "score"
    assert first["helpfulness"]["answer"]["probabilities"] == {"0": 0.0, "1": 0.0, "2": pytest.approx(0.2), "3": pytest.approx(0.8)}
    assert first["mode"]["answer"]["probabilities"] == {"answered": 0.9, "clarification_needed": 0.1}
    assert "answer" not in first["matches_search_expectation"]  # a check has no answer
    assert len({f["question"] for f in first.values() if "question" in f}) == 4
    springfield = {f["name"]: f for f in records[1]["findings"]}  # no context: is_grounded not asked
    assert springfield["is_grounded"]["outcome"] == "NOT_APPLICABLE"
    assert "answer" not in springfield["is_grounded"] and "question" not in springfield["is_grounded"]
    assert "answer" in springfield["has_details"]  # asked, then not applicable: its dependency chose otherwise


def test_a_stored_answer_reads_back_as_the_typed_answer_the_model_gave() -> None:
    judge = build(WEATHER_SPEC, scripted())
    verdict = judge.invoke(inputs()[0])
    record = records_of(judge)[0]
    for finding, stored in zip(verdict.findings, record["findings"], strict=True):
        if finding.answer is None:
            continue
        again = stored_answer(json.loads(json.dumps(stored["answer"])), finding.criterion)
        assert type(again) is type(finding.answer)
        assert again == finding.answer
    assert isinstance(stored_answer({"type": "noul", "noul": 0.3}), NoulAnswer)
    with pytest.raises(ValueError, match="not a stored answer"):
        stored_answer({"type": "noul", "noul": 1.5})


@pytest.mark.parametrize("spec", [LENIENT, STRICT], ids=["lenient", "strict"])
def test_redeciding_equals_a_fresh_run_at_the_new_thresholds_without_a_request(spec: dict) -> None:
    stored = records_of(build(WEATHER_SPEC, scripted()))
    fresh = records_of(build(spec, scripted()))
    again = list(redecide_records(build(spec, NoRequestModel()), stored))
    assert again == fresh
    assert [r["passed"] for r in fresh] != [r["passed"] for r in stored]  # the thresholds matter here


def test_the_failure_policy_and_fail_fast_are_applied_again() -> None:
    stored = records_of(build(WEATHER_SPEC, scripted()))
    spec = spec_with(fail_fast=True)
    assert list(redecide_records(build(spec, NoRequestModel()), stored)) == records_of(build(spec, scripted()))
    skipped = records_of(build(spec, scripted()))
    with pytest.raises(RedecideError) as caught:
        list(redecide_records(build(WEATHER_SPEC, NoRequestModel()), skipped))
    assert "fail_fast" in str(caught.value)


def test_an_unreadable_answer_is_the_same_error_again() -> None:
    def answers(state, questions):
        return {"is_grounded": {"type": "noul", "noul": 1.5}, "helpfulness": 2.0, "mode": "answered", "has_details": 0.9}

    stored = records_of(build(WEATHER_SPEC, scripted(answers)))
    grounded = next(f for f in stored[0]["findings"] if f["name"] == "is_grounded")
    assert grounded["outcome"] == "ERROR" and "unreadable" in grounded
    spec = spec_with(fail_on_error=True)
    assert list(redecide_records(build(spec, NoRequestModel()), stored)) == records_of(build(spec, scripted(answers)))


def test_a_changed_question_is_refused_by_name() -> None:
    stored = records_of(build(WEATHER_SPEC, scripted()))
    changed = spec_with(
        criteria={
            "helpfulness": {"levels": ["Bad", "Poor", "Good", "Great"]},
            "mode": {"instructions": "What does the answer do?"},
            "has_details": {"minimum": 0.5},  # a threshold only: fine
        }
    )
    with pytest.raises(RedecideError) as caught:
        list(redecide_records(build(changed, NoRequestModel()), stored))
    assert set(caught.value.criteria) == {"helpfulness", "mode"}
    assert "its question changed" in caught.value.criteria["helpfulness"]
    assert "helpfulness" in str(caught.value) and "mode" in str(caught.value)


def test_a_criterion_the_stored_run_never_had_or_had_as_another_kind_is_refused() -> None:
    stored = records_of(build(WEATHER_SPEC, scripted()))
    spec = spec_with()
    spec["criteria"].append({"name": "concise", "kind": "noul", "instructions": "Short?", "minimum": 0.5})
    with pytest.raises(RedecideError, match="concise: not in the results"):
        redecide(build(spec, NoRequestModel()), stored[0])
    for record in stored:
        for finding in record["findings"]:
            if finding["name"] == "has_details":
                finding["kind"] = "score"
    with pytest.raises(RedecideError, match="has_details: was a score in the stored run, is a noul now"):
        redecide(build(WEATHER_SPEC, NoRequestModel()), stored[0])


def test_results_written_before_answers_were_kept_are_refused() -> None:
    stored = records_of(build(WEATHER_SPEC, scripted()))
    for record in stored:
        for finding in record["findings"]:
            finding.pop("answer", None)
            finding.pop("question", None)
    with pytest.raises(RedecideError, match="keep no answer for it"):
        list(redecide_records(build(WEATHER_SPEC, NoRequestModel()), stored))


def test_the_judge_of_stored_answers_refuses_to_ask() -> None:
    with pytest.raises(JevConfigurationError, match="makes no request"):
        build(WEATHER_SPEC, NoRequestModel()).invoke(inputs()[0])


def test_a_results_file_is_read_with_a_header_and_without_a_cut_last_line(tmp_path) -> None:
    stored = records_of(build(WEATHER_SPEC, scripted()))
    path = tmp_path / "results.jsonl"
    lines = [json.dumps(header_record(None))] + [record_line(r) for r in stored]
    path.write_text("\n".join(lines) + "\n" + record_line(stored[0])[:40], encoding="utf-8")
    assert read_results(path) == stored
    path.write_text("not json\n" + record_line(stored[0]) + "\n", encoding="utf-8")
    with pytest.raises(ResultsError, match=r"results\.jsonl:1: not a JSON line"):
        read_results(path)
    with pytest.raises(ResultsError, match="cannot read"):
        read_results(tmp_path / "missing.jsonl")


def test_a_row_that_could_not_be_judged_stays_an_error() -> None:
    stored = records_of(build(WEATHER_SPEC, scripted()))
    stored[2] = {"row": 3, "line": 3, "key": "k", "passed": False, "error": "TypeSafeAPIConnectionError: refused"}
    again = list(redecide_records(build(LENIENT, NoRequestModel()), stored))
    assert again[2] == stored[2]
    with pytest.raises(ResultsError, match="could not be judged"):
        redecide(build(LENIENT, NoRequestModel()), stored[2])


def test_records_of_rows_judged_on_ray_have_no_position_and_are_decided_again(tmp_path) -> None:
    def unplaced(records: list[dict]) -> list[dict]:
        return [{k: v for k, v in r.items() if k not in ("row", "line")} for r in records]

    stored = unplaced(records_of(build(WEATHER_SPEC, scripted())))
    path = tmp_path / "ray.jsonl"
    path.write_text("".join(record_line(r) + "\n" for r in stored), encoding="utf-8")
    assert read_results(path) == stored
    again = list(redecide_records(build(LENIENT, NoRequestModel()), read_results(path)))
    assert again == unplaced(records_of(build(LENIENT, scripted())))


def test_the_preflight_of_rejudge_and_calibrate_checks_records_then_refuses_a_changed_condition(
    tmp_path,
) -> None:
    from langchain_jev.datasets._fingerprint import judge_description
    from langchain_jev.datasets._redecide import read_to_redecide
    from langchain_jev.spec import load_spec

    stored = records_of(build(WEATHER_SPEC, scripted()))
    path = tmp_path / "results.jsonl"

    def write(records: list[dict]) -> None:
        header = header_record(judge_description(load_spec(WEATHER_SPEC), "jev-test"))
        path.write_text("".join(record_line(r) + "\n" for r in [header, *records]), encoding="utf-8")

    write(stored)
    again = read_to_redecide(path, load_spec(LENIENT))  # other thresholds: the answers decide them
    assert again.records == stored and again.header is not None
    everywhere = spec_with(criteria={"is_grounded": {"applies_when": None}})
    with pytest.raises(RedecideError, match="is_grounded: its applies_when changed"):
        read_to_redecide(path, load_spec(everywhere))
    write([{**stored[0], "passed": "yes"}, *stored[1:]])  # a bad record is named before the judge is compared
    with pytest.raises(ResultsError, match=r'row 1 .*passed is "yes", not true or false') as caught:
        read_to_redecide(path, load_spec(everywhere))
    assert not isinstance(caught.value, RedecideError)
