"""The public names: pinned, importable, documented, and cheap to import."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

import langchain_jev

EXPECTED = [
    "ANSWER_FIELD",
    "CONTEXT_FIELD",
    "ChatModelDecisionModel",
    "ChatModelOutputError",
    "EXPECTED_FIELD",
    "GuardrailBudgetError",
    "GuardrailCheckError",
    "GuardrailRefusedError",
    "GuardrailUndecidedError",
    "JevConfigurationError",
    "JevCriterion",
    "JevError",
    "JevFieldWarning",
    "JevFinding",
    "JevInputError",
    "JevJudge",
    "JevJudgeInput",
    "JevVerdict",
    "JudgeSpecError",
    "LogprobsUnavailableError",
    "MissingCredentialsError",
    "Outcome",
    "QUESTION_FIELD",
    "ResponseTooLargeError",
    "Statement",
    "TOOL_CALLS_FIELD",
    "ToolCall",
    "TypeSafeClassifierDecisionModel",
    "default_feedback",
    "input_from_messages",
    "judge_input_from_run",
    "statement_criteria",
]

PUBLIC_MODULES = [
    "langchain_jev.graph",
    "langchain_jev.langsmith",
    "langchain_jev.middleware",
    "langchain_jev.models",
    "langchain_jev.monitor",
    "langchain_jev.online",
    "langchain_jev.pairwise",
    "langchain_jev.ray",
    "langchain_jev.spec",
    "langchain_jev.testing",
]


def test_all_is_pinned() -> None:
    assert langchain_jev.__all__ == EXPECTED


def test_every_public_name_imports_and_has_a_docstring() -> None:
    for name in langchain_jev.__all__:
        value = getattr(langchain_jev, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert (value.__doc__ or "").strip(), f"{name} has no docstring"


def test_subpackage_names_import_and_have_docstrings() -> None:
    for module_name in PUBLIC_MODULES:
        if module_name == "langchain_jev.ray" and importlib.util.find_spec("ray") is None:
            continue  # the ray extra is not installed
        module = importlib.import_module(module_name)
        assert module.__doc__, module_name
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value) or inspect.isfunction(value):
                assert (value.__doc__ or "").strip(), f"{module_name}.{name} has no docstring"


def test_unknown_names_are_attribute_errors() -> None:
    with pytest.raises(AttributeError, match="NoSuchThing"):
        langchain_jev.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018


def test_importing_the_package_loads_no_spoke() -> None:
    code = (
        "import sys, langchain_jev\n"
        "heavy = [m for m in ('langchain_jev._judge', 'langgraph', 'langsmith.evaluation', 'typesafe_sdk',"
        " 'langchain', 'langchain_classic') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_package_is_typed() -> None:
    from importlib.resources import files

    assert files("langchain_jev").joinpath("py.typed").is_file()


PINNED = Path(__file__).with_name("public_api.json")
"""Each face's exported names, pinned: a new public name is a decision (``scripts/private_line.py --pin``)."""


def _faces() -> dict[str, list[str]]:
    faces: dict[str, list[str]] = json.loads(PINNED.read_text(encoding="utf-8"))
    return faces


@pytest.mark.parametrize("face", sorted(_faces()))
def test_each_face_exports_exactly_its_pinned_names(face: str) -> None:
    if face == "langchain_jev.ray" and importlib.util.find_spec("ray") is None:
        pytest.skip("the ray extra is not installed")
    module = importlib.import_module(face)
    assert sorted(getattr(module, "__all__", [])) == sorted(_faces()[face])
    for name in _faces()[face]:
        assert getattr(module, name) is not None, f"{face}.{name}"


def test_no_module_outside_the_faces_is_public() -> None:
    package = Path(langchain_jev.__file__).parent
    public = []
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        private = any(part.startswith("_") and not part.endswith("__") for part in parts)
        if not private and parts[-1] != "__main__" and ".".join(parts) not in _faces():
            public.append(".".join(parts))
    assert public == [], "public modules that are no face (add a leading underscore, or a face):"
