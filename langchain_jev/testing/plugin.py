"""Pytest plugin of langchain-jev: the ``jev_model`` fixture, ``--jev-require`` and ``--jev-cache``.

Installed with the package (entry point ``pytest11: jev``); nothing to enable.

``jev_model``
    A `JevDecisionModel` configured from the environment (``TYPESAFE_API_KEY``,
    and optionally ``TYPESAFE_DEFAULT_MODEL`` and ``TYPESAFE_BASE_URL``). Without a
    key the test is skipped, so a suite runs anywhere; with ``--jev-require`` it
    fails instead, so CI that has the key cannot silently skip the judged tests.
    Use it in sync and async tests alike.

``--jev-cache PATH``
    Every request to Jev made during the session is answered from this SQLite
    file when it was answered before, and stored when it is new (complete answers
    only; errors never), so a rerun of an unchanged suite costs nothing. It serves
    every `JevDecisionModel` that makes its own SDK clients, whichever judge holds
    it: ``jev_model`` (a `CachedDecisionModel` on the session's cache), the judges
    of ``assert_judged`` (statements, or a `JevJudge` of yours built with
    ``model=None``, a `JevDecisionModel`, ``api_key=`` or ``base_url=``), judges
    you call directly, guardrails and self-refine nodes on Jev. It does not serve
    a `JevDecisionModel` given ``client=`` / ``async_client=`` (a mock transport
    must see its requests), chat models or decision models of your own: wrap
    those in a `CachedDecisionModel`. A relative ``PATH`` is taken from the
    directory pytest was started in, so a test that changes its working directory
    still shares the one cache; ``pytest-xdist`` workers share the file.

Example:
    A test module::

        from langchain_jev.testing import assert_judged, aassert_judged

        def test_greeting(jev_model):
            assert_judged("Hello! How can I help?", "It is a polite greeting.", model=jev_model)

        async def test_refusal(jev_model):
            await aassert_judged(
                "I can't share that.", "It declines the request.",
                given="What is my colleague's password?", model=jev_model,
            )

    Run ``pytest --jev-require`` in CI where ``TYPESAFE_API_KEY`` is set.

"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from langchain_core.decisions import BaseDecisionModel

__all__ = ["jev_model", "pytest_addoption", "pytest_configure", "pytest_unconfigure"]

_KEY_ENV = "TYPESAFE_API_KEY"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--jev-require`` and ``--jev-cache`` to pytest's command line."""
    group = parser.getgroup("jev", "langchain-jev judges")
    group.addoption(
        "--jev-require",
        action="store_true",
        default=False,
        help=f"fail, instead of skip, the tests that use jev_model when {_KEY_ENV} is not set",
    )
    group.addoption(
        "--jev-cache",
        metavar="PATH",
        default=None,
        help="answer repeated Jev requests of the session (jev_model, assert_judged, every judge on "
        "Jev) from this SQLite file",
    )


def _cache_path(config: pytest.Config, path: str) -> str:
    """``--jev-cache`` resolved against the directory pytest was started in."""
    if path == ":memory:":
        return path
    return str(config.invocation_params.dir / os.path.expanduser(path))


_SESSION_CACHE = pytest.StashKey[tuple[Any, Any]]()
"""The session's cache and the shared cache it replaced (restored when the session ends)."""


def pytest_configure(config: pytest.Config) -> None:
    """With ``--jev-cache``, open the session's cache and share it with every Jev model."""
    path = config.getoption("jev_cache", None)
    if not path:
        return
    from langchain_jev.models._cache import SQLiteCache
    from langchain_jev.models._shared_cache import share_cache

    cache = SQLiteCache(_cache_path(config, path))
    config.stash[_SESSION_CACHE] = (cache, share_cache(cache))


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop sharing the session's cache, and close it."""
    entry = config.stash.get(_SESSION_CACHE, None)
    if entry is None:
        return
    del config.stash[_SESSION_CACHE]
    from langchain_jev.models._shared_cache import share_cache

    cache, previous = entry
    share_cache(previous)
    cache.close()


@pytest.fixture
def jev_model(request: pytest.FixtureRequest) -> Iterator[BaseDecisionModel]:
    """Jev from the environment; skips without ``TYPESAFE_API_KEY`` (fails with ``--jev-require``)."""
    if not os.environ.get(_KEY_ENV, "").strip():
        reason = f"jev_model needs {_KEY_ENV} to reach Jev"
        if request.config.getoption("jev_require"):
            pytest.fail(f"{reason} (--jev-require is set)", pytrace=False)
        pytest.skip(reason)
    from langchain_jev.models._jev import JevDecisionModel

    jev = JevDecisionModel()
    entry = request.config.stash.get(_SESSION_CACHE, None)
    if entry is None:
        try:
            yield jev
        finally:
            jev.close()
        return
    from langchain_jev.models._cache import CachedDecisionModel

    try:
        yield CachedDecisionModel(jev, entry[0])
    finally:
        jev.close()
