"""`CachedDecisionModel`: any decision model in front of a cache; only complete answers are kept."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from langchain_core.decisions import (
    BaseDecisionModel,
    ClassifierRequest,
    ClassifierResponse,
    Question,
    State,
)
from langchain_core.runnables import RunnableConfig
from langsmith.run_helpers import get_current_run_tree
from pydantic import ConfigDict, Field, PrivateAttr, ValidationError

from langchain_jev._errors import JevConfigurationError
from langchain_jev.models._cache._identity import model_identity
from langchain_jev.models._cache._keys import cache_key
from langchain_jev.models._cache._memory import InMemoryCache
from langchain_jev.models._cache._protocol import DecisionCache
from langchain_jev.models._cache._sqlite import SQLiteCache
from langchain_jev.models._response import DecisionResponse

__all__ = ["CACHE_HIT_TAG", "CACHE_METADATA_KEY", "CachedDecisionModel", "is_cacheable"]

logger = logging.getLogger("langchain_jev.models._cache")

CACHE_METADATA_KEY = "jev_cache"
"""Run metadata key set on a cached model's run: ``"hit"``, ``"miss"`` or ``"bypass"``."""

CACHE_HIT_TAG = "jev-cache-hit"
"""Tag put on the run of a request that was answered from the cache."""


def is_cacheable(response: ClassifierResponse, questions: Mapping[str, Question]) -> bool:
    """Tell whether a response is complete enough to keep.

    It is when every question asked has a readable answer of the question's own type
    and nothing came back unreadable (for a jury: from every member).

    Example:
        >>> from langchain_core.decisions import Noul, NoulAnswer
        >>> from langchain_jev.models import DecisionResponse
        >>> asked = {"a": Noul(instructions="?"), "b": Noul(instructions="?")}
        >>> incomplete = DecisionResponse(model="m", answers={"a": NoulAnswer(type="noul", noul=1.0)})
        >>> is_cacheable(incomplete, asked)
        False

    """
    if getattr(response, "unreadable", None):
        return False
    panel = getattr(response, "panel", None)  # a jury's: every member must have answered everything
    if panel is not None and not panel.is_complete(questions):
        return False
    for name, question in questions.items():
        answer = response.answers.get(name)
        if answer is None or getattr(answer, "type", None) != getattr(question, "type", None):
            return False
    return True


@dataclass(frozen=True)
class _Lookup:
    """What the cache said about one request, before its run starts."""

    key: str | None
    response: DecisionResponse | None

    @property
    def status(self) -> str:
        if self.key is None:
            return "bypass"
        return "hit" if self.response is not None else "miss"


