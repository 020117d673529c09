"""Hostile judge files: any YAML or JSON document either builds a judge or raises a `JudgeSpecError`.

Documents are drawn with deep nesting, YAML anchors and aliases, tags, large
texts and code references. Whatever the document, loading it takes bounded
memory, raises nothing but `JudgeSpecError` and imports nothing.
"""

from __future__ import annotations

import json
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from langchain_jev import JevJudge, JudgeSpecError
from langchain_jev.spec import load_judge
from langchain_jev.testing import ScriptedDecisionModel

pytestmark = pytest.mark.slow  # large documents under tracemalloc

MEMORY_BOUND = 64 << 20
"""Bytes a single load may allocate at its peak (a file is at most 1 MiB)."""

NOUL = {"kind": "noul", "name": "polite", "instructions": "Polite?", "minimum": 0.7}
TAGS = [
    "!!python/object/apply:os.system ['true']",
    "!!python/name:os.system",
    "!!python/module:os",
    "!custom value",
    "!!binary aGVsbG8=",
    "!!set {a, b}",
    "!!timestamp 2001-12-14",
    "!!float .nan",
    "!!str 3",
]
MODULES = ["os", "code", "unittest.__main__", "antigravity", "this", "hostile_module_xyz"]


def _nested(depth: int, leaf: Any, kind: str) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"not": value} if kind == "not" else [value] if kind == "list" else {"a": value}
    return value


@st.composite
def json_documents(draw: st.DrawFn) -> str:
    """A JSON judge file with deep nesting, big text and code references placed anywhere."""
    depth = draw(st.integers(min_value=0, max_value=1500))
    kind = draw(st.sampled_from(["not", "list", "dict"]))
    module = draw(st.sampled_from(MODULES))
    criteria: list[Any] = [dict(NOUL)]
    where = draw(st.sampled_from(["check", "instructions", "applies_when", "renderer", "top"]))
    if where == "check":
        leaf = draw(st.sampled_from([{"present": "x"}, {"call": f"{module}:f"}]))
        criteria.append({"kind": "check", "name": "c", "defect": "d", "check": _nested(depth, leaf, "not")})
    elif where == "instructions":
        criteria[0]["instructions"] = _nested(depth, "x" * draw(st.integers(0, 1 << 21)), kind)
    elif where == "applies_when":
        criteria[0]["applies_when"] = _nested(depth, {"call": f"{module}:f"}, "not")
    document: Any = {"criteria": criteria}
    if where == "renderer":
        document["feedback_renderer"] = f"{module}:render"
    if where == "top":
        document = _nested(depth, document, kind)
    prefix = '{"not": ' * depth if where == "check" and depth > 900 else ""
    if prefix:  # past what json.dumps itself can write: build the text by hand
        text = json.dumps({"criteria": [NOUL, {"kind": "check", "name": "c", "defect": "d", "check": "@"}]})
        return text.replace('"@"', prefix + '{"present": "x"}' + "}" * depth)
    try:
        return json.dumps(document)
    except RecursionError:
        return "[" * depth + "]" * depth


@st.composite
def yaml_documents(draw: st.DrawFn) -> str:
    """A YAML judge file with aliases, tags, flow nesting and code references."""
    parts = ["criteria:", "  - {kind: noul, name: polite, minimum: 0.7, instructions: @}"]
    choice = draw(st.sampled_from(["alias", "bomb", "tag", "flow", "block", "call", "big"]))
    depth = draw(st.integers(min_value=1, max_value=1200))
    if choice == "alias":
        parts.insert(0, "shared: &s [a, b]")
        instructions = "*s"
    elif choice == "bomb":
        lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
        for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
            lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
        parts[:0] = lines
        instructions = "*i"
    elif choice == "tag":
        instructions = draw(st.sampled_from(TAGS))
    elif choice == "flow":
        instructions = "[" * depth + "x" + "]" * depth
    elif choice == "block":
        block = "".join("  " * (level + 2) + "- \n" for level in range(min(depth, 400)))
        return "criteria:\n  - kind: noul\n    name: polite\n    minimum: 0.7\n    instructions:\n" + block
    elif choice == "call":
        module = draw(st.sampled_from(MODULES))
        parts.append(f"  - {{kind: check, name: c, defect: d, check: {{call: '{module}:f'}}}}")
        instructions = "Polite?"
    else:
        instructions = "x" * draw(st.integers(1 << 19, 1 << 21))
    return "\n".join(parts).replace("@", instructions) + "\n"


def _load(text: str, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"judge{suffix}"
        path.write_text(text, encoding="utf-8")
        before = set(sys.modules)
        tracemalloc.start()
        judge: Any = None
        problems: tuple[tuple[str, str], ...] = ()
        try:
            judge = load_judge(path, model=ScriptedDecisionModel({}))
        except JudgeSpecError as error:  # the one error a bad file may give
            problems = error.problems
        finally:
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        assert isinstance(judge, JevJudge) or (problems and all(what for _, what in problems))
        assert peak < MEMORY_BOUND, peak
        imported = {name for name in set(sys.modules) - before if name.split(".")[0] in {m.split(".")[0] for m in MODULES}}
        assert not imported, imported


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(json_documents())
@example(json.dumps({"criteria": [{**NOUL, "instructions": "x" * 1_000_000}]}))  # one long string, under the limit
def test_any_json_judge_file_builds_or_names_its_fault_within_bounds(text: str) -> None:
    _load(text, ".json")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(yaml_documents())
def test_any_yaml_judge_file_builds_or_names_its_fault_within_bounds(text: str) -> None:
    _load(text, ".yaml")
