"""The public names: pinned, importable, documented, and cheap to import."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import subprocess
import sys

import pytest

import langchain_jev

EXPECTED = [
    "ANSWER_FIELD",
    "CONTEXT_FIELD",
    "CachedDecisionModel",
    "ChatModelDecisionModel",
    "ChatModelOutputError",
    "DecisionCache",
    "DecisionResponse",
    "EXPECTED_FIELD",
    "GuardrailBudgetError",
    "GuardrailCheckError",
    "GuardrailRefusedError",
    "GuardrailSettings",
    "GuardrailUndecidedError",
    "HazardBattery",
    "InMemoryCache",
    "JevConfigurationError",
    "JevCriterion",
    "JevDecisionModel",
    "JevError",
    "JevFieldWarning",
    "JevFinding",
    "JevInputError",
    "JevJudge",
    "JevJudgeInput",
    "JevRunEvaluator",
    "JevVerdict",
    "JudgeSpec",
    "JudgeSpecError",
    "JuryDecisionModel",
    "LogprobsUnavailableError",
    "MissingCredentialsError",
    "Outcome",
    "PairwiseJudge",
    "QUESTION_FIELD",
    "ResponseTooLargeError",
    "SQLiteCache",
    "Statement",
    "TOOL_CALLS_FIELD",
    "ToolCall",
    "TypeSafeClassifierDecisionModel",
    "add_guardrail",
    "create_guardrail_node",
    "create_self_refine_graph",
    "default_feedback",
    "input_from_messages",
    "jev_summary_evaluator",
    "judge_input_from_run",
    "judge_schema",
    "load_judge",
    "pairwise_judge",
    "statement_criteria",
]

PUBLIC_MODULES = [
    "langchain_jev.graph",
    "langchain_jev.middleware",
    "langchain_jev.monitor",
    "langchain_jev.online",
    "langchain_jev.pairwise",
    "langchain_jev.ray",
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
