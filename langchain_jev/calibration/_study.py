"""Calibrating a judge against human labels: judge labelled rows (or reuse their records), then measure.

`calibrate` (and `acalibrate`) read the rows (mappings or LangSmith
``Example``s), judge them ``repeat`` times (past any cache when more than once),
pair the records with the rows' labels (`langchain_jev.calibration._labels`) and
return the `Calibration` of `langchain_jev.calibration._measure`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from typing_extensions import Unpack

from langchain_jev._errors import CalibrationError
from langchain_jev._judge import JevJudge
from langchain_jev.calibration._labels import label_records
from langchain_jev.calibration._measure import Calibration, build_calibration

__all__ = ["CalibrationOptions", "acalibrate", "calibrate"]


class CalibrationOptions(TypedDict, total=False):
    """What `calibrate` and `acalibrate` take besides the judge, the rows and the labels (each optional).

    `calibrate` documents each; the defaults are ``overall=None``, ``records=None``,
    ``repeat=1``, ``concurrency=8``, ``seed=0`` and ``rounds=1000``.
    """

    overall: str | None
    records: Sequence[Mapping[str, Any]] | None
    repeat: int
    concurrency: int
    seed: int
    rounds: int


def calibrate(
    judge: JevJudge,
    rows: Iterable[Any],
    labels: str | Mapping[str, str] | None = None,
    **options: Unpack[CalibrationOptions],
) -> Calibration:
    """Judge labelled rows (or reuse their ``records``) and measure the judge against the labels.

    Args:
        judge: the judge to calibrate.
        rows: mappings (a dataset row: ``question``/``answer``/... columns as on the command
            line, with the label fields), or LangSmith ``Example``s (the state from their
            inputs, the labels from their reference outputs).
        labels: the field of the overall label (it stands in for every criterion), or a
            mapping of criterion name to the field of its own label.
        overall: the overall label's field, when ``labels`` is a mapping.
        records: result records of these rows judged already (from ``langchain-jev judge``,
            row-aligned): no request is made for them.
        repeat: ask the model this many times per row (a cache in front of the judge's model
            is bypassed) and report the stability of each criterion.
        concurrency: rows judged at once.
        seed: the seed of the bootstrap interval of kappa.
        rounds: the rounds of that bootstrap.

    Raises:
        CalibrationError: a label that cannot be read, a row that cannot be judged, or no label.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> model = ScriptedDecisionModel({"polite": lambda state, q: 0.9 if "please" in
        ...     state["assistant_answer"] else 0.3})
        >>> judge = JevJudge([JevCriterion.noul("polite", Noul(
        ...     instructions="Is `assistant_answer` polite?"), 0.95)], model=model)
        >>> rows = [{"question": "Door?", "answer": a, "human": h} for a, h in [
        ...     ("Close it please", True), ("Close it", False), ("please shut it", True), ("Shut it", False)]]
        >>> calibration = calibrate(judge, rows, "human")
        >>> calibration.criterion("polite").confusion.accuracy
        0.5
        >>> suggestion = calibration.suggest()
        >>> suggestion.minimums["polite"], suggestion.after.confusion.accuracy
        (0.9, 1.0)

    """
    study = _Study.of(judge, rows, labels, **options)
    while study.wanted:
        study.add(study.judge_for_next().batch(list(study.inputs), study.config, return_exceptions=True))
    return study.finish()


async def acalibrate(
    judge: JevJudge,
    rows: Iterable[Any],
    labels: str | Mapping[str, str] | None = None,
    **options: Unpack[CalibrationOptions],
) -> Calibration:
    """Asynchronous `calibrate`: the rows are judged on the running event loop.

    Example:
        >>> import asyncio
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = JevJudge([JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.5)],
        ...     model=ScriptedDecisionModel({"polite": lambda state, q: float(state["assistant_answer"])}))
        >>> rows = [{"answer": "0.8", "ok": True}, {"answer": "0.3", "ok": False}]
        >>> asyncio.run(acalibrate(judge, rows, "ok")).criterion("polite").confusion.accuracy
        1.0

    """
    study = _Study.of(judge, rows, labels, **options)
    while study.wanted:
        study.add(
            await study.judge_for_next().abatch(list(study.inputs), study.config, return_exceptions=True)
        )
    return study.finish()


@dataclass
class _Study:
    """What `calibrate` and `acalibrate` share: the rows read, the runs so far, and the finish."""

    judge: JevJudge
    inputs: list[Any]
    sources: list[Mapping[str, Any]]
    ids: list[Any]
    labels: str | Mapping[str, str] | None
    overall: str | None
    repeat: int
    concurrency: int
    seed: int
    rounds: int
    runs: list[list[dict[str, Any]]] = field(default_factory=list)

    @classmethod
    def of(
        cls,
        judge: JevJudge,
        rows: Iterable[Any],
        labels: str | Mapping[str, str] | None,
        *,
        overall: str | None = None,
        records: Sequence[Mapping[str, Any]] | None = None,
        repeat: int = 1,
        concurrency: int = 8,
        seed: int = 0,
        rounds: int = 1000,
    ) -> _Study:
        if repeat < 1:
            raise CalibrationError(f"repeat must be at least 1, got {repeat}")
        items = list(rows)
        label_fields: set[str] = set()
        if isinstance(labels, str):
            label_fields.add(labels)
        elif labels is not None:
            label_fields.update(labels.values())
        if overall:
            label_fields.add(overall)
        inputs, sources, ids = _inputs(items, label_fields)
        study = cls(judge, inputs, sources, ids, labels, overall, repeat, concurrency, seed, rounds)
        if records is not None:
            if len(records) != len(items):
                raise CalibrationError(f"{len(records)} records for {len(items)} rows")
            study.runs.append([dict(r) for r in records])
        return study

    @property
    def wanted(self) -> bool:
        """True while a run of the rows is still to be judged."""
        return len(self.runs) < self.repeat

    def judge_for_next(self) -> JevJudge:
        """The judge of the next run: past any cache when the rows are asked more than once."""
        return _without_cache(self.judge) if self.repeat > 1 else self.judge

    def add(self, verdicts: Sequence[Any]) -> None:
        """The records of a run's verdicts (an exception: that row's error record)."""
        self.runs.append(_records_of(self.inputs, self.ids, verdicts))

    @property
    def config(self) -> RunnableConfig:
        """The batch config of a run: ``concurrency`` rows at once."""
        return {"max_concurrency": self.concurrency}

    def finish(self) -> Calibration:
        """The calibration of the runs: the first run's records against the labels, the rest as repeats."""
        labelled = label_records(self.judge, self.runs[0], self.sources, self.labels, self.overall)
        repeats = self.runs if self.repeat > 1 else ()
        return build_calibration(self.judge, labelled, repeats=repeats, seed=self.seed, rounds=self.rounds)


