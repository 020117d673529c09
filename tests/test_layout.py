"""The package's shape: rooms a newcomer can read from `ls`, typed lazy faces, no import circles."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from langchain_jev._lazy import stub_exports

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "langchain_jev"

LAZY_FACES = [
    "langchain_jev",
    "langchain_jev._runs",
    "langchain_jev.calibration",
    "langchain_jev.cli",
    "langchain_jev.compare",
    "langchain_jev.graph",
    "langchain_jev.guardrails",
    "langchain_jev.guardrails.quality",
    "langchain_jev.judges",
    "langchain_jev.middleware",
    "langchain_jev.models",
    "langchain_jev.online",
    "langchain_jev.pairwise",
    "langchain_jev.ray",
    "langchain_jev.report",
    "langchain_jev.simulation",
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
    # the engine, the spokes, the face and its machinery (_lazy, _extras, _moved)
    assert len(modules) <= 17, modules
    assert not [name for name in modules if name.startswith(("cli_", "spec_"))], modules
    for folder in (
        "cli",
        "datasets",
        "spec",
        "guardrails",
        "graph",
        "judges",
        "middleware",
        "models",
        "ray",
        "testing",
    ):
        assert (PACKAGE / folder / "__init__.py").is_file(), folder


@pytest.mark.parametrize("face", LAZY_FACES)
def test_each_lazy_face_names_its_exports_once_in_its_stub(face: str) -> None:
    if face == "langchain_jev.ray":
        pytest.importorskip("ray", reason="the ray extra is not installed")
    module = importlib.import_module(face)
    path = Path(module.__file__ or "")
    exports = stub_exports(face, str(path.with_suffix(".pyi")))  # what type checkers read
    assert exports and sorted(exports) == module.__all__ == dir(module)
    for name in module.__all__:  # each name comes from the module the stub names
        assert getattr(module, name) is getattr(importlib.import_module(exports[name]), name)
    # the face's module keeps no second table: no names for type checkers, no __all__ but the stub's
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert set(_type_checking_names(tree)) <= {"JevJudge"}  # the root's wiring annotates its argument
    assert "_EXPORTS" not in vars(module)
    bound = [ast.unparse(node) for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign)]
    assert [line for line in bound if "__all__" in line] == [
        "__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)"
    ]


def test_every_face_with_a_stub_is_a_lazy_face() -> None:
    stubs = sorted(_module_name(path.with_suffix(".py")) for path in PACKAGE.rglob("__init__.pyi"))
    assert stubs == sorted(LAZY_FACES)


def test_the_worker_preload_names_modules_that_exist() -> None:
    from langchain_jev.datasets._local.pool import _PRELOAD

    assert _PRELOAD
    for name in _PRELOAD:
        assert importlib.import_module(name).__name__ == name


def _path_of(module: str) -> Path | None:
    base = ROOT / Path(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _bindings(module: str) -> dict[str, tuple[str, str]]:
    """The names a module binds at load from another module (``from m import n``), and lazily (its stub)."""
    path = _path_of(module)
    found: dict[str, tuple[str, str]] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body if path else []:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                found[alias.asname or alias.name] = (node.module, alias.name)
    stub = path.with_suffix(".pyi") if path and path.name == "__init__.py" else None
    if stub and stub.is_file():
        found.update({name: (home, name) for name, home in stub_exports(module, str(stub)).items()})
    return found


def _home(module: str, name: str, depth: int = 0) -> str:
    """The module ``from module import name`` loads: a submodule, or where a face's name really lives."""
    if _path_of(f"{module}.{name}"):
        return f"{module}.{name}"
    bound = _bindings(module).get(name) if depth < 10 else None
    if bound and bound[0].startswith("langchain_jev"):
        return _home(*bound, depth=depth + 1)
    return module


