"""Deprecation warnings of LangSmith and LangChain are errors in this folder's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.deprecations import as_errors_under


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark this folder's tests with the deprecation filters."""
    as_errors_under(Path(__file__).parent, items)