def _inputs(
    items: Sequence[Any], label_fields: set[str]
) -> tuple[list[Any], list[Mapping[str, Any]], list[Any]]:
    from langchain_jev._input import JevJudgeInput
    from langchain_jev.datasets._rows import FieldMap, map_row

    fields = FieldMap.of(ignored=sorted(label_fields))
    inputs: list[Any] = []
    sources: list[Mapping[str, Any]] = []
    ids: list[Any] = []
    for index, item in enumerate(items, 1):
        if isinstance(item, Mapping):
            data: Mapping[str, Any] = item
            source: Mapping[str, Any] = item
        elif hasattr(item, "inputs") and hasattr(item, "outputs"):
            data = (
                {"id": str(item.id), **dict(item.inputs or {})}
                if getattr(item, "id", None)
                else dict(item.inputs or {})
            )
            source = {**data, **dict(item.outputs or {})}
        elif isinstance(item, JevJudgeInput):
            raise CalibrationError(
                f"row {index}: a JevJudgeInput carries no label; give a mapping or an Example"
            )
        else:
            raise CalibrationError(
                f"row {index}: expected a mapping or a LangSmith Example, got {type(item).__name__}"
            )
        mapped = map_row(data, fields, ())
        if mapped.input is None:
            raise CalibrationError(f"row {index}: {mapped.problem}")
        inputs.append(mapped.input)
        sources.append(source)
        ids.append(mapped.row_id)
    return inputs, sources, ids


def _without_cache(judge: JevJudge) -> JevJudge:
    from langchain_jev.models._cache import CachedDecisionModel

    model = judge.model
    if isinstance(model, CachedDecisionModel):
        return judge.model_copy(update={"model": model.inner})
    return judge


def _records_of(inputs: Sequence[Any], ids: Sequence[Any], verdicts: Sequence[Any]) -> list[dict[str, Any]]:
    from langchain_jev.datasets._rows import row_key
    from langchain_jev.datasets.results import error_record, verdict_record

    records = []
    for number, (data, row_id, verdict) in enumerate(zip(inputs, ids, verdicts, strict=True), 1):
        key = row_key(data.to_state())
        if isinstance(verdict, BaseException):
            records.append(error_record(number, number, key, row_id, verdict))
        else:
            records.append(verdict_record(number, number, key, row_id, verdict))
    return records
