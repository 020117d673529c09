"""A file `validate` accepts, `judge` accepts: every condition form, every argument shape.

The cases are generated from the conditions' own table (`FORMS`), so a form added to
it is covered the day it is added. For each form and each shape of argument (null,
empty, wrong type, a plausible value), either checking the file refuses it, naming
the condition's place, or the built judge decides every sample row without an error.
A null never stands for a form's argument: `{present: null}` or `{all: null}` is
refused (it used to stop `validate` with an internal error, or pass every row).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from langchain_jev import JevInputError, JevJudgeInput, JudgeSpecError, Outcome
from langchain_jev.cli import main
from langchain_jev.spec import load_spec
from langchain_jev.spec._conditions import FORMS
from langchain_jev.testing import ScriptedDecisionModel

SHAPES: dict[str, Any] = {
    "null": None,
    "empty text": "",
    "blank text": "   ",
    "empty list": [],
    "empty mapping": {},
    "number": 5,
    "boolean": True,
    "text": "assistant_answer",
    "list of empty": [{}],
    "list of a condition": [{"present": "assistant_answer"}],
    "a condition": {"present": "assistant_answer"},
}
"""Argument shapes a careless or hostile judge file may give a form."""

NOUL = {"kind": "noul", "name": "polite", "instructions": "Polite?", "minimum": 0.7}
"""A question beside the check (a judge asks at least one)."""

ROWS = [
    JevJudgeInput(answer="42"),
    JevJudgeInput(question="q?", answer='{"a": 1}', expected={"a": 1}, context=["doc"]),
    JevJudgeInput(answer="", expected=""),
]
"""Sample rows the built judge must decide without an error."""


def _file(form: str, shape: Any) -> dict[str, Any]:
    condition = {"field": shape, "equals": "x"} if form == "field" else {form: shape}
    check = {"kind": "check", "name": "c", "check": condition, "defect": "d"}
    return {"criteria": [check, NOUL]}


CASES = [pytest.param(form, name, id=f"{form}-{name}") for form in FORMS for name in SHAPES]


def _refusal(source: dict[str, Any]) -> JudgeSpecError | None:
    """What checking the file (as `validate` does) refuses, or None when it accepts it."""
    try:
        load_spec(source).check()
    except JudgeSpecError as error:
        return error
    return None


def _outcome(judge: Any, row: JevJudgeInput) -> Outcome | str:
    """The check's outcome on a row, or the message of the input error naming a missing field."""
    try:
        return judge.invoke(row).findings[0].outcome  # type: ignore[no-any-return]
    except JevInputError as error:
        return str(error)


@pytest.mark.parametrize(("form", "shape_name"), CASES)
def test_validate_refuses_or_judge_decides(form: str, shape_name: str) -> None:
    source = _file(form, SHAPES[shape_name])
    refusal = _refusal(source)
    if refusal is not None:
        assert any(place.startswith("criteria[0].check") for place, _ in refusal.problems), refusal
        return
    assert SHAPES[shape_name] is not None, f"{{{form}: null}} was accepted"
    if form == "call":
        return  # imported only with --allow-code; the import path itself is checked above
    judge = load_spec(source).build(model=ScriptedDecisionModel({"polite": 0.9}))
    for row in ROWS:
        outcome = _outcome(judge, row)
        if isinstance(outcome, Outcome):
            assert outcome in (Outcome.PASSED, Outcome.FAILED), (row, outcome)
        else:  # a row without a field the check needs: refused, the field named
            assert "state field" in outcome, outcome


@pytest.mark.parametrize("form", FORMS)
def test_a_null_argument_is_refused_naming_the_form(form: str) -> None:
    with pytest.raises(JudgeSpecError) as raised:
        load_spec(_file(form, None)).check()
    assert form in str(raised.value)
    assert "criteria[0].check" in str(raised.value)


@pytest.mark.parametrize("form", ["present", "all", "string_similarity", "no_sensitive_data", "not"])
def test_the_command_validate_exits_2_on_a_null_argument(
    tmp_path: Path, form: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "judge.yaml"
    path.write_text(
        f"criteria:\n  - kind: check\n    name: c\n    check: {{{form}: null}}\n    defect: d\n"
        "  - {kind: noul, name: polite, instructions: 'Polite?', minimum: 0.7}\n"
    )
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "internal error" not in err
    assert form in err and "criteria[0].check" in err
