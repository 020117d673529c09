"""Judges as files: a YAML or JSON document that describes a `JevJudge`.

A judge file lists criteria of each kind with their questions and pass
conditions, plus the judge's options. Code checks are conditions written as
data (see `langchain_jev.spec.conditions`) or a function named by import path.

Every key, criterion kind and condition, with one example each, is on the judge-file
reference page (``docs/judge-files.md``, written by `langchain_jev.spec.reference`).

A file may name the model that judges with it (used when the caller gives none):
a ``"provider:model"`` string, or a jury of them:

.. code-block:: yaml

    model:
      jury: [jev:jev-latest, openai:gpt-4o-mini, {name: claude, model: anthropic:claude-3-5-haiku-latest}]
      combine: mean          # or vote, or max (for guardrails: any member's flag stands)
      disagreement: 0.34     # the share of members that may dissent; null: never INCONCLUSIVE
      quorum: 2              # members that must answer each question (default: all)

``load_judge(path_or_mapping, model=...)`` builds the judge, or raises a
`JudgeSpecError` whose every line names its place (``criteria[2].minimum: must
be between 0 and 1, got 1.5``); no half-built judge is ever returned.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, NoReturn

import yaml
from langchain_core.decisions import BaseDecisionModel, Choice, Noul, NoulCriteria, Score
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    JsonValue,
    PrivateAttr,
    Tag,
    ValidationError,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from langchain_jev.criteria import JevCriterion, validate_criteria
from langchain_jev.errors import JevConfigurationError
from langchain_jev.input import ANSWER_FIELD, JevJudgeInput, named_state_fields
from langchain_jev.judge import JevJudge
from langchain_jev.spec.builtins import BUILTIN_FORMS
from langchain_jev.spec.code import (
    AllowCode,
    check_allow_code,
    code_references,
    refused_code,
    trust_test,
)
from langchain_jev.spec.conditions import (
    ConditionSpec,
    Resolve,
    compile_condition,
    condition_fields,
    import_callable,
    schema_description,
)
from langchain_jev.spec.errors import (
    MODEL_MAPPING_TAG,
    MODEL_NAME_TAG,
    JudgeSpecError,
    Problem,
    engine_problem,
    pydantic_problems,
)
from langchain_jev.spec.reading import check_depth, compose, parse_text, read_file

__all__ = [
    "CheckSpec",
    "ChoiceSpec",
    "ConditionSpec",
    "CriterionSpec",
    "JudgeSpec",
    "JudgeSpecError",
    "JuryMemberSpec",
    "JurySpec",
    "ModelSpec",
    "NoulSpec",
    "ScoreSpec",
    "WhenChosen",
    "judge_schema",
    "load_judge",
    "load_spec",
]

_IMPORT_PATH = r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$"
_MODEL_NAME = re.compile(r"[A-Za-z][\w-]{0,63}:\S{1,200}")
"""A model named as ``provider:model`` (``jev:NAME`` for Jev); bounded, so matching is too."""


def _model_name(value: str) -> str:
    if len(value) > 270 or not _MODEL_NAME.fullmatch(value):
        raise ValueError(
            "must name its provider, as provider:model (jev:NAME for Jev, e.g. openai:gpt-4o-mini), "
            f"got {value[:80]!r}"
        )
    return value


def _kind(value: Any) -> str:
    """Which form of a model (or of a jury member) a file gives: a name, or a mapping."""
    return MODEL_NAME_TAG if isinstance(value, str) else MODEL_MAPPING_TAG


_MODEL_SCHEMA = WithJsonSchema({"type": "string", "pattern": "^[A-Za-z][\\w-]*:\\S+$"})
ModelName = Annotated[str, AfterValidator(_model_name), _MODEL_SCHEMA]
"""A ``provider:model`` string."""
_LABELS = {"type": "array", "items": {"type": "string"}, "minItems": 1}
_ONE_OR_MORE_LABELS = WithJsonSchema({"anyOf": [{"type": "string"}, _LABELS]})
_OPTIONS = WithJsonSchema({"anyOf": [{"type": "object", "minProperties": 1}, _LABELS]})


class _Spec(BaseModel):
    model_config = ConfigDict(
        extra="forbid", strict=True, populate_by_name=True, json_schema_extra=schema_description
    )


class WhenChosen(_Spec):
    """Ask a criterion only when an earlier choice selected one of ``labels``.

    Example:
        >>> WhenChosen.model_validate({"criterion": "mode", "labels": "answered"}).labels
        ['answered']

    """

    criterion: str = Field(min_length=1, description="Name of an earlier choice criterion.")
    labels: Annotated[list[str], _ONE_OR_MORE_LABELS] = Field(
        min_length=1, description="Labels of that choice that must be chosen (one or a list)."
    )

    @field_validator("labels", mode="before")
    @classmethod
    def _one_label(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class _QuestionSpec(_Spec):
    name: str = Field(min_length=1, description="Unique name; also the question's name in the request.")
    instructions: JsonValue = Field(
        description="The question, as text or structured JSON; name state fields in backticks."
    )
    applies_when: ConditionSpec | None = Field(
        default=None, description="Ask only when this condition holds; else NOT_APPLICABLE."
    )
    when_chosen: WhenChosen | None = Field(
        default=None, description="Applies only when an earlier choice selected one of these labels."
    )
    when_passed: str | None = Field(
        default=None, min_length=1, description="Applies only when this earlier criterion passed."
    )

    @field_validator("instructions")
    @classmethod
    def _content(cls, value: JsonValue) -> JsonValue:
        if isinstance(value, str) and not value.strip():
            raise ValueError("must not be empty")
        if not isinstance(value, (str, dict, list)):
            raise ValueError(f"must be text, or a JSON object or list, got {value!r}")
        return value

    @model_validator(mode="after")
    def _one_dependency(self) -> _QuestionSpec:
        if self.when_chosen is not None and self.when_passed is not None:
            raise ValueError("give when_chosen or when_passed, not both")
        return self

    def _finish(self, criterion: JevCriterion, resolve: Resolve | None) -> JevCriterion:
        if self.applies_when is not None:
            criterion = criterion.applies_when(compile_condition(self.applies_when, resolve))
        if self.when_chosen is not None:
            criterion = criterion.when_chosen(self.when_chosen.criterion, *self.when_chosen.labels)
        if self.when_passed is not None:
            criterion = criterion.when_passed(self.when_passed)
        return criterion

    @property
    def dependency_key(self) -> str | None:
        """The key of this criterion's dependency in the file, if it has one."""
        if self.when_chosen is not None:
            return "when_chosen"
        return "when_passed" if self.when_passed is not None else None

    def named_fields(self) -> list[str]:
        """The fixed state fields the instructions name (in backticks or bare).

        A question with ``applies_when`` decides for itself when it is asked, so
        none of the fields it names is counted.

        Example:
            >>> NoulSpec.model_validate({"kind": "noul", "name": "ok", "minimum": 0.5,
            ...     "instructions": "Does `assistant_answer` answer `user_question`?"}).named_fields()
            ['user_question', 'assistant_answer']

        """
        if self.applies_when is not None:
            return []
        return named_state_fields(self.instructions)


