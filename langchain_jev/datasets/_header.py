"""The header line of a results file: made (`header_record`), told from a record (`is_header`), checked.

Pure. The first line of a results file (not of results sent to stdout) is its
header, a JSON object that is not a row record::

    {"langchain_jev": "results", "format": 1, "fingerprint": "sha256:...",
     "judge": {"model": "jev-latest", "options": {...}, "criteria": [...]},
     "run": {"dataset": "rows.jsonl", "dataset_path": "/data/rows.jsonl", ...}}

``judge`` describes what decides the verdicts (`langchain_jev.datasets._fingerprint`),
``fingerprint`` is its hash and ``run`` what the run knew of itself
(`langchain_jev.report._provenance.run_description`). A header is read back as
data a user may have edited, so `header_problem` checks every field the package
reads before anything uses it: each has its type (``format`` is 1; ``judge`` is
null or an object whose ``options`` and ``criteria`` make a judge description the
judge file's own schema accepts; ``run``'s fields are text, a list of text, a
column map or a fraction), and the first field that does not is named with what
it holds. Fields the package does not know are left alone (a newer version may
add some). `judge_spec_data` is the judge file a valid header's ``judge`` describes.

A file of head-to-head comparisons (``compare --judge --out``) starts with a header
of another kind (`HEAD_TO_HEAD`); `KINDS` says what each kind of file holds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "FORMAT",
    "HEADER_KEY",
    "HEAD_TO_HEAD",
    "KINDS",
    "RESULTS",
    "header_problem",
    "header_record",
    "is_header",
    "judge_spec_data",
]

HEADER_KEY = "langchain_jev"
"""The key that marks a header line (its value says the kind of file: `RESULTS` or `HEAD_TO_HEAD`)."""
RESULTS = "results"
"""The kind of a results file of a judge run."""
HEAD_TO_HEAD = "pairwise"
"""The kind of a file of head-to-head comparisons (``compare --judge --out``)."""
KINDS: dict[str, str] = {
    RESULTS: "the results of a judge run",
    HEAD_TO_HEAD: "head-to-head comparisons (of compare --judge --out)",
}
"""What a file of each kind holds, as a message says it."""
FORMAT = 1
"""The version of the results file format."""


def header_record(judge: Mapping[str, Any] | None, run: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The header line of a results file written by ``judge`` (a `judge_description`, or None).

    ``run`` is what the run knew of itself when it started (its dataset, judge file,
    server host, version, date and redacted command: `langchain_jev.report._provenance.run_description`),
    kept under ``run`` for the report; it is not part of the fingerprint, and a file
    without it reads as before.

    Example:
        >>> header = header_record({"model": "jev-latest", "options": {}, "criteria": []})
        >>> header["langchain_jev"], header["format"], header["fingerprint"].startswith("sha256:")
        ('results', 1, True)
        >>> is_header(header), is_header({"row": 1, "key": "abc"})
        (True, False)

    """
    from langchain_jev.datasets._fingerprint import fingerprint

    header = {
        HEADER_KEY: RESULTS,
        "format": FORMAT,
        "fingerprint": fingerprint(judge) if judge is not None else None,
        "judge": dict(judge) if judge is not None else None,
    }
    if run is not None:
        header["run"] = dict(run)
    return header


def is_header(record: Any) -> bool:
    """True when ``record`` (a parsed line) is a results file's header, not a row's record."""
    return isinstance(record, dict) and record.get(HEADER_KEY) == RESULTS and "row" not in record


_STRICT = ConfigDict(strict=True, extra="allow")
Text = Annotated[str, Field(max_length=1 << 20)]
Fraction = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


class _Columns(BaseModel):
    model_config = _STRICT
    names: dict[str, list[Text]]
    id_field: Text | None = None
    ignored: list[Text] = Field(default_factory=list)


