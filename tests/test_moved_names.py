"""One face per public name: a name a user imports is exported by one face, and its old spots warn."""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import pytest

from langchain_jev._moved import MOVED_NAMES

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from private_line import FACES

ROOT = Path(__file__).resolve().parents[1]

READ = ("langchain_jev", "tests", "docs", "examples", "notebooks", "benchmarks", "scripts", "README.md")
"""Where a user or the package imports a name: code, its docstrings, the pages, notebooks, benchmarks."""

IMPORT = re.compile(r"from\s+(langchain_jev(?:\.\w+)*)\s+import\s+(\([^)]*\)|[^\n]*)")
"""``from <face> import <names>``, one line or parenthesised, in code, a doctest, a page or a notebook's JSON."""

KNOWN_ON_TWO_FACES: dict[str, tuple[str, ...]] = {}
"""Names still on two faces, each the same object on both: none (a spoke's names are on the spoke's face)."""

DISTINCT = {
    "Suggestion": ("langchain_jev.calibration", "langchain_jev.guardrails.quality"),
    "main": ("langchain_jev.cli", "langchain_jev.testing.server"),
}
"""One spelling, two different objects (a judge's thresholds and a battery's; two commands)."""


def _faces_of_each_name() -> dict[str, tuple[str, ...]]:
    where: defaultdict[str, list[str]] = defaultdict(list)
    for face in FACES:
        if face == "langchain_jev.ray" and importlib.util.find_spec("ray") is None:
            continue  # the ray extra is not installed
        for name in getattr(importlib.import_module(face), "__all__", ()):
            where[name].append(face)
    return {name: tuple(sorted(faces)) for name, faces in where.items() if len(faces) > 1}


def test_no_public_name_is_on_two_faces() -> None:
    on_two = _faces_of_each_name()
    same = {name: faces for name, faces in on_two.items() if name not in DISTINCT}
    assert same == KNOWN_ON_TWO_FACES == {}
    assert {name: faces for name, faces in on_two.items() if name in DISTINCT} == DISTINCT
    for name, faces in KNOWN_ON_TWO_FACES.items():
        first, second = (getattr(importlib.import_module(face), name) for face in faces)
        assert first is second, name
    for name, faces in DISTINCT.items():
        first, second = (getattr(importlib.import_module(face), name) for face in faces)
        assert first is not second, name


def _old_spots() -> list[tuple[str, str, str]]:
    faces = set(FACES)
    return [
        (old, name, new)
        for old, names in sorted(MOVED_NAMES.items())
        if old in faces
        for name, new in sorted(names.items())
    ]


def test_the_guardrail_names_have_the_faces_the_rule_gives() -> None:
    rows = {(old, name): new for old, name, new in _old_spots()}
    errors = ("GuardrailCheckError", "GuardrailRefusedError", "GuardrailUndecidedError")
    for error in errors:
        assert (
            rows[("langchain_jev.graph", error)]
            == rows[("langchain_jev.guardrails", error)]
            == "langchain_jev"
        )
    assert rows[("langchain_jev", "HazardBattery")] == "langchain_jev.guardrails"
    assert rows[("langchain_jev", "add_guardrail")] == "langchain_jev.graph"


def test_a_spokes_names_left_the_root_for_the_spokes_face() -> None:
    rows = {name: new for old, name, new in _old_spots() if old == "langchain_jev"}
    spokes = {
        "langchain_jev.models": (
            "CachedDecisionModel",
            "DecisionCache",
            "DecisionResponse",
            "InMemoryCache",
            "JevDecisionModel",
            "JuryDecisionModel",
            "SQLiteCache",
        ),
        "langchain_jev.langsmith": ("JevRunEvaluator", "jev_summary_evaluator"),
        "langchain_jev.spec": ("JudgeSpec", "judge_schema", "load_judge"),
        "langchain_jev.pairwise": ("PairwiseJudge", "pairwise_judge"),
    }
    assert {name: rows[name] for names in spokes.values() for name in names} == {
        name: face for face, names in spokes.items() for name in names
    }


@pytest.mark.parametrize(("old", "name", "new"), _old_spots())
def test_each_old_spot_warns_and_gives_the_same_object(old: str, name: str, new: str) -> None:
    new_face = importlib.import_module(new)
    assert name in new_face.__all__
    old_face = importlib.import_module(old)
    assert name not in old_face.__all__
    assert name not in dir(old_face)
    vars(old_face).pop(name, None)  # a name cached by an earlier access would not warn again
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} moved: import it from {new}\b"):
        value = getattr(old_face, name)
    assert value is getattr(new_face, name)


def test_an_old_import_statement_warns_at_the_importing_line() -> None:
    import langchain_jev.graph

    vars(langchain_jev.graph).pop("HazardBattery", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from langchain_jev.graph import HazardBattery  # type: ignore[attr-defined]
    from langchain_jev.guardrails import HazardBattery as battery

    assert HazardBattery is battery
    where = {Path(w.filename).name for w in caught if w.category is DeprecationWarning}
    assert where == {"test_moved_names.py"}  # the warning points at the user's import, not at the package


def _imports_of_old_spots(text: str) -> list[str]:
    found = []
    for match in IMPORT.finditer(text):
        left = MOVED_NAMES.get(match[1], {})
        found += [f"{match[1]}.{name}" for name in re.findall(r"\w+", match[2]) if name in left]
    return found


def test_the_import_reader_sees_each_shape_of_an_import() -> None:
    shapes = (
        "from langchain_jev import JevJudge, load_judge\n",
        ">>> from langchain_jev import (\n...     JevJudge,\n...     load_judge,\n... )\n",
        '    "from langchain_jev import load_judge\\n",\n',
        "from langchain_jev import load_judge  # noqa: F401\n",
    )
    assert [_imports_of_old_spots(text) for text in shapes] == [["langchain_jev.load_judge"]] * 4
    assert _imports_of_old_spots("from langchain_jev.spec import load_judge\n") == []


def _read_files() -> list[Path]:
    here = Path(__file__).resolve()
    files = []
    for place in READ:
        path = ROOT / place
        found = [path] if path.is_file() else path.rglob("*")
        files += [f for f in found if f.suffix in (".py", ".md", ".ipynb") and f.resolve() != here]
    return sorted(files)


def test_no_file_imports_a_name_from_the_spot_it_left() -> None:
    """The package, its tests, pages, notebooks and benchmarks import each name from its face: none warns."""
    old = {
        str(path.relative_to(ROOT)): spots
        for path in _read_files()
        if (spots := _imports_of_old_spots(path.read_text(encoding="utf-8")))
    }
    assert old == {}
