"""agentevals' documented trajectory cases, written as our own tests of the trajectory_match check.

Each case is a trajectory the agent followed and a reference, both as agentevals
takes them (OpenAI chat messages, or LangChain messages), and the verdict
agentevals documents for each mode: strict is "the same messages, in the same
order, with the same tool calls" (two calls of one message in any order), the
others compare the calls whatever message made them. The agent's side reaches
the check as the judge input a user builds from a conversation
(`input_from_messages` for LangChain messages), so which message made each call
travels in the state.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, convert_to_openai_messages

from langchain_jev import JevJudgeInput, input_from_messages
from langchain_jev.judges._checks.tool_calls import read_calls
from langchain_jev.spec._builtins import TrajectoryMatch, compile_builtin

MODES = ("strict", "unordered", "subset", "superset")


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"function": {"name": name, "arguments": json.dumps(arguments)}}


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _ai(*calls: dict[str, Any], text: str = "") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [{**call, "id": f"c{index}"} for index, call in enumerate(calls)]
    return message


def _tool(text: str) -> dict[str, Any]:
    return {"role": "tool", "content": text, "tool_call_id": "c0"}


def _matches(outputs: list[dict[str, Any]], reference: list[dict[str, Any]], mode: str, **options: Any) -> bool:
    """The check's verdict on an agent's messages, read as a judge input, against the reference messages."""
    calls = read_calls(outputs, "outputs")
    data = JevJudgeInput(answer="done", tool_calls=calls, fields={"reference_tool_calls": reference})
    data = JevJudgeInput.of(json.loads(json.dumps(data.to_state())))  # the state a judge file's row carries
    return compile_builtin(TrajectoryMatch(mode=mode, **options))(data)


SF = _call("get_weather", city="SF")
LONDON = _call("get_weather", city="London")


@pytest.mark.parametrize("mode", MODES)
def test_the_same_trajectory_matches_in_every_mode(mode: str) -> None:
    outputs = [_user("Weather in SF?"), _ai(_call("get_weather", city="San Francisco")), _tool("80, sunny"), _ai(text="80 and sunny.")]
    reference = [_user("Weather in SF?"), _ai(_call("get_weather", city="San Francisco")), _tool("80F sunny"), _ai(text="Sunny, 80.")]
    assert _matches(outputs, reference, mode)


@pytest.mark.parametrize("mode", MODES)
def test_two_calls_of_one_message_in_another_order_match_even_strictly(mode: str) -> None:
    outputs = [_user("SF and London?"), _ai(SF, LONDON), _tool("80"), _tool("90"), _ai(text="...")]
    reference = [_user("SF and London?"), _ai(LONDON, SF), _tool("90"), _tool("80"), _ai(text="...")]
    assert _matches(outputs, reference, mode)


@pytest.mark.parametrize(("mode", "expected"), [("strict", False), ("unordered", True), ("subset", True), ("superset", True)])
def test_calls_split_over_two_messages_are_not_the_one_message_strictly(mode: str, expected: bool) -> None:
    outputs = [_user("SF and London?"), _ai(SF), _tool("80"), _ai(LONDON), _tool("90"), _ai(text="...")]
    reference = [_user("SF and London?"), _ai(LONDON, SF), _tool("90"), _tool("80"), _ai(text="...")]
    assert _matches(outputs, reference, mode) is expected
    assert _matches(reference, outputs, mode) is (expected if mode in ("strict", "unordered") else True)


@pytest.mark.parametrize(("mode", "expected"), [("strict", False), ("unordered", True), ("subset", True), ("superset", True)])
def test_an_extra_assistant_message_without_calls_is_not_the_same_trajectory_strictly(mode: str, expected: bool) -> None:
    outputs = [_user("SF?"), _ai(text="Let me look that up."), _ai(SF), _tool("80"), _ai(text="80.")]
    reference = [_user("SF?"), _ai(SF), _tool("80"), _ai(text="80.")]
    assert _matches(outputs, reference, mode) is expected


@pytest.mark.parametrize(("mode", "expected"), [("strict", False), ("unordered", False), ("subset", True), ("superset", False)])
def test_fewer_calls_than_the_reference_is_a_subset_only(mode: str, expected: bool) -> None:
    outputs = [_user("SF and London?"), _ai(SF), _tool("80"), _ai(text="80 in SF; London 9000 degrees.")]
    reference = [_user("SF and London?"), _ai(LONDON, SF), _tool("90"), _tool("80"), _ai(text="...")]
    assert _matches(outputs, reference, mode) is expected


@pytest.mark.parametrize("mode", MODES)
def test_a_different_tool_matches_in_no_mode(mode: str) -> None:
    outputs = [_user("SF?"), _ai(_call("get_forecast", city="SF")), _tool("80"), _ai(text="80.")]
    reference = [_user("SF?"), _ai(SF), _tool("80"), _ai(text="80.")]
    assert not _matches(outputs, reference, mode)


@pytest.mark.parametrize(("mode", "expected"), [("strict", False), ("unordered", False), ("subset", False), ("superset", True)])
def test_extra_calls_with_arguments_ignored_for_one_tool(mode: str, expected: bool) -> None:
    outputs = [_user("SF and London?"), _ai(_call("get_weather", city="San Francisco"), LONDON), _tool("80"), _tool("90"), _ai(text="...")]
    reference = [_user("SF and London?"), _ai(_call("get_weather", city="SF and London")), _tool("..."), _ai(text="...")]
    assert _matches(outputs, reference, mode, per_tool={"get_weather": "ignore"}) is expected
    assert not _matches(outputs, reference, mode)  # without the rule, no call pairs at all


@pytest.mark.parametrize(("mode", "expected"), [("strict", False), ("unordered", False), ("subset", True), ("superset", False)])
def test_fewer_calls_with_arguments_ignored_for_one_tool(mode: str, expected: bool) -> None:
    outputs = [_user("SF and London?"), _ai(_call("get_weather", city="SF and London")), _tool("..."), _ai(text="...")]
    reference = [_user("SF and London?"), _ai(_call("get_weather", city="San Francisco"), LONDON), _tool("80"), _tool("90"), _ai(text="...")]
    assert _matches(outputs, reference, mode, per_tool={"get_weather": "ignore"}) is expected


def _flight(time: dict[str, str], query: str) -> dict[str, Any]:
    return _call("lookup_policy", query=query, time=time)


@pytest.mark.parametrize("mode", MODES)
def test_a_nested_key_path_alone_decides_one_tools_arguments(mode: str) -> None:
    window = {"start": "2025-03-22T18:34:40Z", "end": "2025-03-22T20:34:40Z"}
    outputs = [
        _user("What time is my flight?"), _ai(_call("fetch_user_flight_information", user_id="123")), _tool("[...]"),
        _ai(text="In an hour."), _user("Next flight, and first class if there is room."),
        _ai(_flight(window, "flight upgrades"), _flight(window, "first class")), _tool("no"), _tool("no"), _ai(text="..."),
    ]
    reference = [
        _user("What time is my flight?"), _ai(_call("fetch_user_flight_information", user_id="123")), _tool("[...]"),
        _ai(text="In an hour."), _user("Next flight, and first class if there is room."),
        _ai(_flight({"start": window["start"], "end": "baz"}, "foo"), _flight({"start": window["start"], "end": "bar"}, "bar")),
        _tool("no"), _tool("no"), _ai(text="..."),
    ]
    assert not _matches(outputs, reference, mode)
    assert _matches(outputs, reference, mode, per_tool={"lookup_policy": ["time.start"]})
    # the same rule as data with a mode: leave out what differs, compare the rest exactly
    assert _matches(outputs, reference, mode, per_tool={"lookup_policy": {"ignore": ["query", "time.end"]}})
    assert not _matches(outputs, reference, mode, per_tool={"lookup_policy": {"ignore": ["query"]}})


@pytest.mark.parametrize(
    ("arguments", "expected"), [("exact", False), ("ignore", True), ("subset", False), ("superset", True)]
)
def test_the_agents_arguments_a_superset_of_the_reference(arguments: str, expected: bool) -> None:
    outputs = [_user("SF?"), _ai(_call("get_weather", city="SF", units="F")), _tool("80"), _ai(text="80.")]
    reference = [_user("SF?"), _ai(_call("get_weather", city="SF")), _tool("80"), _ai(text="80.")]
    for mode in MODES:
        assert _matches(outputs, reference, mode, arguments=arguments) is expected, mode


@pytest.mark.parametrize(
    ("arguments", "expected"), [("exact", False), ("ignore", True), ("subset", True), ("superset", False)]
)
def test_the_agents_arguments_a_subset_of_the_reference(arguments: str, expected: bool) -> None:
    outputs = [_user("SF?"), _ai(_call("get_weather", city="SF")), _tool("80"), _ai(text="80.")]
    reference = [_user("SF?"), _ai(_call("get_weather", city="SF", units="F")), _tool("80"), _ai(text="80.")]
    for mode in MODES:
        assert _matches(outputs, reference, mode, arguments=arguments) is expected, mode


@pytest.mark.parametrize(("arguments", "expected"), [("exact", True), ("ignore", True), ("subset", True), ("superset", True)])
def test_equal_arguments_match_under_every_arguments_mode(arguments: str, expected: bool) -> None:
    outputs = [_user("SF?"), _ai(_call("get_weather", city="SF", units="F")), _tool("80"), _ai(text="80.")]
    for mode in MODES:
        assert _matches(outputs, outputs, mode, arguments=arguments) is expected


# ---------------------------------------------------------------- LangChain messages and the judge input


def _conversation(*ai_turns: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    messages: list[Any] = [HumanMessage("SF and London?")]
    number = 0
    for calls in ai_turns:
        tool_calls = []
        for name, args in calls:
            tool_calls.append({"name": name, "args": args, "id": f"t{number}"})
            number += 1
        messages.append(AIMessage("", tool_calls=tool_calls))
        messages.extend(ToolMessage("ok", tool_call_id=call["id"]) for call in tool_calls)
    messages.append(AIMessage("Done."))
    return messages


@pytest.mark.parametrize(("mode", "expected"), [("strict", False), ("unordered", True)])
def test_langchain_messages_keep_which_message_made_each_call(mode: str, expected: bool) -> None:
    split = _conversation([("get_weather", {"city": "SF"})], [("get_weather", {"city": "London"})])
    together = _conversation([("get_weather", {"city": "London"}), ("get_weather", {"city": "SF"})])
    data = input_from_messages(split)
    assert [call.message for call in data.tool_calls] == [0, 1]
    check = compile_builtin(TrajectoryMatch(mode=mode))
    with_reference = JevJudgeInput(answer=data.answer, tool_calls=data.tool_calls, fields={"reference_tool_calls": together})
    assert check(with_reference) is expected
    as_openai = convert_to_openai_messages(together)
    assert all(isinstance(message, dict) for message in as_openai)
    assert check(JevJudgeInput(answer="a", tool_calls=data.tool_calls, fields={"reference_tool_calls": as_openai})) is expected


def test_flat_calls_keep_their_shape_and_are_matched_in_order() -> None:
    flat = [{"name": "get_weather", "arguments": {"city": "SF"}}, {"name": "get_weather", "arguments": {"city": "London"}}]
    data = JevJudgeInput(answer="a", tool_calls=flat, fields={"reference_tool_calls": flat})
    assert data.to_state()["tool_calls"] == [{**call, "result": None} for call in flat]  # no `message` key added
    strict = compile_builtin(TrajectoryMatch(mode="strict"))
    assert strict(data)
    swapped = JevJudgeInput(answer="a", tool_calls=flat[::-1], fields={"reference_tool_calls": flat})
    assert not strict(swapped)  # flat calls carry no messages: order is all strict can compare
    # one side numbered, the other flat: compared as flat lists
    numbered = JevJudgeInput(answer="a", tool_calls=[{**c, "message": 0} for c in flat], fields={"reference_tool_calls": flat})
    assert strict(numbered)


def test_a_bad_message_number_is_named() -> None:
    from langchain_jev import JevInputError

    with pytest.raises(JevInputError, match=r"tool call 'get_weather': 'message' must be a whole number from 0, got -1"):
        JevJudgeInput(answer="a", tool_calls=[{"name": "get_weather", "message": -1}])
    with pytest.raises(JevInputError, match=r"'message' must be a whole number from 0, got True"):
        JevJudgeInput.of({"tool_calls": [{"name": "x", "message": True}]})
