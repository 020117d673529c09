"""Reading human labels: booleans, pass/fail words, 0/1, or a choice's label.

A label says whether a person passes the row (True) or fails it (False). For a
choice criterion a label may also be one of its options: it passes when the
option is one of the criterion's accepted labels. An empty label (missing,
None, "") leaves the row out; anything else that cannot be read is an error
naming the row, the field and the value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_jev.errors import CalibrationError

if TYPE_CHECKING:
    from langchain_jev.criteria import JevCriterion

__all__ = ["FAIL_WORDS", "PASS_WORDS", "read_label"]

PASS_WORDS = frozenset(
    {
        "pass",
        "passed",
        "passes",
        "yes",
        "y",
        "true",
        "t",
        "1",
        "ok",
        "good",
        "correct",
        "accept",
        "accepted",
        "positive",
    }
)
"""Words read as a pass (case and surrounding space ignored)."""
FAIL_WORDS = frozenset(
    {
        "fail",
        "failed",
        "fails",
        "no",
        "n",
        "false",
        "f",
        "0",
        "bad",
        "wrong",
        "incorrect",
        "reject",
        "rejected",
        "negative",
    }
)
"""Words read as a fail (case and surrounding space ignored)."""


def read_label(value: Any, criterion: JevCriterion | None = None, where: str = "label") -> bool | None:
    """A label as pass (True), fail (False), or None when it is empty.

    Raises:
        CalibrationError: the value is not a label; the message names ``where`` and the value.

    Example:
        >>> read_label("Pass"), read_label(0), read_label(None), read_label(" no ")
        (True, False, None, False)
        >>> from langchain_core.decisions import Choice
        >>> from langchain_jev import JevCriterion
        >>> mode = JevCriterion.choice("mode", Choice(instructions="How?",
        ...     criteria={"answered": None, "asked": None}), ["answered"])
        >>> read_label("asked", mode)
        False

    """
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        if criterion is not None and criterion.kind == "choice" and text in criterion.options:
            return text in criterion.accepted
        word = text.lower()
        if word in PASS_WORDS:
            return True
        if word in FAIL_WORDS:
            return False
    accepted = ""
    if criterion is not None and criterion.kind == "choice":
        accepted = f", or one of the options of {criterion.name!r} ({', '.join(criterion.options)})"
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    raise CalibrationError(
        f"{where}: {shown} is not a label; use true/false, 1/0, pass/fail or yes/no{accepted}"
    )
