"""Agent trajectories checked by code: matching a reference, and repeated or looping calls.

A trajectory here is the ordered list of tool calls an agent made (the
``tool_calls`` state field), each a name and its arguments, and, when known,
which assistant message made it (``message``, counted from 0). The four match
modes follow agentevals' trajectory match evaluator as it documents them:

===========  ================================================================
mode         matches when
===========  ================================================================
strict       the same assistant messages make the same calls, message by
             message (two calls made by one message may come in either
             order; calls split over two messages, or an extra message
             between calls, do not match). Calls that do not say which
             message made them are compared as a flat list, in order.
unordered    the same calls in any order: each call pairs with one reference
             call and none is left over on either side
subset       every call the agent made pairs with a distinct reference call
             (the agent did no more than the reference)
superset     every reference call pairs with a distinct call of the agent
             (the agent did at least the reference; extra calls are fine)
===========  ================================================================

Two calls pair when their names are equal and their arguments match under the
arguments rule: ``exact`` (equal as JSON: ``true`` is not ``1``), ``ignore``,
``subset`` (the agent's arguments are all in the reference's, with equal values)
or ``superset`` (the reference's arguments are all in the agent's). A tool can
have its own rule: one of those modes, a list of key paths (dotted for nested
keys) that alone must be equal, or ``{mode, keys, ignore}`` (``ignore``: key
paths left out of both sides first; then ``keys`` alone compared, or else
``mode``). Rules are data, so judge files can hold them; in Python a rule may
also be a function ``(arguments, reference_arguments) -> bool``, as agentevals'
matchers are. Pairs are found by a
maximum matching, so the answer never depends on the order candidates are tried.

A reference may be written as calls (``{name, arguments}``, ``message``
optional) or as the messages of a trajectory, as agentevals takes it: OpenAI
chat messages (``{"role": "assistant", "tool_calls": [...]}``) or LangChain
messages, whose assistant messages are counted to number the calls.

Where agentevals' code departs from its documentation, the documentation is
followed: its code applies the arguments mode with the two calls' roles swapped
in subset mode and in the second pass of unordered mode, pairs calls greedily
(missing pairings a matching finds), and compares arguments with Python's ``==``
(so ``1`` equals ``true``). Its strict mode also compares the messages after the
last call; here those are the answer (``assistant_answer``), not the trajectory.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Literal, get_args

from langchain_core.messages import AIMessage, BaseMessage

from langchain_jev._errors import JevInputError
from langchain_jev._input import ToolCall
from langchain_jev.judges._checks.json_values import canonical_json, json_same

__all__ = [
    "ARGUMENT_MODES",
    "TRAJECTORY_MODES",
    "ArgumentsMode",
    "ArgumentsRule",
    "TrajectoryMode",
    "arguments_match",
    "read_calls",
    "repeated_calls",
    "trajectory_matches",
]

TrajectoryMode = Literal["strict", "unordered", "subset", "superset"]
"""How a trajectory is compared with its reference."""
ArgumentsMode = Literal["exact", "ignore", "subset", "superset"]
"""How the arguments of two calls to the same tool are compared."""
ArgumentsRule = ArgumentsMode | Sequence[str] | Mapping[str, Any] | Callable[[Any, Any], bool]
"""An arguments mode; the key paths (dotted for nested keys) that alone must be equal;
``{"mode": ..., "keys": [...], "ignore": [...]}``; or, in Python only, a function of the
agent's arguments and the reference's that says whether they match (agentevals' matchers)."""

TRAJECTORY_MODES: tuple[str, ...] = get_args(TrajectoryMode)
"""The trajectory match modes."""
ARGUMENT_MODES: tuple[str, ...] = get_args(ArgumentsMode)
"""The arguments modes."""


def read_calls(value: Any, field: str) -> tuple[ToolCall, ...]:
    """Read a list of tool calls, or the messages of a trajectory, from a state field's value.

    Each call is a mapping with a string ``name`` and its ``arguments`` (or
    ``args``, as LangChain writes them), ``message`` optional; arguments given as
    a JSON string are parsed. A list of messages (OpenAI chat messages, with a
    ``role``, or LangChain messages) gives the calls of its assistant messages,
    each numbered by the assistant message that made it.

    Raises:
        JevInputError: the value is not a list of such calls or messages; the
            message names the field and the index.

    Example:
        >>> read_calls([{"name": "search", "args": {"q": "x"}}], "reference_tool_calls")[0].arguments
        {'q': 'x'}
        >>> [(c.name, c.message) for c in read_calls([
        ...     {"role": "user", "content": "Weather in SF and London?"},
        ...     {"role": "assistant", "content": "Let me look."},
        ...     {"role": "assistant", "tool_calls": [
        ...         {"function": {"name": "weather", "arguments": '{"city": "SF"}'}},
        ...         {"function": {"name": "weather", "arguments": '{"city": "London"}'}}]},
        ... ], "reference_tool_calls")]
        [('weather', 1), ('weather', 1)]

    """
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise JevInputError(f"state field {field!r} must be a list of tool calls, got {type(value).__name__}")
    if value and all(_is_message(item) for item in value):
        return _calls_of_messages(value, field)
    calls: list[ToolCall] = []
    for index, item in enumerate(value):
        if isinstance(item, ToolCall):
            calls.append(item)
            continue
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise JevInputError(
                f"state field {field!r}[{index}] must be an object with a string 'name', "
                f"got {type(item).__name__}"
            )
        arguments = item["arguments"] if "arguments" in item else item.get("args", {})
        calls.append(
            ToolCall.of(
                {
                    "name": item["name"],
                    "arguments": _arguments(arguments, f"{field!r}[{index}]"),
                    "result": item.get("result"),
                    "message": item.get("message"),
                }
            )
        )
    return tuple(calls)


def _is_message(item: Any) -> bool:
    return isinstance(item, BaseMessage) or (isinstance(item, Mapping) and isinstance(item.get("role"), str))


def _calls_of_messages(messages: Sequence[Any], field: str) -> tuple[ToolCall, ...]:
    calls: list[ToolCall] = []
    ordinal = 0
    for index, message in enumerate(messages):
        if isinstance(message, BaseMessage):
            if isinstance(message, AIMessage):
                for call in message.tool_calls:
                    calls.append(ToolCall(call["name"], call.get("args", {}), message=ordinal))
                ordinal += 1
            continue
        if message["role"] != "assistant":
            continue
        raw = message.get("tool_calls") or []
        if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)):
            raise JevInputError(f"state field {field!r}[{index}].tool_calls must be a list")
        for number, call in enumerate(raw):
            where = f"{field!r}[{index}].tool_calls[{number}]"
            function = call.get("function") if isinstance(call, Mapping) else None
            source = function if isinstance(function, Mapping) else call
            if not isinstance(source, Mapping) or not isinstance(source.get("name"), str):
                raise JevInputError(f"state field {where} must be a tool call with a string name")
            arguments = source["arguments"] if "arguments" in source else source.get("args", {})
            calls.append(ToolCall(source["name"], _arguments(arguments, where), message=ordinal))
        ordinal += 1
    return tuple(calls)


