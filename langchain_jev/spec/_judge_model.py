"""The model a judge file names: a ``provider:model`` string, or a jury of them.

`ModelName` checks the string; `JurySpec` (with `JuryMemberSpec` for a named
member) builds a `langchain_jev.models.JuryDecisionModel`; `ModelSpec` is
either form, as the ``model`` key of `JudgeSpec` takes it.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from langchain_core.decisions import BaseDecisionModel
from pydantic import (
    AfterValidator,
    Discriminator,
    Field,
    Tag,
    WithJsonSchema,
    field_validator,
)

from langchain_jev._errors import JevConfigurationError
from langchain_jev.spec._errors import (
    MODEL_MAPPING_TAG,
    MODEL_NAME_TAG,
    JudgeSpecError,
)
from langchain_jev.spec._kinds import StrictSpec

__all__ = ["JuryMemberSpec", "JurySpec", "ModelName", "ModelSpec"]

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


class JuryMemberSpec(StrictSpec):
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


class JurySpec(StrictSpec):
    """A jury of models (see `langchain_jev.models.JuryDecisionModel`).

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
        from langchain_jev.models._jury import JuryDecisionModel

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
