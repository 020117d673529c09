"""Draw the private line around the public API: faces stay, every inner module gets a leading ``_``.

Re-runnable and idempotent (a second run on its own result changes nothing). In order:

1. decide: a module is a **face** when it is in `FACES` (the reviewed allow-list below); every
   other module whose path has no private (``_``) part is **inner**. The topmost inner part of
   a path is renamed: ``guardrails/policy.py`` -> ``guardrails/_policy.py``, a package that is
   inner whole -> ``_pkg/`` (its modules are then private beneath it, and keep their names);
2. ``git mv`` each inner module or package;
3. rewrite every dotted path ``langchain_jev.a.b`` and file path ``langchain_jev/a/b.py`` in the
   package, tests, docs, benchmarks, examples, notebooks, scripts, ``mkdocs.yml`` and
   ``pyproject.toml`` (its entry points) to the new path. Where a user reads it (docs,
   docstrings and their examples, an import in a test), a name a face exports is written
   from the face: ``langchain_jev.guardrails.policy.GuardrailReport`` ->
   ``langchain_jev.guardrails.GuardrailReport``. Code inside the package imports the private
   path (a face is what users import; the package does not climb through its own faces).
   The old paths in `langchain_jev._moved.MOVED` are left as they are: they are old on purpose;
4. write one MOVED row per renamed module (``langchain_jev._moved``, between the markers), so
   the old path imports for one release with a `DeprecationWarning`.

It prints each thing it did and exits 1 on what it cannot rewrite (a path that reaches a
renamed module but names nothing in it, or a rename onto a path that exists).

Usage::

    python scripts/private_line.py            # do it, print what was done
    python scripts/private_line.py --dry-run  # print only
    python scripts/private_line.py --count    # the number of public names, nothing changed
    python scripts/private_line.py --pin      # also write tests/public_api.json (a decision)
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "langchain_jev"

# The documented faces: what a user imports. Reviewed by hand; a new face is a decision.
FACES: tuple[str, ...] = (
    "langchain_jev",  # the engine, its verdicts, its errors, the decision models, the spokes
    "langchain_jev.calibration",
    "langchain_jev.cli",  # `langchain-jev` ([project.scripts] langchain_jev.cli:main)
    "langchain_jev.compare",
    "langchain_jev.datasets",
    "langchain_jev.datasets.results",  # the results file's format (docs/reference/datasets.md)
    "langchain_jev.evaluation",  # JevStringEvaluator (extra classic)
    "langchain_jev.graph",
    "langchain_jev.guardrails",
    "langchain_jev.guardrails.quality",  # guardrail-eval: measure a battery (docs/guardrails-rollout.md)
    "langchain_jev.judges",
    "langchain_jev.langsmith",
    "langchain_jev.middleware",
    "langchain_jev.models",
    "langchain_jev.monitor",
    "langchain_jev.online",
    "langchain_jev.pairwise",
    "langchain_jev.ray",
    "langchain_jev.report",
    "langchain_jev.simulation",
    "langchain_jev.spec",
    "langchain_jev.testing",
    "langchain_jev.testing.plugin",  # the pytest plugin ([project.entry-points.pytest11])
    "langchain_jev.testing.server",  # `python -m langchain_jev.testing.server`
)

REWRITTEN = ("langchain_jev", "tests", "docs", "benchmarks", "examples", "notebooks", "scripts")
REWRITTEN_FILES = ("mkdocs.yml", "pyproject.toml", "README.md")
SUFFIXES = {".py", ".md", ".ipynb", ".yml", ".yaml", ".toml", ".json", ".jsonl", ".txt", ".cfg"}
SELF = Path(__file__).resolve()
MOVED_FILE = ROOT / PACKAGE / "_moved.py"
PIN_FILE = ROOT / "tests" / "public_api.json"
BEGIN = "    # BEGIN private line: written by scripts/private_line.py, one row per renamed module\n"
END = "    # END private line\n"

DOTTED = re.compile(r"(?<![\w.])langchain_jev(?:\.[A-Za-z_]\w*)+")
SLASHED = re.compile(r"(?<![\w/])langchain_jev(?:/[A-Za-z_]\w*)+(?:\.py)?")
FROM_IMPORT = re.compile(
    r"(?P<head>\bfrom\s+)(?P<module>langchain_jev(?:\.\w+)*)(?P<mid>\s+import\s+)"
    r"(?P<names>\([^)]*\)|[^\n#]*)"
)
DOCTEST = re.compile(r"^\s*(>>>|\.\.\.)\s")
RAISED = re.compile(r"^(?P<indent>[ \t]*)(?P<token>langchain_jev(?:\.\w+)+)(?=:)", re.MULTILINE)
"""An exception line of a doctest's expected output: Python prints the class's own module there."""


def _dunder(part: str) -> bool:
    return part.startswith("__") and part.endswith("__")


def _private(part: str) -> bool:
    return part.startswith("_") and not _dunder(part)


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__.py``)."""
    found: dict[str, Path] = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def is_public(name: str) -> bool:
    """A module path with no private part (dunder parts such as ``__main__`` are not private)."""
    return not any(_private(part) for part in name.split("."))