class NoulSpec(_QuestionSpec):
    """A yes/no question passing when the probability of yes reaches ``minimum``.

    Example:
        >>> spec = NoulSpec.model_validate({"kind": "noul", "name": "polite",
        ...     "instructions": "Is `assistant_answer` polite?", "minimum": 0.7})
        >>> spec.build().minimum
        0.7

    """

    kind: Literal["noul"] = Field(description="A yes/no question.")
    minimum: float = Field(allow_inf_nan=False, description="Probability of yes to reach, 0 to 1.")
    when_true: JsonValue = Field(default=None, description="What counts as yes.")
    when_false: JsonValue = Field(default=None, description="What counts as no.")

    def build(self, resolve: Resolve | None = None) -> JevCriterion:
        """The engine criterion this spec describes (``resolve``: see `compile_condition`)."""
        criteria = None
        if self.when_true is not None or self.when_false is not None:
            criteria = NoulCriteria(true=self.when_true, false=self.when_false)
        question = Noul(instructions=self.instructions, criteria=criteria)
        return self._finish(JevCriterion.noul(self.name, question, self.minimum), resolve)


class ScoreSpec(_QuestionSpec):
    """An ordered rubric passing when its probability sits on levels >= ``minimum``.

    Example:
        >>> spec = ScoreSpec.model_validate({"kind": "score", "name": "helpful",
        ...     "instructions": "How helpful?", "levels": ["No", "Somewhat", "Very"], "minimum": 2})
        >>> spec.build().minimum
        2.0

    """

    kind: Literal["score"] = Field(description="An ordered rubric.")
    levels: list[JsonValue] = Field(
        min_length=2, description="Descriptions of the levels, lowest first; numbered from 0."
    )
    minimum: float = Field(allow_inf_nan=False, description="Level to reach (0 is the first level).")

    def build(self, resolve: Resolve | None = None) -> JevCriterion:
        """The engine criterion this spec describes (``resolve``: see `compile_condition`)."""
        question = Score(instructions=self.instructions, criteria=self.levels)
        return self._finish(JevCriterion.score(self.name, question, self.minimum), resolve)


