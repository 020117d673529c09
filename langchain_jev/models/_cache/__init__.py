"""A response cache for decision models: ask once, answer again from disk or memory.

`CachedDecisionModel` wraps any `BaseDecisionModel`. Its key is the SHA-256 of
the inner model's identity (its kind, name, endpoint and the settings that shape
its answers, see `model_identity`) with the canonical JSON of the state and the
questions, so the same request to the same model at the same endpoint is sent
once, and a model served elsewhere is asked again. Two stores come with it:
`SQLiteCache` (one file, shared by threads, event loops and processes) and
`InMemoryCache`; anything with the four methods of `DecisionCache` works too.

Only complete answers are kept: a response with an unreadable answer, without
an answer to a question that was asked, or with an answer of another type than
its question is returned as it is but never stored, so a passing glitch is
asked again next time instead of being frozen into the cache. Errors are never
stored either; they propagate as they would without the cache.

A `SQLiteCache` keeps to its own files: it stamps the databases it creates
(SQLite ``application_id`` and ``user_version``) and refuses, without changing
anything, a database it did not create.

The parts, one job each: `_keys` (a request's canonical key), `_identity` (what
tells one model's answers from another's), `_protocol` (`DecisionCache`, the
stores' contract), `_memory` and `_sqlite` (the two stores), `_model` (the
wrapping `CachedDecisionModel` and what is complete enough to keep). Import
their names from here (or `langchain_jev.models`).

Example:
    >>> from langchain_core.decisions import Noul
    >>> from langchain_jev import JevCriterion, JevJudge
    >>> from langchain_jev.models import CachedDecisionModel, InMemoryCache
    >>> from langchain_jev.testing import ScriptedDecisionModel
    >>> inner = ScriptedDecisionModel({"polite": 0.9})
    >>> judge = JevJudge(
    ...     [JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)],
    ...     model=CachedDecisionModel(inner, InMemoryCache()),
    ... )
    >>> first = judge.judge("Hi?", "Hello! How can I help?")
    >>> second = judge.judge("Hi?", "Hello! How can I help?")
    >>> inner.calls, second.response.cache_hit
    (1, True)

"""

from __future__ import annotations

from langchain_jev.models._cache._identity import model_identity
from langchain_jev.models._cache._keys import cache_key
from langchain_jev.models._cache._memory import DEFAULT_MEMORY_ENTRIES, InMemoryCache
from langchain_jev.models._cache._model import (
    CACHE_HIT_TAG,
    CACHE_METADATA_KEY,
    CachedDecisionModel,
    is_cacheable,
)
from langchain_jev.models._cache._protocol import DecisionCache
from langchain_jev.models._cache._sqlite import APPLICATION_ID as APPLICATION_ID
from langchain_jev.models._cache._sqlite import DEFAULT_FILE_ENTRIES, SQLiteCache
from langchain_jev.models._cache._sqlite import SCHEMA_VERSION as SCHEMA_VERSION

__all__ = [
    "CACHE_HIT_TAG",
    "CACHE_METADATA_KEY",
    "DEFAULT_FILE_ENTRIES",
    "DEFAULT_MEMORY_ENTRIES",
    "CachedDecisionModel",
    "DecisionCache",
    "InMemoryCache",
    "SQLiteCache",
    "cache_key",
    "is_cacheable",
    "model_identity",
]
