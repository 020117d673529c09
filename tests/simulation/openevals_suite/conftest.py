"""openevals' tests carry langsmith's ``langsmith`` mark; its plugin would log them to LangSmith.

Tracking is turned off for them (``LANGSMITH_TEST_TRACKING=false``, langsmith's own
switch), so they run offline and record nothing.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_langsmith_tracking(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGSMITH_TEST_TRACKING", "false")
