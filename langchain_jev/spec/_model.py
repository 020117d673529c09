"""Judges as files: a YAML or JSON document that describes a `JevJudge`.

A judge file lists criteria of each kind with their questions and pass
conditions, plus the judge's options. Code checks are conditions written as
data (see `langchain_jev.spec._conditions`) or a function named by import path.

Every key, criterion kind and condition, with one example each, is on the judge-file
reference page (``docs/judge-files.md``, written by `langchain_jev.spec._reference`).

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
from typing import Any, Literal, NoReturn

import yaml
from langchain_core.decisions import BaseDecisionModel
from pydantic import (
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
)

from langchain_jev._criteria import JevCriterion, validate_criteria
from langchain_jev._errors import JevConfigurationError
from langchain_jev._input import ANSWER_FIELD, JevJudgeInput
from langchain_jev._judge import JevJudge
from langchain_jev.spec._builtins import BUILTIN_FORMS
from langchain_jev.spec._code import (
    AllowCode,
    check_allow_code,
    code_references,
    refused_code,
    trust_test,
)
from langchain_jev.spec._conditions import (
    ConditionSpec,
    Resolve,
    condition_fields,
    import_callable,
)
from langchain_jev.spec._errors import (
    JudgeSpecError,
    Problem,
    engine_problem,
    pydantic_problems,
)
from langchain_jev.spec._judge_model import JuryMemberSpec, JurySpec, ModelSpec
from langchain_jev.spec._kinds import (
    CheckSpec,
    ChoiceSpec,
    CriterionSpec,
    NoulSpec,
    ScoreSpec,
    StrictSpec,
    WhenChosen,
)
from langchain_jev.spec._reading import check_depth, compose, parse_text, read_file

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


class JudgeSpec(StrictSpec):
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
        from langchain_jev.models._resolve import as_decision_model

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
    Parsing is bounded (`langchain_jev.spec._reading`): size, nesting, no YAML aliases.

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
    from langchain_jev.judges._catalog import FILES, judge_names

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