def _import_lines(path: Path, *, in_functions: bool = False) -> dict[str, int]:
    """The package modules a module imports, each with the line of its first import.

    Loaded when the module loads, or (``in_functions``) anywhere in it; imports for type
    checkers only (an ``if TYPE_CHECKING:`` block) are left out either way. A name
    imported through a face counts as an import of the module the face takes it from.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: dict[str, int] = {}

    def add(node: ast.stmt) -> None:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("langchain_jev"):
            for alias in node.names:
                found.setdefault(_home(node.module, alias.name), node.lineno)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("langchain_jev"):
                    found.setdefault(alias.name, node.lineno)

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If) and _is_type_checking(node):
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                add(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if in_functions:
                    visit(node.body)
            else:  # the bodies of if, try, with, for, while, match and class statements
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.stmt):
                        visit([child])
                    elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
                        visit(child.body)

    visit(tree.body)
    return found


def _imports(path: Path, *, in_functions: bool = False) -> set[str]:
    """The package modules a module imports (see `_import_lines`)."""
    return set(_import_lines(path, in_functions=in_functions))


def _edges(*, in_functions: bool) -> dict[str, dict[str, int]]:
    """Module -> {package module it loads: the line}, the packages above each import included.

    Importing ``a.b.c`` runs ``a`` and ``a.b`` first, so those count too, except the
    packages above the importer itself (they are loading already). A package's own
    imports of its submodules count like any other.
    """
    graph: dict[str, dict[str, int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        edges: dict[str, int] = {}
        for other, line in _import_lines(path, in_functions=in_functions).items():
            parts = other.split(".")
            for size in range(1, len(parts) + 1):
                above = ".".join(parts[:size])
                if above != other and (name == above or name.startswith(above + ".")):
                    continue
                if above != name:
                    edges.setdefault(above, line)
        graph[name] = edges
    return graph


def _graph(*, in_functions: bool) -> dict[str, set[str]]:
    """Module -> the package modules it loads (see `_edges`)."""
    return {name: set(edges) for name, edges in _edges(in_functions=in_functions).items()}


def _circles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The groups of modules that import each other round a circle (strongly connected, more than one)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return sorted(groups)


def _circle_path(graph: Mapping[str, Mapping[str, int]], group: list[str]) -> str:
    """One shortest way round a circle, each step with its importing line: ``a:3 -> b:9 -> a``."""
    start = group[0]
    came: dict[str, str] = {}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for other in sorted(graph[node]):
            if other == start:
                steps = [node]
                while steps[-1] != start:
                    steps.append(came[steps[-1]])
                steps.reverse()
                hops = [f"{a}:{graph[a][b]}" for a, b in zip(steps, [*steps[1:], start], strict=True)]
                return " -> ".join([*hops, start])
            if other in group and other not in came:
                came[other] = node
                queue.append(other)
    return " <-> ".join(group)


def test_no_import_anywhere_closes_a_circle() -> None:
    """No circle among the package's modules, at load or through an import inside a function."""
    graph = _edges(in_functions=True)
    circles = [_circle_path(graph, group) for group in _circles(graph)]
    assert circles == [], "import circles (module:line -> ...):\n" + "\n".join(circles)


ENGINE = (
    "_criteria",
    "_input",
    "_judge",
    "_outcomes",
    "_feedback",
    "_verdict",
    "_conversation",
    "_statements",
)
"""The engine's modules (the hub): they know nothing of LangSmith, LangGraph, agents or the spokes."""
SPOKES = (
    "langsmith",
    "_runs",
    "evaluation",
    "_refine",
    "pairwise",
    "graph",
    "middleware",
    "guardrails",
    "cli",
)


def test_the_engine_imports_no_spoke() -> None:
    graph = _graph(in_functions=True)
    found = {
        (f"langchain_jev.{engine}", other)
        for engine in ENGINE
        for other in graph[f"langchain_jev.{engine}"]
        if any(other == f"langchain_jev.{s}" or other.startswith(f"langchain_jev.{s}.") for s in SPOKES)
    }
    assert found == set()


def test_the_circle_finder_sees_imports_inside_functions(tmp_path: Path) -> None:
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from langchain_jev._judge import JevJudge\n"
        "class Holder:\n"
        "    async def method(self) -> None:\n"
        "        with open('x'):\n"
        "            try:\n"
        "                from langchain_jev.cli import _app\n"
        "            except ImportError:\n"
        "                import langchain_jev.ray\n",
        encoding="utf-8",
    )
    assert _imports(source) == set()
    assert _imports(source, in_functions=True) == {"langchain_jev.cli._app", "langchain_jev.ray"}
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    ring = {"a": {"b": 3, "d": 1}, "b": {"c": 5}, "c": {"a": 7}, "d": {}}
    assert _circle_path(ring, ["a", "b", "c"]) == "a:3 -> b:5 -> c:7 -> a"


