"""How far a command zigzags through the package: the files it reaches and the climbs it crosses.

Start at the module of a command (``langchain-jev judge``: `langchain_jev.cli._judge`,
``langchain-jev calibrate``: `langchain_jev.cli._calibrate`) and follow the package's own
imports, read with `ast`: at module level and inside function and class bodies alike
(an ``if TYPE_CHECKING:`` block is left out, it never runs). ``from P import N`` goes to
the module ``P.N`` when there is one, else to the module a lazy face ``P`` names for ``N``
in its stub (``P/__init__.pyi``), else to ``P`` itself. Every module reached is a file visited.

The rooms of a dataset run stand in layers, as the design draws them (``DESIGN.md``)::

    4  cli/                           commands and argument parsing
    3  report/                        the pages of a run, a calibration, a comparison
    2  ray/  calibration/  compare/   the Ray engine; readers of results files
    1  datasets/                      the one home of a dataset run (rows, engine, results file)
    0  the floor: every other module  the engine (``judge.py``, ``errors.py``, ``outcomes.py``
                                      ...), ``spec/``, ``models/``, ``judges/`` ...

A module's room is its first part under ``langchain_jev`` (`langchain_jev.datasets._local.run`
is in ``datasets/``; a module of the root is a room of its own). An import edge from module
A to module B (each edge counted once) is a **climb** when it leaves A's room and does not
go down the layers, i.e. it goes back up the tree a run should only descend:

- A is in a room of the run (layer 1 to 4), B is in another room, and B's layer is not under
  A's: up (``datasets/`` -> ``report/``, ``ray/`` -> ``report/``, ``compare/`` -> ``report/``)
  or sideways (``calibration/`` -> ``compare/``, ``ray/`` -> ``calibration/``);
- or A is on the floor and B is in a room of the run (the engine reaching up into a run).

Imports inside one room (``datasets/local/run.py`` -> ``datasets/results.py``), down the
layers (``cli/`` -> ``datasets/``, ``report/`` -> ``calibration/``, anything -> the
floor's leaves such as ``errors.py`` and ``outcomes.py``), and from the floor to the floor
are not climbs: the floor's own layout is not what this measures. A package's face is
visited when an import names it, not for every module beneath it; imports by name at run
time (``importlib.import_module``) are not followed.

Usage::

    python scripts/climbs.py                 # this checkout: judge and calibrate
    python scripts/climbs.py --root DIR      # another checkout (DIR holds langchain_jev/)
    python scripts/climbs.py --list          # each climb, importer -> imported
    python scripts/climbs.py --json          # {"judge": {"files": .., "run_files": .., "climbs": ..}, ...}
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = "langchain_jev"

COMMANDS: dict[str, str] = {
    "judge": "langchain_jev.cli._judge",
    "calibrate": "langchain_jev.cli._calibrate",
}
"""Each command -> the module that holds it (where the walk starts)."""

LAYERS: dict[str, int] = {
    "cli": 4,
    "report": 3,
    "ray": 2,
    "calibration": 2,
    "compare": 2,
    "datasets": 1,
}
"""The rooms of a dataset run and their layer; every other module is on the floor (layer 0)."""


@dataclass
class Walk:
    """What following one command found: the modules reached and the climbs among their imports."""

    modules: set[str] = field(default_factory=set)
    climbs: list[tuple[str, str]] = field(default_factory=list)

    @property
    def run_files(self) -> int:
        """The files visited in the rooms of a run (``cli/``, ``datasets/``, ``ray/`` ...)."""
        return sum(1 for module in self.modules if layer(module) > 0)


def room(module: str) -> str:
    """The room of a module: its first part under the package (the package face: '')."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer(module: str) -> int:
    """The layer of a module's room (0: the floor)."""
    return LAYERS.get(room(module), 0)


def is_climb(importer: str, imported: str) -> bool:
    """Whether the import edge ``importer -> imported`` climbs (see the module docstring)."""
    if room(importer) == room(imported):
        return False
    if layer(importer) == 0:
        return layer(imported) > 0
    return layer(imported) >= layer(importer)


