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

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
