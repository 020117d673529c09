"""Building a prebuilt judge: its file, the caller's thresholds and options, the judge.

The shipped file is the rubric's one source; the factories only change its
numbers and parameters, so a factory and ``load_judge(name)`` build the same judge.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import yaml

from langchain_jev._criteria import JevCriterion
from langchain_jev._errors import JevConfigurationError
from langchain_jev._judge import JevJudge
from langchain_jev.judges._catalog import judge_text
from langchain_jev.spec._model import JudgeSpec, load_spec

__all__ = ["Edit", "prebuilt_criteria", "prebuilt_judge", "prebuilt_spec"]

Edit = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]
"""Changes a judge file's criteria (as data) before they are validated."""

_OPTIONS = ("min_confidence", "fail_on_inconclusive", "fail_on_error", "fail_fast")


def prebuilt_spec(
    name: str, thresholds: Mapping[str, float] | None = None, edit: Edit | None = None
) -> JudgeSpec:
    """The validated spec of a prebuilt judge, with ``thresholds`` (criterion -> minimum) applied.

    Raises:
        JevConfigurationError: a threshold names no question of the judge, or a
            choice or check (which have no minimum).

    Example:
        >>> prebuilt_spec("summary", {"faithful": 0.9}).criteria[0].minimum
        0.9

    """
    data = yaml.safe_load(judge_text(name))
    criteria: list[dict[str, Any]] = data["criteria"]
    if edit is not None:
        criteria = edit(criteria)
    by_name = {criterion["name"]: criterion for criterion in criteria}
    for criterion_name, minimum in (thresholds or {}).items():
        criterion = by_name.get(criterion_name)
        if criterion is None:
            raise JevConfigurationError(
                f"thresholds: the {name} judge has no criterion {criterion_name!r} "
                f"(its criteria: {', '.join(by_name)})"
            )
        if criterion["kind"] not in ("noul", "score"):
            raise JevConfigurationError(
                f"thresholds: criterion {criterion_name!r} of the {name} judge is a "
                f"{criterion['kind']}, which has no minimum"
            )
        criterion["minimum"] = minimum
    return load_spec({**data, "criteria": criteria})


def prebuilt_criteria(
    name: str, thresholds: Mapping[str, float] | None = None, edit: Edit | None = None
) -> list[JevCriterion]:
    """The criteria of a prebuilt judge, to compose with others."""
    spec = prebuilt_spec(name, thresholds, edit)
    return [criterion.build() for criterion in spec.criteria]


def prebuilt_judge(
    name: str,
    model: Any = None,
    thresholds: Mapping[str, float] | None = None,
    edit: Edit | None = None,
    **options: Any,
) -> JevJudge:
    """A prebuilt judge; ``options`` are `JevJudge`'s and replace the file's.

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = prebuilt_judge("summary", ScriptedDecisionModel({}), min_confidence=0.8)
        >>> judge.min_confidence, judge.question_names
        (0.8, ['faithful', 'key_points', 'concise'])

    """
    spec = prebuilt_spec(name, thresholds, edit)
    settings: dict[str, Any] = {key: getattr(spec, key) for key in _OPTIONS}
    settings.update(options)
    return JevJudge([criterion.build() for criterion in spec.criteria], model, **settings)