def test_the_circle_finder_sees_through_faces_and_the_packages_an_import_runs() -> None:
    # a name taken from a lazy face is an import of the module the face loads it from
    assert _home("langchain_jev", "JevJudge") == "langchain_jev._judge"
    assert _home("langchain_jev.models", "CachedDecisionModel").startswith("langchain_jev.models._cache")
    assert _home("langchain_jev", "_feedback") == "langchain_jev._feedback"  # a submodule is itself
    assert _home("langchain_jev", "__version__") == "langchain_jev"  # defined in the face: the face
    graph = _graph(in_functions=True)
    # importing a module of another package runs that package's face first
    assert "langchain_jev.models" in graph["langchain_jev._judge"]
    # the face's function-body wiring of the old spoke methods is seen, and closes no circle
    assert {"langchain_jev.langsmith", "langchain_jev.pairwise._build"} <= graph["langchain_jev"]


MAX_LINES = 600
"""The most lines a module of the package holds, unless the first paragraph of its docstring says why."""

KNOWN_LONG_MODULES: set[str] = set()
"""Modules over `MAX_LINES` with no reason at their top, still to be split or given one: the set only shrinks."""


def _gives_a_reason(source: str) -> bool:
    """Whether the first paragraph of a module's docstring says why it is over `MAX_LINES` lines."""
    docstring = ast.get_docstring(ast.parse(source)) or ""
    first = " ".join(docstring.split("\n\n", 1)[0].split())
    return f"over {MAX_LINES} lines" in first.lower()


def _long_modules_without_a_reason(folder: Path) -> set[str]:
    found: set[str] = set()
    for path in folder.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        if len(source.splitlines()) > MAX_LINES and not _gives_a_reason(source):
            found.add(_module_name(path))
    return found


def test_no_module_is_over_600_lines_unless_its_docstring_says_why() -> None:
    found = _long_modules_without_a_reason(PACKAGE)
    assert sorted(found - KNOWN_LONG_MODULES) == [], (
        f"split the module into parts of one job each, or open its docstring with why it is over {MAX_LINES} lines"
    )
    # a module split (or given its reason) leaves the set, so the set stays true
    assert sorted(KNOWN_LONG_MODULES - found) == []


def test_the_size_rule_counts_lines_and_reads_the_first_paragraph_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "langchain_jev"
    package.mkdir()
    body = "x = 1\n" * MAX_LINES
    (package / "short.py").write_text('"""Short."""\n' + "x = 1\n" * (MAX_LINES - 1), encoding="utf-8")
    (package / "long.py").write_text('"""Long."""\n' + body, encoding="utf-8")
    (package / "late.py").write_text(
        '"""Long.\n\nOver 600 lines: said too late."""\n' + body, encoding="utf-8"
    )
    (package / "said.py").write_text(
        '"""One table of the hazards, kept whole:\nover 600 lines because it is data."""\n' + body,
        encoding="utf-8",
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)  # module names under the probe package
    assert _long_modules_without_a_reason(package) == {"langchain_jev.long", "langchain_jev.late"}


ENTRY_POINTS = {"langchain_jev.cli", "langchain_jev.cli.__main__"}
"""The modules that may import the dispatcher: the command's face (``langchain-jev``) and ``python -m``."""


def test_nothing_imports_the_dispatcher_but_the_entry_points() -> None:
    importers = {
        _module_name(path)
        for path in PACKAGE.rglob("*.py")
        if "langchain_jev.cli._app" in _imports(path, in_functions=True)
    }
    importers |= {  # a lazy face loads what its stub names on first use
        _module_name(stub.with_suffix(".py"))
        for stub in PACKAGE.rglob("__init__.pyi")
        if "langchain_jev.cli._app" in stub_exports("langchain_jev", str(stub)).values()
    }
    assert importers == ENTRY_POINTS


