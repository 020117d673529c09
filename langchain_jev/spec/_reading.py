"""Reading judge files as bounded data: size, nesting and YAML aliases are limited.

A judge file is configuration that gets shared, so it is read as hostile text:
a regular file only, by the package's one bounded reader
(`langchain_jev.datasets._reading`: a FIFO or a device is refused at once), at
most `MAX_FILE_BYTES`, nested at most `MAX_DEPTH` levels, without YAML aliases
(an alias bomb of a few hundred bytes expands to gigabytes), and with each key
said once in each mapping: YAML and JSON keep the last of two equal keys without
a word (``minimum:`` twice, ``criteria:`` twice), so a judge file that says a key
twice is refused with the key and both lines. Each limit is a `JudgeSpecError`
naming its place, never a ``MemoryError`` or a ``RecursionError``. YAML tags other
than the plain data types are refused by the safe loader as before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from langchain_jev._errors import JudgeSpecError
from langchain_jev.datasets._reading import TooLargeError, read_bounded
from langchain_jev.spec._errors import format_location

__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "check_depth", "compose", "parse_text", "read_file"]

MAX_FILE_BYTES = 1 << 20
"""The largest judge file read (1 MiB): far above any real judge."""

MAX_DEPTH = 64
"""The deepest nesting of mappings and lists a judge file may have."""

_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},:]', re.DOTALL)
"""A JSON string (the loop unrolled: no memory per character of a long one), a bracket, a comma or a colon."""


def read_file(path: Path, label: str) -> str:
    """The text of a judge file, refusing one larger than `MAX_FILE_BYTES` before reading it all.

    Raises:
        JudgeSpecError: the file cannot be read, is too large or is not UTF-8.

    """
    try:
        data = read_bounded(path, MAX_FILE_BYTES)
    except TooLargeError:
        raise JudgeSpecError(
            [("", f"the judge file is larger than {MAX_FILE_BYTES // 1024} KiB; a judge file is that small")],
            label,
        ) from None
    except OSError as error:
        raise JudgeSpecError(
            [("", f"cannot read the judge file: {error.strerror or error}")], label
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise JudgeSpecError([("", f"cannot read the judge file: {error}")], label) from None


def parse_text(text: str, path: Path, label: str) -> Any:
    r"""Parse a judge file's text: JSON for ``.json``, else YAML, within the limits.

    Raises:
        JudgeSpecError: the text does not parse, nests too deeply or uses a YAML alias;
            the message gives the line and column.

    Example:
        >>> parse_text("a: &x [1]\nb: *x\n", Path("judge.yaml"), "judge.yaml")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JudgeSpecError: judge.yaml: line 2, column 4: judge files take no YAML...

    """
    if path.suffix.lower() == ".json":
        return _parse_json(text, label)
    try:
        return yaml.load(text, Loader=BoundedLoader)
    except _Refused as error:
        raise JudgeSpecError([("", f"{_where(error.problem_mark)}{error.problem}")], label) from None
    except yaml.MarkedYAMLError as error:
        where = _where(error.problem_mark)
        raise JudgeSpecError([("", f"{where}not valid YAML: {error.problem}")], label) from None
    except yaml.YAMLError as error:
        raise JudgeSpecError([("", f"not valid YAML: {error}")], label) from None


def compose(text: str) -> yaml.Node | None:
    """The YAML node tree of a text within the same limits (None if it cannot be composed)."""
    try:
        node: yaml.Node | None = yaml.compose(text, Loader=BoundedLoader)
    except (yaml.YAMLError, RecursionError):
        return None
    return node


def check_depth(data: Any, label: str | None = None) -> None:
    """Refuse data nested deeper than `MAX_DEPTH`, naming where (without recursion).

    Raises:
        JudgeSpecError: the data nests too deeply.

    Example:
        >>> deep: dict = {}
        >>> inner = deep
        >>> for _ in range(100):
        ...     inner["not"] = {}
        ...     inner = inner["not"]
        >>> check_depth({"criteria": [{"check": deep}]})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JudgeSpecError: criteria[0].check.not.not...: nests deeper than 64 levels

    """
    stack: list[tuple[Any, int, tuple[str | int, ...]]] = [(data, 1, ())]
    while stack:
        value, depth, path = stack.pop()
        if isinstance(value, Mapping):
            items: Any = value.items()
        elif isinstance(value, (list, tuple)):
            items = enumerate(value)
        else:
            continue
        if depth > MAX_DEPTH:
            shown = format_location(path[:6]) + ("..." if len(path) > 6 else "")
            raise JudgeSpecError([(shown, f"nests deeper than {MAX_DEPTH} levels")], label)
        for key, item in items:
            if isinstance(item, (Mapping, list, tuple)):
                stack.append((item, depth + 1, (*path, key if isinstance(key, int) else str(key))))


class _Refused(yaml.MarkedYAMLError):
    """A YAML document outside the limits of judge files."""


class BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses aliases and nesting deeper than `MAX_DEPTH`."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        """Compose one node, refusing an alias or one level too many."""
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise _Refused(
                None,
                None,
                f"judge files take no YAML aliases (*{event.anchor}); write the value out in full",
                event.start_mark,
            )
        nested = self.check_event(yaml.SequenceStartEvent, yaml.MappingStartEvent)
        if nested and self._depth >= MAX_DEPTH:
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise _Refused(None, None, f"nests deeper than {MAX_DEPTH} levels", mark)
        self._depth += nested
        try:
            node: yaml.Node = super().compose_node(parent, index)  # type: ignore[assignment]
        finally:
            self._depth -= nested
        if isinstance(node, yaml.MappingNode):
            _refuse_repeated_keys(node)
        return node


def _refuse_repeated_keys(node: yaml.MappingNode) -> None:
    """Refuse a mapping that says a key twice (YAML would keep the last without a word)."""
    seen: dict[tuple[str, str], int] = {}
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
            continue
        name = (key.tag, key.value)
        if name in seen:
            raise _Refused(None, None, _repeated(key.value, seen[name]), key.start_mark)
        seen[name] = key.start_mark.line + 1 if key.start_mark is not None else 0


def _repeated(key: str, first_line: int) -> str:
    shown = key if len(key) <= 60 else key[:57] + "..."
    return (
        f"the key {shown!r} is given twice in one mapping (first on line {first_line}); a judge file says "
        "each key once (YAML and JSON would keep the last one without a word)"
    )


def _parse_json(text: str, label: str) -> Any:
    _check_json(text, label)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise JudgeSpecError(
            [("", f"line {error.lineno}, column {error.colno}: not valid JSON: {error.msg}")], label
        ) from None
    except RecursionError:  # not reached within MAX_DEPTH; kept so no input escapes as one
        raise JudgeSpecError([("", f"nests deeper than {MAX_DEPTH} levels")], label) from None


def _check_json(text: str, label: str) -> None:
    """Refuse JSON nested deeper than `MAX_DEPTH`, or an object that says a key twice, by line and column.

    One pass over the strings and the structure: a string just after ``{`` or ``,`` in an object is a key.
    """
    objects: list[dict[str, int] | None] = []  # per open bracket: an object's keys so far, None for a list
    expect_key = False

    def refuse(offset: int, problem: str) -> JudgeSpecError:
        line, column = _line_column(text, offset)
        return JudgeSpecError([("", f"line {line}, column {column}: {problem}")], label)

    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            if len(objects) >= MAX_DEPTH:
                raise refuse(match.start(), f"nests deeper than {MAX_DEPTH} levels")
            objects.append({} if token == "{" else None)
            expect_key = token == "{"
        elif token in ("]", "}"):
            if objects:
                objects.pop()
            expect_key = False
        elif token == ",":
            expect_key = bool(objects) and objects[-1] is not None
        elif token == ":":
            expect_key = False
        elif expect_key and objects and objects[-1] is not None:
            expect_key = False
            try:
                key = json.loads(token)
            except ValueError:
                continue  # said by the parser, with its place
            keys = objects[-1]
            if key in keys:
                raise refuse(match.start(), _repeated(key, _line_column(text, keys[key])[0]))
            keys[key] = match.start()


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _where(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
