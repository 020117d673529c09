"""--write-judge: the judge file with new thresholds, and nothing else changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from langchain_jev._errors import CalibrationError
from langchain_jev.calibration._rewrite import replace_thresholds, write_thresholds
from langchain_jev.spec import load_spec
from tests.cli.helpers import WEATHER_JUDGE

THRESHOLDS = ("minimum", "min_confidence")


def without_thresholds(data: dict) -> dict:
    data = {k: v for k, v in data.items() if k != "min_confidence"}
    data["criteria"] = [{k: v for k, v in c.items() if k != "minimum"} for c in data["criteria"]]
    return data


def test_only_the_thresholds_change_and_the_diff_says_so(tmp_path: Path) -> None:
    new = tmp_path / "new.yaml"
    diff = write_thresholds(WEATHER_JUDGE, new, {"is_grounded": 0.62, "helpfulness": 3.0}, 0.75)
    before = WEATHER_JUDGE.read_text(encoding="utf-8")
    after = new.read_text(encoding="utf-8")
    old_data, new_data = yaml.safe_load(before), yaml.safe_load(after)
    assert without_thresholds(new_data) == without_thresholds(old_data)
    assert new_data["min_confidence"] == 0.75
    minimums = {c["name"]: c.get("minimum") for c in new_data["criteria"]}
    assert minimums == {"matches_search_expectation": None, "is_grounded": 0.62, "helpfulness": 3, "mode": None, "has_details": 0.7}
    changed = [
        (a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b
    ]
    assert changed == [
        ("min_confidence: 0.6", "min_confidence: 0.75"),
        ("    minimum: 0.7", "    minimum: 0.62"),
        ("    minimum: 2", "    minimum: 3"),
    ]
    assert [line for line in before.splitlines() if "#" in line] == [line for line in after.splitlines() if "#" in line]
    removed = [line for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    added = [line for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert removed == ["-min_confidence: 0.6", "-    minimum: 0.7", "-    minimum: 2"]
    assert added == ["+min_confidence: 0.75", "+    minimum: 0.62", "+    minimum: 3"]
    load_spec(new)  # still a valid judge file


def test_a_trailing_comment_quoting_and_crlf_line_ends_are_kept(tmp_path: Path) -> None:
    text = (
        "# house judge\r\ncriteria:\r\n  - name: 'polite'   # tone\r\n    kind: noul\r\n"
        "    instructions: \"Is `assistant_answer` polite?\"\r\n    minimum: 0.70 # agreed with support\r\n"
    )
    source = tmp_path / "judge.yaml"
    source.write_bytes(text.encode())
    write_thresholds(source, tmp_path / "new.yaml", {"polite": 0.55}, 0.8)
    assert (tmp_path / "new.yaml").read_bytes().decode() == (
        "# house judge\r\nmin_confidence: 0.8\r\ncriteria:\r\n  - name: 'polite'   # tone\r\n    kind: noul\r\n"
        "    instructions: \"Is `assistant_answer` polite?\"\r\n    minimum: 0.55 # agreed with support\r\n"
    )


def test_a_json_judge_file_stays_json(tmp_path: Path) -> None:
    source = tmp_path / "judge.json"
    source.write_text(json.dumps(yaml.safe_load(WEATHER_JUDGE.read_text()), indent=2), encoding="utf-8")
    data = json.loads(source.read_text())
    del data["min_confidence"]
    source.write_text(json.dumps(data, indent=2), encoding="utf-8")
    write_thresholds(source, tmp_path / "new.json", {"has_details": 0.81}, 0.7)
    new = json.loads((tmp_path / "new.json").read_text())
    assert new["min_confidence"] == 0.7
    assert without_thresholds(new) == without_thresholds(data)
    assert [c.get("minimum") for c in new["criteria"]][-1] == 0.81


def test_unknown_criteria_and_files_that_are_not_judges_are_errors() -> None:
    text = WEATHER_JUDGE.read_text()
    with pytest.raises(CalibrationError, match="no criterion named 'nope'"):
        replace_thresholds(text, {"nope": 0.5})
    with pytest.raises(CalibrationError, match="'mode' has no minimum"):
        replace_thresholds(text, {"mode": 0.5})
    with pytest.raises(CalibrationError, match="no list of criteria"):
        replace_thresholds("name: x\n", {})
    with pytest.raises(CalibrationError, match="cannot be read"):
        replace_thresholds("criteria: [\n", {})


def test_a_prebuilt_judge_is_written_to_a_file_of_its_own(tmp_path: Path) -> None:
    diff = write_thresholds("rag", tmp_path / "rag.yaml", {"groundedness": 0.55})
    assert "+    minimum: 0.55" in diff
    written = yaml.safe_load((tmp_path / "rag.yaml").read_text())
    assert next(c for c in written["criteria"] if c["name"] == "groundedness")["minimum"] == 0.55
    assert load_spec(tmp_path / "rag.yaml").name == "rag"
    with pytest.raises(CalibrationError, match="cannot read"):
        write_thresholds("no_such_judge", tmp_path / "x.yaml", {})
