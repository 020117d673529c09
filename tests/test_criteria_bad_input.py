"""Bad input, generated: a judge either builds and judges, or says what is wrong.

Hypothesis writes judge definitions (names and rubrics in any Unicode, lone
surrogates included; thresholds that are NaN, infinite, out of range or not
numbers; dependencies on criteria and labels that may not exist) and inputs
(deeply nested states, huge strings, values JSON has no form for). Over the
scripted model and over the real SDK wire, every case ends one of three ways:

- the judge refuses to be built with a `JevConfigurationError` naming the criterion
  or setting at fault;
- the input is refused with a `JevInputError` naming the field or state path;
- a verdict with one finding per criterion, in declaration order.

Nothing else may escape: no RecursionError, TypeError, KeyError or SDK encoding error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from langchain_core.decisions import Choice, Noul, Score
from pydantic import ValidationError

from langchain_jev import (
    JevConfigurationError,
    JevCriterion,
    JevInputError,
    JevJudge,
    JevJudgeInput,
    JevVerdict,
    ToolCall,
)
from langchain_jev.models._wire import MAX_DEPTH
from langchain_jev.testing import ScriptedDecisionModel
from tests.support.faults import MockRig

pytestmark = pytest.mark.slow  # a fault matrix: `-m 'not slow'` leaves it out

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)

# ---------------------------------------------------------------- strategies


def mostly(valid: st.SearchStrategy[Any], nasty: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``valid`` nineteen times in twenty, else ``nasty``: most judges build, every fault still shows."""
    return st.integers(0, 19).flatmap(lambda roll: valid if roll else nasty)


ANY_CHARACTER = st.characters(exclude_categories=())  # lone surrogates and control characters included
ODD_TEXTS = ["", " ", "\u0000", "名前", "🙂" * 3, "a.b[0]", "'\"", "\u202ename", "x" * 300]
NASTY = [*ODD_TEXTS, "\ud800", "tail \udfff"]
texts = mostly(
    st.one_of(st.text(max_size=20), st.sampled_from(ODD_TEXTS)),
    st.one_of(st.text(ANY_CHARACTER, max_size=20), st.sampled_from(NASTY)),
)
good_names = st.text(min_size=1, max_size=20).filter(lambda n: n.strip() != "")
names = mostly(good_names, st.one_of(st.sampled_from(NASTY), st.integers(), st.none(), st.just(b"bytes")))
nasty_numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-5, max_value=10),
    st.booleans(),
    st.sampled_from(["0.5", None, math.nan, -0.0, 1e-300, math.inf]),
)
json_leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), texts)
json_values = st.recursive(
    json_leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
instructions = st.one_of(texts.filter(bool), st.dictionaries(texts, json_values, min_size=1, max_size=3))


@st.composite
def questions(draw: st.DrawFn, kind: str) -> Any:
    """A langchain-core question of ``kind`` (what a user hands the engine), now and then a wrong object."""
    wrong = draw(mostly(st.none(), st.sampled_from(["a question", {"type": kind}, Noul(instructions="?")])))
    if wrong is not None:
        return wrong
    try:
        if kind == "noul":
            return Noul(instructions=draw(instructions))
        if kind == "score":
            return Score(
                instructions=draw(instructions), criteria=draw(st.lists(json_values, min_size=2, max_size=5))
            )
        labels = draw(st.lists(good_names, min_size=1, max_size=4, unique=True))
        return Choice(instructions=draw(instructions), criteria=dict.fromkeys(labels))
    except ValidationError:
        assume(False)  # langchain-core refused it before our engine saw it
        raise


@dataclass
class Definition:
    """How to build one criterion; built inside the test so its errors are observed there."""

    kind: str
    name: Any
    question: Any = None
    minimum: Any = None
    accepted: Any = None
    applies: bool = False
    chosen: tuple[Any, tuple[Any, ...]] | None = None
    passed: Any = None
    check_field: bool = False

    def build(self) -> JevCriterion:
        if self.kind == "noul":
            criterion = JevCriterion.noul(self.name, self.question, self.minimum)
        elif self.kind == "score":
            criterion = JevCriterion.score(self.name, self.question, self.minimum)
        elif self.kind == "choice":
            criterion = JevCriterion.choice(self.name, self.question, self.accepted)
        elif self.check_field:
            criterion = JevCriterion.check(
                self.name, lambda data: data.field("flag", bool), "flag is not set"
            )
        else:
            criterion = JevCriterion.check(self.name, lambda data: bool(data.answer), "no answer")
        if self.applies and criterion.is_question:
            criterion = criterion.applies_when(lambda data: data.field("flag", bool) is not False)
        if self.chosen is not None:
            criterion = criterion.when_chosen(self.chosen[0], *self.chosen[1])
        if self.passed is not None:
            criterion = criterion.when_passed(self.passed)
        return criterion


@st.composite
def definitions(draw: st.DrawFn) -> list[Definition]:
    made: list[Definition] = []
    count = draw(mostly(st.integers(1, 4), st.just(0)))
    for index in range(count):
        kinds = ["noul", "score", "choice"] if index == 0 else ["noul", "score", "choice", "check"]
        kind = draw(mostly(st.sampled_from(kinds), st.just("check")))
        known = [d.name for d in made]
        used = set(map(repr, known))
        fresh = good_names.filter(lambda n, used=used: repr(n) not in used)
        name = draw(mostly(fresh, st.one_of(names, st.sampled_from(known)) if known else names))
        definition = Definition(kind, name)
        if kind in ("noul", "score", "choice"):
            definition.question = draw(questions(kind))
        if kind == "noul":
            definition.minimum = draw(mostly(st.floats(0, 1), nasty_numbers))
        if kind == "score":
            top = max(len(getattr(definition.question, "criteria", None) or []) - 1, 0)
            definition.minimum = draw(mostly(st.floats(0, top), nasty_numbers))
        if kind == "choice":
            options = list(getattr(definition.question, "criteria", None) or [])
            picks = st.lists(st.sampled_from(options), min_size=1, max_size=3) if options else st.just([])
            definition.accepted = draw(
                mostly(picks, st.one_of(st.lists(texts, max_size=2), st.just("single")))
            )
        if kind == "check":
            definition.check_field = draw(st.booleans())
        definition.applies = draw(st.booleans())
        if made and draw(st.booleans()):
            target = draw(mostly(st.sampled_from(made), st.builds(Definition, st.just("noul"), names)))
            if target.kind == "choice" and isinstance(target.question, Choice) and draw(st.booleans()):
                labels = st.lists(st.sampled_from(list(target.question.criteria)), min_size=1, max_size=2)
                definition.chosen = (target.name, tuple(draw(mostly(labels, st.lists(texts, max_size=2)))))
            else:
                definition.passed = target.name
        made.append(definition)
    return made


def nested(depth: int, leaf: Any, as_list: bool) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value] if as_list else {"k": value}
    return value