@pytest.mark.parametrize(
    ("folder", "forbidden"),
    [
        (
            "langchain_jev.ray",
            ("langchain_jev.cli",),
        ),  # the Ray engine stands on datasets/, not on the command
        (
            "langchain_jev.datasets",
            ("langchain_jev.cli", "langchain_jev.ray"),
        ),  # the floor under both engines
        # the readers of results files read them through the results file's own modules (datasets/)
        ("langchain_jev.compare", ("langchain_jev.cli", "langchain_jev.report", "langchain_jev.calibration")),
        ("langchain_jev.calibration", ("langchain_jev.cli", "langchain_jev.report", "langchain_jev.compare")),
        # the monitor is a spoke on the engine and the LangSmith mapping: commands stand on it, not it on them
        ("langchain_jev.monitor", ("langchain_jev.cli", "langchain_jev.datasets", "langchain_jev.ray")),
    ],
)
def test_an_engine_and_its_floor_import_nothing_from_above(folder: str, forbidden: tuple[str, ...]) -> None:
    graph = _graph(in_functions=True)
    assert any(name.startswith(folder + ".") for name in graph), folder
    found = {
        (name, other)
        for name, imports in graph.items()
        if name == folder or name.startswith(folder + ".")
        for other in imports
        if any(other == top or other.startswith(top + ".") for top in forbidden)
    }
    assert found == set()


ENGINE_LIBRARIES = ("ray", "pyarrow", "multiprocessing", "concurrent", "threading", "sqlite3")
"""What an engine runs on (actors, columns, processes, threads, a cache): a command hands its rows to one."""