def _arguments(value: Any, where: str) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            raise JevInputError(f"state field {where}.arguments is a string that is not JSON") from None
    return value if value is not None else {}


def arguments_match(actual: Any, reference: Any, rule: ArgumentsRule = "exact") -> bool:
    """Whether the arguments of a call match the reference call's under ``rule``.

    Example:
        >>> arguments_match({"q": "x", "n": 3}, {"q": "x"}, "superset")
        True
        >>> arguments_match({"q": "x", "n": 3}, {"q": "x"}, "subset")
        False
        >>> arguments_match({"q": "x", "n": 3}, {"q": "x", "n": 5}, ["q"])
        True
        >>> arguments_match({"q": "x", "at": {"t": 1}}, {"q": "x", "at": {"t": 2}}, {"ignore": ["at.t"]})
        True
        >>> arguments_match({"q": "X"}, {"q": "x"}, lambda mine, theirs: mine["q"].lower() == theirs["q"])
        True

    """
    if callable(rule):
        return bool(rule(actual, reference))
    if isinstance(rule, Mapping):
        for path in rule.get("ignore") or ():
            actual, reference = _without(actual, path), _without(reference, path)
        keys = rule.get("keys")
        return arguments_match(actual, reference, keys if keys else rule.get("mode", "exact"))
    if not isinstance(rule, str):
        return all(json_same(_dig(actual, key), _dig(reference, key)) for key in rule)
    if rule == "ignore":
        return True
    if rule == "exact":
        return json_same(actual, reference)
    if not isinstance(actual, Mapping) or not isinstance(reference, Mapping):
        return json_same(actual, reference)
    inner, outer = (actual, reference) if rule == "subset" else (reference, actual)
    return all(key in outer and json_same(outer[key], value) for key, value in inner.items())


