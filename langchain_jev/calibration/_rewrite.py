"""Writing new thresholds into a judge file, changing nothing else.

The file's text is edited in place: PyYAML's composer gives the exact span of
each threshold's value (a criterion's ``minimum``, the judge's
``min_confidence``), and only those characters are replaced, so comments,
order, quoting and layout stay as they were (a JSON judge file too: JSON is
YAML). A ``min_confidence`` the file does not set is added as a line above
``criteria``. The judge file is read by the one bounded reader and written by the
one atomic writer (`langchain_jev.datasets._writing`): a full disk leaves the
previous file (or none), never a judge cut at a line, which could load as a smaller judge.
"""

from __future__ import annotations

import contextlib
import difflib
import os
from collections.abc import Mapping
from pathlib import Path

import yaml

from langchain_jev._errors import CalibrationError
from langchain_jev.datasets._reading import read_bounded
from langchain_jev.datasets._writing import write_atomic
from langchain_jev.spec._reading import MAX_FILE_BYTES, BoundedLoader

__all__ = ["format_threshold", "replace_thresholds", "write_thresholds"]


def format_threshold(value: float) -> str:
    """A threshold as written in a judge file: a whole level as an integer, else at most 4 decimals.

    Example:
        >>> format_threshold(2.0), format_threshold(0.62), format_threshold(0.1 + 0.2)
        ('2', '0.62', '0.3')

    """
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.4f}".rstrip("0").rstrip(".")


def replace_thresholds(
    text: str, minimums: Mapping[str, float], min_confidence: float | None = None, *, json_style: bool = False
) -> str:
    r"""The judge file ``text`` with the given minimums (by criterion name) and ``min_confidence``.

    Raises:
        CalibrationError: the text is not a judge file, or names no such criterion.

    Example:
        >>> text = "criteria:\n  - name: polite  # tone\n    kind: noul\n    minimum: 0.7  # strict\n"
        >>> print(replace_thresholds(text, {"polite": 0.55}, 0.65), end="")
        min_confidence: 0.65
        criteria:
          - name: polite  # tone
            kind: noul
            minimum: 0.55  # strict

    """
    try:
        root = yaml.compose(
            text, Loader=BoundedLoader
        )  # the limits of judge files: no alias, no key said twice
    except yaml.YAMLError as error:
        raise CalibrationError(f"the judge file cannot be read: {error}") from None
    if not isinstance(root, yaml.MappingNode):
        raise CalibrationError("the judge file is not a mapping with criteria")
    edits: list[tuple[int, int, str]] = []
    top = {key.value: (key, value) for key, value in root.value if isinstance(key, yaml.ScalarNode)}
    criteria_entry = top.get("criteria")
    if criteria_entry is None or not isinstance(criteria_entry[1], yaml.SequenceNode):
        raise CalibrationError("the judge file has no list of criteria")
    found: set[str] = set()
    for item in criteria_entry[1].value:
        if not isinstance(item, yaml.MappingNode):
            continue
        fields = {k.value: v for k, v in item.value if isinstance(k, yaml.ScalarNode)}
        name_node = fields.get("name")
        name = str(name_node.value) if isinstance(name_node, yaml.ScalarNode) else None
        if name is None or name not in minimums:
            continue
        node = fields.get("minimum")
        if not isinstance(node, yaml.ScalarNode):
            raise CalibrationError(f"criterion {name!r} has no minimum to change in the judge file")
        edits.append((node.start_mark.index, node.end_mark.index, format_threshold(minimums[name])))
        found.add(name)
    missing = sorted(set(minimums) - found)
    if missing:
        raise CalibrationError(f"the judge file has no criterion named {', '.join(map(repr, missing))}")
    if min_confidence is not None:
        entry = top.get("min_confidence")
        if entry is not None:
            node = entry[1]
            edits.append((node.start_mark.index, node.end_mark.index, format_threshold(min_confidence)))
        else:
            key = criteria_entry[0]
            if json_style or root.flow_style:
                at = key.start_mark.index
                edits.append((at, at, f'"min_confidence": {format_threshold(min_confidence)}, '))
            else:
                at = key.start_mark.index - key.start_mark.column
                indent = " " * key.start_mark.column
                newline = "\r\n" if "\r\n" in text else "\n"
                edits.append((at, at, f"{indent}min_confidence: {format_threshold(min_confidence)}{newline}"))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def write_thresholds(
    source: str | os.PathLike[str],
    destination: str | os.PathLike[str],
    minimums: Mapping[str, float],
    min_confidence: float | None = None,
) -> str:
    r"""Write ``source`` to ``destination`` with new thresholds; return the unified diff between them.

    ``source`` is a judge file, or the name of a prebuilt judge (its shipped file is copied).

    Raises:
        CalibrationError: the source cannot be read or does not name those criteria.
        OSError: the destination cannot be written.

    Example:
        >>> import tempfile, pathlib
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (folder / "judge.yaml").write_text(
        ...     "criteria:\n  - {name: polite, kind: noul, instructions: Polite, minimum: 0.7}\n")
        >>> diff = write_thresholds(folder / "judge.yaml", folder / "new.yaml", {"polite": 0.5})
        >>> print(diff.splitlines()[-1])
        +  - {name: polite, kind: noul, instructions: Polite, minimum: 0.5}

    """
    path = Path(source)
    if not path.exists():  # a prebuilt judge's name: its shipped file is the source
        from langchain_jev._errors import JudgeSpecError
        from langchain_jev.spec._model import _prebuilt

        with contextlib.suppress(JudgeSpecError):  # not a prebuilt name either: reading says so
            path = _prebuilt(str(source)) or path
    try:
        text = read_bounded(path, MAX_FILE_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CalibrationError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from None
    changed = replace_thresholds(text, minimums, min_confidence, json_style=path.suffix.lower() == ".json")
    target = Path(destination)
    write_atomic(target, changed.encode("utf-8"))  # the judge file whole, or the previous one (or none)
    return "".join(
        difflib.unified_diff(
            text.splitlines(keepends=True), changed.splitlines(keepends=True), str(path), str(target)
        )
    )
