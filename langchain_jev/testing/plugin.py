"""Pytest plugin of langchain-jev: the ``jev_model`` fixture and ``--jev-require``.

Installed with the package (entry point ``pytest11: jev``); nothing to enable.

``jev_model``
    A `JevDecisionModel` configured from the environment (``TYPESAFE_API_KEY``,
    and optionally ``TYPESAFE_DEFAULT_MODEL`` and ``TYPESAFE_BASE_URL``). Without a
    key the test is skipped, so a suite runs anywhere; with ``--jev-require`` it
    fails instead, so CI that has the key cannot silently skip the judged tests.
    With ``--jev-cache PATH`` the model answers repeated requests from a SQLite
    file (a `CachedDecisionModel`), so a rerun of an unchanged suite costs nothing.
    A relative ``PATH`` is taken from the directory pytest was started in, so a
    test that changes its working directory still shares the one cache.
    Use it in sync and async tests alike.

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
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from langchain_core.decisions import BaseDecisionModel

__all__ = ["jev_model", "pytest_addoption"]

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
        help="answer repeated Jev requests of jev_model from this SQLite file",
    )


def _cache_path(config: pytest.Config, path: str) -> str:
    """``--jev-cache`` resolved against the directory pytest was started in."""
    if path == ":memory:":
        return path
    return str(config.invocation_params.dir / os.path.expanduser(path))


@pytest.fixture
def jev_model(request: pytest.FixtureRequest) -> Iterator[BaseDecisionModel]:
    """Jev from the environment; skips without ``TYPESAFE_API_KEY`` (fails with ``--jev-require``)."""
    if not os.environ.get(_KEY_ENV, "").strip():
        reason = f"jev_model needs {_KEY_ENV} to reach Jev"
        if request.config.getoption("jev_require"):
            pytest.fail(f"{reason} (--jev-require is set)", pytrace=False)
        pytest.skip(reason)
    from langchain_jev.models.jev import JevDecisionModel

    jev = JevDecisionModel()
    path = request.config.getoption("jev_cache")
    if not path:
        try:
            yield jev
        finally:
            jev.close()
        return
    from langchain_jev.models.cache import CachedDecisionModel, SQLiteCache

    cache = SQLiteCache(_cache_path(request.config, path))
    try:
        yield CachedDecisionModel(jev, cache)
    finally:
        jev.close()
        cache.close()
