"""Which categories a battery asks, and the threshold at which each is flagged (pure).

- `find_hazard`: a category by name (``"hate"``) or code (``"S10"``);
- `select_hazards`: the categories of one side a battery asks, in taxonomy order;
- `thresholds_for`: each category's threshold, the strictness preset's or its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from langchain_jev._errors import JevConfigurationError
from langchain_jev.guardrails._catalog import DIRECTIONS, HAZARDS, STRICTNESS_PRESETS, Direction, Hazard

__all__ = ["find_hazard", "select_hazards", "thresholds_for"]


def _valid_names(direction: Direction) -> str:
    return ", ".join(
        f"{h.name} ({h.code})" if h.code else h.name for h in HAZARDS if direction in h.questions
    )


def find_hazard(name_or_code: str) -> Hazard:
    """Return the category with this name (``"hate"``) or code (``"S10"``).

    Raises:
        JevConfigurationError: no category has that name or code; the message lists them.

    Example:
        >>> find_hazard("S10").name
        'hate'

    """
    for hazard in HAZARDS:
        if name_or_code in (hazard.name, hazard.code):
            return hazard
    everything = ", ".join(f"{h.name} ({h.code})" if h.code else h.name for h in HAZARDS)
    raise JevConfigurationError(f"unknown hazard category {name_or_code!r}; valid categories: {everything}")


def select_hazards(direction: Direction, categories: str | Iterable[str] | None = None) -> tuple[Hazard, ...]:
    """The categories a battery of ``direction`` asks: all of them, or those named.

    Categories are given by name or code, in any order; the battery asks them in
    taxonomy order, each once.

    Raises:
        JevConfigurationError: an unknown direction or category, a category not asked
            on that side, or no category at all. The message lists the valid ones.

    Example:
        >>> [h.name for h in select_hazards("output", ["hate", "S1"])]
        ['violent_crimes', 'hate']

    """
    if direction not in DIRECTIONS:
        raise JevConfigurationError(
            f"unknown battery direction {direction!r}; valid directions: {', '.join(DIRECTIONS)}"
        )
    if categories is None:
        return tuple(h for h in HAZARDS if direction in h.questions)
    names = [categories] if isinstance(categories, str) else list(categories)
    if not names:
        raise JevConfigurationError(
            f"a {direction} battery needs at least one category; valid categories: {_valid_names(direction)}"
        )
    chosen: set[str] = set()
    for name in names:
        if not isinstance(name, str):
            raise JevConfigurationError(
                f"hazard categories are names or codes (strings), got {type(name).__name__}"
            )
        hazard = find_hazard(name)
        if direction not in hazard.questions:
            sides = ", ".join(sorted(hazard.questions))
            raise JevConfigurationError(
                f"hazard category {hazard.name!r} is not asked of {direction} (only of: "
                f"{sides}); valid {direction} categories: {_valid_names(direction)}"
            )
        chosen.add(hazard.name)
    return tuple(h for h in HAZARDS if h.name in chosen)


def thresholds_for(
    hazards: Iterable[Hazard], strictness: str, overrides: Mapping[str, float] | None = None
) -> dict[str, float]:
    """The probability of yes at which each category is flagged: the preset's, or its own.

    ``overrides`` gives categories (by name or code) their own threshold in place of
    the preset's, such as thresholds chosen from labelled traffic
    (`langchain_jev.guardrails.quality._thresholds`).

    Raises:
        JevConfigurationError: an unknown preset (the message lists the valid ones); an
            override for a category not asked, or not a number above 0 and at most 1.

    Example:
        >>> thresholds_for(select_hazards("input", ["S1", "S9"]), "balanced")
        {'violent_crimes': 0.5, 'indiscriminate_weapons': 0.35}
        >>> thresholds_for(select_hazards("input", ["S1", "S9"]), "balanced", {"S1": 0.42})
        {'violent_crimes': 0.42, 'indiscriminate_weapons': 0.35}

    """
    preset = STRICTNESS_PRESETS.get(strictness) if isinstance(strictness, str) else None
    if preset is None:
        raise JevConfigurationError(
            f"unknown strictness {strictness!r}; valid presets: {', '.join(STRICTNESS_PRESETS)}"
        )
    chosen = tuple(hazards)
    thresholds = {hazard.name: preset[hazard.severity] for hazard in chosen}
    for name, value in (overrides or {}).items():
        category = find_hazard(name).name if isinstance(name, str) else name
        if category not in thresholds:
            raise JevConfigurationError(
                f"a threshold is given for {name!r}, which the battery does not ask; it asks: "
                f"{', '.join(thresholds)}"
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < float(value) <= 1.0:
            raise JevConfigurationError(
                f"the threshold of {category!r} must be a probability above 0 and at most 1, got {value!r}"
            )
        thresholds[category] = float(value)
    return thresholds