def top_renames(found: dict[str, Path]) -> dict[str, str]:
    """Old -> new for each topmost inner module or package (the ones `git mv` moves)."""
    moved: dict[str, str] = {}
    for name in found:
        if not is_public(name) or name in FACES or _dunder(name.rsplit(".", 1)[-1]):
            continue
        parts = name.split(".")
        for index in range(1, len(parts)):
            if ".".join(parts[: index + 1]) not in FACES:
                if index == len(parts) - 1:  # the topmost inner part is the module itself
                    moved[name] = ".".join([*parts[:index], "_" + parts[index]])
                break
    return moved


def renames(found: dict[str, Path]) -> dict[str, str]:
    """Old dotted name -> new, for every module beneath or at a renamed module or package."""
    top = top_renames(found)
    moved: dict[str, str] = {}
    for name in found:
        parts = name.split(".")
        for end in range(len(parts), 0, -1):
            prefix = ".".join(parts[:end])
            if prefix in top:
                moved[name] = ".".join([top[prefix], *parts[end:]])
                break
    return moved


def _literal_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            value = getattr(node, "value", None)
            if isinstance(value, (ast.List, ast.Tuple)):
                return [str(e.value) for e in value.elts if isinstance(e, ast.Constant)]
    return None


def declared_names(path: Path) -> list[str] | None:
    """A module's ``__all__`` as written: a literal, or the names of a lazy face's stub (``__init__.pyi``)."""
    declared = _literal_all(ast.parse(path.read_text(encoding="utf-8")))
    stub = path.with_suffix(".pyi")
    if declared is None and path.name == "__init__.py" and stub.is_file():
        body = ast.parse(stub.read_text(encoding="utf-8")).body
        declared = [a.name for node in body if isinstance(node, ast.ImportFrom) for a in node.names]
    return declared


