"""A lazy face's names stand once, in its stub: read exactly, anything else refused, each loaded on use."""

from __future__ import annotations

import importlib
import tempfile
import warnings
from keyword import iskeyword
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import langchain_jev
from langchain_jev import _lazy
from langchain_jev._lazy import lazy_exports_from_stub, stub_exports, stub_of

read = stub_exports.__wrapped__  # the reader itself, past the cache (each generated stub is new)

_names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,12}", fullmatch=True).filter(lambda name: not iskeyword(name))
_parts = st.from_regex(r"_?[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(lambda part: not iskeyword(part))
_modules = st.lists(_parts, min_size=1, max_size=3).map(lambda parts: "langchain_jev." + ".".join(parts))
_tables = st.dictionaries(_names, _modules, min_size=1, max_size=12)


def _write(text: str) -> str:
    folder = tempfile.mkdtemp()
    path = Path(folder, "__init__.pyi")
    path.write_text(text, encoding="utf-8")
    return str(path)


def _stub(table: dict[str, str], *, grouped: bool, docstring: bool, version: bool) -> str:
    lines = ['"""A face\'s names."""', ""] if docstring else []
    if grouped:  # as ruff formats a long line: one statement a module, in parentheses
        by_module: dict[str, list[str]] = {}
        for name, module in table.items():
            by_module.setdefault(module, []).append(name)
        for module, names in by_module.items():
            lines += [f"from {module} import (", *(f"    {name} as {name}," for name in names), ")"]
    else:
        lines += [f"from {module} import {name} as {name}" for name, module in table.items()]
    return "\n".join([*lines, *(["", "__version__: str"] if version else [])]) + "\n"


@settings(max_examples=60, deadline=None)
@given(table=_tables, grouped=st.booleans(), docstring=st.booleans(), version=st.booleans())
def test_a_stub_reads_as_exactly_its_re_exports(
    table: dict[str, str], grouped: bool, docstring: bool, version: bool
) -> None:
    exports = read(
        "langchain_jev.face", _write(_stub(table, grouped=grouped, docstring=docstring, version=version))
    )
    assert exports == table
    if not grouped:
        assert list(exports) == list(table)  # in the stub's order


_REFUSED = [
    "import langchain_jev._judge\n",  # a plain import names no face name
    "from langchain_jev._judge import JevJudge\n",  # no `as`: type checkers do not re-export it
    "from langchain_jev._judge import JevJudge as Judge\n",  # another name than the object's
    "from langchain_jev._judge import *\n",
    "from ._judge import JevJudge as JevJudge\n",  # relative: the package's own paths are absolute
    "from typing import Any as Any\n",  # outside the package
    "from langchain_jevx.a import A as A\n",  # a package that only begins alike
    "from langchain_jev._a import A as A\nfrom langchain_jev._b import A as A\n",  # one name, twice
    "X = 1\n",  # a value: the stub holds no code
    "X: int\n",  # a public name the face would not export
    "__version__: str = '1'\n",
    "def f() -> None: ...\n",
    "class C: ...\n",
    "if True:\n    from langchain_jev._a import A as A\n",
    '"""doc"""\n"""a second string"""\n',
]


@pytest.mark.parametrize("text", _REFUSED)
def test_anything_else_in_a_stub_is_refused_when_the_face_loads(text: str) -> None:
    with pytest.raises(ImportError, match=r"__init__\.pyi"):
        read("langchain_jev.face", _write(text))


@settings(max_examples=40, deadline=None)
@given(table=_tables, extra=st.sampled_from(_REFUSED), at=st.integers(min_value=0, max_value=12))
def test_one_line_out_of_place_refuses_the_whole_stub(table: dict[str, str], extra: str, at: int) -> None:
    lines = _stub(table, grouped=False, docstring=False, version=False).splitlines(keepends=True)
    lines.insert(min(at, len(lines)), extra)
    with pytest.raises(ImportError):
        read("langchain_jev.face", _write("".join(lines)))


def test_a_stub_larger_than_a_list_of_names_is_refused_unread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_lazy, "_MAX_STUB_BYTES", 64)
    with pytest.raises(ImportError, match="over 64 bytes"):
        read("langchain_jev.face", _write("from langchain_jev._a import A as A\n" * 3))


def test_a_face_loads_each_name_on_first_use_and_keeps_it() -> None:
    face = importlib.import_module("langchain_jev.guardrails")
    exports = stub_exports(face.__name__, stub_of(face.__file__ or ""))
    assert face.__all__ == dir(face) == sorted(exports)
    value = face.HazardBattery
    assert value is importlib.import_module(exports["HazardBattery"]).HazardBattery
    assert vars(face)["HazardBattery"] is value  # the next use does not come back to __getattr__


def test_a_name_that_left_the_face_still_loads_with_a_warning_and_an_unknown_one_is_refused() -> None:
    with pytest.warns(DeprecationWarning, match=r"langchain_jev.HazardBattery moved: import it from"):
        moved = langchain_jev.HazardBattery  # type: ignore[attr-defined]
    assert moved is importlib.import_module("langchain_jev.guardrails").HazardBattery
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an unknown name is refused, not warned about
        with pytest.raises(AttributeError, match="NoSuchName"):
            langchain_jev.NoSuchName  # type: ignore[attr-defined]  # noqa: B018


def test_the_face_machinery_takes_the_package_and_its_file() -> None:
    getattr_, dir_, names = lazy_exports_from_stub(
        "langchain_jev.report", importlib.import_module("langchain_jev.report").__file__ or ""
    )
    assert names == dir_() == ["render_report", "write_report"]
    assert getattr_("render_report").__name__ == "render_report"
