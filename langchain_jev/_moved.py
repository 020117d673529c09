"""Old import paths that moved behind the private line, kept importable for one release (removed in 0.2).

- `MOVED`: old module path -> the module (or, for a module split in parts, the modules) now holding
  its names. A finder installed when ``langchain_jev`` is imported builds the old module on first
  import: its names are the new modules' own objects, and importing it warns with a
  `DeprecationWarning` naming the face to import from.
- `MOVED_NAMES`: old face -> {name: the face exporting it now}, for a name that left a face that
  stays; the face's lazy ``__getattr__`` (`langchain_jev._lazy`) asks `moved_name`, which warns alike.
- `MOVED_METHODS`: old method -> (the call to make now, the callable making it), for a method whose
  work moved to a spoke (``JevJudge.as_evaluator`` -> ``JevRunEvaluator(judge)``). The package face
  fills it (`move_method`) when it loads, so the engine calls `moved_method` and imports no spoke.

The face of a new module is its path up to its first private part
(``langchain_jev.datasets._results.writer`` -> ``langchain_jev.datasets``). No stub files: a move
is one row here. The rows go when 0.2 removes the old paths.

Example:
    >>> from langchain_jev._moved import face_of
    >>> face_of("langchain_jev.datasets._results.writer")
    'langchain_jev.datasets'

"""

from __future__ import annotations

import importlib
import importlib.abc
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import FrameType, ModuleType
from typing import Any

__all__ = [
    "MOVED",
    "MOVED_METHODS",
    "MOVED_NAMES",
    "face_of",
    "install",
    "move_method",
    "moved_method",
    "moved_name",
]

REMOVED_IN = "0.2"

MOVED: dict[str, str | tuple[str, ...]] = {
    # the local engine left the command line for the home of a dataset run
    **{
        f"langchain_jev.cli.{part}": f"langchain_jev.datasets.local.{part}"
        for part in ("pool", "progress", "run", "session", "worker")
    },
    # a results file read back, re-decided and its rows' states: the results file's own home
    "langchain_jev.calibration.replay": "langchain_jev.datasets.redecide",
    "langchain_jev.report.states": "langchain_jev.datasets.states",
    # the Ray run is the Ray engine's; its command is the judge command's, with the other commands
    "langchain_jev.ray.command": ("langchain_jev.ray.run", "langchain_jev.cli.judge"),
    # a prebuilt judge with no option of its own is made by the one factory over the judge files
    **{
        f"langchain_jev.judges.{name}": "langchain_jev.judges._factories"
        for name in (
            "conversation",
            "conversation_labels",
            "correctness",
            "image",
            "quality",
            "rag",
            "safety",
            "security",
            "summary",
            "voice",
        )
    },
    # the checks' modules are named after what they check, not after the judge they serve
    "langchain_jev.judges.checks.code": "langchain_jev.judges.checks.static_code",
    "langchain_jev.judges.checks.json_match": "langchain_jev.judges.checks.json_keys",
    "langchain_jev.judges.checks.trajectory": "langchain_jev.judges.checks.tool_calls",
}
"""Old module path -> the module, or the modules in order, now holding its names."""

MOVED_NAMES: dict[str, dict[str, str]] = {
    "langchain_jev.models.jev": {"share_cache": "langchain_jev.models.shared_cache"},  # Jev knows no cache
}
"""Old face -> {name that left it: the face exporting it now}."""

MOVED_METHODS: dict[str, tuple[str, Callable[..., Any]]] = {}
"""Old method (``Class.method``) -> (the call to make now, the callable making it); the face fills it."""


def face_of(module: str) -> str:
    """The public face of ``module``: its path up to its first private (``_``) part."""
    parts = module.split(".")
    for index, part in enumerate(parts):
        if part.startswith("_") and index:
            return ".".join(parts[:index])
    return module


def _targets(old: str) -> tuple[str, ...]:
    target = MOVED[old]
    return (target,) if isinstance(target, str) else target


def _faces(targets: Sequence[str]) -> str:
    return " or ".join(dict.fromkeys(face_of(target) for target in targets))


def _stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the code doing the import, past the import machinery.

    Level 1 is `_warn` itself; each frame of this module, of `langchain_jev._lazy` or of
    ``importlib.import_module`` adds one; `warnings` itself steps over ``importlib._bootstrap``.
    """
    here = (__file__, importlib.__file__, os.path.join(os.path.dirname(__file__), "_lazy.py"))
    frame: FrameType | None = sys._getframe(2)  # the caller of `_warn`
    level = 2
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename in here:
            level += 1
        elif not ("importlib" in filename and "_bootstrap" in filename):
            break
        frame = frame.f_back
    return level


def _warn(message: str) -> None:
    warnings.warn(message, DeprecationWarning, stacklevel=_stacklevel())


def moved_name(face: str, name: str) -> Any:
    """The object ``name`` that left ``face``, from the face exporting it now (warns); else AttributeError."""
    new_face = MOVED_NAMES.get(face, {}).get(name)
    if new_face is None:
        raise AttributeError(f"module {face!r} has no attribute {name!r}")
    _warn(f"{face}.{name} moved: import it from {new_face} (the old path is removed in {REMOVED_IN})")
    return getattr(importlib.import_module(new_face), name)


def move_method(old: str, new: str, call: Callable[..., Any]) -> None:
    """Have the old method ``old`` run ``call``, warning to use ``new`` (the face wires a spoke so)."""
    MOVED_METHODS[old] = (new, call)


def moved_method(old: str, *args: Any, **kwargs: Any) -> Any:
    """Run the method ``old`` whose work moved to a spoke, with a `DeprecationWarning` naming the new call.

    The warning points at the caller of the old method. Raises RuntimeError when the
    face did not wire it (the package face always does, as it loads before any module).
    """
    if old not in MOVED_METHODS:
        raise RuntimeError(f"{old}() has no new home wired: import langchain_jev, whose face wires it")
    new, call = MOVED_METHODS[old]
    warnings.warn(
        f"{old}() is deprecated: use {new} (removed in {REMOVED_IN})", DeprecationWarning, stacklevel=3
    )
    return call(*args, **kwargs)


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The meta-path finder and loader of the old module paths in `MOVED`."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in MOVED:
            return None
        # an old package keeps its old children importable beneath it
        is_package = any(old.startswith(fullname + ".") for old in MOVED)
        return ModuleSpec(fullname, self, is_package=is_package)

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # the default module

    def exec_module(self, module: ModuleType) -> None:
        old = module.__name__
        targets = _targets(old)
        _warn(f"{old} moved: import from {_faces(targets)} (the old path is removed in {REMOVED_IN})")
        loaded = [importlib.import_module(target) for target in targets]

        def __getattr__(name: str) -> Any:
            if name == "__all__":
                return sorted({item for new in loaded for item in _public(new)})
            for new in loaded:
                if hasattr(new, name):
                    return getattr(new, name)
            raise AttributeError(f"module {old!r} has no attribute {name!r}")

        def __dir__() -> list[str]:
            return sorted({item for new in loaded for item in dir(new)})

        vars(module).update(
            __getattr__=__getattr__,
            __dir__=__dir__,
            __doc__=f"Moved: import from {_faces(targets)}. This old path is removed in {REMOVED_IN}.",
        )


def _public(module: ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [name for name in vars(module) if not name.startswith("_")]
    return list(names)


def install() -> None:
    """Put the finder of the old module paths on ``sys.meta_path`` (once; after every real finder)."""
    if not any(type(finder).__name__ == _MovedModules.__name__ for finder in sys.meta_path):
        sys.meta_path.append(_MovedModules())
