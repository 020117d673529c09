"""A judge as a LangSmith decision-model rule: the rule's body, and what cannot travel with it.

Pure: `decision_rule` reads a `JevJudge` and returns the `DecisionRule` to create,
or refuses; nothing is sent. `langchain_jev.online._deployment` sends it.

- **Questions.** Each `Noul`, `Score` and `Choice` criterion becomes a rule question
  under its criterion's name (the feedback key): a noul with its ``yes``/``no``
  meanings (one given alone is said in the instructions), a score with its levels
  (2 to 10, lowest first), a choice with its options and their descriptions (2 to 255).
  Instructions and levels that are JSON become JSON text; media is refused.
- **Variables.** The prompt is the judge's state: ``user_question`` and
  ``assistant_answer`` always, and every other state field a question's instructions
  name (`named_state_fields`), each a variable mapped to a run field by the reader's
  table (`langchain_jev._runs`: the first key it reads each field from):

  ======================  =========================
  prompt variable         run field (default)
  ======================  =========================
  ``user_question``       ``input.question``
  ``assistant_answer``    ``output.answer``
  ``expected_output``     ``reference.answer`` (a dataset's experiments only)
  ``supporting_context``  ``output.context``
  ======================  =========================

  ``variable_mapping`` overrides any of them and adds variables of its own (a run whose
  inputs are a conversation: ``{"user_question": "input.messages"}``). ``tool_calls``
  come from a run's tool child runs, which no variable reaches, so a question that
  names them needs a mapping.
- **What stays here.** The rule records answers (a probability of yes, a level, a
  label); the package decides. Thresholds, accepted labels and the verdict
  (``jev_pass``) are not applied by the rule, and code checks are not run: said in
  `DecisionRule.notes` (a warning each), naming the criteria. A conditional criterion
  (``applies_when``, ``when_chosen``, ``when_passed``) is refused: the rule would ask
  it of every run and record an answer where the judge decides NOT_APPLICABLE, a wrong
  feedback rather than a missing one.

The template is ``f-string``: a mustache ``{{variable}}`` HTML-escapes what it inserts
(``<`` becomes ``&lt;``), so the model would read an answer other than the run's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_core.decisions import Choice, Noul, Score

from langchain_jev._criteria import JevCriterion
from langchain_jev._errors import JevConfigurationError
from langchain_jev._feedback import number
from langchain_jev._input import (
    ANSWER_FIELD,
    CONTEXT_FIELD,
    EXPECTED_FIELD,
    QUESTION_FIELD,
    TOOL_CALLS_FIELD,
    named_state_fields,
)
from langchain_jev._runs import ANSWER_KEYS, CONTEXT_KEYS, EXPECTED_KEYS, QUESTION_KEYS
from langchain_jev.online._provider import RuleModel, rule_model

if TYPE_CHECKING:
    from langchain_jev._judge import JevJudge

__all__ = [
    "DEFAULT_MAPPING",
    "INPUTS",
    "OUTPUTS",
    "REFERENCE",
    "DecisionRule",
    "decision_rule",
]

INPUTS = "input"
"""The run field of a run's inputs, as a rule's variable mapping names it."""
OUTPUTS = "output"
"""The run field of a run's outputs."""
REFERENCE = "reference"
"""The run field of the reference outputs (the dataset example's; experiments only)."""

DEFAULT_MAPPING: Mapping[str, str] = {
    QUESTION_FIELD: f"{INPUTS}.{QUESTION_KEYS[0]}",
    ANSWER_FIELD: f"{OUTPUTS}.{ANSWER_KEYS[0]}",
    EXPECTED_FIELD: f"{REFERENCE}.{EXPECTED_KEYS[0]}",
    CONTEXT_FIELD: f"{OUTPUTS}.{CONTEXT_KEYS[0]}",
}
"""The run field each state field's variable reads by default (the first key `langchain_jev._runs` reads)."""

