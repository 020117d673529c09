"""Trajectory checks by code: agentevals' four match modes on hand-made trajectories, repeats and loops.

The expected results follow agentevals' documented semantics ("strict: same tool
calls in the same order; unordered: in any order; subset: no tool calls beyond
the reference; superset: at least the reference's calls"; arguments compared
exactly, ignored, or as a subset/superset of the reference call's). Where its
implementation departs from its documentation the documentation wins, and the
case says so: it swaps the roles of the arguments in subset mode (and in the
second pass of unordered mode), pairs calls greedily, and counts ``1`` equal to
``true``. Run against agentevals 0.0.9 itself, these cases agree in every mode
except those departures.
"""

from __future__ import annotations

from typing import Any

import pytest

from langchain_jev import JevInputError, JevJudgeInput, ToolCall
from langchain_jev.judges._checks.tool_calls import (
    TRAJECTORY_MODES,
    read_calls,
    repeated_calls,
    trajectory_matches,
)
from langchain_jev.spec._builtins import NoRepeatedToolCalls, TrajectoryMatch, compile_builtin


def S(q: str, **more: Any) -> dict[str, Any]:
    return {"name": "search", "arguments": {"q": q, **more}}


F = {"name": "fetch", "arguments": {"url": "https://example.org"}}
W = {"name": "weather", "arguments": {"city": "Dublin"}}


def table(strict: bool, unordered: bool, subset: bool, superset: bool) -> dict[str, bool]:
    return dict(zip(TRAJECTORY_MODES, (strict, unordered, subset, superset), strict=True))


# (case, the agent's calls, the reference, arguments mode, per-tool rules, expected per mode)
CASES: list[tuple[str, list[Any], list[Any], str, Any, dict[str, bool]]] = [
    ("identical", [S("x"), F], [S("x"), F], "exact", None, table(True, True, True, True)),
    ("reordered", [F, S("x")], [S("x"), F], "exact", None, table(False, True, True, True)),
    ("one extra call", [S("x"), F, W], [S("x"), F], "exact", None, table(False, False, False, True)),
    ("one call missing", [S("x")], [S("x"), F], "exact", None, table(False, False, True, False)),
    ("other arguments", [S("y"), F], [S("x"), F], "exact", None, table(False, False, False, False)),
    ("both empty", [], [], "exact", None, table(True, True, True, True)),
    ("no calls, a reference", [], [S("x")], "exact", None, table(False, False, True, False)),
    ("calls, an empty reference", [S("x")], [], "exact", None, table(False, False, False, True)),
    ("a call made twice", [S("x"), S("x")], [S("x")], "exact", None, table(False, False, False, True)),
    ("a reference call twice", [S("x")], [S("x"), S("x")], "exact", None, table(False, False, True, False)),
    ("arguments ignored", [S("y"), F], [S("x"), F], "ignore", None, table(True, True, True, True)),
    # documented: the agent's arguments are a subset of the reference call's (agentevals' subset
    # mode swaps the two roles)
    ("arguments subset: fewer keys", [S("x")], [S("x", n=3)], "subset", None, table(True, True, True, True)),
    ("arguments subset: more keys", [S("x", n=3)], [S("x")], "subset", None, table(False, False, False, False)),
    ("arguments superset: more keys", [S("x", n=3)], [S("x")], "superset", None, table(True, True, True, True)),
    ("arguments superset: fewer keys", [S("x")], [S("x", n=3)], "superset", None, table(False, False, False, False)),
    ("per tool: only q compared", [S("x", n=1), F], [S("x", n=2), F], "exact", {"search": ["q"]}, table(True, True, True, True)),
    ("per tool: search ignored", [S("y"), F], [S("x"), F], "exact", {"search": "ignore"}, table(True, True, True, True)),
    # JSON: 1 is not true (agentevals compares with Python's ==)
    ("1 is not true", [{"name": "flag", "arguments": {"on": 1}}], [{"name": "flag", "arguments": {"on": True}}], "exact", None, table(False, False, False, False)),
    # a maximum matching: the first candidate is not taken blindly (agentevals pairs greedily)
    ("pairs found whatever the order", [S("x", n=1), S("x")], [S("x"), S("x", n=1)], "superset", None, table(False, True, True, True)),
]


