"""One factory over the prebuilt judges' files: ``NAME_judge`` and ``NAME_criteria`` for each.

`factories` makes the pair for a shipped judge file whose judge takes no option
of its own (as openevals keeps one ``create_llm_as_judge(prompt=...)`` over its
prompt constants); their docstrings are written from the file (its description,
each criterion's kind, pass mark and condition) and the catalogue (the state
fields), so ``help(rag_judge)`` and the API reference say what the judge asks,
and the file stays the rubric's one source. The judges with options of their own
(`code_judge`, `json_match_judge`, `sensitive_data_judge`, `trajectory_judge`)
keep modules of their own.

Example:
    >>> judge, criteria = factories("safety")
    >>> judge.__name__, [c.name for c in criteria()]
    ('safety_judge', ['not_toxic', 'fair'])

"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import yaml

from langchain_jev._criteria import JevCriterion
from langchain_jev._judge import JevJudge
from langchain_jev.judges._build import prebuilt_criteria, prebuilt_judge
from langchain_jev.judges._catalog import PrebuiltJudge, prebuilt

__all__ = [
    "CriteriaFactory",
    "JudgeFactory",
    "conversation_criteria",
    "conversation_judge",
    "conversation_labels_criteria",
    "conversation_labels_judge",
    "correctness_criteria",
    "correctness_judge",
    "factories",
    "image_criteria",
    "image_judge",
    "quality_criteria",
    "quality_judge",
    "rag_criteria",
    "rag_judge",
    "safety_criteria",
    "safety_judge",
    "security_criteria",
    "security_judge",
    "summary_criteria",
    "summary_judge",
    "voice_criteria",
    "voice_judge",
]


class JudgeFactory(Protocol):
    """``NAME_judge(model=None, *, thresholds=None, **options)``: the prebuilt judge ``NAME``.

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> make: JudgeFactory = factories("summary")[0]
        >>> make(ScriptedDecisionModel({}), min_confidence=0.8).min_confidence
        0.8

    """

    __name__: str

    def __call__(
        self, model: Any = None, *, thresholds: Mapping[str, float] | None = None, **options: Any
    ) -> JevJudge:
        """The judge, with ``model`` (None: Jev from the environment), ``thresholds`` and options."""
        ...


class CriteriaFactory(Protocol):
    """``NAME_criteria(*, thresholds=None)``: the criteria of the prebuilt judge ``NAME``, to compose.

    Example:
        >>> make: CriteriaFactory = factories("safety")[1]
        >>> make(thresholds={"fair": 0.9})[1].minimum
        0.9

    """

    __name__: str

    def __call__(self, *, thresholds: Mapping[str, float] | None = None) -> list[JevCriterion]:
        """The criteria, with ``thresholds`` (criterion -> minimum) replacing the file's."""
        ...


def factories(name: str) -> tuple[JudgeFactory, CriteriaFactory]:
    """``NAME_judge`` and ``NAME_criteria`` for the prebuilt judge ``name``, documented from its file.

    Raises:
        JevConfigurationError: no prebuilt judge has that name.

    """
    entry = prebuilt(name)  # an unknown name fails here, at import, not at the first call

    def judge(
        model: Any = None, *, thresholds: Mapping[str, float] | None = None, **options: Any
    ) -> JevJudge:
        return prebuilt_judge(name, model, thresholds, **options)

    def criteria(*, thresholds: Mapping[str, float] | None = None) -> list[JevCriterion]:
        return prebuilt_criteria(name, thresholds)

    data = yaml.safe_load(entry.path.read_text(encoding="utf-8"))
    _name(judge, f"{name}_judge", _judge_doc(entry, data))
    _name(criteria, f"{name}_criteria", _criteria_doc(name, data))
    return judge, criteria


def _name(function: Any, name: str, doc: str) -> None:
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc


