"""Agent trajectories checked by code: matching a reference, and repeated or looping calls.

A trajectory here is the ordered list of tool calls an agent made (the
``tool_calls`` state field), each a name and its arguments. The four match modes
follow agentevals' trajectory match evaluator:

===========  ================================================================
mode         matches when
===========  ================================================================
strict       the same calls in the same order (same length)
unordered    the same calls in any order: each call pairs with one reference
             call and none is left over on either side
subset       every call the agent made pairs with a distinct reference call
             (the agent did no more than the reference)
superset     every reference call pairs with a distinct call of the agent
             (the agent did at least the reference; extra calls are fine)
===========  ================================================================

Two calls pair when their names are equal and their arguments match under the
arguments mode: ``exact`` (equal as JSON: ``true`` is not ``1``), ``ignore``,
``subset`` (the agent's arguments are all in the reference's, with equal values)
or ``superset`` (the reference's arguments are all in the agent's). A tool can
have its own mode, or a list of argument names (dotted for nested keys) that
alone must be equal. Pairs are found by a maximum matching, so the answer never
depends on the order in which candidates are tried.

Where agentevals' code departs from its documentation, the documentation is
followed: its code applies the arguments mode with the two calls' roles swapped
in subset mode and in the second pass of unordered mode, pairs calls greedily
(missing pairings a matching finds), and compares arguments with Python's ``==``
(so ``1`` equals ``true``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Literal, get_args

from langchain_jev.errors import JevInputError
from langchain_jev.input import ToolCall

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
ArgumentsRule = ArgumentsMode | Sequence[str]
"""An arguments mode, or the argument names (dotted for nested keys) that must be equal."""

TRAJECTORY_MODES: tuple[str, ...] = get_args(TrajectoryMode)
"""The trajectory match modes."""
ARGUMENT_MODES: tuple[str, ...] = get_args(ArgumentsMode)
"""The arguments modes."""


def read_calls(value: Any, field: str) -> tuple[ToolCall, ...]:
    """Read a list of tool calls from a state field's value.

    Each call is a mapping with a string ``name`` and its ``arguments`` (or
    ``args``, as LangChain writes them); arguments given as a JSON string are parsed.

    Raises:
        JevInputError: the value is not a list of such calls; the message names the
            field and the index.

    Example:
        >>> read_calls([{"name": "search", "args": {"q": "x"}}], "reference_tool_calls")[0].arguments
        {'q': 'x'}

    """
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise JevInputError(
            f"state field {field!r} must be a list of tool calls, got {type(value).__name__}"
        )
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
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                raise JevInputError(
                    f"state field {field!r}[{index}].arguments is a string that is not JSON"
                ) from None
        calls.append(ToolCall(item["name"], arguments if arguments is not None else {}))
    return tuple(calls)


def arguments_match(actual: Any, reference: Any, rule: ArgumentsRule = "exact") -> bool:
    """Whether the arguments of a call match the reference call's under ``rule``.

    Example:
        >>> arguments_match({"q": "x", "n": 3}, {"q": "x"}, "superset")
        True
        >>> arguments_match({"q": "x", "n": 3}, {"q": "x"}, "subset")
        False
        >>> arguments_match({"q": "x", "n": 3}, {"q": "x", "n": 5}, ["q"])
        True

    """
    from langchain_jev.spec.conditions import json_equal

    if not isinstance(rule, str):
        return all(json_equal(_dig(actual, key), _dig(reference, key)) for key in rule)
    if rule == "ignore":
        return True
    if rule == "exact":
        return json_equal(actual, reference)
    if not isinstance(actual, Mapping) or not isinstance(reference, Mapping):
        return json_equal(actual, reference)
    inner, outer = (actual, reference) if rule == "subset" else (reference, actual)
    return all(key in outer and json_equal(outer[key], value) for key, value in inner.items())


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


def repeated_calls(
    calls: Sequence[ToolCall], max_identical: int = 1, max_consecutive: int = 3
) -> list[str]:
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


def _key(call: ToolCall) -> tuple[str, Hashable]:
    return (call.name, _canonical(call.arguments))


def _canonical(value: Any) -> Hashable:
    """A hashable form under which JSON-equal values are equal (``1`` is ``1.0``, not ``true``)."""
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, (int, float)):
        number = int(value) if isinstance(value, float) and value.is_integer() else value
        return ("number", number)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, Mapping):
        return ("object", frozenset((str(k), _canonical(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return ("array", tuple(_canonical(item) for item in value))
    return ("other", repr(value))


def _dig(value: Any, key: str) -> Any:
    for part in key.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value
