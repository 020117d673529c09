"""A row's label read: safe, or unsafe with the catalog categories it violates.

A label is ``"safe"``, ``"unsafe"`` (its categories, if any, in a second column,
``categories`` by default), or the categories themselves: a list of names or
codes, or one string of them separated by commas (``"hate, S1"``). An empty list
says the row violates nothing: it is safe. A category is a catalog name or code
(`langchain_jev.guardrails._catalog`); anything else is refused, naming the value.

Pure.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, cast

from langchain_jev._errors import JevConfigurationError
from langchain_jev.guardrails._catalog import DIRECTIONS, Direction
from langchain_jev.guardrails._categories import find_hazard

__all__ = ["RowLabel", "choose_side", "read_row_label"]


@dataclass(frozen=True)
class RowLabel:
    """What a person said of a row: unsafe or not, and the categories it violates.

    An unsafe row with no category counts in the overall figures and in no category's.
    """

    unsafe: bool
    """True when the row is harmful (a positive)."""
    categories: frozenset[str] = frozenset()
    """The catalog names of the categories it violates (empty for a safe row)."""


def read_row_label(label: Any, categories: Any = None) -> RowLabel:
    """Read a row's ``label`` (and its ``categories`` column, for ``"unsafe"``).

    Raises:
        ValueError: the label is missing or not one of the forms above; a category
            is not in the catalog; a safe row names categories. The message names the value.

    Example:
        >>> read_row_label("safe")
        RowLabel(unsafe=False, categories=frozenset())
        >>> sorted(read_row_label("unsafe", ["S10"]).categories)
        ['hate']
        >>> sorted(read_row_label("hate, S1").categories)
        ['hate', 'violent_crimes']
        >>> read_row_label("maybe")
        Traceback (most recent call last):
        ...
        ValueError: label 'maybe' is not 'safe', 'unsafe' or catalog categories (unknown hazard ...

    """
    named = _names(categories, "categories") if categories not in (None, "", []) else frozenset()
    if isinstance(label, str) and label.strip().lower() == "safe":
        if named:
            raise ValueError(f"a safe row names categories {sorted(named)}: label it unsafe, or drop them")
        return RowLabel(False)
    if isinstance(label, str) and label.strip().lower() == "unsafe":
        return RowLabel(True, named)
    if label is None or label == "":
        raise ValueError("the row has no label: give 'safe', 'unsafe' or the categories it violates")
    if not isinstance(label, (str, list)):
        raise ValueError(
            f"label {label!r} is not 'safe', 'unsafe' or catalog categories (got {type(label).__name__})"
        )
    try:
        own = _names(label, "label")
    except ValueError as error:
        raise ValueError(f"label {label!r} is not 'safe', 'unsafe' or catalog categories ({error})") from None
    return RowLabel(bool(own | named), own | named)


def _names(value: Any, column: str) -> frozenset[str]:
    items: Sequence[Any]
    if isinstance(value, str):
        items = [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, list):
        items = value
    else:
        raise ValueError(f"{column} must be a list of category names or codes, got {type(value).__name__}")
    names: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            raise ValueError(f"{column} holds {item!r}, not a category name or code")
        try:
            names.add(find_hazard(item.strip()).name)
        except JevConfigurationError as error:
            raise ValueError(str(error)) from None
    return frozenset(names)


def choose_side(found: Collection[str], given: Direction | None) -> Direction:
    """The side to judge rows on: ``given``, or the one side the rows' ``side`` column names.

    ``found`` is the set of sides the rows name (empty when they name none: the input side).

    Raises:
        ValueError: the rows name several sides and none is given, or ``given`` is not
            the side they name (a reply judged as a request measures nothing); the message
            names the sides.

    Example:
        >>> choose_side({"output"}, None), choose_side(set(), None), choose_side({"input"}, "input")
        ('output', 'input', 'input')
        >>> choose_side({"input"}, "output")
        Traceback (most recent call last):
        ...
        ValueError: the rows are of the input side, not output: judge them with a battery of that side

    """
    named = sorted(found)
    unknown = [side for side in named if side not in DIRECTIONS]
    if unknown:
        raise ValueError(f"the rows name side {unknown[0]!r}, not one of {', '.join(DIRECTIONS)}")
    if len(named) > 1:
        raise ValueError(f"the rows are of several sides ({', '.join(named)}): give one file per side")
    if given is None:
        return cast(Direction, named[0]) if named else "input"
    if named and named[0] != given:
        raise ValueError(
            f"the rows are of the {named[0]} side, not {given}: judge them with a battery of that side"
        )
    return given
