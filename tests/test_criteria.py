"""Criteria and build-time validation: every mistake named at build time."""

from __future__ import annotations

import math

import pytest
from langchain_core.decisions import Choice, Noul, Score

from langchain_jev import JevConfigurationError, JevCriterion, JevJudge
from langchain_jev.testing import ScriptedDecisionModel
from tests.support.rubrics import DETAILS, HELPFULNESS, MODE, PLAUSIBLE, details, helpfulness, mode

MODEL = ScriptedDecisionModel({})


def build(*criteria: JevCriterion, **options: object) -> JevJudge:
    return JevJudge(list(criteria), model=MODEL, **options)


def test_criteria_are_immutable_and_modifiers_return_new_ones() -> None:
    base = JevCriterion.noul("has_details", DETAILS, 0.7)
    conditional = base.applies_when(lambda data: True)
    dependent = base.when_chosen("mode", "answered")
    assert base.condition is None and base.depends_on is None
    assert conditional is not base and conditional.condition is not None
    assert dependent.depends_on is not None and dependent.depends_on.labels == {"answered"}
    assert base.when_passed("x").depends_on.labels is None  # type: ignore[union-attr]
    with pytest.raises(AttributeError):
        base.name = "other"  # type: ignore[misc]


def test_each_kind_keeps_its_condition() -> None:
    assert helpfulness(2).minimum == 2.0 and helpfulness().kind == "score"
    assert mode().accepted == {"answered", "clarification_needed"}
    check = JevCriterion.check("searched", lambda d: True, "did not search")
    assert check.kind == "check" and check.defect == "did not search" and not check.is_question


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: JevCriterion.noul("n", PLAUSIBLE, 1.5), "criterion 'n': minimum must be between 0 and 1, got 1.5"),
        (lambda: JevCriterion.noul("n", PLAUSIBLE, -0.1), "criterion 'n': minimum must be between 0 and 1"),
        (lambda: JevCriterion.noul("n", PLAUSIBLE, math.nan), "criterion 'n': minimum must be a finite number, got nan"),
        (lambda: JevCriterion.score("s", HELPFULNESS, 4), "criterion 's': minimum must be a level of the rubric, between 0 and 3, got 4"),
        (lambda: JevCriterion.score("s", HELPFULNESS, -1), "between 0 and 3, got -1"),
        (lambda: JevCriterion.choice("c", MODE, ["yes"]), 'criterion \'c\': accepted label(s) "yes" are not options of the choice (options: "answered", "clarification_needed")'),
        (lambda: JevCriterion.choice("c", MODE, []), "criterion 'c': accepted needs at least one label"),
        (lambda: JevCriterion.noul("n", HELPFULNESS, 0.5), "criterion 'n': expected a langchain_core.decisions.Noul, got Score"),  # type: ignore[arg-type]
        (lambda: JevCriterion.check("k", "not callable", "d"), "criterion 'k': predicate must be callable"),  # type: ignore[arg-type]
        (lambda: JevCriterion.check("k", lambda d: True, " "), "criterion 'k': defect must be a non-empty string"),
        (lambda: JevCriterion.noul("", PLAUSIBLE, 0.5), "a criterion name must be a non-empty string"),
        (lambda: JevCriterion.check("k", lambda d: True, "d").applies_when("no"), "criterion 'k': applies_when needs a callable"),  # type: ignore[arg-type]
        (lambda: JevCriterion.noul("n", PLAUSIBLE, 0.5).when_chosen("mode"), "criterion 'n': when_chosen('mode') needs at least one label"),
    ],
)
def test_criterion_mistakes_name_the_criterion(make: object, message: str) -> None:
    with pytest.raises(JevConfigurationError) as error:
        make()  # type: ignore[operator]
    assert message in str(error.value)


def test_a_single_accepted_string_is_one_label() -> None:
    assert JevCriterion.choice("c", MODE, "answered").accepted == {"answered"}


@pytest.mark.parametrize(
    ("criteria", "message"),
    [
        ([helpfulness(), helpfulness()], "criterion 'helpfulness' is declared twice"),
        (
            [JevCriterion.check("x", lambda d: True, "d"), JevCriterion.noul("x", PLAUSIBLE, 0.5)],
            "criterion 'x' is declared twice",
        ),
        ([JevCriterion.check("k", lambda d: True, "d")], "a judge needs at least one question criterion"),
        ([], "a judge needs at least one question criterion"),
        ([details(), mode()], "criterion 'has_details' depends on a later criterion 'mode'"),
        ([details()], "criterion 'has_details' depends on an unknown criterion 'mode'"),
        (
            [helpfulness(), JevCriterion.noul("d", DETAILS, 0.5).when_chosen("helpfulness", "x")],
            "criterion 'd': when_chosen needs a choice, but 'helpfulness' is a score",
        ),
        (
            [mode(), JevCriterion.noul("d", DETAILS, 0.5).when_chosen("mode", "answered", "elsewhere")],
            'criterion \'d\': when_chosen label(s) "elsewhere" are not options of \'mode\'',
        ),
        (
            [JevCriterion.noul("d", DETAILS, 0.5).when_passed("d")],
            "criterion 'd' depends on an unknown criterion 'd'",
        ),
        (["helpfulness"], "criteria[0] must be a JevCriterion, got str"),
    ],
)
def test_judge_mistakes_name_the_criterion(criteria: list[JevCriterion], message: str) -> None:
    with pytest.raises(JevConfigurationError) as error:
        build(*criteria)
    assert message in str(error.value)


@pytest.mark.parametrize("value", [-0.01, 1.01, math.nan, math.inf, True, "0.6"])
def test_min_confidence_outside_the_unit_interval_is_refused(value: object) -> None:
    with pytest.raises(JevConfigurationError, match=r"min_confidence must be between 0 and 1"):
        build(helpfulness(), min_confidence=value)  # type: ignore[arg-type]


def test_criteria_must_be_a_list() -> None:
    with pytest.raises(JevConfigurationError, match="criteria must be a list of JevCriterion, got str"):
        JevJudge("helpfulness", model=MODEL)  # type: ignore[arg-type]


def test_when_passed_may_depend_on_a_check() -> None:
    judge = build(
        JevCriterion.check("has_context", lambda d: bool(d.context), "no context"),
        JevCriterion.noul("is_grounded", PLAUSIBLE, 0.5).when_passed("has_context"),
    )
    assert [c.name for c in judge.criteria] == ["has_context", "is_grounded"]
    assert judge.question_names == ["is_grounded"]


def test_repr_shows_the_shape_of_a_criterion() -> None:
    assert repr(details()) == (
        "JevCriterion(noul 'has_details', minimum=0.7, when_chosen='mode':['answered'])"
    )
    assert "Choice" not in repr(mode()) and "accepted=['answered', 'clarification_needed']" in repr(mode())


def test_unused_question_types_are_still_checked() -> None:
    choice = Choice(instructions="x", criteria={"a": None})
    with pytest.raises(JevConfigurationError, match=r"expected a langchain_core\.decisions\.Score"):
        JevCriterion.score("s", choice, 0)  # type: ignore[arg-type]
    with pytest.raises(JevConfigurationError, match=r"expected a langchain_core\.decisions\.Choice"):
        JevCriterion.choice("c", Noul(instructions="x"), ["a"])  # type: ignore[arg-type]
    assert JevCriterion.score("s", Score(instructions="x", criteria=["a", "b"]), 1).minimum == 1.0
