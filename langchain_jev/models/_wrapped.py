"""What the adapters around another library's model share: the model's name read from the wrapped one.

`OpenAIDecisionsModel` (langchain-openai's ``OpenAIDecisions``) and
`TypeSafeClassifierDecisionModel` (langchain-typesafe's ``TypeSafeClassifier``)
each hold the model they ask through in one field; a `WrappedModel` reads its
``model`` name from it when none is given, and reports its provider to tracing.
"""

from __future__ import annotations

from typing import Any, ClassVar

from langchain_core.decisions import BaseDecisionModel
from pydantic import ConfigDict, model_validator

__all__ = ["WrappedModel"]


class WrappedModel(BaseDecisionModel):
    """A `BaseDecisionModel` asking through another library's model, held in the field ``_wrapped``.

    A subclass sets ``_wrapped`` (the field's name), ``_unnamed`` (the ``model`` name when the
    wrapped model has none) and ``_provider_name`` (the ``ls_provider`` tracing reports), and
    declares ``model: str = ""``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    _wrapped: ClassVar[str]
    _unnamed: ClassVar[str]
    _provider_name: ClassVar[str]

    @model_validator(mode="before")
    @classmethod
    def _model_name(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("model") and data.get(cls._wrapped) is not None:
            data = {**data, "model": str(getattr(data[cls._wrapped], "model", cls._unnamed))}
        return data

    @property
    def _provider(self) -> str:
        return self._provider_name
