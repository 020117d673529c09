"""The fault matrices (every fault, transport, sync and async, form and policy) are `slow`.

`pytest -m "not slow"` leaves them out for a quick run while working; CI runs them all.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test of this directory `slow`."""
    here = __file__.rsplit("/", 1)[0]
    for item in items:
        if str(item.path).startswith(here):
            item.add_marker(pytest.mark.slow)