def top_level_names(tree: ast.Module) -> set[str]:
    """Every name a module may bind (defs, classes, assignments, imports), over-inclusive."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def public_names(path: Path) -> list[str]:
    """The names a module makes public: its ``__all__``, else its public top-level defs."""
    declared = declared_names(path)
    if declared is not None:
        return declared
    names: list[str] = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [name for name in names if not name.startswith("_")]


def count_public(found: dict[str, Path]) -> tuple[int, int]:
    """(public modules, public names): names reachable with no ``_`` in their path."""
    public = {name: path for name, path in found.items() if is_public(name)}
    return len(public), sum(len(public_names(path)) for path in public.values())


def face_exports(found: dict[str, Path]) -> dict[str, list[str]]:
    """Each face's exported names (its ``__all__``, or its stub's names)."""
    return {face: declared_names(found[face]) or [] for face in FACES if face in found}


@dataclass
class Rewriter:
    """Rewrite dotted and file paths of renamed modules; collect what it cannot rewrite."""

    found: dict[str, Path]
    moved: dict[str, str]
    old_paths: set[str]
    exports: dict[str, list[str]]
    names: dict[str, set[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    where: str = ""

    def _names_of(self, module: str) -> set[str]:
        if module not in self.names:
            path = self.found[module]
            tree = ast.parse(path.read_text(encoding="utf-8"))
            self.names[module] = top_level_names(tree) | set(declared_names(path) or [])
        return self.names[module]

    def _is_old(self, token: str) -> bool:
        return any(token == old or token.startswith(old + ".") for old in self.old_paths)

    def _split(self, token: str) -> tuple[str, list[str]] | None:
        """The longest module prefix of ``token`` and the rest, or None when none is renamed."""
        parts = token.split(".")
        for end in range(len(parts), 0, -1):
            prefix = ".".join(parts[:end])
            if prefix in self.found:
                return prefix, parts[end:]
        return None

    def face_for(self, new_module: str, name: str) -> str | None:
        """The face exporting ``name`` nearest to ``new_module``: its own face, then up."""
        parts = new_module.split(".")
        for end in range(len(parts), 0, -1):
            face = ".".join(parts[:end])
            if face in self.exports and name in self.exports[face]:
                return face
        return None

    def dotted(self, token: str, *, to_face: bool) -> str:
        """A dotted path rewritten: to the face exporting its name when ``to_face``."""
        if self._is_old(token):
            return token
        split = self._split(token)
        if split is None:
            return token
        module, rest = split
        new = self.moved.get(module)
        if new is None:
            return token
        if rest and rest[0] not in self._names_of(module):
            self.problems.append(f"{self.where}: {token}: {rest[0]!r} is not a name of {module}")
            return token
        if rest and to_face:
            face = self.face_for(new, rest[0])
            if face is not None:
                return ".".join([face, *rest])
        return ".".join([new, *rest])

    def slashed(self, token: str) -> str:
        """A file path (``langchain_jev/a/b.py``) rewritten to the module's new file."""
        suffix = ".py" if token.endswith(".py") else ""
        parts = token[: len(token) - len(suffix)].split("/")
        for end in range(len(parts), 0, -1):
            prefix = ".".join(parts[:end])
            if prefix in self.moved:
                rest = parts[end:]
                return "/".join([*self.moved[prefix].split("."), *rest]) + suffix
            if prefix in self.found:
                return token
        return token

    def import_names(self, module: str, names: str, *, to_face: bool) -> tuple[str, str]:
        """``from module import names`` rewritten: (module, names)."""
        if self._is_old(module):
            return module, names
        inner = names.strip()
        wrapped = inner.startswith("(")
        body = inner[1:-1] if wrapped else inner
        items = [item.strip() for item in re.split(r",", body) if item.strip()]
        parsed = []
        for item in items:
            words = item.split()
            parsed.append((words[0], words[2] if len(words) == 3 and words[1] == "as" else None))
        if any(not re.fullmatch(r"\w+", name) for name, _ in parsed):
            return self.dotted(module, to_face=False), names
        # a submodule imported by name from its package: `from pkg import mod` -> `_mod as mod`
        submodules = {name for name, _ in parsed if f"{module}.{name}" in self.moved}
        if submodules:
            rewritten = names
            for name in submodules:
                new_name = self.moved[f"{module}.{name}"].rsplit(".", 1)[1]
                if new_name.rsplit(".", 1)[-1] == name:
                    continue
                pattern = re.compile(rf"(?<![\w.]){name}(?!\w)(\s+as\s+\w+)?")
                alias = f" as {name}"

                def renamed(match: re.Match[str], new: str = new_name, alias: str = alias) -> str:
                    return new + (match.group(1) or alias)

                rewritten = pattern.sub(renamed, rewritten, count=1)
            target = self.moved.get(module, module)
            return target, rewritten
        new = self.moved.get(module)
        if new is None:
            return module, names
        for name, _ in parsed:
            if name not in self._names_of(module):
                self.problems.append(f"{self.where}: from {module} import {name}: not defined there")
        if to_face:
            faces = {self.face_for(new, name) for name, _ in parsed}
            if len(faces) == 1 and None not in faces:
                return faces.pop() or new, names
        return new, names

    def text(self, text: str, *, code_faces: bool, prose_faces: bool) -> str:
        """Rewrite one file's text; imports in code go to faces only when ``code_faces``."""
        out: list[str] = []
        for line in text.splitlines(keepends=True):
            out.append(line)
        joined = "".join(out)

        def fix_import(match: re.Match[str]) -> str:
            line_start = joined.rfind("\n", 0, match.start()) + 1
            is_doctest = bool(DOCTEST.match(joined[line_start : match.start() + 1]))
            to_face = prose_faces if is_doctest else code_faces
            module, names = self.import_names(match.group("module"), match.group("names"), to_face=to_face)
            return f"{match.group('head')}{module}{match.group('mid')}{names}"

        joined = FROM_IMPORT.sub(fix_import, joined)
        joined = RAISED.sub(
            lambda m: m.group("indent") + self.dotted(m.group("token"), to_face=False), joined
        )
        joined = DOTTED.sub(lambda m: self.dotted(m.group(0), to_face=prose_faces), joined)
        return SLASHED.sub(lambda m: self.slashed(m.group(0)), joined)


def _files() -> Iterable[Path]:
    for top in REWRITTEN:
        base = ROOT / top
        if base.is_dir():
            for path in sorted(base.rglob("*")):
                wanted = path.is_file() and path.suffix in SUFFIXES and path.resolve() != SELF
                if wanted and "__pycache__" not in path.parts:
                    yield path
    for name in REWRITTEN_FILES:
        if (ROOT / name).is_file():
            yield ROOT / name


def _old_paths() -> set[str]:
    sys.path.insert(0, str(ROOT))
    from langchain_jev._moved import MOVED

    return set(MOVED)


def _git_mv(old: Path, new: Path, *, dry_run: bool) -> None:
    print(f"git mv {old.relative_to(ROOT)} {new.relative_to(ROOT)}")
    if not dry_run:
        subprocess.run(["git", "mv", str(old), str(new)], cwd=ROOT, check=True)


