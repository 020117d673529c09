"""Decision models a judge can ask: Jev, any chat model, LangChain's classifiers, OpenAI Decisions, a cache.

- `jev`: `JevDecisionModel`, Jev through the official typesafe-sdk;
- `chat/`: `ChatModelDecisionModel`, any LangChain chat model answering the same typed questions;
- `typesafe_classifier`: an adapter for langchain-typesafe's `TypeSafeClassifier`;
- `openai_decisions`: an adapter for langchain-openai's ``OpenAIDecisions`` (a refusal is an ERROR);
- `cache/`: `CachedDecisionModel`, which answers repeated requests from a cache (keys, model
  identity, the store protocol, the memory and SQLite stores, the wrapping model);
- `jury`: `JuryDecisionModel`, a panel of models asked at once, their answers combined
  (`member_calls`: each member's synchronous calls, a hung member's threads bounded);
- `resolve`: `as_decision_model`, what a judge's ``model=`` accepts;
- `response`, `wire`: the answers read strictly, and the request put on the wire;
- `unique_json`: the one rule answers are parsed by (a key given twice is never picked from).

Names are imported lazily, so importing this package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.models._cache import CachedDecisionModel, DecisionCache, InMemoryCache, SQLiteCache
    from langchain_jev.models._jev import JevDecisionModel
    from langchain_jev.models._jury import JuryDecisionModel
    from langchain_jev.models._resolve import as_decision_model
    from langchain_jev.models._response import DecisionResponse
    from langchain_jev.models._transport import BoundedTransport

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "BoundedTransport": "langchain_jev.models._transport",
    "CachedDecisionModel": "langchain_jev.models._cache",
    "DecisionCache": "langchain_jev.models._cache",
    "DecisionResponse": "langchain_jev.models._response",
    "InMemoryCache": "langchain_jev.models._cache",
    "JevDecisionModel": "langchain_jev.models._jev",
    "JuryDecisionModel": "langchain_jev.models._jury",
    "SQLiteCache": "langchain_jev.models._cache",
    "as_decision_model": "langchain_jev.models._resolve",
}

__all__ = [
    "BoundedTransport",
    "CachedDecisionModel",
    "DecisionCache",
    "DecisionResponse",
    "InMemoryCache",
    "JevDecisionModel",
    "JuryDecisionModel",
    "SQLiteCache",
    "as_decision_model",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
