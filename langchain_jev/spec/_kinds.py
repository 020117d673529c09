"""The criteria a judge file lists, one kind each: ``noul``, ``score``, ``choice`` and ``check``.

`CriterionSpec` tells them apart by ``kind``; each spec builds its engine
`JevCriterion` (`langchain_jev._criteria`). `StrictSpec` is the base every part of a
judge file shares: unknown keys refused, no coercion. `JudgeSpec`
(`langchain_jev.spec._model`) holds them in order.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from langchain_core.decisions import Choice, Noul, NoulCriteria, Score
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from langchain_jev._criteria import JevCriterion
from langchain_jev._input import named_state_fields
from langchain_jev.spec._conditions import (
    ConditionSpec,
    Resolve,
    compile_condition,
    schema_description,
)

__all__ = ["CheckSpec", "ChoiceSpec", "CriterionSpec", "NoulSpec", "ScoreSpec", "StrictSpec", "WhenChosen"]

_LABELS = {"type": "array", "items": {"type": "string"}, "minItems": 1}
_ONE_OR_MORE_LABELS = WithJsonSchema({"anyOf": [{"type": "string"}, _LABELS]})
_OPTIONS = WithJsonSchema({"anyOf": [{"type": "object", "minProperties": 1}, _LABELS]})


class StrictSpec(BaseModel):
    """The base of every part of a judge file: unknown keys refused, values never coerced."""

    model_config = ConfigDict(
        extra="forbid", strict=True, populate_by_name=True, json_schema_extra=schema_description
    )


class WhenChosen(StrictSpec):
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


class _QuestionSpec(StrictSpec):
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

    def build(self, resolve: Resolve | None = None) -> JevCriterion:
        """The engine criterion this spec describes (``resolve``: see `compile_condition`)."""
        return self._finish(self._criterion(), resolve)

    def _criterion(self) -> JevCriterion:
        """The criterion of this kind's question, before its conditions and dependency."""
        raise NotImplementedError

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

    def _criterion(self) -> JevCriterion:
        criteria = None
        if self.when_true is not None or self.when_false is not None:
            criteria = NoulCriteria(true=self.when_true, false=self.when_false)
        question = Noul(instructions=self.instructions, criteria=criteria)
        return JevCriterion.noul(self.name, question, self.minimum)


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

    def _criterion(self) -> JevCriterion:
        question = Score(instructions=self.instructions, criteria=self.levels)
        return JevCriterion.score(self.name, question, self.minimum)


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

    def _criterion(self) -> JevCriterion:
        question = Choice(instructions=self.instructions, criteria=self.options)
        return JevCriterion.choice(self.name, question, self.accepted)


class CheckSpec(StrictSpec):
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
