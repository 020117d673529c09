"""Judge files: loading the example, the condition language, and every error path naming its place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from langchain_jev import JevConfigurationError, JevJudgeInput, JudgeSpecError, ToolCall
from langchain_jev.spec import judge_schema, load_judge, load_spec
from langchain_jev.spec._conditions import ConditionSpec, compile_condition
from langchain_jev.testing import ScriptedDecisionModel
from tests.cli.helpers import WEATHER_JUDGE

NOUL = {"kind": "noul", "name": "polite", "instructions": "Is `assistant_answer` polite?", "minimum": 0.7}
CHOICE = {
    "kind": "choice",
    "name": "mode",
    "instructions": "How does `assistant_answer` respond?",
    "options": {"answered": "Gives the weather", "clarification_needed": "Asks back"},
    "accepted": ["answered"],
}


def _with(**changes: Any) -> dict[str, Any]:
    return {**NOUL, **changes}


def _problems(source: Any) -> list[tuple[str, str]]:
    with pytest.raises(JudgeSpecError) as caught:
        load_judge(source, model=ScriptedDecisionModel({}), allow_code=True)
    return list(caught.value.problems)


# ----------------------------------------------------------------------------- the example


def test_the_weather_example_builds_each_kind_of_criterion() -> None:
    judge = load_judge(WEATHER_JUDGE, model=ScriptedDecisionModel({}))
    described = [(c.name, c.kind) for c in judge.criteria]
    assert described == [
        ("matches_search_expectation", "check"),
        ("is_grounded", "noul"),
        ("helpfulness", "score"),
        ("mode", "choice"),
        ("has_details", "noul"),
    ]
    details = judge.criteria[4]
    assert details.depends_on is not None
    assert details.depends_on.name == "mode"
    assert details.depends_on.labels == frozenset({"answered"})
    assert judge.criteria[2].minimum == 2.0
    assert judge.criteria[3].accepted == frozenset({"answered", "clarification_needed"})
    assert load_spec(WEATHER_JUDGE).required_fields() == ["user_question", "assistant_answer"]


def test_the_example_judges_as_the_specification_describes() -> None:
    script = {"is_grounded": 0.9, "helpfulness": 2.6, "mode": "clarification_needed", "has_details": 0.1}
    judge = load_judge(WEATHER_JUDGE, model=ScriptedDecisionModel(script))
    verdict = judge.judge(
        JevJudgeInput("What's the weather in Springfield?", "Which Springfield?", fields={"search_required": False})
    )
    assert verdict.passed
    assert verdict.finding("is_grounded").outcome.value == "NOT_APPLICABLE"  # no context
    assert verdict.finding("has_details").detail == 'has_details: does not apply, mode was "clarification_needed"'
    skipped_search = judge.judge(JevJudgeInput("Weather in Oslo?", "Cold.", fields={"search_required": True}))
    assert skipped_search.finding("matches_search_expectation").outcome.value == "FAILED"


def test_the_example_validates_against_the_published_schema() -> None:
    document = yaml.safe_load(WEATHER_JUDGE.read_text(encoding="utf-8"))
    jsonschema.validate(document, judge_schema())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"criteria": [{**NOUL, "kind": "nul"}]}, judge_schema())


def test_json_and_yaml_files_describe_the_same_judge(tmp_path: Path) -> None:
    document = yaml.safe_load(WEATHER_JUDGE.read_text(encoding="utf-8"))
    as_json = tmp_path / "judge.json"
    as_json.write_text(json.dumps(document), encoding="utf-8")
    assert load_spec(as_json).model_dump() == load_spec(WEATHER_JUDGE).model_dump()


def test_judge_options_reach_the_judge() -> None:
    judge = load_judge(
        {
            "min_confidence": 0.8,
            "fail_on_inconclusive": True,
            "fail_on_error": True,
            "fail_fast": True,
            "criteria": [NOUL],
        },
        model=ScriptedDecisionModel({}),
    )
    assert (judge.min_confidence, judge.fail_on_inconclusive, judge.fail_on_error, judge.fail_fast) == (
        0.8,
        True,
        True,
        True,
    )


def test_a_check_and_a_renderer_named_by_import_path() -> None:
    judge = load_judge(
        {
            "feedback_renderer": "tests.cli.checks:shouting_feedback",
            "criteria": [
                {"kind": "check", "name": "short", "check": {"call": "tests.cli.checks:short_answer"}, "defect": "too long"},
                NOUL,
            ],
        },
        model=ScriptedDecisionModel({"polite": 0.9}),
        allow_code=["tests.cli.checks"],
    )
    verdict = judge.judge("Hi?", "Hello there, how are you doing today?")
    assert verdict.finding("short").outcome.value == "FAILED"
    assert verdict.feedback == "SHORT: TOO LONG"
    assert judge.judge("Hi?", "Hello!").passed


# ----------------------------------------------------------------------------- conditions

CONTEXT = JevJudgeInput("Q?", "A.", context=["doc"], tool_calls=[ToolCall("search")], fields={"lang": "en", "n": 1})
BARE = JevJudgeInput("Q?", "  ", fields={"flag": True, "items": []})


@pytest.mark.parametrize(
    ("condition", "data", "expected"),
    [
        ({"present": "supporting_context"}, CONTEXT, True),
        ({"present": "supporting_context"}, BARE, False),
        ({"present": "lang"}, CONTEXT, True),
        ({"empty": "assistant_answer"}, BARE, True),
        ({"empty": "items"}, BARE, True),
        ({"empty": "missing"}, BARE, True),
        ({"empty": "lang"}, CONTEXT, False),
        ({"field": "lang", "equals": "en"}, CONTEXT, True),
        ({"field": "n", "equals": 1.0}, CONTEXT, True),
        ({"field": "flag", "equals": 1}, BARE, False),  # true is not 1
        ({"field": "flag", "equals": True}, BARE, True),
        ({"field": "missing", "equals": None}, BARE, True),
        ({"tool_called": "search"}, CONTEXT, True),
        ({"tool_called": "search"}, BARE, False),
        ({"tool_not_called": "search"}, BARE, True),
        ({"all": [{"present": "lang"}, {"tool_called": "search"}]}, CONTEXT, True),
        ({"all": [{"present": "lang"}, {"tool_called": "lookup"}]}, CONTEXT, False),
        ({"any": [{"present": "nothing"}, {"tool_called": "search"}]}, CONTEXT, True),
        ({"not": {"present": "supporting_context"}}, BARE, True),
        ({"call": "tests.cli.checks:short_answer"}, CONTEXT, True),
    ],
)
def test_conditions(condition: dict[str, Any], data: JevJudgeInput, expected: bool) -> None:
    assert compile_condition(ConditionSpec.model_validate(condition))(data) is expected


@pytest.mark.parametrize(
    ("answer", "expected", "equal"),
    [
        ("Rain is likely.", "Rain is likely.", True),
        ("  Rain is likely.\n", "Rain is likely.", True),
        ("rain is likely.", "Rain is likely.", False),
        ('{"a": [1, 2]}', {"a": [1, 2]}, True),
        ('{"a": [1, 2]}', {"a": [2, 1]}, False),
        ("not json", {"a": 1}, False),
        ("42", None, False),
    ],
)
def test_answer_equals_expected(answer: str, expected: Any, equal: bool) -> None:
    check = compile_condition(ConditionSpec.model_validate({"answer_equals_expected": True}))
    assert check(JevJudgeInput("Q?", answer, expected=expected)) is equal


@pytest.mark.parametrize(
    ("answer", "parses"), [('{"ok": true}', True), ("[1, 2]", True), ("3", True), ("ok", False), ("NaN", False)]
)
def test_answer_is_json(answer: str, parses: bool) -> None:
    check = compile_condition(ConditionSpec.model_validate({"answer_is_json": True}))
    assert check(JevJudgeInput("Q?", answer)) is parses


def test_a_check_comparing_with_the_expected_output_requires_that_field() -> None:
    spec = load_spec(
        {"criteria": [{"kind": "check", "name": "same", "check": {"answer_equals_expected": True}, "defect": "differs"}, NOUL]}
    )
    assert spec.required_fields() == ["assistant_answer", "expected_output"]


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("source", "place", "message"),
    [
        ({"criteria": [_with(minimum=1.5)]}, "criteria[0].minimum", "must be between 0 and 1, got 1.5"),
        ({"criteria": [_with(minimum="0.5")]}, "criteria[0].minimum", "must be a number, got '0.5'"),
        ({"criteria": [_with(minimum=float("nan"))]}, "criteria[0].minimum", "must be a finite number"),
        ({"criteria": [{k: v for k, v in NOUL.items() if k != "minimum"}]}, "criteria[0].minimum", "is required"),
        ({"criteria": [_with(kind="nul")]}, "criteria[0].kind", "must be one of 'noul', 'score', 'choice', 'check', got 'nul'"),
        ({"criteria": [{k: v for k, v in NOUL.items() if k != "kind"}]}, "criteria[0].kind", "is required: one of"),
        ({"criteria": [_with(minimun=0.5)]}, "criteria[0].minimun", "is not a known key (did you mean 'minimum'?)"),
        ({"criteria": [_with(accepted=["x"])]}, "criteria[0].accepted", "is not allowed here"),
        ({"criteria": [_with(name="")]}, "criteria[0].name", "must not be empty"),
        ({"criteria": [_with(instructions=5)]}, "criteria[0].instructions", "must be text, or a JSON object or list, got 5"),
        ({"criteria": [_with(instructions=" ")]}, "criteria[0].instructions", "must not be empty"),
        (
            {"criteria": [NOUL, {"kind": "score", "name": "s", "instructions": "How?", "levels": ["a", "b", "c"], "minimum": 3}]},
            "criteria[1].minimum",
            "must be a level of the rubric, between 0 and 2, got 3.0",
        ),
        (
            {"criteria": [{"kind": "score", "name": "s", "instructions": "How?", "levels": ["only"], "minimum": 0}]},
            "criteria[0].levels",
            "needs at least 2 items",
        ),
        ({"criteria": [{**CHOICE, "accepted": ["maybe"]}]}, "criteria[0].accepted", 'label(s) "maybe" are not options of the choice'),
        ({"criteria": [{**CHOICE, "accepted": []}]}, "criteria[0].accepted", "needs at least 1 item"),
        ({"criteria": [{**CHOICE, "options": {}}]}, "criteria[0].options", "needs at least 1 item"),
        (
            {"criteria": [_with(when_chosen={"criterion": "mode", "labels": ["answered"]}), CHOICE]},
            "criteria[0].when_chosen",
            "depends on a later criterion 'mode'",
        ),
        (
            {"criteria": [CHOICE, _with(when_chosen={"criterion": "mode", "labels": "maybe"})]},
            "criteria[1].when_chosen",
            'label(s) "maybe" are not options of \'mode\'',
        ),
        (
            {"criteria": [_with(name="first"), _with(when_chosen={"criterion": "first", "labels": ["yes"]})]},
            "criteria[1].when_chosen",
            "needs a choice, but 'first' is a noul",
        ),
        ({"criteria": [_with(when_passed="nowhere")]}, "criteria[0].when_passed", "depends on an unknown criterion 'nowhere'"),
        (
            {"criteria": [CHOICE, _with(when_passed="mode", when_chosen={"criterion": "mode", "labels": ["answered"]})]},
            "criteria[1]",
            "give when_chosen or when_passed, not both",
        ),
        ({"criteria": [NOUL, NOUL]}, "criteria[1].name", "'polite' is declared twice"),
        (
            {"criteria": [{"kind": "check", "name": "c", "check": {"answer_is_json": True}, "defect": "d"}]},
            "criteria",
            "a judge needs at least one question criterion",
        ),
        ({"criteria": []}, "criteria", "needs at least 1 item"),
        ({}, "criteria", "is required"),
        ({"critera": [NOUL]}, "critera", "is not a known key (did you mean 'criteria'?)"),
        ({"criteria": [NOUL], "min_confidence": 2}, "min_confidence", "must be between 0 and 1, got 2"),
        ({"criteria": [NOUL], "version": 2}, "version", "must be 1, got 2"),
        ({"criteria": [NOUL], "fail_fast": "yes"}, "fail_fast", "must be true or false, got 'yes'"),
        (
            {"criteria": [NOUL, {"kind": "check", "name": "c", "check": {"answer_is_json": True}, "defect": "d", "when_passed": "polite"}]},
            "criteria[1].when_passed",
            "is for questions; a check decides itself",
        ),
        ({"criteria": [NOUL, {"kind": "check", "name": "c", "check": {"answer_is_json": True}, "defect": ""}]}, "criteria[1].defect", "must not be empty"),
        ({"criteria": [NOUL, {"kind": "check", "name": "c", "defect": "d"}]}, "criteria[1].check", "is required"),
        (
            {"criteria": [NOUL, {"kind": "check", "name": "c", "check": {"present": "a", "empty": "b"}, "defect": "d"}]},
            "criteria[1].check",
            "a condition takes exactly one of present, empty, field,",
        ),
        ({"criteria": [NOUL, {"kind": "check", "name": "c", "check": {}, "defect": "d"}]}, "criteria[1].check", "got none"),
        ({"criteria": [_with(applies_when={"all": [{"equals": 1}]})]}, "criteria[0].applies_when.all[0]", "`equals` needs `field`"),
        ({"criteria": [_with(applies_when={"field": "lang"})]}, "criteria[0].applies_when", "`field` needs `equals`"),
        ({"criteria": [_with(applies_when={"not": {"present": 3}})]}, "criteria[0].applies_when.not.present", "must be a string, got 3"),
        ({"criteria": [_with(applies_when={"any": []})]}, "criteria[0].applies_when.any", "needs at least 1 item"),
        ({"criteria": [_with(applies_when={"precent": "x"})]}, "criteria[0].applies_when.precent", "did you mean 'present'?"),
        ({"criteria": [_with(applies_when={"answer_is_json": False})]}, "criteria[0].applies_when.answer_is_json", "must be true, got False"),
        ({"criteria": [_with(applies_when={"call": "no colon"})]}, "criteria[0].applies_when.call", "must be an import path like package.module:function"),
        ({"criteria": [_with(applies_when={"call": "no_such_module_xyz:f"})]}, "criteria[0].applies_when.call", "cannot import 'no_such_module_xyz:f': ModuleNotFoundError"),
        ({"criteria": [_with(applies_when={"call": "tests.cli.checks:missing"})]}, "criteria[0].applies_when.call", "module 'tests.cli.checks' has no 'missing'"),
        ({"criteria": [_with(applies_when={"call": "tests.cli.checks:NOT_A_FUNCTION"})]}, "criteria[0].applies_when.call", "is a dict, not a function"),
        ({"criteria": [NOUL], "feedback_renderer": "tests.cli.checks:nothing"}, "feedback_renderer", "has no 'nothing'"),
    ],
)
def test_every_invalid_spec_names_its_place(source: dict[str, Any], place: str, message: str) -> None:
    problems = _problems(source)
    assert any(where == place and message in what for where, what in problems), problems


def test_all_problems_are_reported_at_once() -> None:
    problems = _problems({"criteria": [_with(minimum="x"), _with(name="", kind="noul"), {**CHOICE, "accepted": 3}]})
    assert [where for where, _ in problems] == ["criteria[0].minimum", "criteria[1].name", "criteria[2].accepted"]
    engine = _problems({"criteria": [_with(minimum=2), {**CHOICE, "accepted": ["nope"]}]})
    assert [where for where, _ in engine] == ["criteria[0].minimum", "criteria[1].accepted"]


def test_the_message_lists_each_problem_on_its_own_line() -> None:
    with pytest.raises(JudgeSpecError) as caught:
        load_judge({"criteria": [_with(minimum=1.5), _with(name="b", minimum=-1)]}, model=ScriptedDecisionModel({}))
    assert str(caught.value).splitlines() == [
        "criteria[0].minimum: must be between 0 and 1, got 1.5",
        "criteria[1].minimum: must be between 0 and 1, got -1.0",
    ]
    assert isinstance(caught.value, JevConfigurationError)
    assert isinstance(caught.value, ValueError)


def test_a_file_error_gives_the_file_and_line(tmp_path: Path) -> None:
    spec = tmp_path / "judge.yaml"
    spec.write_text(
        "criteria:\n"
        "  - kind: noul\n"
        "    name: polite\n"
        "    instructions: Polite?\n"
        "    minimum: 0.7\n"
        "  - kind: score\n"
        "    name: helpful\n"
        "    instructions: Helpful?\n"
        "    levels: [No, Yes]\n"
        "    minimun: 1\n",
        encoding="utf-8",
    )
    with pytest.raises(JudgeSpecError) as caught:
        load_judge(spec, model=ScriptedDecisionModel({}))
    assert str(caught.value).splitlines() == [
        f"{spec}:6: criteria[1].minimum: is required",
        f"{spec}:10: criteria[1].minimun: is not a known key (did you mean 'minimum'?)",
    ]


def test_an_engine_error_in_a_file_gives_the_line_too(tmp_path: Path) -> None:
    spec = tmp_path / "judge.yaml"
    spec.write_text(yaml.safe_dump({"criteria": [NOUL, {**CHOICE, "accepted": ["maybe"]}]}, sort_keys=False), encoding="utf-8")
    with pytest.raises(JudgeSpecError) as caught:
        load_judge(spec, model=ScriptedDecisionModel({}))
    line = next(i for i, text in enumerate(spec.read_text().splitlines(), 1) if text.strip().startswith("accepted"))
    assert str(caught.value).startswith(f"{spec}:{line}: criteria[1].accepted: label(s)")


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("judge.yaml", "criteria:\n  - kind: noul\n   name: x\n", "line 3, column 4: not valid YAML"),
        ("judge.json", '{"criteria": [\n  {"kind": "noul",}\n]}', "line 2, column 19: not valid JSON"),
        ("judge.yaml", "- just\n- a list\n", "a judge file is a mapping with `criteria`, got list"),
        ("judge.yaml", "", "a judge file is a mapping with `criteria`, got NoneType"),
    ],
)
def test_unparseable_files(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(JudgeSpecError) as caught:
        load_spec(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(JudgeSpecError, match="cannot read the judge file"):
        load_spec(tmp_path / "nowhere.yaml")


def test_no_judge_is_half_built(monkeypatch: pytest.MonkeyPatch) -> None:
    # The default model (Jev from the environment) would fail without a key; an invalid
    # spec is reported first, because nothing is built until everything is valid.
    monkeypatch.delenv("TYPESAFE_API_KEY", raising=False)
    with pytest.raises(JudgeSpecError, match=r"criteria\[1\]\.name"):
        load_judge({"criteria": [NOUL, NOUL]})
