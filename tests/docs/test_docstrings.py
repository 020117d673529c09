"""Every public name is documented with an example, and every example in a docstring runs.

Public names are those in the ``__all__`` of the package and of its public
subpackages and spoke modules. A class or function needs a docstring of its own
with an example (a doctest, or an ``Example`` section); a constant or type alias
needs the string literal right after its assignment in the module defining it.
Then every doctest of every module of the package runs, as ``python -m doctest``
would run it, so the examples cannot drift from the code.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import importlib.util
import inspect
import itertools
import os
import pkgutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from unittest import mock

import pytest

import langchain_jev
from langchain_jev._lazy import stub_exports, stub_of
from langchain_jev._moved import MOVED_NAMES

HAS_RAY = importlib.util.find_spec("ray") is not None

PUBLIC = [
    "langchain_jev",
    "langchain_jev.graph",
    "langchain_jev.middleware",
    "langchain_jev.testing",
    "langchain_jev.evaluation",
    "langchain_jev.calibration",
    "langchain_jev.report",
    "langchain_jev.compare",
    "langchain_jev.online",
    *(["langchain_jev.ray"] if HAS_RAY else []),
]


def _public_names() -> list[tuple[str, str]]:
    names = [(module, name) for module in PUBLIC for name in importlib.import_module(module).__all__]
    # a name that left the package face for a spoke's face is still held to the face's rule
    left = [(face, name) for name, face in sorted(MOVED_NAMES["langchain_jev"].items())]
    return list(dict.fromkeys(names + left))


def _defining_module(module: ModuleType, name: str) -> str:
    stub = stub_of(module.__file__ or "")
    exports = stub_exports(module.__name__, stub) if module.__file__ and os.path.isfile(stub) else {}
    return exports.get(name, module.__name__)


def _attribute_docstrings(module_name: str) -> set[str]:
    """Names assigned at module level with a string literal right after them."""
    source = inspect.getsource(importlib.import_module(module_name))
    body = ast.parse(source).body
    documented: set[str] = set()
    for statement, following in itertools.pairwise(body):
        documented_by_next = (
            isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        )
        if not documented_by_next:
            continue
        if isinstance(statement, ast.Assign):
            documented.update(t.id for t in statement.targets if isinstance(t, ast.Name))
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            documented.add(statement.target.id)
    return documented


def _has_example(doc: str) -> bool:
    return ">>>" in doc or "Example:" in doc or "Example::" in doc or "Examples:" in doc


@pytest.mark.parametrize(
    ("module_name", "name"), _public_names(), ids=[f"{m}.{n}" for m, n in _public_names()]
)
def test_public_name_has_a_docstring_with_an_example(module_name: str, name: str) -> None:
    module = importlib.import_module(module_name)
    value = getattr(module, name)
    if inspect.isclass(value) or inspect.isfunction(value):
        own = value.__dict__.get("__doc__") if inspect.isclass(value) else value.__doc__
        assert own and own.strip(), f"{module_name}.{name} has no docstring of its own"
        assert _has_example(own), f"{module_name}.{name}: the docstring has no example"
    else:
        defining = _defining_module(module, name)
        assert name in _attribute_docstrings(defining), (
            f"{module_name}.{name}: no docstring after its assignment in {defining}"
        )


def _package_modules() -> list[str]:
    names = [langchain_jev.__name__]
    for info in pkgutil.walk_packages(langchain_jev.__path__, prefix="langchain_jev."):
        names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("module_name", _package_modules())
def test_the_docstring_examples_of_the_module_run(module_name: str) -> None:
    if module_name.startswith("langchain_jev.ray.") and not HAS_RAY:
        pytest.skip("the ray extra is not installed")
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    with mock.patch.dict(os.environ):  # an example may unset a key to show an error
        for test in finder.find(module, module_name):
            if test.examples:
                runner.run(test, out=lambda text: sys.stdout.write(text))
    result = runner.summarize(verbose=False)
    assert result.failed == 0, (
        f"{result.failed} docstring example(s) of {module_name} failed (see the output)"
    )


def test_pydoc_of_the_package_lists_the_spokes() -> None:
    page = subprocess.run(
        [sys.executable, "-m", "pydoc", "langchain_jev"],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    ).stdout
    description = page.split("DESCRIPTION", 1)[1].split("PACKAGE CONTENTS", 1)[0]
    for spoke in (
        "JevRunEvaluator",
        "JevStringEvaluator",
        "create_self_refine_graph",
        "JevSelfRefineMiddleware",
        "create_guardrail_node",
        "JevGuardrailMiddleware",
        "assert_judged",
        "load_judge",
        "langchain-jev",
        "JevDecisionModel",
        "ChatModelDecisionModel",
    ):
        assert spoke in description, f"the package docstring does not name {spoke}"