class ChoiceSpec(_QuestionSpec):
    """A labelled question passing when its probability sits on ``accepted`` labels.

    Example:
        >>> spec = ChoiceSpec.model_validate({"kind": "choice", "name": "mode",
        ...     "instructions": "How?", "options": ["answered", "asked"], "accepted": "answered"})
        >>> sorted(spec.build().accepted)
        ['answered']

    """

    kind: Literal["choice"] = Field(description="A choice between labels.")
    options: Annotated[dict[str, JsonValue], _OPTIONS] = Field(
        min_length=1, description="Labels with their descriptions, or a list of bare labels."
    )
    accepted: Annotated[list[str], _ONE_OR_MORE_LABELS] = Field(
        min_length=1, description="The labels that pass (one or a list)."
    )

    @field_validator("options", mode="before")
    @classmethod
    def _bare_labels(cls, value: Any) -> Any:
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return dict.fromkeys(value)
        return value

    @field_validator("accepted", mode="before")
    @classmethod
    def _one_label(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    def build(self, resolve: Resolve | None = None) -> JevCriterion:
        """The engine criterion this spec describes (``resolve``: see `compile_condition`)."""
        question = Choice(instructions=self.instructions, criteria=self.options)
        return self._finish(JevCriterion.choice(self.name, question, self.accepted), resolve)


class CheckSpec(_Spec):
    """A code check: passes when its condition holds, else reports ``defect``.

    Example:
        >>> spec = CheckSpec.model_validate({"kind": "check", "name": "json",
        ...     "check": {"answer_is_json": True}, "defect": "the answer is not JSON"})
        >>> spec.build().kind
        'check'

    """

    kind: Literal["check"] = Field(description="A check run locally; it never reaches the model.")
    name: str = Field(min_length=1, description="Unique name of the check.")
    check: ConditionSpec = Field(description="The condition that must hold.")
    defect: str = Field(min_length=1, description="What to report when the condition does not hold.")
    applies_when: ConditionSpec | None = Field(
        default=None, description="Run the check only when this condition holds; else NOT_APPLICABLE."
    )

    @property
    def dependency_key(self) -> str | None:
        """Checks have no dependency."""
        return None

    def build(self, resolve: Resolve | None = None) -> JevCriterion:
        """The engine criterion this spec describes (``resolve``: see `compile_condition`)."""
        criterion = JevCriterion.check(self.name, compile_condition(self.check, resolve), self.defect)
        if self.applies_when is not None:
            criterion = criterion.applies_when(compile_condition(self.applies_when, resolve))
        return criterion


CriterionSpec = Annotated[NoulSpec | ScoreSpec | ChoiceSpec | CheckSpec, Field(discriminator="kind")]
"""One criterion of a judge file, told apart by ``kind``."""


class JuryMemberSpec(_Spec):
    """A member of a jury with a name of its own.

    Example:
        >>> JuryMemberSpec.model_validate({"name": "gpt", "model": "openai:gpt-4o-mini"}).name
        'gpt'

    """

    name: str = Field(min_length=1, description="The member's name in the verdict's panel.")
    model: ModelName = Field(description="The member's model: `provider:model`, or `jev:NAME` for Jev.")


_MemberForm = Annotated[
    Annotated[ModelName, Tag(MODEL_NAME_TAG)] | Annotated[JuryMemberSpec, Tag(MODEL_MAPPING_TAG)],
    Discriminator(_kind),
]
"""A jury member: a ``provider:model`` string, or ``{name, model}``."""


class JurySpec(_Spec):
    """A jury of models (see `langchain_jev.models.jury.JuryDecisionModel`).

    Example:
        >>> spec = JurySpec.model_validate({"jury": ["jev:jev-latest", "jev:jev-small"], "quorum": 1})
        >>> jury = spec.build()
        >>> jury.names, jury.quorum
        (('jev-latest', 'jev-small'), 1)

    """

    jury: list[_MemberForm] = Field(
        min_length=2,
        description="The members: `provider:model` strings, or `{name, model}`.",
    )
    combine: Literal["mean", "vote", "max"] = Field(
        default="mean",
        description="How answers are combined: mean, vote (each member's own pass), or max (a flag stands).",
    )
    disagreement: float | None = Field(
        default=None,
        allow_inf_nan=False,
        description=(
            "The share of members that may find against the jury before a finding is INCONCLUSIVE "
            "(default 1/3 for mean and vote, none for max); null for never."
        ),
    )
    quorum: int | None = Field(
        default=None, ge=1, description="Members that must answer each question (default: all)."
    )
    timeout: float | None = Field(
        default=None, gt=0, allow_inf_nan=False, description="Seconds to wait for the members."
    )

    @field_validator("disagreement")
    @classmethod
    def _share(cls, value: float | None) -> float | None:
        if value is not None and not 0.0 <= value <= 1.0:
            raise ValueError(f"must be between 0 and 1, got {value!r}")
        return value

    def build(self) -> BaseDecisionModel:
        """The jury this spec describes (each member's settings come from its environment).

        Raises:
            JudgeSpecError: the jury cannot be built (a quorum above the members, two
                members of one name, a provider LangChain does not know).

        """
        from langchain_jev.models.jury import JuryDecisionModel

        models = [m.model if isinstance(m, JuryMemberSpec) else m for m in self.jury]
        members: list[Any] | dict[str, Any] = models
        if any(isinstance(m, JuryMemberSpec) for m in self.jury):  # unnamed members: their model's name
            names = [m.name if isinstance(m, JuryMemberSpec) else m.partition(":")[2] for m in self.jury]
            twice = sorted({name for name in names if names.count(name) > 1})
            if twice:
                raise JudgeSpecError([("model.jury", f"jury member {twice[0]!r} is named twice")])
            members = dict(zip(names, models, strict=True))
        options: dict[str, Any] = {"combine": self.combine, "quorum": self.quorum, "timeout": self.timeout}
        if "disagreement" in self.model_fields_set:
            options["disagreement"] = self.disagreement
        try:
            return JuryDecisionModel(members, **options)
        except JevConfigurationError as error:
            raise JudgeSpecError([("model.jury", str(error))]) from None


ModelSpec = Annotated[
    Annotated[ModelName, Tag(MODEL_NAME_TAG)] | Annotated[JurySpec, Tag(MODEL_MAPPING_TAG)],
    Discriminator(_kind),
]
"""The model a judge file names: ``provider:model``, or ``{jury: [...], ...}``."""


class JudgeSpec(_Spec):
    """A judge described as data: criteria in order, and the judge's options.

    Example:
        >>> spec = JudgeSpec.model_validate({"criteria": [
        ...     {"kind": "noul", "name": "polite", "instructions": "Polite?", "minimum": 0.7}]})
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> spec.build(model=ScriptedDecisionModel({"polite": 0.9})).judge("Hi", "Hello!").passed
        True

    """

    model_config = ConfigDict(title="langchain-jev judge")

    version: Literal[1] = Field(default=1, description="Version of the judge file format.")
    name: str | None = Field(default=None, description="A name for the judge.")
    description: str | None = Field(default=None, description="What the judge is for.")
    requires: list[str] = Field(
        default_factory=lambda: [ANSWER_FIELD],
        description=(
            "State fields every input must carry (a dataset row without one is bad input). "
            "Fields that built-in checks compare are added."
        ),
    )
    min_confidence: float = Field(
        default=0.6, description="Share of a score's or choice's probability that must support it."
    )
    fail_on_inconclusive: bool = Field(default=False, description="Report INCONCLUSIVE as FAILED.")
    fail_on_error: bool = Field(default=False, description="Report ERROR as FAILED.")
    fail_fast: bool = Field(default=False, description="When a check fails, ask no question.")
    feedback_renderer: str | None = Field(
        default=None,
        pattern=_IMPORT_PATH,
        description="Import path `package.module:function` of a function from findings to feedback text.",
    )
    model: ModelSpec | None = Field(
        default=None,
        description=(
            "The model that judges when the caller gives none: `provider:model` (`jev:NAME` for Jev), "
            "or a jury `{jury: [...], combine, disagreement, quorum, timeout}`."
        ),
    )
    criteria: list[CriterionSpec] = Field(min_length=1, description="The criteria, in order.")

    _source: tuple[str, str] | None = PrivateAttr(default=None)
    """The file this spec was read from, and its text (to give lines in errors)."""

    @field_validator("min_confidence")
    @classmethod
    def _share(cls, value: float) -> float:
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"must be between 0 and 1, got {value!r}")
        return value

    def required_fields(self) -> list[str]:
        """State fields an input must carry for this judge, in a stable order.

        Example:
            >>> JudgeSpec.model_validate({"criteria": [{"kind": "check", "name": "same",
            ...     "check": {"answer_equals_expected": True}, "defect": "differs"}]}).required_fields()
            ['assistant_answer', 'expected_output']

        """
        fields = list(self.requires)
        for criterion in self.criteria:
            if isinstance(criterion, CheckSpec):
                named = sorted(condition_fields(criterion.check))
                fields.extend(name for name in named if name not in fields)
        return fields

    def named_fields(self) -> list[str]:
        """Fixed state fields the questions name that ``requires`` leaves out (said when a row lacks one).

        A question may name a field and still be answerable without it ("the
        question, where given"); a field every input must carry goes in ``requires``.

        Example:
            >>> JudgeSpec.model_validate({"criteria": [{"kind": "noul", "name": "ok", "minimum": 0.5,
            ...     "instructions": "Is `assistant_answer` in `supporting_context`?"}]}).named_fields()
            ['supporting_context']

        """
        required = self.required_fields()
        named: list[str] = []
        for criterion in self.criteria:
            if not isinstance(criterion, CheckSpec):
                named.extend(n for n in criterion.named_fields() if n not in required and n not in named)
        return named

    def decision_model(self) -> BaseDecisionModel | None:
        """The model the file names (a jury, or one ``provider:model``), built; None when it names none.

        Raises:
            JudgeSpecError: the model cannot be built; the message names ``model``.

        Example:
            >>> spec = JudgeSpec.model_validate({"model": "jev:jev-small", "criteria": [
            ...     {"kind": "noul", "name": "ok", "instructions": "Fine?", "minimum": 0.5}]})
            >>> spec.decision_model().model
            'jev-small'

        """
        if self.model is None:
            return None
        if isinstance(self.model, JurySpec):
            return self.model.build()
        from langchain_jev.models.resolve import as_decision_model

        try:
            return as_decision_model(self.model)
        except JevConfigurationError as error:
            raise JudgeSpecError([("model", str(error))]) from None

    def build(self, model: Any = None, *, allow_code: AllowCode = False) -> JevJudge:
        """Build the judge; ``model`` is anything `JevJudge` accepts.

        Precedence: ``model`` when given, else the model the file names (see
        `decision_model`), else Jev from the environment.

        Code the file names (``call`` conditions, ``feedback_renderer``) is imported
        only when ``allow_code`` trusts it: True for any module, or a list of
        trusted module prefixes. Built-in conditions need no opt-in.

        Raises:
            JudgeSpecError: code the user did not trust, or a criterion the engine
                rejects; the message names its place (and the criterion and opt-in).

        """
        allowed = check_allow_code(allow_code)
        problems: list[Problem] = refused_code(self, allowed)
        if problems:
            self._raise(problems)
        test = trust_test(allowed)
        for where, _, reference in code_references(self):  # trusted modules: import each at its place
            try:
                import_callable(reference, test)
            except ValueError as error:
                problems.append((where, str(error)))
        if problems:
            self._raise(problems)
        built = self._criteria(None)
        renderer = import_callable(self.feedback_renderer, test) if self.feedback_renderer else None
        if model is None:
            model = self.decision_model()
        return JevJudge(
            built,
            model,
            min_confidence=self.min_confidence,
            fail_on_inconclusive=self.fail_on_inconclusive,
            fail_on_error=self.fail_on_error,
            fail_fast=self.fail_fast,
            feedback_renderer=renderer,
        )

    def check(self) -> None:
        """Run every check `build` runs, importing no code and building no model.

        The code the file names (``call`` conditions, ``feedback_renderer``) is
        neither imported nor judged trusted here (`code_references` lists it):
        `build` still needs ``allow_code`` for it. The model the file names is
        checked by `decision_model`.

        Raises:
            JudgeSpecError: a criterion the engine rejects, with the message `build` gives.

        Example:
            >>> spec = load_spec({"criteria": [
            ...     {"kind": "score", "name": "helpful", "instructions": "Helpful?",
            ...      "levels": ["no", "somewhat", "yes"], "minimum": 5}]})
            >>> try:
            ...     spec.check()
            ... except JudgeSpecError as error:
            ...     print(error)
            criteria[0].minimum: must be a level of the rubric, between 0 and 2, got 5.0

        """
        self._criteria(_unimported)

    def _criteria(self, resolve: Resolve | None) -> list[JevCriterion]:
        """The engine criteria, checked as the engine checks a judge's (``resolve``: `compile_condition`)."""
        names = [c.name for c in self.criteria]
        dependencies = [c.dependency_key for c in self.criteria]
        built: list[JevCriterion] = []
        problems: list[Problem] = []
        for index, spec in enumerate(self.criteria):
            try:
                built.append(spec.build(resolve))
            except JevConfigurationError as error:
                problems.append(engine_problem(error, names, dependencies))
            except ValueError as error:  # a `call` path that stopped importing since
                problems.append((f"criteria[{index}]", str(error)))
        if not problems:
            try:
                validate_criteria(built)
            except JevConfigurationError as error:
                problems.append(engine_problem(error, names, dependencies))
        if problems:
            self._raise(problems)
        return built

    def _raise(self, problems: list[Problem]) -> NoReturn:
        source = self._source
        if source is None:
            raise JudgeSpecError(problems)
        raise JudgeSpecError(problems, source[0], _lines(source[1], problems))


