"""The one function that turns a raw row of any reader into the judge's input (`judge_row`)."""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Mapping
from typing import Any

import pytest

from langchain_jev.datasets._rows import FieldMap, judge_row, plain_row, source_key


def test_one_function_makes_every_readers_row_the_same_input() -> None:
    """Arrow, pandas and NumPy spellings of one row give one state and one key."""
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    plain = {"id": 1, "answer": "A.", "score": 2, "meta": {"lang": "fr"}, "tags": ["x", None]}
    spellings: list[Mapping[str, Any]] = [
        plain,
        {**plain, "context": None, "meta": {"lang": "fr", "tone": None}},  # Arrow's unified nulls
        {**plain, "context": float("nan"), "question": pd.NA},  # pandas' missing values
        {**plain, "id": np.int64(1), "score": np.int64(2), "tags": np.array(["x", None], dtype=object)},
    ]
    mapped = [judge_row(row, FieldMap()) for row in spellings]
    assert {m.key for m in mapped} == {mapped[0].key}
    assert all(m.input is not None and m.input.to_state() == mapped[0].input.to_state() for m in mapped)


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ({"answer": "A.", "cost": float("inf")}, "holds a number that is not finite at cost"),
        ({"answer": "A.", "m": {"n": [1, float("-inf")]}}, "holds a number that is not finite at m.n[1]"),
        (
            {"answer": "A.", "price": decimal.Decimal("Infinity")},
            "holds a number that is not finite at price",
        ),
        ({"answer": "A.", "blob": b"\xff\xfe"}, "holds bytes that are not UTF-8 text at blob"),
        ({"answer": "A.", "m": {1: "x"}}, "has a key that is not text (int) at m"),
        ({"answer": "A.", "s": {1, 2}}, "holds a set, which has no JSON form, at s"),
    ],
)
def test_a_value_no_judge_can_read_is_the_rows_problem_named_by_its_place(
    row: dict[str, Any], problem: str
) -> None:
    mapped = judge_row(row, FieldMap())
    assert (mapped.input, mapped.problem) == (None, problem)


def test_absent_values_are_absent_at_every_depth_and_null_in_arrays() -> None:
    nan = float("nan")
    plain, problem = plain_row({"a": None, "b": nan, "c": {"d": None, "e": [None, nan, 1]}, "f": ""})
    assert problem is None
    assert plain == {"c": {"e": [None, None, 1]}, "f": ""}  # an empty string is data outside CSV
    assert plain_row({"f": "", "g": "x"}, from_csv=True)[0] == {"g": "x"}


def test_arrow_and_pandas_values_become_their_json_values() -> None:
    plain, _ = plain_row(
        {
            "at": datetime.datetime(2026, 1, 2, 3, 4, 5),
            "on": datetime.date(2026, 1, 2),
            "took": datetime.timedelta(seconds=90),
            "price": decimal.Decimal("2.50"),
            "count": decimal.Decimal("3"),
            "text": b"caf\xc3\xa9",
        }
    )
    assert plain == {
        "at": "2026-01-02T03:04:05",
        "on": "2026-01-02",
        "took": 90.0,
        "price": 2.5,
        "count": 3,
        "text": "café",
    }


@pytest.mark.parametrize(
    ("cells", "problem"),
    [
        ({"answer": "A.", "cost": "1e999"}, "a cell holds a number that is not finite at cost"),
        ({"answer": "A.", "m": '{"x": [1, -1e999]}'}, "a cell holds a number that is not finite at m.x[1]"),
    ],
)
def test_a_csv_cell_of_a_number_that_is_not_finite_is_refused_with_its_place(
    cells: dict[str, str], problem: str
) -> None:
    """``1e999`` read as JSON is an infinity, which no JSON holds: the row says where it is."""
    assert judge_row(cells, FieldMap(), from_csv=True).problem == problem


def test_a_csv_cell_of_json_null_is_absent() -> None:
    mapped = judge_row(
        {"answer": "A.", "notes": "null", "meta": '{"a": null, "b": 1}'}, FieldMap(), from_csv=True
    )
    assert mapped.input is not None
    assert mapped.input.to_state() == {"assistant_answer": "A.", "meta": {"b": 1}}


def test_the_key_of_a_raw_row_is_the_key_judge_row_gives() -> None:
    row = {"id": 1, "answer": "A.", "context": None}
    assert source_key(row) == judge_row(row, FieldMap()).key == source_key({"id": 1, "answer": "A."})
