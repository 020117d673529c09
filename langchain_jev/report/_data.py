"""The report's data: result records (and the rows they judged) as the plain data the viewer shows.

Pure: nothing here reads a file or writes HTML. `closeness` says how far a
finding's pass probability sat from the nearest threshold that would have
changed its outcome; `select_rows` chooses the rows a page carries (at most
`MAX_ROWS`: failing, not judged and borderline rows first, then the rest in row
order) and `viewer_data` turns them, with their judged state, into the JSON the
page's script reads. Every text is cut at `TEXT_CAP` characters (the page says
how many were left out), so a page's size has a bound whatever the rows hold.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_jev._criteria import JevCriterion
from langchain_jev._judge import JevJudge
from langchain_jev._verdict import Outcome
from langchain_jev.calibration._sweep import blocks

__all__ = [
    "BORDERLINE",
    "MAX_ROWS",
    "TEXT_CAP",
    "Measured",
    "Selection",
    "closeness",
    "criterion_threshold",
    "cut_text",
    "measure",
    "select_rows",
    "state_items",
    "stored_probability",
    "viewer_data",
]

MAX_ROWS = 5_000
"""Rows a page carries at most, each openable (the rest are named as left out)."""
TEXT_CAP = 2_000
"""Characters kept of each text a row shows (a state field, the feedback, a detail)."""
MAX_FIELDS = 64
"""State fields shown per row at most."""
BORDERLINE = 0.1
"""A finding is borderline when its pass probability is within this of a threshold."""


def criterion_threshold(criterion: JevCriterion, min_confidence: float) -> str:
    """What a criterion's pass probability is held against, in words.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> criterion_threshold(JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.7), 0.6)
        'probability of yes >= 0.7'

    """
    if criterion.kind == "noul":
        return f"probability of yes >= {criterion.minimum or 0.0:g}"
    if criterion.kind == "score":
        return (
            f"share on levels >= {criterion.minimum or 0.0:g} is >= {min_confidence:g} "
            f"(<= {1 - min_confidence:g} fails; between: inconclusive)"
        )
    if criterion.kind == "choice":
        accepted = ", ".join(criterion.accepted)
        return (
            f"share on {accepted} is >= {min_confidence:g} "
            f"(<= {1 - min_confidence:g} fails; between: inconclusive)"
        )
    return "the check's predicate"


def closeness(criterion: JevCriterion, probability: float, min_confidence: float) -> float:
    """How far ``probability`` (`pass_probability`) is from the nearest threshold that changes the outcome.

    A noul's outcome turns at its minimum; a score's or a choice's share at
    ``min_confidence`` (pass or inconclusive) and at ``1 - min_confidence``
    (inconclusive or fail).

    Example:
        >>> from langchain_core.decisions import Noul
        >>> polite = JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.7)
        >>> round(closeness(polite, 0.65, 0.6), 2)
        0.05

    """
    if criterion.kind == "noul":
        return abs(probability - (criterion.minimum or 0.0))
    return min(abs(probability - min_confidence), abs(probability - (1.0 - min_confidence)))


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def stored_probability(criterion: JevCriterion, finding: Mapping[str, Any]) -> float | None:
    """A finding's pass probability read straight from its stored answer (`pass_probability`'s rule).

    None when the finding was not decided from an answer (NOT_APPLICABLE, ERROR, a
    check) or the answer holds no usable number. Reading the plain data, not the
    typed answer, keeps a report of many rows fast.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> ok = JevCriterion.noul("ok", Noul(instructions="Ok?"), 0.5)
        >>> stored_probability(ok, {"outcome": "FAILED", "answer": {"type": "noul", "noul": 0.25}})
        0.25

    """
    if not criterion.is_question or finding.get("outcome") in ("NOT_APPLICABLE", "ERROR"):
        return None
    answer = finding.get("answer")
    if not isinstance(answer, dict) and not isinstance(answer, Mapping):
        return None
    kind = answer.get("type")
    if kind == "noul":
        fast = answer.get("noul")
        if type(fast) is float and 0.0 <= fast <= 1.0:  # the common case, first
            return fast
    minimum = criterion.minimum or 0.0
    if kind == "noul":
        value = _number(answer.get("noul"))
        return value if value is not None and 0.0 <= value <= 1.0 else None
    probabilities = answer.get("probabilities")
    if isinstance(probabilities, Mapping) and probabilities:
        total = 0.0
        passing = 0.0
        for key, raw in probabilities.items():
            value = _number(raw)
            if value is None or value < 0:
                return None
            total += value
            if kind == "score":
                level = _number(_level(key))
                if level is not None and level >= minimum - 1e-9:
                    passing += value
            elif key in criterion.accepted:
                passing += value
        return passing / total if total > 0 else None
    if kind == "score":
        score = _number(answer.get("score"))
        return None if score is None else float(score >= minimum - 1e-9)
    if kind == "choice":
        return float(answer.get("choice") in criterion.accepted)
    return None


def _level(key: Any) -> Any:
    try:
        return int(key)
    except (TypeError, ValueError):
        return None


def _probability(criterion: JevCriterion | None, finding: Mapping[str, Any]) -> float | None:
    return None if criterion is None else stored_probability(criterion, finding)


def _has_distribution(finding: Mapping[str, Any]) -> bool:
    answer = finding.get("answer")
    if not isinstance(answer, Mapping):
        return False
    return answer.get("type") == "noul" or bool(answer.get("probabilities"))


@dataclass(frozen=True)
class Measured:
    """What one pass over the records found: each record's closeness, each question's probabilities."""

    closeness: list[float | None]
    """Per record (in order), its least `closeness` (None: nothing to measure)."""
    probabilities: dict[str, tuple[list[float], list[bool]]]
    """Per question criterion: the pass probability of each finding decided from an answer, and
    whether that finding let the verdict pass (did not block)."""


def measure(judge: JevJudge, records: Sequence[Mapping[str, Any]]) -> Measured:
    """Read every record's stored answers once: the closeness `select_rows` ranks by, the charts' data.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev.calibration import NoRequestModel
        >>> judge = JevJudge([JevCriterion.noul("ok", Noul(instructions="Ok?"), 0.5)], NoRequestModel())
        >>> found = measure(judge, [{"findings": [{"name": "ok", "kind": "noul", "outcome": "FAILED",
        ...     "answer": {"type": "noul", "noul": 0.25}}]}])
        >>> found.closeness, found.probabilities
        ([0.25], {'ok': ([0.25], [False])})

    """
    by_name = {c.name: c for c in judge.criteria if c.is_question}
    probabilities: dict[str, tuple[list[float], list[bool]]] = {name: ([], []) for name in by_name}
    policy = (judge.fail_on_inconclusive, judge.fail_on_error)
    outcomes = {o.value: not blocks(o, *policy) for o in Outcome}
    closeness_of: list[float | None] = []
    for record in records:
        best: float | None = None
        for finding in _findings(record):
            criterion = by_name.get(finding.get("name"))  # type: ignore[arg-type]
            if criterion is None:
                continue
            probability = stored_probability(criterion, finding)
            passes = outcomes.get(finding.get("outcome"))  # type: ignore[arg-type]
            if probability is None or passes is None:
                continue
            values, passed = probabilities[criterion.name]
            values.append(probability)
            passed.append(passes)
            if _has_distribution(finding):
                near = closeness(criterion, probability, judge.min_confidence)
                best = near if best is None or near < best else best
        closeness_of.append(best)
    return Measured(closeness_of, probabilities)


@dataclass(frozen=True)
class Selection:
    """The records a page carries (in row order), and how many of each kind were left out."""

    records: list[Mapping[str, Any]]
    total: int
    left_out: int
    left_out_failing: int
    """Failing (or not judged) rows left out: only when more than `MAX_ROWS` rows fail."""


def _failing(record: Mapping[str, Any]) -> bool:
    return record.get("passed") is not True


def _row_key(record: Mapping[str, Any]) -> float:
    number = record.get("row")
    return float(number) if isinstance(number, int) and not isinstance(number, bool) else math.inf


def _row_order(item: tuple[int, Mapping[str, Any]]) -> tuple[float, int]:
    """Row number first (a run writes rows as they finish, not in order), then place in the file."""
    position, record = item
    number = record.get("row")
    return (float(number) if isinstance(number, int) and not isinstance(number, bool) else math.inf, position)


def select_rows(
    judge: JevJudge,
    records: Sequence[Mapping[str, Any]],
    limit: int = MAX_ROWS,
    *,
    first: Sequence[Mapping[str, Any]] = (),
    measured: Measured | None = None,
) -> Selection:
    """The rows a page shows: failing, not judged and borderline rows first, then the rest; at most ``limit``.

    ``first`` are records to keep before all others (a calibration's disagreements);
    ``measured`` is `measure` of the records, when it was taken already.
    The chosen rows come back in row order (by row number; file order for rows without one).

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev.calibration import NoRequestModel
        >>> judge = JevJudge([JevCriterion.noul("ok", Noul(instructions="Ok?"), 0.5)], NoRequestModel())
        >>> records = [{"row": n, "passed": n != 3, "findings": []} for n in range(1, 6)]
        >>> chosen = select_rows(judge, records, 2)
        >>> [r["row"] for r in chosen.records], chosen.left_out
        ([1, 3], 3)

    """
    wanted = {id(r) for r in first}
    indexed = list(enumerate(records))
    if len(indexed) <= limit:
        return Selection(sorted(records, key=_row_key), len(records), 0, 0)
    near = (measured or measure(judge, records)).closeness

    def rank(item: tuple[int, Mapping[str, Any]]) -> tuple[int, int]:
        position, record = item
        if id(record) in wanted:
            return (0, position)
        if _failing(record):
            return (1, position)
        value = near[position]
        if value is not None and value < BORDERLINE:
            return (2, position)
        return (3, position)

    chosen = sorted(indexed, key=rank)[: max(0, limit)] if len(indexed) > limit else indexed
    chosen.sort(key=_row_order)
    kept = {id(record) for _, record in chosen}
    left_failing = sum(1 for r in records if id(r) not in kept and _failing(r))
    return Selection([r for _, r in chosen], len(records), len(records) - len(chosen), left_failing)


def cut_text(text: str, cap: int = TEXT_CAP) -> str | list[Any]:
    """A text, or ``[kept, characters left out]`` when it is longer than ``cap`` (the viewer shows how many).

    Example:
        >>> cut_text("abcdef", 4)
        ['abcd', 2]

    """
    if len(text) <= cap:
        return text
    return [text[:cap], len(text) - cap]


def _shown(value: Any) -> str | list[Any]:
    if isinstance(value, str):
        return cut_text(value)
    try:
        text = json.dumps(value, ensure_ascii=False, indent=1, default=str, allow_nan=False)
    except (ValueError, RecursionError):
        text = repr(value)
    return cut_text(text)


def state_items(state: Mapping[str, Any] | None) -> list[list[Any]] | None:
    """A judged state as the viewer shows it: ``[field, value]`` pairs, texts cut, at most `MAX_FIELDS`."""
    if state is None:
        return None
    items = list(state.items())
    shown: list[list[Any]] = [[str(k)[:200], _shown(v)] for k, v in items[:MAX_FIELDS]]
    if len(items) > MAX_FIELDS:
        shown.append(["…", f"{len(items) - MAX_FIELDS} more fields in the dataset"])
    return shown


def _answer(finding: Mapping[str, Any]) -> dict[str, Any] | None:
    answer = finding.get("answer")
    if not isinstance(answer, Mapping):
        return None
    shown: dict[str, Any] = {"type": str(answer.get("type"))}
    for key in ("noul", "score", "choice", "confidence"):
        value = answer.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            shown[key] = value if math.isfinite(value) else None
        elif isinstance(value, str):
            shown[key] = value[:200]
    probabilities = answer.get("probabilities")
    if isinstance(probabilities, Mapping):
        shown["probabilities"] = [
            [str(k)[:200], v if isinstance(v, (int, float)) and math.isfinite(v) else None]
            for k, v in list(probabilities.items())[:64]
        ]
    return shown


def _finding(
    finding: Mapping[str, Any],
    index: Mapping[str, int],
    judge: JevJudge | None,
    by_name: Mapping[str, JevCriterion],
) -> dict[str, Any]:
    name = str(finding.get("name"))
    criterion = by_name.get(name)
    outcome = str(finding.get("outcome"))
    data: dict[str, Any] = {"c": index.get(name, -1), "o": outcome}
    if name not in index:
        data["name"] = name[:200]
    try:
        policy = (judge.fail_on_inconclusive, judge.fail_on_error) if judge is not None else (False, False)
        data["b"] = blocks(Outcome(outcome), *policy)
    except ValueError:
        data["b"] = True
    probability = _probability(criterion, finding)
    if probability is not None:
        data["p"] = round(probability, 6)
        if criterion is not None and judge is not None and _has_distribution(finding):
            data["m"] = round(closeness(criterion, probability, judge.min_confidence), 6)
    answer = _answer(finding)
    if answer is not None:
        data["a"] = answer
    for key, short in (("detail", "d"), ("reasoning", "r"), ("unreadable", "u")):
        value = finding.get(key)
        if isinstance(value, str) and value:
            data[short] = cut_text(value)
    return data


MAX_MEMBERS = 16
"""Jury members shown per row at most."""


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _jury(
    record: Mapping[str, Any], findings: list[dict[str, Any]], by_name: Mapping[str, JevCriterion]
) -> dict[str, Any] | None:
    """Who said what, when a jury answered: its members, each finding's answers by member, the failed."""
    panel = record.get("panel")
    if not isinstance(panel, Mapping) or not isinstance(panel.get("members"), Mapping):
        return None
    members = [(str(name), m) for name, m in panel["members"].items() if isinstance(m, Mapping)][:MAX_MEMBERS]
    failed = list(_mapping(panel.get("failed")).items())[:MAX_MEMBERS]
    for finding, raw in zip(findings, _findings(record), strict=True):
        if raw.get("question") is None:
            continue
        name = str(raw.get("name"))
        criterion = by_name.get(name)
        said: list[list[Any]] = []
        for place, (_, member) in enumerate(members):
            answer = _mapping(member.get("answers")).get(name)
            if isinstance(answer, Mapping):
                probability = (
                    stored_probability(criterion, {"outcome": "PASSED", "answer": answer})
                    if criterion is not None
                    else None
                )
                rounded = None if probability is None else round(probability, 6)
                said.append([place, _answer({"answer": answer}), rounded])
            else:
                why = _mapping(member.get("unreadable")).get(name) or "no answer"
                said.append([place, None, None, cut_text(str(why), 300)])
        finding["v"] = said
    return {
        "m": [cut_text(name, 200) for name, _ in members],
        "x": [[cut_text(str(name), 200), cut_text(str(error), 300)] for name, error in failed],
        "combine": str(panel.get("combine"))[:20],
    }


def _findings(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = record.get("findings")
    if not isinstance(found, list):
        return []
    return [f for f in found if isinstance(f, Mapping)]


def row_data(
    judge: JevJudge | None,
    record: Mapping[str, Any],
    state: Mapping[str, Any] | None,
    index: Mapping[str, int],
    note: str | None = None,
) -> dict[str, Any]:
    """One row as the viewer shows it: its place, verdict, judged state and findings (texts cut).

    Without ``judge`` (the criteria unknown) findings are shown as recorded, with no
    probability or closeness, and only FAILED blocks.
    """
    by_name = {c.name: c for c in judge.criteria} if judge is not None else {}
    row = record.get("row")
    data: dict[str, Any] = {
        "n": row if isinstance(row, int) and not isinstance(row, bool) else None,
        "k": str(record.get("key", ""))[:64],
        "ok": record.get("passed") is True,
    }
    if record.get("id") is not None:
        data["id"] = cut_text(str(record.get("id")), 200)
    if isinstance(record.get("line"), int):
        data["line"] = record["line"]
    if "error" in record:
        data["err"] = cut_text(str(record["error"]))
    feedback = record.get("feedback")
    if isinstance(feedback, str) and feedback:
        data["fb"] = cut_text(feedback)
    findings = [_finding(f, index, judge, by_name) for f in _findings(record)]
    jury = _jury(record, findings, by_name)
    if jury is not None:
        data["j"] = jury
    data["f"] = findings
    margins = [f["m"] for f in findings if "m" in f]
    if margins:
        data["m"] = min(margins)
    data["s"] = state_items(state)
    if note:
        data["note"] = note
    return data


def viewer_data(
    judge: JevJudge,
    selection: Selection,
    states: Mapping[Any, Mapping[str, Any]] | None = None,
    *,
    state_note: str | None = None,
) -> dict[str, Any]:
    """The JSON the page's script reads: the criteria, the rows carried, and what was left out.

    ``states`` maps a row number (or, for a record without one, its key) to its judged
    state (the fields the judge read);
    ``state_note`` says why a row has none (no dataset given, say).

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev.calibration import NoRequestModel
        >>> judge = JevJudge([JevCriterion.noul("ok", Noul(instructions="Ok?"), 0.5)], NoRequestModel())
        >>> record = {"row": 1, "key": "k", "passed": False, "findings": [{"name": "ok", "kind": "noul",
        ...     "outcome": "FAILED", "detail": "no", "answer": {"type": "noul", "noul": 0.45}}]}
        >>> data = viewer_data(judge, select_rows(judge, [record]), {1: {"assistant_answer": "Hi"}})
        >>> data["rows"][0]["s"], data["rows"][0]["f"][0]["p"], data["criteria"][0]["name"]
        ([['assistant_answer', 'Hi']], 0.45, 'ok')

    """
    criteria = [
        {
            "name": c.name,
            "kind": c.kind,
            "threshold": criterion_threshold(c, judge.min_confidence),
        }
        for c in judge.criteria
    ]
    index = {c.name: i for i, c in enumerate(judge.criteria)}
    rows = []
    for record in selection.records:
        number = record.get("row")
        place = number if isinstance(number, int) else record.get("key")
        state = states.get(place) if states is not None and place is not None else None
        note = None if state is not None else state_note
        rows.append(row_data(judge, record, state, index, note))
    return {
        "criteria": criteria,
        "borderline": BORDERLINE,
        "rows": rows,
        "total": selection.total,
        "left_out": selection.left_out,
        "left_out_failing": selection.left_out_failing,
    }