def _unimported(reference: str) -> Callable[[JevJudgeInput], bool]:
    """The stand-in for code a file names while it is checked, not built (never called)."""
    return lambda data: True


def _known_keys() -> set[str]:
    keys: set[str] = set()
    models = (
        JudgeSpec,
        NoulSpec,
        ScoreSpec,
        ChoiceSpec,
        CheckSpec,
        WhenChosen,
        ConditionSpec,
        JurySpec,
        JuryMemberSpec,
    )
    for model in (*models, *BUILTIN_FORMS.values()):
        for name, info in model.model_fields.items():
            keys.add(info.alias or name)
    return keys


def load_spec(source: str | os.PathLike[str] | Mapping[str, Any]) -> JudgeSpec:
    """Read and validate a judge file (YAML or JSON) or mapping, without building the judge.

    Raises:
        JudgeSpecError: the file cannot be read or parsed, or does not describe a
            judge; every problem names its place (and its line, for a file).

    Example:
        >>> load_spec({"criteria": [{"kind": "noul", "name": "ok",
        ...     "instructions": "Fine?", "minimum": 0.5}]}).criteria[0].name
        'ok'

    """
    text: str | None = None
    label: str | None = None
    if isinstance(source, Mapping):
        data: Any = source
    else:
        path = _prebuilt(source) or Path(source)
        label = str(path)
        text = read_file(path, label)
        data = parse_text(text, path, label)
    if not isinstance(data, Mapping):
        raise JudgeSpecError(
            [("", f"a judge file is a mapping with `criteria`, got {type(data).__name__}")], label
        )
    check_depth(data, label)
    try:
        spec = JudgeSpec.model_validate(dict(data))
    except ValidationError as error:
        problems = pydantic_problems(error, _known_keys())
        lines = _lines(text, problems) if text is not None else None
        raise JudgeSpecError(problems, label, lines) from None
    if label is not None and text is not None:
        spec._source = (label, text)
    return spec


