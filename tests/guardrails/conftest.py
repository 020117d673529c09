"""Deprecation warnings of LangSmith and LangChain are errors in this folder's agent middleware tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.deprecations import as_errors_under


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the middleware tests of this folder with the deprecation filters."""
    as_errors_under(Path(__file__).parent / "test_middleware.py", items)
