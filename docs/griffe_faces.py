"""A griffe extension for the API reference: a lazy face documents the names its stub exports.

A face's names stand once, in its ``__init__.pyi`` (``from M import N as N``, one a
line, `langchain_jev._lazy`); its ``__init__.py`` builds ``__all__`` from that stub when
it runs, which griffe cannot see in the source. Griffe merges the stub, so each name is
there as an alias of its real object, but an imported name counts as private unless the
module's ``__all__`` lists it. So each face whose stub exists exports, here as at run
time, the stub's names: read by the package's own reader, the table is read one way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import griffe

from langchain_jev._lazy import stub_exports


class LazyFaces(griffe.Extension):
    """Set a lazy face's ``__all__`` to the names of its stub."""

    def on_module(self, *, mod: griffe.Module, **kwargs: Any) -> None:
        """Once a module is loaded (its stub merged), give a face with a stub its stub's names."""
        path = mod.filepath
        if not isinstance(path, Path) or path.name != "__init__.py" or not path.with_suffix(".pyi").is_file():
            return
        mod.exports = sorted(stub_exports(mod.path, str(path.with_suffix(".pyi"))))
