"""Old import paths keep working for one release: every module and name of 805437f imports, moved ones warn."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import json
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

import langchain_jev
from langchain_jev import _moved

AT_805437F: dict[str, list[str] | None] = json.loads(
    (Path(__file__).with_name("modules_805437f.json")).read_text(encoding="utf-8")
)
"""Every module of the package at 805437f (before the private line) -> its ``__all__`` then (None: none)."""

GONE_BEFORE_THE_PRIVATE_LINE = {
    ("langchain_jev.calibration.replay", "read_results"),  # to datasets/stored.py (the one reader)
    ("langchain_jev.compare._comparison", "read_results_file"),  # to datasets/stored.py (the one reader)
    ("langchain_jev.guardrails._draft", "may_start_early"),
    ("langchain_jev.guardrails._draft", "provider_tools"),
    ("langchain_jev.guardrails._subjects", "clean"),
    ("langchain_jev.guardrails._subjects", "clean_input"),
    ("langchain_jev.guardrails._text", "MAX_DECODED"),
    ("langchain_jev.guardrails._text", "MAX_DEPTH"),  # a depth bound refused ordinary text: reading_budget
    ("langchain_jev.guardrails._text", "Payload"),
    ("langchain_jev.guardrails._text", "is_text_mime"),
    ("langchain_jev.guardrails._text", "looks_like_base64"),
    ("langchain_jev.guardrails._text", "normalise"),
    ("langchain_jev.guardrails._text", "read_payload"),
}
"""Inner helpers that left their modules between 805437f and the private line (issues 33 and 35), and one
bound replaced since (``MAX_DEPTH``, by the size bound `reading_budget`); nothing else may."""

EXTRAS = {"langchain_jev.ray": "ray"}


def _skip_without_extra(module: str) -> None:
    for prefix, extra in EXTRAS.items():
        if (module == prefix or module.startswith(prefix + ".")) and importlib.util.find_spec(extra) is None:
            pytest.skip(f"the {extra} extra is not installed")


@pytest.fixture
def fresh_imports() -> Iterator[None]:
    """Old paths imported inside a test are imported anew there, and forgotten after it."""
    before = set(sys.modules)
    for name in [name for name in sys.modules if name in _moved.MOVED]:
        del sys.modules[name]
    yield
    for name in set(sys.modules) - before:
        if name in _moved.MOVED or name.startswith("langchain_jev.old_probe"):
            del sys.modules[name]
    vars(langchain_jev).pop("old_probe", None)


def _quietly_import(name: str) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return importlib.import_module(name)


@pytest.mark.parametrize("module", sorted(AT_805437F))
def test_every_module_of_805437f_still_imports_or_is_moved(module: str) -> None:
    _skip_without_extra(module)
    if module in _moved.MOVED:
        parent = module.rpartition(".")[0]
        search = getattr(_quietly_import(parent), "__path__", None)
        # a real module of the old name would shadow the row: the move left no file behind
        assert importlib.machinery.PathFinder.find_spec(module, search) is None, module
        return
    imported = importlib.import_module(module)
    assert imported.__name__ == module
    assert not isinstance(
        getattr(imported, "__spec__", None) and imported.__spec__.loader, _moved._MovedModules
    )


@pytest.mark.parametrize("module", sorted(name for name, names in AT_805437F.items() if names))
def test_every_name_a_module_of_805437f_exported_still_resolves(module: str) -> None:
    _skip_without_extra(module)
    imported = _quietly_import(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        missing = [
            name
            for name in AT_805437F[module] or []
            if (module, name) not in GONE_BEFORE_THE_PRIVATE_LINE and not hasattr(imported, name)
        ]
    assert missing == []


@pytest.mark.parametrize("old", sorted(_moved.MOVED))
def test_an_old_module_path_warns_naming_its_face_and_gives_the_same_objects(
    old: str, fresh_imports: None
) -> None:
    _skip_without_extra(old)
    targets = _moved.MOVED[old]
    targets = (targets,) if isinstance(targets, str) else targets
    with pytest.warns(DeprecationWarning, match=rf"{old} moved: import from .*removed in 0\.2") as caught:
        imported = importlib.import_module(old)
    assert caught[0].filename == __file__  # the warning points at the import, not the import machinery
    for face in {_moved.face_of(target) for target in targets}:
        assert face in str(caught[0].message)
    for target in targets:
        new = importlib.import_module(target)
        for name in getattr(new, "__all__", [n for n in vars(new) if not n.startswith("_")]):
            assert getattr(imported, name) is getattr(new, name), (old, name)


def test_the_table_rows_point_at_real_modules_behind_public_faces() -> None:
    for old, targets in _moved.MOVED.items():
        _skip_without_extra(old)
        for target in (targets,) if isinstance(targets, str) else targets:
            assert target not in _moved.MOVED, f"{old} -> {target}, itself moved"
            assert importlib.import_module(target).__name__ == target
            face = _moved.face_of(target)
            assert not any(part.startswith("_") for part in face.split(".")[1:]), face
            importlib.import_module(face)
    for old_face, names in _moved.MOVED_NAMES.items():
        face = importlib.import_module(old_face)
        for name, new_face in names.items():
            assert name not in face.__all__, f"{name} is still on {old_face}"
            assert name in importlib.import_module(new_face).__all__, f"{name} is not on {new_face}"


@pytest.mark.parametrize(
    ("old_face", "name"), sorted((f, n) for f, ns in _moved.MOVED_NAMES.items() for n in ns)
)
def test_a_name_that_left_a_face_still_loads_from_it_with_a_warning(old_face: str, name: str) -> None:
    new_face = _moved.MOVED_NAMES[old_face][name]
    face = importlib.import_module(old_face)
    with pytest.warns(DeprecationWarning, match=rf"{old_face}\.{name} moved: import it from {new_face}"):
        value = getattr(face, name)
    assert value is getattr(importlib.import_module(new_face), name)


def test_the_finder_builds_old_modules_split_modules_and_old_packages(
    monkeypatch: pytest.MonkeyPatch, fresh_imports: None
) -> None:
    monkeypatch.setitem(
        _moved.MOVED, "langchain_jev.old_probe", ("langchain_jev._input", "langchain_jev._verdict")
    )
    monkeypatch.setitem(
        _moved.MOVED, "langchain_jev.old_probe.child", "langchain_jev.models._probe_home.cache"
    )
    monkeypatch.setitem(_moved.MOVED, "langchain_jev.old_probe.lone", "langchain_jev._errors")
    with pytest.warns(DeprecationWarning, match=r"old_probe moved") as caught:
        from langchain_jev.old_probe import JevJudgeInput, JevVerdict  # type: ignore[import-not-found]
    assert JevJudgeInput is langchain_jev.JevJudgeInput and JevVerdict is langchain_jev.JevVerdict
    assert [str(w.message) for w in caught] == [
        "langchain_jev.old_probe moved: import from langchain_jev"
        " (the old path is removed in 0.2)"
    ]
    assert caught[0].filename == __file__
    probe = sys.modules["langchain_jev.old_probe"]
    assert "Outcome" in probe.__all__ and "JevJudgeInput" in dir(probe)
    namespace: dict[str, object] = {}
    exec("from langchain_jev.old_probe import *", namespace)
    assert namespace["Outcome"] is langchain_jev.Outcome
    with pytest.raises(AttributeError, match=r"'langchain_jev\.old_probe' has no attribute 'NoSuchThing'"):
        probe.NoSuchThing  # noqa: B018
    # a child of an old package imports beneath it, and names the face of its new home
    with pytest.warns(DeprecationWarning, match=r"old_probe\.lone moved: import from langchain_jev "):
        lone = importlib.import_module("langchain_jev.old_probe.lone")
    assert lone.JevError is langchain_jev.JevError
    assert _moved.face_of("langchain_jev.models._probe_home.cache") == "langchain_jev.models"
    # an old module whose new home is gone fails as that import
    with (
        pytest.warns(DeprecationWarning, match="import from langchain_jev.models "),
        pytest.raises(ImportError),
    ):
        importlib.import_module("langchain_jev.old_probe.child")
    # what no row names is no module, as before
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("langchain_jev.no_such_module")


def test_a_name_moved_off_a_face_warns_and_others_stay_attribute_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(_moved.MOVED_NAMES, "langchain_jev.compare", {"JevVerdict": "langchain_jev"})
    import langchain_jev.compare as compare

    with pytest.warns(
        DeprecationWarning, match=r"langchain_jev.compare.JevVerdict moved: import it from langchain_jev "
    ) as caught:
        assert compare.JevVerdict is langchain_jev.JevVerdict  # type: ignore[attr-defined]
    assert caught[0].filename == __file__
    with pytest.raises(AttributeError, match=r"'langchain_jev\.compare' has no attribute 'Outcome'"):
        compare.Outcome  # type: ignore[attr-defined]  # noqa: B018


def test_the_finder_is_installed_once_and_after_every_real_finder() -> None:
    finders = [finder for finder in sys.meta_path if isinstance(finder, _moved._MovedModules)]
    assert len(finders) == 1
    _moved.install()
    assert [finder for finder in sys.meta_path if isinstance(finder, _moved._MovedModules)] == finders
    assert sys.meta_path.index(finders[0]) > sys.meta_path.index(importlib.machinery.PathFinder)
