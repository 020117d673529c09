"""The package's shape: rooms a newcomer can read from `ls`, typed lazy faces, no import circles."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "langchain_jev"

LAZY_FACES = [
    "langchain_jev",
    "langchain_jev.graph",
    "langchain_jev.guardrails",
    "langchain_jev.judges",
    "langchain_jev.middleware",
    "langchain_jev.models",
    "langchain_jev.ray",
    "langchain_jev.spec",
    "langchain_jev.testing",
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _type_checking_names(tree: ast.Module) -> dict[str, str]:
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom), ast.dump(statement)
                for alias in statement.names:
                    names[alias.asname or alias.name] = statement.module or ""
    return names


def test_the_root_holds_the_engine_and_the_faces_only() -> None:
    modules = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(modules) <= 16, modules
    assert not [name for name in modules if name.startswith(("cli_", "spec_"))], modules
    for folder in ("cli", "spec", "guardrails", "graph", "judges", "middleware", "models", "ray", "testing"):
        assert (PACKAGE / folder / "__init__.py").is_file(), folder


@pytest.mark.parametrize("face", LAZY_FACES)
def test_each_lazy_face_declares_its_names_for_type_checkers(face: str) -> None:
    if face == "langchain_jev.ray":
        pytest.importorskip("ray", reason="the ray extra is not installed")
    module = importlib.import_module(face)
    path = Path(module.__file__ or "")
    declared = _type_checking_names(ast.parse(path.read_text(encoding="utf-8")))
    exports: dict[str, str] = vars(module)["_EXPORTS"]
    assert sorted(declared) == sorted(module.__all__) == sorted(exports)
    assert declared == exports  # each name comes from the module the lazy loader imports
    for name in module.__all__:
        assert getattr(module, name) is getattr(importlib.import_module(exports[name]), name)


def test_the_worker_preload_names_modules_that_exist() -> None:
    from langchain_jev.cli.pool import _PRELOAD

    assert _PRELOAD
    for name in _PRELOAD:
        assert importlib.import_module(name).__name__ == name


def _runtime_imports(path: Path) -> set[str]:
    """The package modules a module imports when it loads (not in functions, not for type checkers)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If) and _is_type_checking(node):
                continue
            if isinstance(node, (ast.If, ast.Try)):
                visit(node.body)
                visit(node.orelse)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("langchain_jev"):
                for alias in node.names:
                    candidate = f"{node.module}.{alias.name}"
                    is_module = (ROOT / Path(*candidate.split("."))).with_suffix(".py").exists() or (
                        ROOT / Path(*candidate.split(".")) / "__init__.py"
                    ).exists()
                    found.add(candidate if is_module else node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names if alias.name.startswith("langchain_jev"))

    visit(tree.body)
    return found


def test_no_module_imports_itself_back_through_a_circle() -> None:
    graph = {_module_name(path): _runtime_imports(path) for path in PACKAGE.rglob("*.py")}
    # a package importing its own submodules (its face) is not a circle through them
    for name, imports in graph.items():
        graph[name] = {other for other in imports if not other.startswith(name + ".") and other != name}
        graph[name] = {other for other in graph[name] if not name.startswith(other + ".")}
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def walk(node: str, stack: list[str]) -> None:
        state[node] = 1
        for other in sorted(graph.get(node, ())):
            if state.get(other) == 1:
                circles.append([*stack[stack.index(other) :], other])
            elif other not in state:
                walk(other, [*stack, other])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node, [node])
    assert circles == []


@pytest.mark.slow
def test_type_checkers_see_the_lazy_names_as_their_real_types(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from langchain_jev import GuardrailUndecidedError, JevJudge\n"
        "from langchain_jev.graph import HazardBattery, create_guardrail_node\n"
        "from langchain_jev.guardrails import HazardBattery as CoreBattery\n"
        "from langchain_jev.middleware import JevGuardrailMiddleware\n"
        "from langchain_jev.models import JevDecisionModel\n"
        "from langchain_jev.spec import load_judge\n"
        "reveal_type(GuardrailUndecidedError)\n"
        "reveal_type(JevJudge)\n"
        "reveal_type(HazardBattery)\n"
        "reveal_type(create_guardrail_node)\n"
        "reveal_type(CoreBattery)\n"
        "reveal_type(JevGuardrailMiddleware)\n"
        "reveal_type(JevDecisionModel)\n"
        "reveal_type(load_judge)\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--no-incremental", str(probe)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    notes = [line for line in result.stdout.splitlines() if "Revealed type" in line]
    assert len(notes) == 8, result.stdout + result.stderr
    for note in notes:
        assert note.split("Revealed type is", 1)[1].strip() != '"Any"', note
    assert "HazardBattery" in notes[2] and "JevGuardrailMiddleware" in notes[5]


def test_every_public_error_is_a_jev_error() -> None:
    from langchain_jev import errors

    for name in errors.__all__:
        error = getattr(errors, name)
        assert issubclass(error, errors.JevError), name
    assert issubclass(errors.JevConfigurationError, ValueError)
    assert issubclass(errors.JevInputError, TypeError)
    assert issubclass(errors.ChatModelOutputError, ValueError)
    for name in errors.__all__:
        assert name in (errors.__doc__ or ""), f"{name} is not drawn in the error map"
