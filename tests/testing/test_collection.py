"""A judge defined at module level builds without a key: collection passes, the call says what is missing."""

from __future__ import annotations

import pytest

# Loaded here so that in-process pytester runs share these modules with this process
# (pytester forgets modules first imported during a run, which would split classes in two).
from langchain_jev import JevCriterion, JevJudge  # noqa: F401
from langchain_jev.models import JevDecisionModel  # noqa: F401
from langchain_jev.testing import assert_judged  # noqa: F401

pytest_plugins = ["pytester"]

INI = "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"

MODULE_LEVEL_JUDGE = """
from langchain_core.decisions import Noul
from langchain_jev import JevCriterion, JevJudge

JUDGE = JevJudge([JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)])

def test_sync():
    JUDGE.judge("Hi?", "Hello! How can I help?")

async def test_async():
    await JUDGE.ajudge("Hi?", "Hello! How can I help?")

def test_without_the_judge():
    assert "polite" in repr(JUDGE)
"""


def test_a_module_level_judge_without_a_key_is_collected_and_its_calls_fail_clearly(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("TYPESAFE_API_KEY", "TYPESAFE_BASE_URL", "TYPESAFE_DEFAULT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    pytester.makeini(INI)
    pytester.makepyfile(test_judged=MODULE_LEVEL_JUDGE)

    result = pytester.runpytest()

    result.assert_outcomes(passed=1, failed=2)  # collected: no error, the test without a call passes
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*MissingCredentialsError: no API key for Jev: set TYPESAFE_API_KEY*"] * 2, consecutive=False
    )
    assert "ERROR collecting" not in result.stdout.str()
