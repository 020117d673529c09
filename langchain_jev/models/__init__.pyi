"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev.models._cache import CachedDecisionModel as CachedDecisionModel
from langchain_jev.models._cache import DecisionCache as DecisionCache
from langchain_jev.models._cache import InMemoryCache as InMemoryCache
from langchain_jev.models._cache import SQLiteCache as SQLiteCache
from langchain_jev.models._jev import JevDecisionModel as JevDecisionModel
from langchain_jev.models._jury import JuryDecisionModel as JuryDecisionModel
from langchain_jev.models._resolve import as_decision_model as as_decision_model
from langchain_jev.models._response import DecisionResponse as DecisionResponse
from langchain_jev.models._transport import BoundedTransport as BoundedTransport
