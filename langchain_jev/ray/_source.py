"""What each Ray actor needs to build its judge once: plain, picklable data.

A `JudgeSource` holds the judge as a validated judge file (its JSON-ready
data, so a judge file or a prebuilt judge's name is resolved and checked on
the driver, before any actor starts) or as a picklable factory, together with
the model settings, the column mapping and the fields the judge needs. The
API key is never part of it: each actor reads ``TYPESAFE_API_KEY`` from its
own environment (on a cluster, pass it with ``runtime_env={"env_vars": ...}``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_jev._errors import JevConfigurationError
from langchain_jev._input import ANSWER_FIELD
from langchain_jev._judge import JevJudge
from langchain_jev.datasets._model import ModelSettings, build_model
from langchain_jev.datasets._rows import FieldMap

if TYPE_CHECKING:
    from langchain_jev.datasets._pacing import RateLimiter

__all__ = ["JudgeFactory", "JudgeSource"]

JudgeFactory = Callable[[], JevJudge]
"""A picklable function that builds the judge (with its own decision model) in each actor."""


@dataclass(frozen=True)
class JudgeSource:
    """How an actor builds the judge: a judge file's data or a factory, plus the model settings.

    Example:
        >>> source = JudgeSource.of({"criteria": [{"kind": "noul", "name": "ok",
        ...     "instructions": "Is `assistant_answer` fine?", "minimum": 0.5}]})
        >>> source.criteria
        (('ok', 'noul'),)

    """

    spec: Mapping[str, Any] | None = None
    """The judge file, validated on the driver, as JSON-ready data."""
    factory: JudgeFactory | None = None
    """Or a function that builds the judge."""
    settings: ModelSettings = field(default_factory=ModelSettings)
    """The decision model a judge file is built with (a factory brings its own)."""
    fields: FieldMap = field(default_factory=FieldMap)
    """Which columns hold the question, the answer and the rest."""
    required: tuple[str, ...] = (ANSWER_FIELD,)
    """State fields a row must have to be judged."""
    criteria: tuple[tuple[str, str], ...] = ()
    """The judge's criteria as (name, kind), for the report."""
    from_csv: bool = False
    """Rows come from CSV, whose cells are text (JSON cells are read as such)."""

    @classmethod
    def of(
        cls,
        judge: Any,
        *,
        settings: ModelSettings | None = None,
        fields: FieldMap | None = None,
        from_csv: bool = False,
    ) -> JudgeSource:
        """The source of ``judge``: a judge file path, a prebuilt judge's name, a mapping or a factory.

        A judge file, a name or a mapping is loaded and validated here, so a bad
        file fails before the cluster does any work.

        Raises:
            JudgeSpecError: the judge file is invalid.
            JevConfigurationError: ``judge`` is none of the above.

        """
        from langchain_jev.spec import JudgeSpec, load_spec

        fields = fields or FieldMap()
        settings = settings or ModelSettings()
        if isinstance(judge, JevJudge):
            raise JevConfigurationError(
                "judge_dataset needs a judge each actor can build: pass a judge file, a prebuilt "
                "judge's name, or a picklable function that returns the JevJudge"
            )
        if isinstance(judge, (str, os.PathLike, Mapping, JudgeSpec)):
            spec = judge if isinstance(judge, JudgeSpec) else load_spec(judge)
            data = spec.model_dump(mode="json", by_alias=True, exclude_unset=True)
            criteria = tuple((c.name, c.kind) for c in spec.criteria)
            return cls(data, None, settings, fields, tuple(spec.required_fields()), criteria, from_csv)
        if callable(judge):
            return cls(None, judge, settings, fields, from_csv=from_csv)
        raise JevConfigurationError(
            f"judge must be a judge file, a prebuilt judge's name, a mapping or a function, "
            f"got {type(judge).__name__}"
        )

    def build(self, limiter: RateLimiter | None = None) -> tuple[JevJudge, list[Any]]:
        """Build the judge (in an actor) and what to close after; requests wait for ``limiter``."""
        if self.spec is not None:
            from langchain_jev.spec import load_spec

            spec = load_spec(self.spec)
            model, closers = build_model(self.settings, limiter, spec.decision_model())
            return spec.build(model), closers
        assert self.factory is not None
        judge = self.factory()
        if not isinstance(judge, JevJudge):
            raise JevConfigurationError(
                f"the judge factory must return a JevJudge, got {type(judge).__name__}"
            )
        if limiter is not None:
            from langchain_jev.datasets._pacing import PacedDecisionModel

            judge = judge.model_copy(update={"model": PacedDecisionModel(inner=judge.model, limiter=limiter)})
        return judge, []
