"""An adapter that lets langchain-typesafe's ``TypeSafeClassifier`` answer for a judge."""

from __future__ import annotations

from typing import Any

from langchain_core.decisions import ClassifierResponse, Question, State
from pydantic import Field

from langchain_jev.models._response import DecisionResponse, read_answers
from langchain_jev.models._secrets import redact_error
from langchain_jev.models._wrapped import WrappedModel

__all__ = ["TypeSafeClassifierDecisionModel"]


class TypeSafeClassifierDecisionModel(WrappedModel):
    """Wrap a ``langchain_typesafe.TypeSafeClassifier`` as a `BaseDecisionModel`.

    The classifier keeps its own copies of the question and answer types; this
    adapter translates both ways, so a `JevJudge` runs on it unchanged. A judge
    wraps a classifier by itself: ``JevJudge(criteria, model=TypeSafeClassifier())``.

    Example:
        >>> from langchain_typesafe import TypeSafeClassifier  # doctest: +SKIP
        >>> model = TypeSafeClassifierDecisionModel(classifier=TypeSafeClassifier())  # doctest: +SKIP

    """

    _wrapped = "classifier"
    _unnamed = "typesafe"
    _provider_name = "typesafe"

    classifier: Any = Field(exclude=True, repr=False)
    """The ``TypeSafeClassifier`` that answers."""
    model: str = ""
    """The classifier's model name (read from it when not given)."""

    def _request(self, state: State, questions: dict[str, Question]) -> dict[str, Any]:
        from langchain_typesafe.types import (
            Choice,
            ClassifierRequest,  # noqa: F401  (checks the extra)
            Noul,
            Score,
        )
        from pydantic import TypeAdapter

        adapter: TypeAdapter[Any] = TypeAdapter(Noul | Choice | Score)
        converted = {name: adapter.validate_python(q.model_dump()) for name, q in questions.items()}
        return {"state": state, "questions": converted}

    def _convert(self, response: Any) -> DecisionResponse:
        raw = {name: answer.model_dump(mode="json") for name, answer in response.answers.items()}
        answers, unreadable = read_answers(raw)
        usage = response.usage.model_dump() if getattr(response, "usage", None) else None
        return DecisionResponse(
            model=response.model,
            answers=answers,
            unreadable=unreadable,
            usage=usage,
            request_id=getattr(response, "request_id", None),
        )

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        try:
            return self._convert(self.classifier.invoke(self._request(state, questions)))
        except Exception as error:  # the classifier's error may hold an echoed key
            failure = redact_error(error)
        raise failure  # outside the handler: no unredacted error rides along as its context

    async def _aclassify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        try:
            return self._convert(await self.classifier.ainvoke(self._request(state, questions)))
        except Exception as error:  # the classifier's error may hold an echoed key
            failure = redact_error(error)
        raise failure  # outside the handler: no unredacted error rides along as its context