ODD_VALUES = [math.nan, math.inf, -math.inf, 10**400, {1, 2}, b"raw", object(), ("tu", "ple"), {1: "int key"}]
HUGE = "é" * 2_000_000
state_values = st.one_of(
    json_values,
    st.sampled_from(ODD_VALUES),
    st.builds(nested, st.sampled_from([MAX_DEPTH - 2, MAX_DEPTH, 600, 3000]), json_leaves, st.booleans()),
    st.just(HUGE),
)


@st.composite
def judge_inputs(draw: st.DrawFn) -> Any:
    """A state mapping, or the arguments of a `JevJudgeInput` (built inside the test)."""
    fields = draw(st.dictionaries(texts, state_values, max_size=3))
    if draw(st.booleans()):
        flag = draw(st.one_of(st.booleans(), st.none(), st.sampled_from(["yes", 1, [True]])))
        fields["flag"] = flag
    if draw(st.booleans()):
        return fields
    return {
        "question": draw(st.one_of(texts, st.none(), st.integers())),
        "answer": draw(st.one_of(texts, st.none(), st.just(HUGE), st.integers())),
        "expected": draw(state_values),
        "context": draw(st.one_of(st.none(), texts, st.lists(st.one_of(texts, st.integers()), max_size=3))),
        "tool_calls": draw(
            st.lists(
                st.one_of(
                    st.builds(ToolCall, texts, json_values, json_values),
                    st.dictionaries(st.sampled_from(["name", "arguments", "result"]), state_values),
                ),
                max_size=2,
            )
        ),
        "fields": {k: v for k, v in fields.items() if k not in ("user_question", "assistant_answer")},
        "__as_input__": True,
    }


@dataclass
class Options:
    min_confidence: Any = 0.6
    flags: dict[str, Any] = field(default_factory=dict)


