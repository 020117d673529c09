"""In these folders LangSmith's and LangChain's deprecations are errors, and LangChain's beta warnings are not.

The calls below are the deprecated ones themselves, each stopped by its warning
before it reaches a server: they would pass quietly without the folder's filters.
"""

from __future__ import annotations

import uuid

import pytest
from langchain_core._api.beta_decorator import LangChainBetaWarning, warn_beta
from langchain_core._api.deprecation import LangChainDeprecationWarning
from langchain_core.messages import AIMessage
from langsmith._internal._beta_decorator import LangSmithDeprecationWarning
from langsmith.utils import LangSmithWarning

from tests.langsmith.helpers import offline_client
from tests.support.deprecations import DEPRECATIONS_AS_ERRORS


def test_langsmith_s_list_runs_is_an_error() -> None:
    with pytest.raises(LangSmithDeprecationWarning, match=r"list_runs\(\) is deprecated"):
        offline_client().list_runs(project_name="any")


def test_feedback_without_session_id_is_an_error() -> None:
    client = offline_client()
    with pytest.raises(LangSmithWarning, match="without session_id is deprecated"):
        client.create_feedback(run_id=uuid.uuid4(), key="correct", score=1.0)


def test_langchain_s_deprecations_are_errors() -> None:
    with pytest.raises(LangChainDeprecationWarning):
        AIMessage("Hello.").text()


def test_langchain_s_beta_warnings_are_not() -> None:
    # A beta warning is a DeprecationWarning: only its exemption by class keeps it from being an error.
    assert issubclass(LangChainBetaWarning, DeprecationWarning)
    warn_beta(message="`OpenAIDecisions` is in beta.")


def test_the_filters_are_the_folders_marks(request: pytest.FixtureRequest) -> None:
    assert DEPRECATIONS_AS_ERRORS.mark in list(request.node.iter_markers("filterwarnings"))
