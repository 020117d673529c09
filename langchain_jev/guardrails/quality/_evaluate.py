"""`guardrail_eval`: a battery run over a labelled dataset, one request per row, and its quality measured.

The rows are judged by the dataset run every command uses
(`langchain_jev.datasets._local.run`): a results file with a header naming the
battery (`battery_description`), one line per row as it is judged (with the
seconds its check took), a lock against a second writer, ``resume`` to finish a
stopped run, a progress display. Then the results file is read back, each row's
label read again from the dataset (rows matched by number and content,
`langchain_jev.datasets._states`), and the figures measured
(`langchain_jev.guardrails.quality._summary`) at the battery's thresholds. The
probabilities do not depend on the thresholds, so a results file can be
measured again at others (`measure_results`) without a request.

A row the model could not judge is recorded as an error (never a pass), left out
of the figures and counted; a row whose label cannot be read is named with why.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO, TypedDict

from typing_extensions import Unpack

from langchain_jev._input import QUESTION_FIELD
from langchain_jev.datasets._local.run import RunOptions, RunResult, run, run_dataset
from langchain_jev.datasets._readers import Format, detect_format, read_rows
from langchain_jev.datasets._rows import FieldMap
from langchain_jev.datasets._states import dataset_states
from langchain_jev.datasets._stored import read_results
from langchain_jev.guardrails._battery import HazardBattery
from langchain_jev.guardrails._catalog import Direction
from langchain_jev.guardrails.quality._judging import MESSAGES, BatteryJudge, battery_description
from langchain_jev.guardrails.quality._labels import choose_side, read_row_label
from langchain_jev.guardrails.quality._summary import GuardrailQuality, ScoredRow, measure

__all__ = ["Columns", "EvalOptions", "GuardrailEval", "aguardrail_eval", "guardrail_eval", "measure_results"]


@dataclass(frozen=True)
class Columns:
    """Which columns of a labelled dataset hold what (the shipped sets' names by default)."""

    text: str = "text"
    """What is judged: the user's message, the response or the tool's result, by the battery's side."""
    label: str = "label"
    """``"safe"``, ``"unsafe"``, or the categories the row violates."""
    categories: str = "categories"
    """The categories of an ``"unsafe"`` row (optional)."""
    id: str | None = "id"
    """The row's name in the results and the report."""
    side: str = "side"
    """The side a row is of (``input``, ``output``, ``tool_results``), checked: optional."""

    def run_fields(self) -> FieldMap:
        """The column map the rows are judged with: the text, and nothing of the label."""
        return FieldMap({QUESTION_FIELD: (self.text,)}, self.id, frozenset({self.label, self.categories}))

    def read_fields(self) -> FieldMap:
        """The column map the rows are read back with: the text, the label and the categories."""
        return FieldMap({QUESTION_FIELD: (self.text,)}, self.id)


@dataclass
class GuardrailEval:
    """What a labelled run gave: the figures, the run's own account, and the rows whose labels were bad."""

    quality: GuardrailQuality
    run: RunResult | None
    """The dataset run (None when only measured from a results file)."""
    results: str
    """The results file."""
    label_problems: list[str] = field(default_factory=list)
    """Rows left out because their label could not be read (``row N (id X): why``)."""


class EvalOptions(TypedDict, total=False):
    """How `guardrail_eval` and `aguardrail_eval` run (each optional).

    ``columns``: the column names (`Columns`, the shipped sets' by default);
    ``fmt``: the format of the data (by its extension); ``resume``: keep the rows
    already in the results file and judge the rest; ``concurrency``: rows judged at
    once (8); ``progress``: draw a progress line on ``stderr`` (False); ``strict``:
    stop at the first bad row; ``stderr``: where bad rows and progress are said
    (``sys.stderr``); ``run_description``: what the run knows of itself, kept in the
    results header.
    """

    columns: Columns
    fmt: Format | None
    resume: bool
    concurrency: int
    progress: bool
    strict: bool
    stderr: TextIO | None
    run_description: Mapping[str, Any] | None


def _options(
    data: str | os.PathLike[str], battery: HazardBattery, out: str | os.PathLike[str], given: EvalOptions
) -> tuple[RunOptions, Columns, TextIO]:
    target = os.fspath(out)
    if not target or target == "-":
        raise ValueError("guardrail_eval needs out=PATH: the results file it measures (and resumes)")
    columns = given.get("columns") or Columns()
    fmt = detect_format(data, given.get("fmt"))
    choose_side(sides_in(data, fmt, columns), battery.direction)  # a ValueError naming the sides
    options = RunOptions(
        data=os.fspath(data),
        fmt=fmt,
        fields=columns.run_fields(),
        concurrency=given.get("concurrency", 8),
        out=target,
        resume=given.get("resume", False),
        strict=given.get("strict", False),
        progress=given.get("progress", False),
        workers=1,
        timed=True,
        judge=battery_description(battery),
        run=_described(data, columns, given.get("run_description")),
    )
    return options, columns, given.get("stderr") or sys.stderr


def _described(
    data: str | os.PathLike[str], columns: Columns, given: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The run's description, with what ``compare`` needs to measure it again: the dataset and its columns."""
    described = dict(given or {})
    described.setdefault("dataset", os.fspath(data))
    described.setdefault("dataset_path", os.path.abspath(data))
    described.setdefault("columns", asdict(columns))
    return described


def sides_in(data: str | os.PathLike[str], fmt: Format, columns: Columns | None = None) -> set[str]:
    """The sides the rows of ``data`` name in their side column (empty: none names one).

    Raises:
        DatasetError: ``data`` cannot be read.

    """
    column = (columns or Columns()).side
    return {
        raw.data[column]
        for raw in read_rows(data, fmt)
        if isinstance(raw.data, dict) and isinstance(raw.data.get(column), str)
    }


def guardrail_eval(
    data: str | os.PathLike[str],
    battery: HazardBattery,
    out: str | os.PathLike[str],
    *,
    closers: Sequence[Any] = (),
    **options: Unpack[EvalOptions],
) -> GuardrailEval:
    r"""Run ``battery`` over the labelled rows of ``data`` (JSONL, JSON or CSV), writing ``out``; measure it.

    Args:
        data: the labelled dataset; each row a text (or a conversation under
            ``messages``) and a label (see `Columns`).
        battery: the battery to measure (any side, categories, thresholds, decision model).
        out: the results file (one line per row); with ``resume=True`` a stopped run
            written by the same battery is finished, its rows kept.
        closers: what the battery's model needs closed after the run.
        **options: how to run (`EvalOptions`: columns, fmt, resume, concurrency,
            progress, strict, stderr, run_description).

    Raises:
        ValueError: ``out`` is not a file path, or the rows' ``side`` column names
            another side than the battery's.
        DatasetError: ``data`` cannot be read.

    Example:
        >>> import json, tempfile, pathlib
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> rows = [{"text": "I hate them all", "label": ["hate"]}, {"text": "hello", "label": "safe"}]
        >>> _ = (folder / "rows.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
        >>> model = ScriptedDecisionModel({"hate": lambda state, q: 0.9 if "hate" in str(state) else 0.1})
        >>> battery = HazardBattery.input(["hate"], model=model)
        >>> result = guardrail_eval(folder / "rows.jsonl", battery, folder / "out.jsonl")
        >>> result.quality.categories["hate"].roc_auc, result.quality.overall.false_refusal_rate
        (1.0, 0.0)

    """
    run_options, columns, stderr = _options(data, battery, out, options)
    result = run(BatteryJudge(battery), run_options, stderr, closers=closers)
    return _measured(run_options, battery, columns, result)


async def aguardrail_eval(
    data: str | os.PathLike[str],
    battery: HazardBattery,
    out: str | os.PathLike[str],
    **options: Unpack[EvalOptions],
) -> GuardrailEval:
    """Asynchronous `guardrail_eval`: the rows judged on the running event loop (the model left open)."""
    run_options, columns, stderr = _options(data, battery, out, options)
    result = await run_dataset(BatteryJudge(battery), run_options, stderr)
    return _measured(run_options, battery, columns, result)


def _measured(
    options: RunOptions, battery: HazardBattery, columns: Columns, result: RunResult
) -> GuardrailEval:
    assert options.out is not None
    if result.fatal is not None and not os.path.exists(options.out):
        measured = measure([], battery.thresholds, battery.direction)
        return GuardrailEval(measured, result, options.out)
    evaluated = measure_results(
        options.out,
        options.data,
        battery.thresholds,
        battery.direction,
        columns=columns,
        fmt=options.fmt,
    )
    evaluated.run = result
    return evaluated


def measure_results(
    results: str | os.PathLike[str],
    data: str | os.PathLike[str],
    thresholds: Mapping[str, float],
    direction: Direction = "input",
    *,
    columns: Columns | None = None,
    fmt: Format | None = None,
) -> GuardrailEval:
    """Measure a results file ``guardrail_eval`` wrote, at ``thresholds``, without a request.

    Each row's label is read again from ``data``; a row edited since it was judged
    is named and left out.

    Raises:
        ResultsError: the results file cannot be read.

    """
    columns = columns or Columns()
    records = read_results(results)
    states = dataset_states(data, records, fmt=fmt, fields=columns.read_fields())
    problems: list[str] = [states.problem] if states.problem else []
    problems += [f"row {row}: changed since it was judged" for row in states.changed]
    rows: list[ScoredRow] = []
    unjudged = 0
    for record in records:
        if "error" in record:
            unjudged += 1
            continue
        number = record.get("row")
        state = states.states.get(number) if isinstance(number, int) else None
        if state is None or not isinstance(number, int):
            continue  # said above: changed, or the dataset is gone
        try:
            label = read_row_label(state.get(columns.label), state.get(columns.categories))
        except ValueError as error:
            named = f" (id {record['id']})" if record.get("id") is not None else ""
            problems.append(f"row {number}{named}: {error}")
            continue
        scores = {
            f["name"]: float(f["value"])
            for f in record.get("findings", ())
            if f.get("outcome") in ("PASSED", "FAILED") and isinstance(f.get("value"), (int, float))
        }
        seconds = record.get("seconds")
        rows.append(
            ScoredRow(
                number,
                label,
                scores,
                float(seconds) if isinstance(seconds, (int, float)) else None,
                _text(state),
                record.get("id"),
            )
        )
    quality = measure(rows, thresholds, direction, unjudged=unjudged)
    return GuardrailEval(quality, None, os.fspath(results), problems)


def _text(state: Mapping[str, Any]) -> str:
    text = state.get(QUESTION_FIELD)
    if isinstance(text, str):
        return text
    messages = state.get(MESSAGES)
    if isinstance(messages, list):
        return "\n".join(
            f"{m.get('role') or m.get('type')}: {m.get('content')}" if isinstance(m, dict) else str(m)
            for m in messages
        )
    return ""