_ALWAYS = (QUESTION_FIELD, ANSWER_FIELD)
"""The variables every rule's prompt has: what a judge's state always carries."""
_ORDER = (QUESTION_FIELD, ANSWER_FIELD, EXPECTED_FIELD, CONTEXT_FIELD, TOOL_CALLS_FIELD)
_HINT = {EXPECTED_FIELD: "input.expected", TOOL_CALLS_FIELD: "output.messages"}
"""An example run field in the message of a field without a default mapping."""
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_LEVELS = (2, 10)
_OPTIONS = (2, 255)
_ROLE = "human"
_NAME_LIMIT = 120
TEMPLATE_FORMAT = "f-string"
"""How the rule's prompt is filled (not mustache, which HTML-escapes what it inserts)."""


@dataclass(frozen=True)
class DecisionRule:
    """The LangSmith decision-model rule a judge becomes, and what did not travel with it.

    `body` is what ``evaluators.create_decision_model`` is given, but for the target
    (``session_id`` / ``dataset_id``), the sampling, the filter and the grouping.

    Example:
        >>> from langchain_core.decisions import Score
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> rubric = Score(instructions="How helpful is `assistant_answer`?", criteria=["No", "Yes"])
        >>> rule = decision_rule(JevJudge([JevCriterion.score("helpful", rubric, 1)], model="jev:jev-2"))
        >>> rule.body()["questions"]["helpful"]["levels"], rule.body()["template_format"]
        (['No', 'Yes'], 'f-string')

    """

    display_name: str
    """The rule's name in LangSmith."""
    prompt: tuple[tuple[str, str], ...]
    """The (role, template) pairs the model reads: the judge's state, one variable per field."""
    questions: Mapping[str, Mapping[str, Any]]
    """The rule's questions, keyed by criterion name (each a feedback key), in the judge's order."""
    variable_mapping: Mapping[str, str]
    """Each prompt variable -> the run field it is read from."""
    model: RuleModel
    """The decision model the rule asks."""
    notes: tuple[str, ...] = field(default=())
    """What the package decides and the rule does not, each naming the criteria affected."""

    def body(self) -> dict[str, Any]:
        """The rule's fields as ``create_decision_model`` takes them (JSON-ready)."""
        return {
            "display_name": self.display_name,
            "prompt": [list(pair) for pair in self.prompt],
            "questions": {name: dict(question) for name, question in self.questions.items()},
            "template_format": TEMPLATE_FORMAT,
            "variable_mapping": dict(self.variable_mapping),
            **self.model.body(),
        }


def decision_rule(
    judge: JevJudge,
    *,
    variable_mapping: Mapping[str, str] | None = None,
    display_name: str | None = None,
    reference: bool = False,
) -> DecisionRule:
    """The decision-model rule ``judge`` becomes (see the module documentation).

    Args:
        judge: the judge to deploy; its decision model is the rule's.
        variable_mapping: prompt variable -> run field, over the defaults (`DEFAULT_MAPPING`).
        display_name: the rule's name; by default named after the judge's questions.
        reference: the runs have reference outputs (a dataset's experiments), so
            ``expected_output`` has a default mapping.

    Raises:
        JevConfigurationError: a criterion cannot travel (conditional, a question the
            rule cannot ask, a field no run field gives), the decision model cannot
            (a chat model, a jury), or a mapping is malformed; the message names each.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> polite = Noul(instructions="Is `assistant_answer` polite?")
        >>> judge = JevJudge([JevCriterion.noul("polite", polite, 0.7)], model="jev:jev-latest")
        >>> rule = decision_rule(judge)
        >>> rule.questions["polite"]
        {'type': 'noul', 'instructions': 'Is `assistant_answer` polite?'}
        >>> rule.variable_mapping
        {'user_question': 'input.question', 'assistant_answer': 'output.answer'}

    """
    _refuse_conditions(judge.criteria)
    asked = [c for c in judge.criteria if c.is_question]
    questions = {c.name: _question(c) for c in asked}
    mapping = _mapping(asked, _given(variable_mapping), reference)
    template = "\n\n".join(f"{name}:\n{{{name}}}" for name in mapping)
    return DecisionRule(
        display_name=_display_name(display_name, asked),
        prompt=((_ROLE, template),),
        questions=questions,
        variable_mapping=mapping,
        model=rule_model(judge.model),
        notes=_notes(judge.criteria),
    )