def load_judge(
    source: str | os.PathLike[str] | Mapping[str, Any],
    model: Any = None,
    *,
    allow_code: AllowCode = False,
) -> JevJudge:
    """Build a `JevJudge` from a judge file (YAML or JSON), a prebuilt judge's name, or a mapping.

    A bare name that is not a file (``"rag"``, ``"correctness"``, ...) loads the
    prebuilt judge's file shipped with the package (see `langchain_jev.judges`).

    ``model`` is anything `JevJudge` accepts; None means Jev configured from the
    environment. See `judge_schema` for the format.

    A judge file is data: code it names (``{call: "package.module:function"}``,
    ``feedback_renderer``) is refused unless ``allow_code`` trusts it (True for
    any module, or a list of trusted module prefixes such as ``["myproject.checks"]``).
    Parsing is bounded (`langchain_jev.spec.reading`): size, nesting, no YAML aliases.

    Raises:
        JudgeSpecError: the file is unreadable or invalid, or names code not
            trusted; each problem names its place, e.g. ``criteria[2].minimum: must
            be between 0 and 1, got 1.5``. Nothing is built unless everything is valid.

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = load_judge({"criteria": [
        ...     {"kind": "check", "name": "json", "check": {"answer_is_json": True},
        ...      "defect": "the answer is not JSON"},
        ...     {"kind": "noul", "name": "polite", "instructions": "Polite?", "minimum": 0.7},
        ... ]}, model=ScriptedDecisionModel({"polite": 0.9}))
        >>> judge.judge("Status?", '{"ok": true}').summary()
        'passed=true [json=PASSED, polite=PASSED]'

    """
    return load_spec(source).build(model, allow_code=allow_code)