class _Run(BaseModel):
    model_config = _STRICT
    dataset: Text | None = None
    dataset_path: Text | None = None
    format: Annotated[str, Field(pattern=r"^(jsonl|json|csv|parquet)$")] | None = None
    fields: _Columns | None = None
    judge_file: Text | None = None
    base_url: Text | None = None
    version: Text | None = None
    started: Text | None = None
    command: list[Text] | None = None
    fail_under: Fraction | None = None
    bad_rows: Annotated[int, Field(ge=0)] | None = None


class _Judge(BaseModel):
    model_config = _STRICT
    model: Text | None = None
    options: dict[str, Any]
    criteria: list[dict[str, Any]]


class _Header(BaseModel):
    model_config = _STRICT
    format: Annotated[int, Field(ge=FORMAT, le=FORMAT)]
    fingerprint: Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{1,64}$")] | None = None
    judge: _Judge | None = None
    run: _Run | None = None


def header_problem(header: Mapping[str, Any]) -> str | None:
    """The first field of a results file's header that is not what it must be, and what it holds; or None.

    Example:
        >>> good = header_record({"model": "m", "options": {}, "criteria": [
        ...     {"kind": "noul", "name": "polite", "instructions": "Polite?", "minimum": 0.7}]})
        >>> header_problem(good) is None
        True
        >>> header_problem({**good, "judge": 5})
        'judge is 5, not an object with model, options and criteria'
        >>> header_problem({**good, "judge": {**good["judge"], "options": [1]}})
        'judge.options is [1], not an object'
        >>> header_problem({**good, "run": {"fail_under": "80%"}})
        'run.fail_under is "80%", not a number'

    """
    try:
        _Header.model_validate(dict(header))
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        return _said(first["loc"], first["input"], first["type"], first["msg"])
    judge = header.get("judge")
    if judge is None:
        return None
    from langchain_jev._errors import JudgeSpecError
    from langchain_jev.spec import load_spec

    try:
        load_spec(judge_spec_data(judge))
    except JudgeSpecError as error:
        where, what = error.problems[0]
        place = where if where.startswith("criteria") else f"options.{where}" if where else ""
        return f"judge{'.' + place if place else ''}: {what}"
    return None


def judge_spec_data(judge: Mapping[str, Any]) -> dict[str, Any]:
    """The judge file (as data) a header's ``judge`` describes: its options and criteria, unset fields out.

    A description spells out every field, unset ones as null; the judge file's schema
    reads a null as "given", so they are left out (they are the defaults).

    Example:
        >>> judge_spec_data({"model": "m", "options": {"min_confidence": 0.6, "model": None},
        ...     "criteria": [{"kind": "noul", "name": "ok", "when_true": None}]})
        {'min_confidence': 0.6, 'criteria': [{'kind': 'noul', 'name': 'ok'}]}

    """
    options = judge.get("options")
    data = dict(options) if isinstance(options, Mapping) else {}
    data["criteria"] = judge.get("criteria")
    return _without_nulls(data)


def _without_nulls(value: dict[str, Any]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:  # no recursion: a header nests as deep as its judge file did
        source, copy = stack.pop()
        items = source.items() if isinstance(source, Mapping) else enumerate(source)
        for key, item in items:
            if item is None and isinstance(source, Mapping):
                continue
            if isinstance(item, (Mapping, list)):
                child: Any = {} if isinstance(item, Mapping) else []
                stack.append((item, child))
                item = child
            if isinstance(copy, dict):
                copy[key] = item
            else:
                copy.append(item)
    return root


_KIND_WORDS = {
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "list_type": "a list",
    "string_type": "text",
    "int_type": "a whole number",
    "float_type": "a number",
    "finite_number": "a finite number",
    "missing": "",
}


def _said(loc: tuple[int | str, ...], value: Any, kind: str, message: str) -> str:
    place = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")
    if kind == "missing":
        return f"{place} is missing"
    if place == "judge" and kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"judge is {_shown(value)}, not an object with model, options and criteria"
    if place in ("run", "run.fields") and kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"{place} is {_shown(value)}, not an object"
    words = _KIND_WORDS.get(kind)
    if words:
        return f"{place} is {_shown(value)}, not {words}"
    return f"{place} is {_shown(value)}: {message[:1].lower()}{message[1:]}"


def _shown(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."