options = st.builds(
    Options,
    mostly(st.floats(0, 1), nasty_numbers),
    st.fixed_dictionaries({}, optional={"fail_on_error": st.booleans(), "fail_fast": st.booleans()}),
)
# ---------------------------------------------------------------- the property


def _names(defs: list[Definition]) -> list[str]:
    return [repr(d.name) for d in defs if isinstance(d.name, str)]


def _assert_names_its_place(error: JevConfigurationError, defs: list[Definition]) -> None:
    message = str(error)
    places = [
        *_names(defs),
        *(repr(d.chosen[0]) for d in defs if d.chosen),
        *(repr(d.passed) for d in defs if d.passed),
    ]
    settings_named = (
        "min_confidence",
        "a criterion name",
        "criteria[",
        "a judge needs at least one question",
    )
    assert any(place in message for place in places) or any(s in message for s in settings_named), message


RAW_BAD_ANSWERS = [
    {"type": "noul", "noul": math.nan},
    {"type": "noul", "noul": -1.0},
    {"type": "noul", "noul": "high"},
    {"type": "noul"},
    {"type": "choice", "choice": "nobody", "probabilities": {"nobody": 1.0}, "confidence": 1.0},
    {"type": "score", "score": math.inf, "legend": {}, "probabilities": {}, "confidence": 0.5},
    {"type": "score", "score": 1.0, "legend": {}, "probabilities": {"0": -2.0, "1": 3.0}, "confidence": 0.5},
    {"type": "mystery"},
]


def _entry(criterion: JevCriterion, draw: Any) -> Any:
    """A script entry for ``criterion``: a fitting answer nineteen times in twenty, else a broken one."""
    broken = st.sampled_from(RAW_BAD_ANSWERS)
    if criterion.kind == "noul":
        return draw(mostly(st.floats(0, 1), st.one_of(broken, st.floats(allow_nan=True))))
    if criterion.kind == "score":
        levels = st.integers(0, len(criterion.levels) - 1)
        fitting = st.one_of(
            st.floats(0, len(criterion.levels) - 1),
            st.dictionaries(levels, st.floats(0, 5), min_size=1).filter(lambda d: sum(d.values()) > 0),
        )
        return draw(mostly(fitting, broken))
    labels = st.sampled_from(criterion.options)
    fitting = st.one_of(
        labels, st.dictionaries(labels, st.floats(0, 5), min_size=1).filter(lambda d: sum(d.values()) > 0)
    )
    return draw(mostly(fitting, broken))


def _script(criteria: list[JevCriterion], draw: Any) -> dict[str, Any]:
    return {c.name: _entry(c, draw) for c in criteria if c.is_question}


def _judge_once(
    defs: list[Definition], data: Any, opts: Options, model_kind: str, draw: Any
) -> JevVerdict | None:
    try:
        criteria = [d.build() for d in defs]
        script = _script(criteria, draw)
        model = ScriptedDecisionModel(script) if model_kind == "scripted" else MockRig().model(answers=script)
        judge = JevJudge(criteria, model=model, min_confidence=opts.min_confidence, **opts.flags)
    except JevConfigurationError as error:
        _assert_names_its_place(error, defs)
        event("refused when built")
        return None
    try:
        if isinstance(data, dict) and data.get("__as_input__"):
            data = JevJudgeInput(**{k: v for k, v in data.items() if k != "__as_input__"})
        verdict = judge.judge(data)
    except JevInputError as error:
        message = str(error)
        assert any(
            word in message for word in ("state", "field", "question", "answer", "context", "tool call")
        ), message
        event("input refused")
        return None
    assert [f.name for f in verdict.findings] == [c.name for c in judge.criteria]
    assert verdict.passed is not any(f.outcome.value == "FAILED" for f in verdict.findings)
    event("judged")
    return verdict


@SETTINGS
@given(defs=definitions(), data=judge_inputs(), opts=options, draw=st.data())
def test_any_definition_and_input_builds_and_judges_or_names_the_fault_scripted(
    defs: list[Definition], data: Any, opts: Options, draw: st.DataObject
) -> None:
    _judge_once(defs, data, opts, "scripted", draw.draw)


@SETTINGS
@given(defs=definitions(), data=judge_inputs(), opts=options, draw=st.data())
def test_any_definition_and_input_builds_and_judges_or_names_the_fault_over_the_wire(
    defs: list[Definition], data: Any, opts: Options, draw: st.DataObject
) -> None:
    _judge_once(defs, data, opts, "wire", draw.draw)


