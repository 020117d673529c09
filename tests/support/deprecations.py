"""Deprecation warnings as errors, for the test folders of the code that calls LangSmith and LangChain.

`DEPRECATIONS_AS_ERRORS` turns every deprecation into an error (LangSmith warns
with plain ``DeprecationWarning`` attributed to its caller's module, and with
``LangSmithDeprecationWarning``; LangChain and LangGraph with their subclasses of
it), and LangSmith's deprecation notices that are ``LangSmithWarning`` (feedback
without ``session_id``); LangChain's beta warnings, which subclass
``DeprecationWarning``, are exempt by class. `as_errors_under` marks each test of
a folder (or of one file) with them, from that folder's ``conftest.py`` (pytest applies a
``pytestmark`` of a conftest to nothing).

A test that meets a deprecation it cannot avoid (a library's own call) says so
with a ``filterwarnings`` mark of its own, which is applied after these.
"""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = ["DEPRECATIONS_AS_ERRORS", "as_errors_under"]

DEPRECATIONS_AS_ERRORS = pytest.mark.filterwarnings(
    "error::DeprecationWarning",
    "error::PendingDeprecationWarning",
    "error:.*deprecated:langsmith.utils.LangSmithWarning",
    "ignore::langchain_core._api.beta_decorator.LangChainBetaWarning",
)
"""The filters, later ones winning: every deprecation an error, LangChain's beta warnings not."""


def as_errors_under(place: Path, items: list[pytest.Item]) -> None:
    """Mark every test collected under ``place`` (a folder, or one file) with `DEPRECATIONS_AS_ERRORS`.

    The mark goes before the test's own, so a test's own ``filterwarnings`` mark is applied after it.
    """
    for item in items:
        if item.path.is_relative_to(place):
            item.add_marker(DEPRECATIONS_AS_ERRORS, append=False)