@pytest.mark.parametrize(("case", "calls", "reference", "arguments", "per_tool", "expected"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("mode", TRAJECTORY_MODES)
def test_the_match_modes_follow_agentevals_documented_semantics(
    case: str, calls: list[Any], reference: list[Any], arguments: Any, per_tool: Any, expected: dict[str, bool], mode: Any
) -> None:
    got = trajectory_matches(read_calls(calls, "tool_calls"), read_calls(reference, "ref"), mode, arguments, per_tool)
    assert got is expected[mode], f"{case} in {mode} mode"


@pytest.mark.parametrize("mode", TRAJECTORY_MODES)
def test_the_judge_file_check_reads_the_trajectory_from_the_state(mode: Any) -> None:
    check = compile_builtin(TrajectoryMatch(mode=mode))
    for case, calls, reference, arguments, per_tool, expected in CASES:
        if arguments != "exact" or per_tool:
            continue
        state = {"assistant_answer": "done", "tool_calls": calls, "reference_tool_calls": reference}
        assert check(JevJudgeInput.of(state)) is expected[mode], case


def test_the_reference_can_be_another_field_and_langchain_args_are_read() -> None:
    check = compile_builtin(TrajectoryMatch(mode="unordered", reference="expected_output"))
    data = JevJudgeInput(answer="ok", expected=[{"name": "search", "args": {"q": "x"}}], tool_calls=[S("x")])
    assert check(data) is True


def test_a_missing_reference_is_bad_input_that_names_the_field() -> None:
    check = compile_builtin(TrajectoryMatch())
    with pytest.raises(JevInputError, match="the trajectory_match check needs the state field 'reference_tool_calls'"):
        check(JevJudgeInput(answer="ok", tool_calls=[S("x")]))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("search", "state field 'ref' must be a list of tool calls, got str"),
        ([{"arguments": {}}], "state field 'ref'[0] must be an object with a string 'name'"),
        ([{"name": "s", "arguments": "{not json"}], "state field 'ref'[0].arguments is a string that is not JSON"),
    ],
)
def test_a_malformed_reference_is_named(value: Any, message: str) -> None:
    with pytest.raises(JevInputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        read_calls(value, "ref")


def test_arguments_given_as_json_text_are_parsed() -> None:
    assert read_calls([{"name": "s", "arguments": '{"q": "x"}'}], "ref") == (ToolCall("s", {"q": "x"}),)


def test_a_call_repeated_with_the_same_arguments_is_reported() -> None:
    calls = [ToolCall(**S("x")), ToolCall(**F), ToolCall(**S("x"))]
    assert repeated_calls(calls) == ["search with the same arguments 2 times (at most 1)"]
    assert repeated_calls(calls, max_identical=2) == []


def test_a_tool_called_again_and_again_is_looping_whatever_its_arguments() -> None:
    calls = [ToolCall("search", {"q": "x" * i}) for i in range(1, 5)]
    assert repeated_calls(calls) == ["search 4 times in a row (at most 3)"]
    assert repeated_calls(calls[:3]) == []
    interleaved = [ToolCall("search", {"q": str(i)}) if i % 2 else ToolCall("fetch", {"u": str(i)}) for i in range(8)]
    assert repeated_calls(interleaved) == []


def test_one_is_not_the_same_argument_as_true() -> None:
    assert repeated_calls([ToolCall("flag", {"on": 1}), ToolCall("flag", {"on": True})]) == []


def test_the_repeat_check_passes_a_trajectory_without_calls() -> None:
    check = compile_builtin(NoRepeatedToolCalls())
    assert check(JevJudgeInput(answer="ok")) is True
    assert check(JevJudgeInput(answer="ok", tool_calls=[S("x"), S("x")])) is False


def test_long_trajectories_are_matched_without_recursion() -> None:
    calls = [ToolCall("s", {"i": i}) for i in range(3000)]
    assert trajectory_matches(calls, list(reversed(calls)), "unordered", "exact")
    chain = [ToolCall("s", {"i": i, "extra": True}) for i in range(300)]
    assert trajectory_matches(chain, [ToolCall("s", {"i": i}) for i in range(300)], "unordered", "superset")
