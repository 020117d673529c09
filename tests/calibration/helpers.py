"""Shared pieces of the calibration tests: the weather judge, its rows, and scripted answers."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from langchain_jev import JevJudge
from langchain_jev.datasets._rows import FieldMap, map_row, row_key
from langchain_jev.datasets.results import verdict_record
from langchain_jev.spec import load_spec
from langchain_jev.testing import ScriptedDecisionModel
from tests.cli.helpers import WEATHER_JUDGE, weather_answers, weather_rows
from tests.support.jev_server import wire_answer

WEATHER_SPEC: dict[str, Any] = yaml.safe_load(WEATHER_JUDGE.read_text(encoding="utf-8"))


def spec_with(**changes: Any) -> dict[str, Any]:
    """The weather judge file as data, with top-level options and criteria fields changed.

    ``criteria={"helpfulness": {"minimum": 1}}`` changes fields of the named criteria.
    """
    spec = copy.deepcopy(WEATHER_SPEC)
    for name, fields in changes.pop("criteria", {}).items():
        for criterion in spec["criteria"]:
            if criterion["name"] == name:
                criterion.update(fields)
    spec.update(changes)
    return spec


def scripted(answers: Callable[[Mapping[str, Any], Mapping[str, Any]], Mapping[str, Any]] = weather_answers) -> ScriptedDecisionModel:
    """A scripted model answering the weather questions as the loopback server would (full distributions)."""

    def entry(name: str) -> Callable[[Any, Any], Any]:
        return lambda state, question: wire_answer(question.model_dump(), answers(state, {})[name])

    names = [c["name"] for c in WEATHER_SPEC["criteria"] if c["kind"] != "check"]
    return ScriptedDecisionModel({name: entry(name) for name in names})


def build(spec: Mapping[str, Any], model: Any) -> JevJudge:
    return load_spec(spec).build(model)


def inputs(rows: Sequence[Mapping[str, Any]] | None = None, spec: Mapping[str, Any] = WEATHER_SPEC) -> list[Any]:
    required = load_spec(spec).required_fields()
    return [map_row(row, FieldMap(), required).input for row in (rows if rows is not None else weather_rows())]


def records_of(judge: JevJudge, rows: Sequence[Mapping[str, Any]] | None = None) -> list[dict[str, Any]]:
    """What `langchain-jev judge` writes for the rows, judged in this process."""
    items = list(rows if rows is not None else weather_rows())
    result = []
    for number, (row, data) in enumerate(zip(items, inputs(items), strict=True), 1):
        result.append(verdict_record(number, number, row_key(row), row.get("id"), judge.invoke(data)))
    return result


def example_path() -> Path:
    return WEATHER_JUDGE