def _prebuilt(source: str | os.PathLike[str]) -> Path | None:
    """The shipped file of a prebuilt judge when ``source`` is its bare name and not a file."""
    if not isinstance(source, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", source) or Path(source).exists():
        return None
    from langchain_jev.judges.catalog import FILES, judge_names

    if source not in judge_names():
        names = ", ".join(judge_names())
        raise JudgeSpecError([("", f"no such file, and no prebuilt judge of that name ({names})")], source)
    return FILES / f"{source}.yaml"


def judge_schema() -> dict[str, Any]:
    """The JSON Schema of judge files (what ``langchain-jev schema`` prints).

    Example:
        >>> sorted(judge_schema()["properties"])[:3]
        ['criteria', 'description', 'fail_fast']

    """
    schema = JudgeSpec.model_json_schema(by_alias=True)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def _lines(text: str, problems: list[Problem]) -> dict[str, int]:
    found = {where: _line_of(text, where) for where, _ in problems}
    return {where: line for where, line in found.items() if line is not None}


def _line_of(text: str, where: str) -> int | None:
    """The 1-based line of a location in a YAML (or JSON) document, as far as it exists.

    A mapping key is shown on the line of the key, so a block value below it still
    points at its name.
    """
    node: Any = compose(text)
    if node is None:
        return None
    line: int = node.start_mark.line + 1
    for part in _split(where):
        if isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if not 0 <= part < len(node.value):
                break
            node = node.value[part]
            line = node.start_mark.line + 1
        elif isinstance(node, yaml.MappingNode) and isinstance(part, str):
            found = next(((k, v) for k, v in node.value if getattr(k, "value", None) == part), None)
            if found is None:
                break
            line, node = found[0].start_mark.line + 1, found[1]
        else:
            break
    return line


def _split(where: str) -> list[str | int]:
    parts: list[str | int] = []
    for piece in where.replace("[", ".[").split("."):
        if not piece:
            continue
        parts.append(int(piece[1:-1]) if piece.startswith("[") else piece)
    return parts
