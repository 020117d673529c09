"""Long texts judged whole: a judge input cut into overlapping windows, and their verdicts joined.

Pure functions, no I/O. A battery sends what it judges in one request when it
fits one window (`DEFAULT_WINDOW` characters, or the battery's ``window``);
nothing is ever cut to fit:

- `windows`: the judge inputs of one check. One, when the input fits a window;
  else the judged part (what is not context) is written out as one text and
  cut into windows that overlap by `DEFAULT_OVERLAP` characters, so any span
  that short is whole in one of them, each with the context (the earlier
  conversation, the request a reply answers) shown beside it, its end kept to a
  quarter of the window. Past the ``budget`` the check is refused
  (`GuardrailBudgetError`): it is not judged at all, and the rail decides by
  ``on_error`` (fail closed by default);

Example:
    >>> from langchain_jev import JevJudgeInput
    >>> parts = windows(JevJudgeInput(question="x" * 250), "input", window=100, overlap=10, budget=1000)
    >>> [len(part.question) for part in parts]
    [90, 90, 90]

"""

from __future__ import annotations

import json
from typing import Any

from langchain_jev._errors import GuardrailBudgetError, JevConfigurationError
from langchain_jev._input import ANSWER_FIELD, QUESTION_FIELD, TOOL_CALLS_FIELD, JevJudgeInput
from langchain_jev.guardrails._catalog import Direction
from langchain_jev.guardrails._judged import CONTEXT_FIELD

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_OVERLAP",
    "DEFAULT_WINDOW",
    "check_window",
    "size_of",
    "windows",
]

DEFAULT_WINDOW = 100_000
"""The characters one check sends in one request; a longer input is judged in several windows."""

DEFAULT_OVERLAP = 2_000
"""How many characters neighbouring windows share: a span this long is whole in one window."""

DEFAULT_BUDGET = 1_000_000
"""The most characters one check judges (over all its windows); more is refused, never cut."""


def check_window(window: Any, budget: Any) -> tuple[int, int]:
    """Validate a battery's ``window`` and ``budget`` (characters); return them.

    Raises:
        JevConfigurationError: either is not a whole number, the window is not
            more than four times `DEFAULT_OVERLAP`, or the budget is below the window.

    Example:
        >>> check_window(100_000, 50_000)
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JevConfigurationError: budget (50000) must be at least the window (100000)

    """
    for name, value in (("window", window), ("budget", budget)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise JevConfigurationError(f"{name} must be a whole number of characters, got {value!r}")
    if window <= 4 * DEFAULT_OVERLAP:
        raise JevConfigurationError(
            f"window must be more than {4 * DEFAULT_OVERLAP} characters, got {window}"
        )
    if budget < window:
        raise JevConfigurationError(f"budget ({budget}) must be at least the window ({window})")
    return window, budget


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def size_of(data: JevJudgeInput) -> int:
    """The characters of ``data``: its strings as they are, anything else as JSON (keys included).

    Example:
        >>> size_of(JevJudgeInput(question="hello", fields={"n": 12}))
        21

    """
    return sum(len(key) + len(_text(value)) for key, value in data.to_state().items())


def _context_keys(direction: Direction) -> frozenset[str]:
    return frozenset({CONTEXT_FIELD} if direction == "input" else {CONTEXT_FIELD, QUESTION_FIELD})


def _clipped(value: Any, limit: int) -> Any:
    """Context shown beside a window: as it is when it fits ``limit``, else its end, as text."""
    text = _text(value)
    return value if len(text) <= limit else f"[...] {text[-limit:]}"


def _placed(direction: Direction, piece: str, index: int, count: int) -> dict[str, Any]:
    if direction == "input":
        return {QUESTION_FIELD: piece}
    if direction == "output":
        return {ANSWER_FIELD: piece}
    name = f"tool results, part {index + 1} of {count}"
    return {TOOL_CALLS_FIELD: [{"name": name, "arguments": {}, "result": piece}]}


def windows(
    data: JevJudgeInput,
    direction: Direction,
    *,
    window: int = DEFAULT_WINDOW,
    overlap: int = DEFAULT_OVERLAP,
    budget: int = DEFAULT_BUDGET,
) -> list[JevJudgeInput]:
    """The judge inputs of one check of ``data``: itself when it fits ``window``, else overlapping windows.

    Raises:
        GuardrailBudgetError: ``data`` has more than ``budget`` characters (it is not judged at all).

    """
    size = size_of(data)
    if size > budget:
        raise GuardrailBudgetError(
            f"{size:,} characters to judge, over the check's budget of {budget:,}", size=size, budget=budget
        )
    if size <= window:
        return [data]
    state = data.to_state()
    context_keys = _context_keys(direction)
    shown = window // 4
    context = {key: _clipped(value, shown // 2) for key, value in state.items() if key in context_keys}
    text = "\n\n".join(
        f"{key}: {_text(value)}" if key not in (QUESTION_FIELD, ANSWER_FIELD) else _text(value)
        for key, value in state.items()
        if key not in context_keys
    )
    reserve = min(200, window // 10)  # the keys and labels of a window's state
    piece = window - sum(len(key) + len(_text(value)) for key, value in context.items()) - reserve
    step = piece - overlap
    starts = list(range(0, max(1, len(text) - overlap), step))
    return [
        JevJudgeInput.of({**context, **_placed(direction, text[start : start + piece], i, len(starts))})
        for i, start in enumerate(starts)
    ]