class Package:
    """The package's modules as files under ``root``, read once each."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._trees: dict[str, ast.Module] = {}

    def path(self, module: str) -> Path | None:
        """The file of a module (a package's ``__init__.py``), None when there is none."""
        base = self.root.joinpath(*module.split("."))
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None

    def tree(self, module: str) -> ast.Module:
        """The parsed source of a module."""
        if module not in self._trees:
            path = self.path(module)
            assert path is not None, module
            self._trees[module] = ast.parse(path.read_text(encoding="utf-8"), str(path))
        return self._trees[module]

    def lazy_exports(self, module: str) -> dict[str, str]:
        """A lazy face's names (name -> the module defining it), from its stub; empty when it has none.

        The stub is the ``__init__.pyi`` beside the face's ``__init__.py``, one
        ``from M import N as N`` a line (`langchain_jev._lazy`).
        """
        path = self.path(module)
        stub = path.with_suffix(".pyi") if path is not None and path.name == "__init__.py" else None
        if stub is None or not stub.is_file():
            return {}
        body = ast.parse(stub.read_text(encoding="utf-8"), str(stub)).body
        return {a.name: n.module for n in body if isinstance(n, ast.ImportFrom) and n.module for a in n.names}

    def imports(self, module: str) -> set[str]:
        """The package's modules that ``module`` imports anywhere (a ``TYPE_CHECKING`` block aside)."""
        found: set[str] = set()
        is_package = self.path(module) == self.root.joinpath(*module.split("."), "__init__.py")
        for node in _statements(self.tree(module).body):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.split(".")[0] == PACKAGE)
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(module, node, is_package)
                if base is None or base.split(".")[0] != PACKAGE or self.path(base) is None:
                    continue
                exports = self.lazy_exports(base)
                for alias in node.names:
                    child = f"{base}.{alias.name}"
                    if self.path(child) is not None:
                        found.add(child)
                    else:
                        found.add(exports.get(alias.name, base))
        found.discard(module)
        return {name for name in found if self.path(name) is not None}


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str | None:
    """The absolute module a ``from ... import`` names (relative imports resolved)."""
    if not node.level:
        return node.module
    parts = module.split(".")
    keep = len(parts) - node.level + (1 if is_package else 0)
    if keep <= 0:
        return None
    return ".".join([*parts[:keep], *([node.module] if node.module else [])])


def _is_type_checking(node: ast.stmt) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """Every statement under ``body``, function and class bodies included, ``TYPE_CHECKING`` left out."""
    out: list[ast.stmt] = []
    pending = list(body)
    while pending:
        node = pending.pop()
        if _is_type_checking(node):
            pending.extend(node.orelse if isinstance(node, ast.If) else [])
            continue
        out.append(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                pending.append(child)
            elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
                pending.extend(child.body)
    return out


def walk(package: Package, start: str) -> Walk:
    """Follow the imports from ``start``: every module reached, and every climb on the way."""
    found = Walk(modules={start})
    queue = deque([start])
    while queue:
        module = queue.popleft()
        for imported in sorted(package.imports(module)):
            if is_climb(module, imported):
                found.climbs.append((module, imported))
            if imported not in found.modules:
                found.modules.add(imported)
                queue.append(imported)
    return found


def measure(root: Path) -> dict[str, Walk]:
    """Each command's walk in the checkout at ``root``."""
    package = Package(root)
    return {command: walk(package, module) for command, module in COMMANDS.items()}


def main(argv: list[str] | None = None) -> int:
    """Print, per command, the files visited and the climbs crossed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--list", action="store_true", help="name each climb")
    parser.add_argument("--json", action="store_true", help="the figures as one JSON object")
    args = parser.parse_args(argv)
    walks = measure(args.root)
    if args.json:
        figures = {
            command: {"files": len(w.modules), "run_files": w.run_files, "climbs": len(w.climbs)}
            for command, w in walks.items()
        }
        print(json.dumps(figures, sort_keys=True))
        return 0
    for command, found in walks.items():
        print(
            f"{command}: {len(found.modules)} files visited ({found.run_files} in the rooms of a run), "
            f"{len(found.climbs)} climbs"
        )
        if args.list:
            for importer, imported in found.climbs:
                print(f"  {importer} -> {imported}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