def _judge_doc(entry: PrebuiltJudge, data: dict[str, Any]) -> str:
    name = entry.name
    asked = [item for item in data["criteria"] if item["kind"] != "check"]
    fields = ", ".join(f"``{field}``" for field in entry.needs)
    if entry.reads:
        fields += "; " + ", ".join(f"``{field}``" for field in entry.reads) + " when given"
    lines = [
        f"The ``{name}`` judge: {entry.asks}.",
        "",
        " ".join(data["description"].split()),
        "",
        f"Its criteria, as its file has them (``judge_text({name!r})`` prints it):",
        "",
        *(f"- ``{item['name']}``: {_rubric(item)}" for item in data["criteria"]),
        "",
        f"State fields: {fields}.",
        "",
        "Args:",
        "    model: anything `JevJudge` accepts; None for Jev from the environment.",
        "    thresholds: criterion -> minimum, replacing the file's.",
        "    options: `JevJudge` options (``min_confidence``, ``fail_on_inconclusive``, ...),",
        "        replacing the file's.",
        "",
        "Example:",
        "    >>> from langchain_jev.testing import ScriptedDecisionModel",
        f"    >>> {name}_judge(ScriptedDecisionModel({{}})).question_names",
        f"    {[item['name'] for item in asked]!r}",
        "",
    ]
    return "\n".join(lines)


def _criteria_doc(name: str, data: dict[str, Any]) -> str:
    lines = [
        f"The ``{name}`` judge's criteria, to compose with others in one `JevJudge`.",
        "",
        "Args:",
        "    thresholds: criterion -> minimum, replacing the file's.",
        "",
        "Example:",
        f"    >>> [c.name for c in {name}_criteria()]",
        f"    {[item['name'] for item in data['criteria']]!r}",
        "",
    ]
    return "\n".join(lines)


def _rubric(item: Mapping[str, Any]) -> str:
    """One criterion of a judge file in words: its kind, when it passes, when it is asked."""
    kind = item["kind"]
    if kind == "noul":
        passes = f"passes at yes >= {item['minimum']}"
    elif kind == "score":
        passes = f"passes at level {item['minimum']} of 0-{len(item['levels']) - 1}"
    elif kind == "choice" and set(item["accepted"]) == set(item["options"]):
        passes = f"any of its {len(item['options'])} labels passes (a label to count, not a gate)"
    elif kind == "choice":
        passes = "passes on " + " or ".join(f"``{label}``" for label in item["accepted"])
    else:
        passes = "decided by code, with no request"
    condition = item.get("applies_when")
    if condition is None:
        return f"{kind}, {passes}"
    verb = "run" if kind == "check" else "asked"
    return f"{kind}, {passes}; {verb} only when {_condition(condition)}"


def _condition(condition: Mapping[str, Any], negated: bool = False) -> str:
    """A file's ``applies_when`` in words: ``supporting_context`` is given, ``a`` holds, ..."""
    ((key, value),) = condition.items()
    if key == "not":
        return _condition(value, not negated)
    if key in ("all", "any"):
        word = " or " if (key == "any") != negated else " and "  # not all: any fails; not any: all fail
        return word.join(_condition(inner, negated) for inner in value)
    if key == "present":
        fields = [value] if isinstance(value, str) else list(value)
        return " and ".join(f"``{field}`` is {'not ' if negated else ''}given" for field in fields)
    return f"``{key}`` {'does not hold' if negated else 'holds'}"


conversation_judge, conversation_criteria = factories("conversation")
conversation_labels_judge, conversation_labels_criteria = factories("conversation_labels")
correctness_judge, correctness_criteria = factories("correctness")
image_judge, image_criteria = factories("image")
quality_judge, quality_criteria = factories("quality")
rag_judge, rag_criteria = factories("rag")
safety_judge, safety_criteria = factories("safety")
security_judge, security_criteria = factories("security")
summary_judge, summary_criteria = factories("summary")
voice_judge, voice_criteria = factories("voice")