# ---------------------------------------------------------------- the edges, pinned


def _one_noul(model: Any) -> JevJudge:
    return JevJudge([JevCriterion.noul("ok", Noul(instructions="Is it ok?"), 0.5)], model=model)


@pytest.mark.parametrize("as_list", [False, True], ids=["objects", "arrays"])
def test_a_state_at_the_depth_limit_is_sent_and_one_level_deeper_is_refused_before_any_request(
    as_list: bool,
) -> None:
    rig = MockRig()
    judge = _one_noul(rig.model(answers={"ok": 0.9}))
    at_limit = {"deep": nested(MAX_DEPTH - 1, "leaf", as_list)}
    assert judge.judge(at_limit).passed and rig.attempts == 1
    too_deep = {"deep": nested(MAX_DEPTH, "leaf", as_list)}
    with pytest.raises(JevInputError, match=f"state.deep.*more than {MAX_DEPTH} levels deep"):
        judge.judge(too_deep)
    assert rig.attempts == 1


def test_a_state_nested_past_pythons_recursion_limit_is_an_input_error_for_both_models() -> None:
    too_deep = {"deep": nested(5000, "leaf", False)}
    with pytest.raises(JevInputError, match=r"state\.deep\.k"):
        _one_noul(MockRig().model()).judge(too_deep)
    with pytest.raises(JevInputError, match="state: nests objects and arrays too deeply"):
        _one_noul(ScriptedDecisionModel({"ok": 0.9})).judge(too_deep)


@pytest.mark.parametrize(
    ("state", "message"),
    [
        (
            {"note": "bad \ud800 text"},
            r"state.note: text is not valid Unicode \(surrogates not allowed at position 4\)",
        ),
        ({"bad \udfff key": 1}, r"state.bad \\udfff key: text is not valid Unicode"),
        ({"rows": [1, {2, 3}]}, r"state.rows\[1\]: set has no JSON form"),
        ({"blob": b"\x00"}, "state.blob: bytes has no JSON form"),
        ({7: "seven"}, "state: object keys must be strings, got 7"),
    ],
)
def test_a_state_the_wire_cannot_carry_is_refused_naming_its_path(
    state: dict[Any, Any], message: str
) -> None:
    rig = MockRig()
    with pytest.raises(JevInputError, match=message):
        _one_noul(rig.model()).judge(state)
    assert rig.attempts == 0


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: JevCriterion.noul("o\ud800k", Noul(instructions="?"), 0.5),
            r"criterion 'o\\ud800k': the name is not valid Unicode",
        ),
        (
            lambda: JevCriterion.noul("ok", Noul(instructions="bad \ud800"), 0.5),
            "criterion 'ok': the question cannot be sent as JSON",
        ),
        (
            lambda: JevCriterion.choice(
                "tone", Choice(instructions="?", criteria={"\udc00": None}), ["\udc00"]
            ),
            "criterion 'tone': the question cannot be sent as JSON",
        ),
        (
            lambda: JevCriterion.noul("ok", Noul(instructions="?"), math.nan),
            "criterion 'ok': minimum must be a finite number, got nan",
        ),
        (
            lambda: JevCriterion.score("s", Score(instructions="?", criteria=["a", "b"]), math.inf),
            "criterion 's': minimum must be a finite number, got inf",
        ),
        (
            lambda: JevJudge(
                [JevCriterion.noul("ok", Noul(instructions="?"), 0.5)],
                model=ScriptedDecisionModel({}),
                min_confidence=math.nan,
            ),
            "min_confidence must be between 0 and 1, got nan",
        ),
    ],
)
def test_a_definition_the_wire_cannot_carry_is_refused_when_built(build: Any, message: str) -> None:
    with pytest.raises(JevConfigurationError, match=message):
        build()


def test_huge_strings_in_every_field_are_judged_and_arrive_whole() -> None:
    rig = MockRig()
    data = JevJudgeInput(
        question="q" * 100_000,
        answer=HUGE,
        expected={"text": HUGE},
        context=["doc " * 50_000] * 3,
        fields={"big": list(range(100_000))},
    )
    verdict = _one_noul(rig.model(answers={"ok": 0.9})).judge(data)
    assert verdict.passed
    sent = rig.bodies[0]["state"]
    assert sent["assistant_answer"] == HUGE and sent["expected_output"]["text"] == HUGE
    assert len(sent["big"]) == 100_000 and len(sent["supporting_context"]) == 3
