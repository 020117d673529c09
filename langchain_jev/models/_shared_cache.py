"""One cache shared by every `JevDecisionModel` of a process (the pytest plugin's ``--jev-cache``).

The Jev model knows no cache: `share_cache` hands it the wrapper to answer through,
a `CachedDecisionModel` over the shared cache.
"""

from __future__ import annotations

from langchain_jev._errors import JevConfigurationError
from langchain_jev.models import _jev as jev
from langchain_jev.models._cache import CachedDecisionModel, DecisionCache

__all__ = ["share_cache"]

_current: list[DecisionCache | None] = [None]
"""The cache shared now, or None."""


def share_cache(cache: DecisionCache | None) -> DecisionCache | None:
    """Answer the requests of every `JevDecisionModel` of this process from ``cache``; return the one before.

    Each model looks the request up first (as a `CachedDecisionModel` wrapping it
    would: same keys, only complete answers stored, ``cache_hit`` on the response),
    and asks Jev on a miss. It serves the models that make their own SDK clients,
    from the environment or from ``api_key=`` / ``base_url=``: whichever judge, spoke
    or assertion holds them. A model given ``client=`` / ``async_client=`` (a mock
    transport, a proxy of your own) is never served from it. Other decision models
    (chat models, your own) are not either: wrap them in a `CachedDecisionModel`.
    ``None`` stops sharing. The pytest plugin's ``--jev-cache`` uses it for a session.

    Raises:
        JevConfigurationError: ``cache`` is not a `DecisionCache` (get, put, aget, aput).

    Example:
        >>> from langchain_jev.models import InMemoryCache
        >>> before = share_cache(InMemoryCache())
        >>> share_cache(before)  # doctest: +ELLIPSIS
        InMemoryCache(...)

    """
    if cache is not None and not isinstance(cache, DecisionCache):
        raise JevConfigurationError(
            f"share_cache takes a DecisionCache (get, put, aget, aput) or None, got {type(cache).__name__}"
        )
    previous, _current[0] = _current[0], cache
    jev._shared[0] = None if cache is None else _wrapper(cache)
    return previous


def _wrapper(cache: DecisionCache) -> jev.Wrap:
    def wrap(model: jev.JevDecisionModel) -> CachedDecisionModel:
        return CachedDecisionModel(cache=cache, inner=model)

    return wrap
