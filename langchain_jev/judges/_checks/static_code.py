"""Code in an answer checked statically, by code: it parses, and (when installed) it type-checks.

The code is the answer's fenced blocks (```` ```python ```` or untagged, joined)
when it has any, else the whole answer. Nothing is ever run: Python is parsed
with `ast`, JSON with `json`; ``mypy`` or ``pyright`` (installed separately, as
the ``code`` extra) read the code from a file in a fresh folder, under a
deadline, with no configuration of their own picked up from where the judge runs.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Literal, get_args

import regex

from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev._extras import install_hint

__all__ = [
    "LANGUAGES",
    "MAX_CODE",
    "TYPE_CHECKERS",
    "Language",
    "TypeChecker",
    "code_of",
    "parses",
    "require_type_checker",
    "type_checks",
]

Language = Literal["python", "json"]
"""A language whose code can be parsed here."""
LANGUAGES: tuple[str, ...] = get_args(Language)
"""The languages."""
TypeChecker = Literal["mypy", "pyright"]
"""A type checker."""
TYPE_CHECKERS: tuple[str, ...] = get_args(TypeChecker)
"""The type checkers."""
MAX_CODE = 200_000
"""Characters of code checked at most; more is refused, not parsed."""

_FENCE = regex.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)```", regex.DOTALL)
_ALIASES = {"python": {"python", "py", "python3", ""}, "json": {"json", "jsonc", ""}}


def code_of(answer: str, language: Language) -> str:
    r"""The code of an answer: its fenced blocks in ``language`` (or untagged), else all of it.

    Example:
        >>> code_of("Here:\n```python\nx = 1\n```\nDone.", "python")
        'x = 1\n'

    """
    if "```" not in answer:
        return answer
    try:
        blocks = [
            m.group(2)
            for m in _FENCE.finditer(answer, timeout=1.0)
            if m.group(1).lower() in _ALIASES[language]
        ]
    except TimeoutError:
        raise JevInputError("the answer's code blocks took too long to find") from None
    return "\n".join(blocks) if blocks else answer


def parses(answer: str, language: Language = "python") -> bool:
    r"""Whether the answer's code parses in ``language`` (nothing is run).

    Raises:
        JevInputError: the code is longer than `MAX_CODE` characters.

    Example:
        >>> parses("```python\ndef f(x):\n    return x\n```"), parses("def f(x) return x")
        (True, False)
        >>> parses('{"a": [1, 2]}', "json"), parses("{'a': 1}", "json")
        (True, False)

    """
    code = _bounded(code_of(answer, language))
    if language == "json":
        try:
            json.loads(code, parse_constant=_reject)
        except (ValueError, RecursionError):
            return False
        return True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like are warnings only
            ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def require_type_checker(tool: TypeChecker) -> None:
    """Raise `JevConfigurationError` unless ``tool`` is installed."""
    found = importlib.util.find_spec("mypy") is not None if tool == "mypy" else shutil.which("pyright")
    if not found:
        raise JevConfigurationError(
            f"code_type_checks: {tool} is not installed: for mypy, {install_hint('code')}; or install pyright"
        )


def type_checks(answer: str, tool: TypeChecker = "mypy", *, timeout: float = 60.0) -> bool:
    """Whether the answer's Python code passes ``tool`` (mypy or pyright), in a fresh folder.

    Raises:
        JevConfigurationError: the tool is not installed.
        JevInputError: the code is too long, or the tool took longer than ``timeout`` seconds.

    """
    require_type_checker(tool)
    code = _bounded(code_of(answer, "python"))
    with tempfile.TemporaryDirectory(prefix="jev-code-") as folder:
        path = Path(folder) / "answer.py"
        path.write_text(code, encoding="utf-8")
        if tool == "mypy":
            config = Path(folder) / "mypy.ini"
            config.write_text("[mypy]\nignore_missing_imports = True\n", encoding="utf-8")
            command = [
                sys.executable,
                "-m",
                "mypy",
                "--config-file",
                str(config),
                "--no-error-summary",
                "--cache-dir",
                os.devnull,
                str(path),
            ]
        else:
            command = [str(shutil.which("pyright")), str(path)]
        try:
            done = subprocess.run(command, cwd=folder, capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise JevInputError(f"code_type_checks: {tool} took longer than {timeout:g} s") from None
    return done.returncode == 0


def _bounded(code: str) -> str:
    if len(code) > MAX_CODE:
        raise JevInputError(f"the code check: the code has {len(code)} characters, more than {MAX_CODE}")
    return code


def _reject(constant: str) -> object:
    raise ValueError(f"{constant} is not JSON")