def _refuse_conditions(criteria: Sequence[JevCriterion]) -> None:
    conditional: list[str] = []
    for criterion in criteria:
        said: list[str] = []
        if criterion.condition is not None:
            said.append("applies_when")
        dep = criterion.depends_on
        if dep is not None and dep.labels is None:
            said.append(f"when_passed {dep.name!r}")
        elif dep is not None:
            said.append(f"when_chosen {dep.name!r}: {', '.join(sorted(dep.labels or ()))}")
        if said:
            conditional.append(f"{criterion.name!r} ({'; '.join(said)})")
    if conditional:
        raise JevConfigurationError(
            f"criteria {', '.join(conditional)} cannot travel to a LangSmith rule: a rule asks every "
            "question of every run it samples, so it would record an answer where this judge decides "
            "NOT_APPLICABLE; deploy a judge of the other criteria (JevJudge([c for c in judge.criteria "
            "if c.condition is None and c.depends_on is None], judge.model)), or judge the runs with "
            "the monitor, which decides them"
        )


def _question(criterion: JevCriterion) -> dict[str, Any]:
    question = criterion.question
    name = criterion.name
    instructions = _text(name, "instructions", question.instructions if question is not None else None)
    if isinstance(question, Noul):
        told = question.criteria
        yes = None if told is None or told.true is None else _text(name, "criteria.true", told.true)
        no = None if told is None or told.false is None else _text(name, "criteria.false", told.false)
        if yes is not None and no is not None:
            return {"type": "noul", "instructions": instructions, "yes": yes, "no": no}
        alone = [f"A {side} answer means: {said}" for side, said in (("yes", yes), ("no", no)) if said]
        return {"type": "noul", "instructions": "\n\n".join([instructions, *alone])}
    if isinstance(question, Score):
        levels = [_text(name, f"level {index}", level) for index, level in enumerate(question.criteria)]
        _count(name, "levels", len(levels), _LEVELS)
        return {"type": "score", "instructions": instructions, "levels": levels}
    if not isinstance(question, Choice):
        raise JevConfigurationError(f"criterion {name!r}: a rule asks noul, score and choice questions only")
    options = {
        label: None if said is None else _text(name, f"option {label!r}", said)
        for label, said in question.criteria.items()
    }
    _count(name, "options", len(options), _OPTIONS)
    described = any(said is not None for said in options.values())
    return {
        "type": "choice",
        "instructions": instructions,
        "options": options if described else list(options),
    }


def _text(criterion: str, where: str, content: Any) -> str:
    """Text as it is, other JSON as JSON text; empty text and media refused (a rule takes text)."""
    if isinstance(content, str):
        if content.strip():
            return content
    elif isinstance(content, (dict, list, int, float, bool)) and not _media(content):
        return json.dumps(content, ensure_ascii=False)
    kind = (
        "media" if _media(content) else "empty text" if isinstance(content, str) else type(content).__name__
    )
    raise JevConfigurationError(
        f"criterion {criterion!r}: its {where} is {kind}, which a LangSmith rule cannot ask: a rule "
        "question's instructions, levels and options are text"
    )


def _media(value: Any) -> bool:
    if isinstance(value, dict):
        return value.get("type") in ("image", "image_url", "file", "audio", "video") or any(
            _media(inner) for inner in value.values()
        )
    return isinstance(value, list) and any(_media(inner) for inner in value)


def _count(criterion: str, what: str, count: int, bounds: tuple[int, int]) -> None:
    low, high = bounds
    if not low <= count <= high:
        raise JevConfigurationError(
            f"criterion {criterion!r} has {count} {what}; a LangSmith rule question takes {low} to {high}"
        )


