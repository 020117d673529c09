"""Joining two results files row by row: each row of A with the same row of B, or a refusal saying why.

Pure: records in, pairs out. A results record names its row by ``key`` (a hash
of the row's content), ``row`` (its number) and, when the dataset has one,
``id``. `join_rows` pairs them:

- ``on="key"`` (the default): the same row, word for word. Two runs over one
  dataset (another judge, model or threshold) share every key. A key that
  occurs more than once (two identical rows) pairs its occurrences in order.
- ``on="id"``: the same example by its id, whatever its content: two datasets
  whose answers were produced again (a prompt or model change upstream) keep
  their ids. Every record must have an id, and no id may repeat.

The files are of the same dataset when every row of one is a row of the other
(a run stopped early is a part of the full one). When each has rows the other
lacks, or they share none, `join_rows` refuses with the counts and the first
rows that differ, unless ``only_shared`` asks for the rows in common.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_jev._errors import ComparisonError

__all__ = ["Joined", "RowPair", "join_rows", "row_name"]

JoinOn = Literal["key", "id"]


@dataclass(frozen=True)
class RowPair:
    """One row as each run recorded it.

    Example:
        >>> pair = join_rows([{"row": 1, "key": "k"}], [{"row": 1, "key": "k", "passed": True}]).pairs[0]
        >>> pair.join, pair.b["passed"]
        ('k#1', True)

    """

    join: str
    """What joined them: the row's key (with its occurrence) or its id."""
    a: Mapping[str, Any]
    b: Mapping[str, Any]


@dataclass(frozen=True)
class Joined:
    """The rows of A paired with the rows of B, and the rows only one of them has.

    Example:
        >>> joined = join_rows([{"row": 1, "key": "k1"}, {"row": 2, "key": "k2"}], [{"row": 1, "key": "k1"}])
        >>> len(joined.pairs), [r["row"] for r in joined.only_a], joined.only_b
        (1, [2], [])

    """

    on: JoinOn
    pairs: list[RowPair]
    only_a: list[Mapping[str, Any]] = field(default_factory=list)
    only_b: list[Mapping[str, Any]] = field(default_factory=list)


def row_name(record: Mapping[str, Any]) -> str:
    """How a record's row is named in a message: its number and id (or its key).

    Example:
        >>> row_name({"row": 4, "id": "tokyo", "key": "ab12"}), row_name({"key": "ab12"})
        ('row 4 (tokyo)', 'key ab12')

    """
    number = record.get("row")
    ident = record.get("id")
    if isinstance(number, int):
        return f"row {number}" + (f" ({ident})" if ident is not None else "")
    return f"id {ident}" if ident is not None else f"key {record.get('key')}"


def _keyed(records: Sequence[Mapping[str, Any]], on: JoinOn, label: str) -> dict[str, Mapping[str, Any]]:
    keyed: dict[str, Mapping[str, Any]] = {}
    seen: dict[str, int] = defaultdict(int)
    for record in records:
        if on == "id":
            ident = record.get("id")
            if ident is None:
                raise ComparisonError(f"{label}: {row_name(record)} has no id, so it cannot be joined by id")
            name = f"id:{ident}"
            if name in keyed:
                raise ComparisonError(
                    f"{label}: the id {ident!r} names more than one row; join by key instead"
                )
        else:
            key = record.get("key")
            if not isinstance(key, str):
                raise ComparisonError(f"{label}: {row_name(record)} has no row key")
            seen[key] += 1
            name = f"{key}#{seen[key]}"
        keyed[name] = record
    return keyed


def join_rows(
    a: Sequence[Mapping[str, Any]],
    b: Sequence[Mapping[str, Any]],
    *,
    on: JoinOn = "key",
    only_shared: bool = False,
    labels: tuple[str, str] = ("A", "B"),
) -> Joined:
    """Pair the records of ``a`` with those of ``b`` (see the module docstring); pairs in A's order.

    Raises:
        ComparisonError: the files share no row, or each has rows the other lacks (unless
            ``only_shared``), or a record cannot be named (no key; no id, or a repeated one, by id).

    Example:
        >>> a = [{"row": 1, "key": "k1"}, {"row": 2, "key": "k2"}]
        >>> b = [{"row": 2, "key": "k2"}, {"row": 1, "key": "k1"}]
        >>> [pair.a["row"] for pair in join_rows(a, b).pairs]
        [1, 2]
        >>> join_rows(a, [{"row": 1, "key": "other"}])
        Traceback (most recent call last):
        ...
        langchain_jev._errors.ComparisonError: A and B share no row (joined by key): A has 2 rows, ...

    """
    if on not in ("key", "id"):
        raise ValueError(f"join on 'key' or 'id', not {on!r}")
    left, right = _keyed(a, on, labels[0]), _keyed(b, on, labels[1])
    pairs = [RowPair(name, record, right[name]) for name, record in left.items() if name in right]
    only_a = [record for name, record in left.items() if name not in right]
    only_b = [record for name, record in right.items() if name not in left]
    first, second = labels
    if not pairs and (left or right):
        hint = (
            "if B's rows are A's examples answered again, join them by id (--on id)"
            if on == "key"
            else "the ids differ too"
        )
        raise ComparisonError(
            f"{first} and {second} share no row (joined by {on}): {first} has {len(left)} rows, "
            f"{second} has {len(right)}; they are results of different datasets ({hint})"
        )
    if only_a and only_b and not only_shared:
        sample_a = ", ".join(row_name(r) for r in only_a[:3])
        sample_b = ", ".join(row_name(r) for r in only_b[:3])
        raise ComparisonError(
            f"{first} and {second} are not of the same dataset: {len(pairs)} rows in common, "
            f"{len(only_a)} only in {first} ({sample_a}{', ...' if len(only_a) > 3 else ''}), "
            f"{len(only_b)} only in {second} ({sample_b}{', ...' if len(only_b) > 3 else ''}); "
            "rows were edited, added or removed between the runs "
            "(compare the rows in common with --only-shared)"
        )
    return Joined(on, pairs, only_a, only_b)