def _libraries(path: Path) -> set[str]:
    """The top-level modules a module imports anywhere in it, a ``TYPE_CHECKING`` block aside."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            return
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def test_the_command_line_holds_commands_and_argument_parsing_only() -> None:
    for path in sorted((PACKAGE / "cli").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        classes = [node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
        assert classes == [], f"{path.name}: state of a run belongs to its engine (datasets/ or ray/)"
        assert sorted(_libraries(path) & set(ENGINE_LIBRARIES)) == [], path.name
    graph = _graph(in_functions=True)
    into_engines = {
        other
        for name, imports in graph.items()
        if name.startswith("langchain_jev.cli.")
        for other in imports
        if other.startswith(("langchain_jev.ray.", "langchain_jev.datasets._local."))
    }
    # a command reaches an engine by its entry: the Ray run, the local run and its pool (and one predicate)
    assert into_engines == {
        "langchain_jev.ray._run",
        "langchain_jev.datasets._local.run",
        "langchain_jev.datasets._local.pool",
        "langchain_jev.datasets._local.session",  # compare's connect_failure
    }


def test_the_ray_engine_parses_no_arguments_and_decides_no_exit_code() -> None:
    graph = _graph(in_functions=True)
    for path in sorted((PACKAGE / "ray").rglob("*.py")):
        name = _module_name(path)
        assert "argparse" not in _libraries(path), name
        tree = ast.parse(path.read_text(encoding="utf-8"))
        argv = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "argv"]
        assert argv == [], f"{name} reads the command line"
        assert "langchain_jev.datasets._exit_codes" not in graph[name], (
            f"{name}: exit codes are the command's"
        )
        assert not any(other.startswith("langchain_jev.report") for other in graph[name]), name


def _climbs(*args: str) -> dict[str, dict[str, int]]:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "climbs.py"), "--json", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    figures: dict[str, dict[str, int]] = json.loads(result.stdout)
    return figures


MAX_CLIMBS = 10
"""The most climbs back up the layers of a run that ``judge`` and ``calibrate`` may each cross."""


def test_judge_and_calibrate_each_cross_at_most_ten_climbs() -> None:
    figures = _climbs()
    assert set(figures) == {"judge", "calibrate"}
    for command, figure in figures.items():
        assert figure["run_files"] > 20, (command, figure)  # the walk reached the engine and the results file
        assert figure["climbs"] <= MAX_CLIMBS, f"{command}: {figure} (python scripts/climbs.py --list)"


def _probe(root: Path, files: Mapping[str, str]) -> None:
    for name, source in files.items():
        path = root / "langchain_jev" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")


def test_the_climb_counter_follows_function_bodies_and_faces_and_counts_what_goes_back_up(
    tmp_path: Path,
) -> None:
    _probe(
        tmp_path,
        {
            "__init__.py": "",
            "errors.py": "from langchain_jev.datasets.reading import read\n",  # the floor reaching up
            "cli/__init__.py": "",
            "cli/_judge.py": "from langchain_jev.datasets import run\n"
            "def judge():\n    from langchain_jev.report import draw\n",  # through a lazy face
            "cli/_calibrate.py": "from langchain_jev.errors import JevError\n",
            "datasets/__init__.py": "",
            "datasets/reading.py": "",
            "datasets/run.py": "from langchain_jev.errors import JevError\n"
            "from langchain_jev.report.page import draw\n",  # up
            "report/__init__.py": "",
            "report/__init__.pyi": "from langchain_jev.report.page import draw as draw\n",
            "report/page.py": "from typing import TYPE_CHECKING\n"
            "from langchain_jev.calibration.figures import figures\n"  # down
            "if TYPE_CHECKING:\n    from langchain_jev.cli._judge import judge\n",  # never runs
            "calibration/__init__.py": "",
            "calibration/figures.py": "def figures():\n    from langchain_jev.compare.stats import stats\n",
            "compare/__init__.py": "",
            "compare/stats.py": "",
        },
    )
    assert _climbs("--root", str(tmp_path)) == {
        "judge": {"files": 7, "run_files": 6, "climbs": 3},
        "calibrate": {"files": 3, "run_files": 2, "climbs": 1},
    }


@pytest.mark.slow
def test_type_checkers_see_the_lazy_names_as_their_real_types(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from langchain_jev import GuardrailUndecidedError, JevJudge\n"
        "from langchain_jev.graph import create_guardrail_node\n"
        "from langchain_jev.guardrails import HazardBattery\n"
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
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--no-incremental",
            str(probe),
        ],
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


def test_every_public_error_is_a_jev_error_or_a_guardrail_stop() -> None:
    from langchain_jev import _errors as errors

    for name in errors.__all__:
        error = getattr(errors, name)
        assert issubclass(error, (errors.JevError, errors.GuardrailStop)), name
    stops = [name for name in errors.__all__ if issubclass(getattr(errors, name), errors.GuardrailStop)]
    assert stops == [
        "GuardrailCheckError",
        "GuardrailRefusedError",
        "GuardrailStop",
        "GuardrailUndecidedError",
    ]
    assert not issubclass(errors.GuardrailStop, Exception)  # no generic fallback or retry catches one
    assert issubclass(errors.JevConfigurationError, ValueError)
    assert issubclass(errors.JevInputError, TypeError)
    assert issubclass(errors.ChatModelOutputError, ValueError)
    for name in errors.__all__:
        assert name in (errors.__doc__ or ""), f"{name} is not drawn in the error map"


TESTS_ONLY = {
    "support": "the fakes, servers and rigs tests share",
    "docs": "the docs pages, their code blocks run",
}
"""Test folders that mirror no part of the package, each with its reason."""


def test_tests_mirror_the_package() -> None:
    """Each test folder is named after what it tests: a subpackage, or a root module with many tests.

    Tests of a root module (``judge.py``, ``criteria.py``, ...) sit at the top of ``tests/`` as
    ``test_<module>*.py``; a fault matrix lives beside the part it breaks, not in a cut of its own.
    """
    subpackages = {p.name.lstrip("_") for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    modules = {p.stem.lstrip("_") for p in PACKAGE.glob("*.py") if not p.stem.startswith("__")}
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert sorted(folders - subpackages - modules - TESTS_ONLY.keys()) == []
    assert sorted(subpackages - folders) == []
    roots = [p.stem for p in (ROOT / "tests").glob("test_*.py")]
    layout_only = {"test_layout", "test_moved", "test_public_api", "test_quality"}
    strays = [name for name in roots if name not in layout_only and name[5:].split("_")[0] not in modules]
    assert strays == []