def _given(mapping: Mapping[str, str] | None) -> dict[str, str]:
    if mapping is None:
        return {}
    if not isinstance(mapping, Mapping):
        raise JevConfigurationError(
            f"variable_mapping must map prompt variables to run fields, got {type(mapping).__name__}"
        )
    given: dict[str, str] = {}
    for variable, path in mapping.items():
        if not isinstance(variable, str) or not _VARIABLE.fullmatch(variable):
            raise JevConfigurationError(
                f"variable_mapping: {variable!r} is not a prompt variable's name (letters, digits and "
                "underscores, not starting with a digit)"
            )
        if not isinstance(path, str) or not path.strip() or any(c in path for c in "{}\n"):
            raise JevConfigurationError(
                f"variable_mapping[{variable!r}] must name a run field, such as 'input.question' or "
                f"'output', got {path!r}"
            )
        given[variable] = path.strip()
    return given


def _mapping(asked: Sequence[JevCriterion], given: Mapping[str, str], reference: bool) -> dict[str, str]:
    named: dict[str, list[str]] = {}
    for criterion in asked:
        question = criterion.question
        for state_field in named_state_fields(question.instructions if question is not None else ""):
            named.setdefault(state_field, []).append(criterion.name)
    unmapped: list[str] = []
    mapping: dict[str, str] = {}
    for state_field in _ORDER:
        if state_field not in named and state_field not in _ALWAYS and state_field not in given:
            continue
        path = given.get(state_field) or _default(state_field, reference)
        if path is None:
            unmapped.append(_unmapped(state_field, named.get(state_field, [])))
            continue
        mapping[state_field] = path
    if unmapped:
        raise JevConfigurationError("; ".join(unmapped))
    mapping.update((variable, path) for variable, path in given.items() if variable not in mapping)
    return mapping


def _default(state_field: str, reference: bool) -> str | None:
    if state_field == EXPECTED_FIELD and not reference:
        return None
    return DEFAULT_MAPPING.get(state_field)


def _unmapped(state_field: str, criteria: Sequence[str]) -> str:
    whose = ", ".join(repr(name) for name in criteria)
    if state_field == EXPECTED_FIELD:
        why = "a reference output, which only a dataset's experiments have (deploy with dataset=)"
    else:
        why = "read from a run's tool child runs, which no rule variable reaches"
    return (
        f"criteria {whose} name `{state_field}`, {why}; map it to a run field with "
        f"variable_mapping={{{state_field!r}: {_HINT[state_field]!r}}}, or judge the runs with the monitor"
    )


def _notes(criteria: Sequence[JevCriterion]) -> tuple[str, ...]:
    conditions = [f"{c.name!r} ({_condition(c)})" for c in criteria if c.is_question]
    notes = [
        "the rule records answers, not verdicts: the pass conditions of "
        f"{', '.join(conditions)} and the overall jev_pass are decided by the package, not by the "
        "rule (judge the runs with the monitor for verdicts)"
    ]
    checks = [repr(c.name) for c in criteria if not c.is_question]
    if checks:
        notes.append(
            f"the code check{'s' if len(checks) > 1 else ''} {', '.join(checks)} "
            f"{'do' if len(checks) > 1 else 'does'} not travel: the rule writes no feedback for "
            f"{'them' if len(checks) > 1 else 'it'} (checks run in the package only)"
        )
    return tuple(notes)


def _condition(criterion: JevCriterion) -> str:
    if criterion.kind == "choice":
        return "accepted: " + ", ".join(sorted(criterion.accepted))
    if criterion.kind == "score":
        return f"level >= {number(criterion.minimum or 0.0)}"
    return f"yes >= {number(criterion.minimum or 0.0)}"


def _display_name(given: str | None, asked: Sequence[JevCriterion]) -> str:
    if given is not None:
        if not isinstance(given, str) or not given.strip():
            raise JevConfigurationError(f"display_name must be a non-empty string, got {given!r}")
        return given.strip()
    name = "langchain-jev: " + ", ".join(c.name for c in asked)
    return name if len(name) <= _NAME_LIMIT else name[: _NAME_LIMIT - 3] + "..."
