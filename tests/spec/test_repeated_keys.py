"""A judge file that says a key twice is refused with the key and both lines, by load and by ``validate``.

YAML and JSON keep the last of two equal keys without a word, so ``minimum:`` said
twice loaded the second, and ``criteria:`` twice dropped every criterion of the first
list; ``validate`` accepted both. Any mapping of a judge file (the top, a criterion, a
condition, a jury), in block or flow YAML or in JSON, now refuses a repeated key,
naming it and the lines of both. The property: take a valid judge, say any key of
any of its mappings twice, and the file is refused naming that key.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from langchain_jev._errors import CalibrationError, JudgeSpecError
from langchain_jev.calibration import write_thresholds
from langchain_jev.cli import main
from langchain_jev.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
WEATHER = ROOT / "examples" / "weather_judge.yaml"

ISSUE_CASES = {
    "criteria twice": (
        "criteria:\n"
        "  - {kind: noul, name: polite, instructions: 'Polite?', minimum: 0.7}\n"
        "criteria:\n"
        "  - {kind: noul, name: short, instructions: 'Short?', minimum: 0.5}\n",
        "criteria", 3, 1,
    ),
    "minimum twice": (
        "criteria:\n"
        "  - kind: noul\n"
        "    name: polite\n"
        "    instructions: Polite?\n"
        "    minimum: 0.7\n"
        "    minimum: 0.2\n",
        "minimum", 6, 5,
    ),
    "kind twice in one criterion": (
        "criteria:\n"
        "  - kind: noul\n"
        "    name: polite\n"
        "    kind: score\n"
        "    instructions: Polite?\n"
        "    minimum: 0.7\n",
        "kind", 4, 2,
    ),
    "a flow mapping": (
        "criteria:\n  - {kind: noul, name: polite, instructions: 'Polite?', minimum: 0.7, name: rude}\n",
        "name", 2, 2,
    ),
    "a condition": (
        "criteria:\n"
        "  - kind: noul\n"
        "    name: polite\n"
        "    instructions: Polite?\n"
        "    minimum: 0.7\n"
        "    applies_when:\n"
        "      present: user_question\n"
        "      present: assistant_answer\n",
        "present", 8, 7,
    ),
    "a quoted twin": (
        'criteria:\n  - {kind: noul, name: polite, instructions: Is it polite, minimum: 0.7}\n"criteria": []\n',
        "criteria", 3, 1,
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(ISSUE_CASES))
def test_a_repeated_key_is_refused_with_the_key_and_both_lines(case: str, tmp_path: Path) -> None:
    text, key, line, first = ISSUE_CASES[case]
    path = tmp_path / "judge.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(JudgeSpecError) as raised:
        load_spec(path)
    message = str(raised.value)
    assert f"line {line}, column" in message, message
    assert f"the key {key!r} is given twice in one mapping (first on line {first})" in message


@pytest.mark.parametrize("case", ["criteria twice", "minimum twice", "kind twice in one criterion"])
def test_validate_refuses_it_too(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, key, line, _ = ISSUE_CASES[case]
    path = tmp_path / "judge.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: line {line}, column" in err and f"the key {key!r} is given twice" in err, err


def test_a_json_judge_file_that_says_a_key_twice_is_refused_by_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "judge.json"
    path.write_text('{"criteria": [\n  {"kind": "noul", "name": "polite",\n   "instructions": "Polite?",'
                    ' "minimum": 0.7, "minimum": 0.2}]}\n', encoding="utf-8")  # fmt: skip
    with pytest.raises(JudgeSpecError, match=r"line 3, column 47: the key 'minimum' is given twice in one mapping "
                                             r"\(first on line 3\)"):  # fmt: skip
        load_spec(path)


def test_the_same_key_in_two_mappings_and_escaped_twins_in_json(tmp_path: Path) -> None:
    fine = tmp_path / "fine.json"
    fine.write_text(json.dumps({"criteria": [
        {"kind": "noul", "name": "a", "instructions": "A?", "minimum": 0.5},
        {"kind": "noul", "name": "b", "instructions": "B?", "minimum": 0.5}]}), encoding="utf-8")  # fmt: skip
    assert [c.name for c in load_spec(fine).criteria] == ["a", "b"]  # a key once in each mapping is fine
    twins = tmp_path / "twins.json"
    twins.write_text('{"criteria": [], "crit\\u0065ria": []}', encoding="utf-8")  # one key, spelt two ways
    with pytest.raises(JudgeSpecError, match="the key 'criteria' is given twice"):
        load_spec(twins)


def test_write_thresholds_refuses_a_file_that_says_a_key_twice(tmp_path: Path) -> None:
    text, *_ = ISSUE_CASES["minimum twice"]
    source = tmp_path / "judge.yaml"
    source.write_text(text, encoding="utf-8")
    with pytest.raises(CalibrationError, match="the key 'minimum' is given twice"):
        write_thresholds(source, tmp_path / "new.yaml", {"polite": 0.5})
    assert not (tmp_path / "new.yaml").exists()


def _mappings(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path] if isinstance(value, dict) and value else []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found.extend(_mappings(item, (*path, key)))
    return found


def _dumps_repeating(value: Any, target: tuple[Any, ...], path: tuple[Any, ...] = ()) -> str:
    """``value`` as JSON, with the first key of the mapping at ``target`` said twice (its value both times)."""
    if isinstance(value, dict):
        pairs = [f"{json.dumps(k)}: {_dumps_repeating(v, target, (*path, k))}" for k, v in value.items()]
        if path == target:
            pairs.append(pairs[0])
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_dumps_repeating(v, target, (*path, i)) for i, v in enumerate(value)) + "]"
    return json.dumps(value)


WEATHER_DATA = yaml.safe_load(WEATHER.read_text(encoding="utf-8"))


@given(st.sampled_from(_mappings(WEATHER_DATA)), st.sampled_from([".json", ".yaml"]))
def test_any_key_of_any_mapping_said_twice_is_refused_naming_it(target: tuple[Any, ...], suffix: str) -> None:
    import tempfile

    holder: Any = WEATHER_DATA
    for part in target:
        holder = holder[part]
    key = next(iter(holder))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"judge{suffix}"
        path.write_text(_dumps_repeating(WEATHER_DATA, target), encoding="utf-8")  # JSON is YAML too
        with pytest.raises(JudgeSpecError) as raised:
            load_spec(path)
    assert f"the key {key!r} is given twice in one mapping" in str(raised.value)