class CachedDecisionModel(BaseDecisionModel):
    """Answer from a cache when the same request was answered before; ask the inner model otherwise.

    Args:
        model: the decision model to ask on a miss (anything a `JevJudge` accepts as
            ``model=``, or None for Jev from the environment).
        cache: a `DecisionCache`, or a path for a `SQLiteCache`; an `InMemoryCache` when None.
        namespace: mixed into every key; change it to keep answers of differently
            configured models with the same name apart.

    A hit makes no request and reports no token usage: the response is a
    `DecisionResponse` with ``cache_hit=True`` and ``usage=None`` (``request_id``
    stays that of the request that produced the answers). The run of this model
    carries the metadata ``jev_cache`` (``"hit"``, ``"miss"`` or ``"bypass"``) and,
    on a hit, the tag ``jev-cache-hit``. A state without a JSON form bypasses the
    cache (logged as a warning) and is asked as usual. On a miss the inner model
    answers inside this model's run (its own run is not repeated), and the response
    is stored only when `is_cacheable` says it is complete. Concurrent identical
    misses may each ask the inner model; the last answer stored wins.

    Example:
        >>> import tempfile, os
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> inner = ScriptedDecisionModel({"polite": 0.9})
        >>> path = os.path.join(tempfile.mkdtemp(), "cache.sqlite")
        >>> cached = CachedDecisionModel(inner, path)
        >>> request = {"state": "Thanks!", "questions": {"polite": Noul(instructions="Polite?")}}
        >>> [cached.invoke(request).cache_hit for _ in range(2)], inner.calls
        ([False, True], 1)

    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    answers_from_cache: ClassVar[bool] = True
    """Marks a cached model for `model_identity`: listed with its inner model, not looked through."""

    inner: BaseDecisionModel
    """The decision model asked on a miss."""
    cache: Any = Field(exclude=True)
    """Where responses are kept (a `DecisionCache`)."""
    namespace: str = ""
    """Mixed into every key."""
    model: str = ""
    """The inner model's name (reported in traces and part of every key)."""

    _identity: dict[str, Any] | None = PrivateAttr(default=None)

    def __init__(
        self,
        model: Any = None,
        cache: DecisionCache | str | os.PathLike[str] | None = None,
        *,
        namespace: str = "",
        **kwargs: Any,
    ) -> None:
        from langchain_jev.models._resolve import as_decision_model

        inner = kwargs.pop("inner", None) or as_decision_model(model)
        if cache is None:
            cache = InMemoryCache()
        elif isinstance(cache, (str, os.PathLike)):
            cache = SQLiteCache(cache)
        elif not isinstance(cache, DecisionCache):
            raise JevConfigurationError(
                "cache must be a DecisionCache (get, put, aget, aput), a path for a "
                f"SQLiteCache, or None for an InMemoryCache; got {type(cache).__name__}"
            )
        if not isinstance(namespace, str):
            raise JevConfigurationError(f"namespace must be a string, got {type(namespace).__name__}")
        super().__init__(
            inner=inner,
            cache=cache,
            namespace=namespace,
            model=inner.model,
            **kwargs,
        )

    @property
    def _provider(self) -> str:
        return self.inner._provider

    def key(self, state: State, questions: Mapping[str, Question]) -> str:
        """Return the cache key of a request to this model (see `cache_key`)."""
        if self._identity is None:
            self._identity = model_identity(self.inner)
        return cache_key(self.model, state, questions, self.namespace, self._identity)

    # ----------------------------------------------------------------- runnable API

    def invoke(
        self, input: ClassifierRequest, config: RunnableConfig | None = None, **_: Any
    ) -> ClassifierResponse:
        """Answer one request, from the cache when it can; the run says whether it did."""
        lookup = self._find(input)
        return self._call_with_config(
            partial(self._serve, lookup=lookup),
            input,
            self._cache_config(config, lookup),
            run_type="llm",
        )

    async def ainvoke(
        self, input: ClassifierRequest, config: RunnableConfig | None = None, **_: Any
    ) -> ClassifierResponse:
        """Asynchronous `invoke`; the cache is read and written without blocking the loop."""
        lookup = await self._afind(input)
        return await self._acall_with_config(
            partial(self._aserve, lookup=lookup),
            input,
            self._cache_config(config, lookup),
            run_type="llm",
        )

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        request: ClassifierRequest = {"state": state, "questions": questions}
        return self._serve(request, self._find(request))

    async def _aclassify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        request: ClassifierRequest = {"state": state, "questions": questions}
        return await self._aserve(request, await self._afind(request))

    # ----------------------------------------------------------------- steps

    def _key_of(self, request: ClassifierRequest) -> str | None:
        try:
            return self.key(request["state"], dict(request["questions"]))
        except (TypeError, ValueError) as error:
            logger.warning("request not cached: %s", error)
            return None

    def _find(self, request: ClassifierRequest) -> _Lookup:
        key = self._key_of(request)
        return self._lookup(request, key, self.cache.get(key) if key is not None else None)

    async def _afind(self, request: ClassifierRequest) -> _Lookup:
        key = self._key_of(request)
        return self._lookup(request, key, await self.cache.aget(key) if key is not None else None)

    @staticmethod
    def _lookup(request: ClassifierRequest, key: str | None, stored: dict[str, Any] | None) -> _Lookup:
        if key is None or stored is None:
            return _Lookup(key, None)
        try:
            response = DecisionResponse.model_validate(stored)
        except ValidationError:
            logger.warning("cache entry %s is unreadable; asking again", key)
            return _Lookup(key, None)
        if not is_cacheable(response, dict(request["questions"])):
            return _Lookup(key, None)
        return _Lookup(key, response.model_copy(update={"cache_hit": True, "usage": None}))

    def _cache_config(self, config: RunnableConfig | None, lookup: _Lookup) -> RunnableConfig:
        config = self._traced_config(config)
        config["metadata"] = {**config.get("metadata", {}), CACHE_METADATA_KEY: lookup.status}
        if lookup.response is not None:
            config["tags"] = [*(config.get("tags") or []), CACHE_HIT_TAG]
        return config

    def _serve(self, request: ClassifierRequest, lookup: _Lookup) -> ClassifierResponse:
        if lookup.response is not None:
            return lookup.response
        questions = dict(request["questions"])
        response = self.inner._classify(request["state"], questions)
        if lookup.key is not None and is_cacheable(response, questions):
            self.cache.put(lookup.key, response.model_dump(mode="json"))
        return _attach_usage(response)

    async def _aserve(self, request: ClassifierRequest, lookup: _Lookup) -> ClassifierResponse:
        if lookup.response is not None:
            return lookup.response
        questions = dict(request["questions"])
        response = await self.inner._aclassify(request["state"], questions)
        if lookup.key is not None and is_cacheable(response, questions):
            await self.cache.aput(lookup.key, response.model_dump(mode="json"))
        return _attach_usage(response)


# Named by its face: the class path is part of the identity (so of every key) of a model made of caches,
# and keys stored before the cache was split in parts must keep matching.
CachedDecisionModel.__module__ = "langchain_jev.models._cache"


def _attach_usage(response: ClassifierResponse) -> ClassifierResponse:
    """Record token usage on the current run, as decision models do; never fail for it."""
    if response.usage is None:
        return response
    try:
        run = get_current_run_tree()
        if run is not None:
            run.extra.setdefault("metadata", {})["usage_metadata"] = dict(response.usage)
    except Exception:  # tracing must never break an answer
        logger.debug("could not attach usage to the run", exc_info=True)
    return response