def _moves(found: dict[str, Path], top: dict[str, str]) -> list[tuple[Path, Path]]:
    """The file-system moves: each topmost renamed module or package, once."""
    moves: list[tuple[Path, Path]] = []
    for old, new in sorted(top.items()):
        path = found[old]
        source = path.parent if path.name == "__init__.py" else path
        target = source.with_name(new.split(".")[-1] + ("" if path.name == "__init__.py" else ".py"))
        moves.append((source, target))
    return moves


def _sort_imports(paths: list[Path], moves: list[tuple[Path, Path]]) -> None:
    """Sort the rewritten imports again (``ruff check --select I --fix``): a face sorts elsewhere."""
    renamed = dict(moves)
    targets: list[str] = []
    for path in paths:
        for source, target in renamed.items():
            if path == source or source in path.parents:
                path = target / path.relative_to(source) if source in path.parents else target
        targets.append(str(path))
    if targets:
        print(f"ruff check --select I --fix ({len(targets)} files)")
        subprocess.run(["ruff", "check", "--quiet", "--select", "I", "--fix", *targets], cwd=ROOT)


def write_moved_rows(moved: dict[str, str], *, dry_run: bool) -> None:
    """Put one MOVED row per renamed module between the markers in `langchain_jev._moved`."""
    text = MOVED_FILE.read_text(encoding="utf-8")
    rows: dict[str, str] = {}
    if BEGIN in text:
        head, rest = text.split(BEGIN, 1)
        block, tail = rest.split(END, 1)
        rows.update(re.findall(r'"([\w.]+)": "([\w.]+)",', block))
    else:
        anchor = "MOVED: dict[str, str | tuple[str, ...]] = {\n"
        if anchor not in text:
            raise SystemExit(f"cannot find the MOVED dict in {MOVED_FILE}")
        head, tail = text.split(anchor, 1)
        head += anchor
    new_rows = {old: new for old, new in moved.items() if old not in rows}
    rows.update(new_rows)
    block = "".join(f'    "{old}": "{new}",\n' for old, new in sorted(rows.items()))
    for old, new in sorted(new_rows.items()):
        print(f"MOVED {old} -> {new}")
    if not dry_run:
        MOVED_FILE.write_text(head + BEGIN + block + END + tail, encoding="utf-8")


def pin(found: dict[str, Path]) -> None:
    """Write each face's exported names to `PIN_FILE`, the list the public-API test holds."""
    exports = face_exports(found)
    PIN_FILE.write_text(json.dumps(exports, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"pinned {sum(map(len, exports.values()))} names on {len(exports)} faces in {PIN_FILE}")


def main(argv: list[str] | None = None) -> int:
    """Draw the line (or only count, or only print); 1 on anything it cannot rewrite."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--count", action="store_true")
    parser.add_argument("--pin", action="store_true")
    args = parser.parse_args(argv)
    found = modules()
    count = count_public(found)
    print(f"public: {count[0]} modules, {count[1]} names")
    if args.count:
        return 0
    missing = [face for face in FACES if face not in found]
    if missing:
        print(f"error: faces not found: {missing}", file=sys.stderr)
        return 1
    moved = renames(found)
    moves = _moves(found, top_renames(found))
    clashes = [str(new) for _, new in moves if new.exists()]
    if clashes:
        print(f"error: the renames would overwrite: {clashes}", file=sys.stderr)
        return 1
    rewriter = Rewriter(found, moved, _old_paths(), face_exports(found))
    edits: dict[Path, str] = {}
    for path in _files():
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT)
        rewriter.where = str(rel)
        in_package = rel.parts[0] == PACKAGE
        new_text = rewriter.text(
            text,
            code_faces=not in_package and rel.suffix in {".py", ".md", ".ipynb"},
            prose_faces=rel.suffix in {".md", ".ipynb"} or in_package,
        )
        if new_text != text:
            edits[path] = new_text
    if rewriter.problems:
        print("error: cannot rewrite:", *rewriter.problems, sep="\n  ", file=sys.stderr)
        return 1
    for path, new_text in edits.items():
        print(f"rewrote {path.relative_to(ROOT)}")
        if not args.dry_run:
            path.write_text(new_text, encoding="utf-8")
    for source, target in moves:
        _git_mv(source, target, dry_run=args.dry_run)
    if not args.dry_run:
        _sort_imports([path for path in edits if path.suffix == ".py"], moves)
    if moved:
        write_moved_rows(moved, dry_run=args.dry_run)
    if not args.dry_run:
        found = modules()
        after = count_public(found)
        print(f"public after: {after[0]} modules, {after[1]} names")
        if args.pin:
            pin(found)
    print(f"done: {len(moves)} renamed, {len(edits)} files rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