def trajectory_matches(
    calls: Sequence[ToolCall],
    reference: Sequence[ToolCall],
    mode: TrajectoryMode = "strict",
    arguments: ArgumentsMode = "exact",
    per_tool: Mapping[str, ArgumentsRule] | None = None,
) -> bool:
    """Whether the agent's ``calls`` match the ``reference`` calls in ``mode``.

    See the module documentation for the modes; ``per_tool`` gives a tool its own
    arguments rule.

    Example:
        >>> a, b = ToolCall("search", {"q": "x"}), ToolCall("fetch", {"url": "u"})
        >>> trajectory_matches([b, a], [a, b], "strict"), trajectory_matches([b, a], [a, b], "unordered")
        (False, True)
        >>> trajectory_matches([a], [a, b], "subset"), trajectory_matches([a], [a, b], "superset")
        (True, False)

    """
    if mode not in TRAJECTORY_MODES:
        raise ValueError(f"mode must be one of {', '.join(TRAJECTORY_MODES)}, got {mode!r}")
    rules = dict(per_tool or {})

    def pairs(call: ToolCall, ref: ToolCall) -> bool:
        return call.name == ref.name and arguments_match(
            call.arguments, ref.arguments, rules.get(ref.name, arguments)
        )

    if mode == "strict":
        if _numbered(calls) and _numbered(reference):
            return _same_steps(calls, reference, pairs)
        return len(calls) == len(reference) and all(map(pairs, calls, reference))
    if arguments == "exact" and not rules:  # equality: multisets of calls, in linear time
        mine, theirs = Counter(map(_key, calls)), Counter(map(_key, reference))
        if mode == "unordered":
            return mine == theirs
        return mine <= theirs if mode == "subset" else theirs <= mine
    if mode == "unordered":
        return len(calls) == len(reference) and _matched(calls, reference, pairs) == len(calls)
    if mode == "subset":
        return _matched(calls, reference, pairs) == len(calls)
    return _matched(calls, reference, pairs) == len(reference)


def repeated_calls(calls: Sequence[ToolCall], max_identical: int = 1, max_consecutive: int = 3) -> list[str]:
    """What is repeated or looping in a trajectory; empty when nothing is.

    A call made more than ``max_identical`` times with the same arguments is
    repeated; a tool called more than ``max_consecutive`` times back to back is
    looping, whatever its arguments.

    Example:
        >>> s = ToolCall("search", {"q": "x"})
        >>> repeated_calls([s, ToolCall("fetch"), s])
        ['search with the same arguments 2 times (at most 1)']
        >>> repeated_calls([ToolCall("search", {"q": str(i)}) for i in range(5)])
        ['search 5 times in a row (at most 3)']

    """
    problems: list[str] = []
    counts = Counter(map(_key, calls))  # in the order each call was first made
    for (name, _), count in counts.items():
        if count > max_identical:
            problems.append(f"{name} with the same arguments {count} times (at most {max_identical})")
    run_name, run = None, 0
    longest: dict[str, int] = {}
    for call in calls:
        run = run + 1 if call.name == run_name else 1
        run_name = call.name
        longest[call.name] = max(longest.get(call.name, 0), run)
    for name, length in longest.items():
        if length > max_consecutive:
            problems.append(f"{name} {length} times in a row (at most {max_consecutive})")
    return problems


def _matched(
    left: Sequence[ToolCall], right: Sequence[ToolCall], pairs: Callable[[ToolCall, ToolCall], bool]
) -> int:
    """The size of a maximum matching between ``left`` and ``right`` (augmenting paths, no recursion)."""
    edges = [[j for j, ref in enumerate(right) if pairs(call, ref)] for call in left]
    owner: dict[int, int] = {}  # right index -> the left index it is paired with
    partner: dict[int, int] = {}  # left index -> the right index it is paired with
    for start in range(len(left)):
        reached_from: dict[int, int] = {}
        stack: list[int] = [start]
        free: int | None = None
        while stack and free is None:
            i = stack.pop()
            for j in edges[i]:
                if j in reached_from:
                    continue
                reached_from[j] = i
                if j not in owner:
                    free = j
                    break
                stack.append(owner[j])
        step = free
        while step is not None:
            i = reached_from[step]
            previous = partner.get(i)
            owner[step], partner[i] = i, step
            step = None if i == start else previous
    return len(partner)


def _numbered(calls: Sequence[ToolCall]) -> bool:
    """True when every call says which assistant message made it (an empty list does too)."""
    return all(call.message is not None for call in calls)


def _same_steps(
    calls: Sequence[ToolCall], reference: Sequence[ToolCall], pairs: Callable[[ToolCall, ToolCall], bool]
) -> bool:
    """Strict: message by message, the same calls (in any order within one message)."""
    mine, theirs = _steps(calls), _steps(reference)
    if mine.keys() != theirs.keys():
        return False
    for message, made in mine.items():
        expected = theirs[message]
        if len(made) != len(expected) or _matched(made, expected, pairs) != len(made):
            return False
    return True


def _steps(calls: Sequence[ToolCall]) -> dict[int | None, list[ToolCall]]:
    steps: dict[int | None, list[ToolCall]] = {}
    for call in calls:
        steps.setdefault(call.message, []).append(call)
    return steps


def _key(call: ToolCall) -> tuple[str, Hashable]:
    return (call.name, canonical_json(call.arguments))


def _without(value: Any, path: str) -> Any:
    """``value`` without the key at a dotted path (a copy; the rest unchanged)."""
    head, _, rest = path.partition(".")
    if not isinstance(value, Mapping) or head not in value:
        return value
    copy = dict(value)
    if rest:
        copy[head] = _without(copy[head], rest)
    else:
        del copy[head]
    return copy


def _dig(value: Any, key: str) -> Any:
    for part in key.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value
