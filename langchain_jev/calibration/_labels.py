"""Reading human labels: booleans, pass/fail words, 0/1, or a choice's label.

A label says whether a person passes the row (True) or fails it (False). For a
choice criterion a label may also be one of its options: it passes when the
option is one of the criterion's accepted labels. An empty label (missing,
None, "") leaves the row out; anything else that cannot be read is an error
naming the row, the field and the value. `label_records` pairs result records
with the labels of their rows (`LabelledRecord`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_jev._errors import CalibrationError

if TYPE_CHECKING:
    from langchain_jev._criteria import JevCriterion
    from langchain_jev._judge import JevJudge
    from langchain_jev.models._response import JuryPanel

__all__ = ["FAIL_WORDS", "PASS_WORDS", "LabelledRecord", "label_records", "read_label"]

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


@dataclass(frozen=True)
class LabelledRecord:
    """A result record (with its stored answers) and what people said of the row."""

    record: Mapping[str, Any]
    overall: bool | None = None
    """The overall label: does the row pass as a whole (None: not labelled)."""
    labels: Mapping[str, bool] = field(default_factory=dict)
    """Per-criterion labels (the overall label stands in where a criterion has none)."""
    panel: JuryPanel | None = None
    """When a jury answered: every member's answers, read from the record's ``panel``."""


def label_records(
    judge: JevJudge,
    records: Sequence[Mapping[str, Any]],
    sources: Sequence[Mapping[str, Any]],
    labels: str | Mapping[str, str] | None = None,
    overall: str | None = None,
    *,
    where: Sequence[str] | None = None,
) -> list[LabelledRecord]:
    """Pair records with the labels read from their rows (``sources``, aligned with ``records``).

    ``labels`` is the overall label's field (standing in for every criterion), or a
    mapping of criterion name to its label's field; ``overall`` names the overall
    label's field when ``labels`` is a mapping. ``where`` names each row in errors.

    Raises:
        CalibrationError: a label that cannot be read (named by row and field), an unknown
            criterion, or a jury's panel that cannot be read.

    """
    from langchain_jev.datasets.results import stored_panel

    per_criterion: Mapping[str, str] = {}
    if isinstance(labels, str):
        overall = labels
    elif labels is not None:
        per_criterion = dict(labels)
    by_name = {c.name: c for c in judge.criteria}
    unknown = sorted(name for name in per_criterion if name not in by_name)
    if unknown:
        raise CalibrationError(f"labels name no criterion of the judge: {', '.join(unknown)}")
    if overall is None and not per_criterion:
        raise CalibrationError("give the field of an overall label, or of a label per criterion")
    result = []
    for index, (record, source) in enumerate(zip(records, sources, strict=True)):
        place = where[index] if where is not None else f"row {index + 1}"
        whole = read_label(source.get(overall), None, f"{place}: {overall}") if overall else None
        found: dict[str, bool] = {}
        for criterion in judge.criteria:
            if not criterion.is_question:
                continue
            column = per_criterion.get(criterion.name)
            value = read_label(source.get(column), criterion, f"{place}: {column}") if column else None
            if value is None and overall is not None:
                value = whole
            if value is not None:
                found[criterion.name] = value
        panel = None
        if record.get("panel") is not None and "error" not in record:
            try:
                panel = stored_panel(record["panel"], by_name)
            except ValueError as error:
                raise CalibrationError(f"{place}: its jury panel cannot be read: {error}") from None
        result.append(LabelledRecord(record, whole, found, panel))
    return result
