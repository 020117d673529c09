"""A results file's header read back is checked field by field: a wrong type anywhere is named, never used.

The invariant, over every field of a real header and every value of another JSON
type put in its place: either the header is refused naming that field (or the
object that holds it), or it is still a header every reader of headers uses
without an error (the judge it describes builds, its differences are said, its
run's columns read, its provenance drawn). The place named is the field, an object
holding it, or a place inside the value put there.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from langchain_jev.cli._compare import display_judge
from langchain_jev.datasets._fingerprint import differences, judge_description
from langchain_jev.datasets._header import header_problem, header_record, judge_spec_data
from langchain_jev.datasets._redecide import changed_conditions
from langchain_jev.datasets._rows import FieldMap
from langchain_jev.datasets._states import states_for
from langchain_jev.judges import judge_names, judge_path
from langchain_jev.report._provenance import provenance_of, run_description
from langchain_jev.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
WEATHER_JUDGE = ROOT / "examples" / "weather_judge.yaml"


def weather_header() -> dict[str, Any]:
    judge = judge_description(load_spec(WEATHER_JUDGE), "jev-latest")
    run = run_description(dataset="rows.jsonl", fmt="jsonl", fields=FieldMap().to_dict(), judge_file="judge.yaml",
                          base_url="http://127.0.0.1:9", argv=["langchain-jev", "judge"], fail_under=0.8)
    return json.loads(json.dumps(header_record(judge, run)))


HEADER = weather_header()


def places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) in a header, inner ones first."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from places(item, (*path, index))


def shown(path: tuple[Any, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def other_types(value: Any) -> list[Any]:
    """Values of JSON types other than ``value``'s (None: a field left unset has no type to break)."""
    if value is None:
        return []
    return [c for c in ("text", 5, 2.5, True, [1], {"k": 1}) if _kind(c) != _kind(value)]


def _kind(value: Any) -> str:
    return "bool" if isinstance(value, bool) else "number" if isinstance(value, (int, float)) else type(value).__name__


def replaced(header: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(header)
    holder: Any = changed
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = value
    return changed


def usable(header: dict[str, Any]) -> None:
    """Every reader of headers, run on ``header``: none may raise."""
    judge = header.get("judge")
    if judge is not None:
        assert display_judge(header) is not None or any("call" in json.dumps(c) for c in judge["criteria"])
        differences(judge, HEADER["judge"])
        changed_conditions(judge, HEADER["judge"])
    provenance_of(header, [])
    states_for(header, notes=[])


CASES = [
    (path, value)
    for path, current in places(HEADER)
    if path and path != ("langchain_jev",)
    for value in other_types(current)
]


def check(path: tuple[Any, ...], value: Any) -> None:
    tampered = replaced(HEADER, path, value)
    problem = header_problem(tampered)
    if problem is None:  # a type the format allows there (a question's instructions may be any JSON)
        usable(tampered)
        return
    named = problem.split(" is ", 1)[0].split(":", 1)[0]
    # the field itself, an object holding it, or a place inside the value put there
    assert shown(path).startswith(named) or named.startswith(shown(path)), (shown(path), value, problem)


def test_the_header_the_package_writes_is_accepted_whole() -> None:
    assert header_problem(HEADER) is None
    usable(HEADER)
    assert len(CASES) > 300


@pytest.mark.parametrize(("path", "value"), CASES, ids=[f"{shown(p)}={json.dumps(v)}" for p, v in CASES])
def test_a_field_of_another_type_is_named_or_the_header_is_still_usable(path: tuple[Any, ...], value: Any) -> None:
    check(path, value)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@given(st.sampled_from([p for p, _ in places(HEADER) if p and p != ("langchain_jev",)]), JSON)
def test_any_value_anywhere_is_named_or_usable(path: tuple[Any, ...], value: Any) -> None:
    check(path, value)


def test_the_issue_s_headers_name_their_field() -> None:
    assert header_problem({**HEADER, "judge": 5}) == "judge is 5, not an object with model, options and criteria"
    options = {**HEADER, "judge": {**HEADER["judge"], "options": [1]}}
    assert header_problem(options) == "judge.options is [1], not an object"


@pytest.mark.parametrize("name", judge_names())
def test_every_prebuilt_judge_s_description_is_a_header_judge_and_reads_back_the_same(name: str) -> None:
    described = judge_description(load_spec(judge_path(name)), "jev-latest")
    assert header_problem(header_record(described)) is None
    assert judge_description(load_spec(judge_spec_data(described)), "jev-latest") == described
