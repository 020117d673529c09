"""The pytest plugin, run the way a user's suite runs it (pytester)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

# Loaded here so that in-process pytester runs share these modules with this process
# (pytester forgets modules first imported during a run, which would split classes in two).
from langchain_jev.models import CachedDecisionModel, JevDecisionModel, SQLiteCache  # noqa: F401

pytest_plugins = ["pytester"]

KEY = "sk-plugin-test-5e3cret"
INI = "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"

USES_JEV = """
from langchain_jev.models import JevDecisionModel

def test_sync(jev_model):
    assert isinstance(jev_model, JevDecisionModel)
    assert "{key}" not in repr(jev_model)

async def test_async(jev_model):
    assert isinstance(jev_model, JevDecisionModel)

def test_without_jev():
    assert True
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A user's test folder with one sync and one async test that use jev_model."""
    for name in ("TYPESAFE_API_KEY", "TYPESAFE_BASE_URL", "TYPESAFE_DEFAULT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    pytester.makeini(INI)
    pytester.makepyfile(test_suite=USES_JEV.format(key=KEY))
    return pytester


def test_without_a_key_the_tests_are_skipped(suite: pytest.Pytester) -> None:
    result = suite.runpytest("-rs")

    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(["*SKIPPED*jev_model needs TYPESAFE_API_KEY to reach Jev*"])


def test_with_jev_require_they_fail(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--jev-require")

    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(["*jev_model needs TYPESAFE_API_KEY to reach Jev (--jev-require is set)*"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_an_empty_key_counts_as_none(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TYPESAFE_API_KEY", "  ")
    suite.runpytest().assert_outcomes(passed=1, skipped=2)


def test_with_a_key_sync_and_async_tests_get_jev(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)

    result = suite.runpytest("--jev-require")

    result.assert_outcomes(passed=3)
    assert KEY not in result.stdout.str()


def test_jev_cache_wraps_the_model_in_a_sqlite_cache(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
    pytester.makeini(INI)
    path = pytester.path / "cache" / "jev.sqlite"
    pytester.makepyfile(
        test_cached=f"""
        from langchain_jev.models import CachedDecisionModel, JevDecisionModel, SQLiteCache

        def test_cached(jev_model):
            assert isinstance(jev_model, CachedDecisionModel)
            assert isinstance(jev_model.inner, JevDecisionModel)
            assert isinstance(jev_model.cache, SQLiteCache)
            assert jev_model.cache.path == {str(path)!r}
        """
    )

    pytester.runpytest(f"--jev-cache={path}").assert_outcomes(passed=1)
    assert path.exists()


@pytest.mark.slow
def test_a_relative_jev_cache_path_follows_the_invocation_dir_not_the_test_cwd(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
    pytester.makeini(INI)
    expected = pytester.path / "cache" / "jev.sqlite"
    pytester.makepyfile(
        test_chdir=f"""
        import os
        import pytest

        @pytest.fixture(autouse=True)
        def elsewhere(tmp_path, monkeypatch):
            monkeypatch.chdir(tmp_path)

        @pytest.mark.parametrize("n", [1, 2])
        def test_cached(jev_model, n, tmp_path):
            assert os.getcwd() == str(tmp_path)
            assert jev_model.cache.path == {str(expected)!r}
        """
    )

    pytester.runpytest("--jev-cache=cache/jev.sqlite").assert_outcomes(passed=2)
    assert expected.exists()


def test_the_plugin_is_found_through_its_entry_point(suite: pytest.Pytester) -> None:
    result = suite.runpytest_subprocess("--help")

    result.stdout.fnmatch_lines(["*langchain-jev judges*", "*--jev-require*", "*--jev-cache=PATH*"])


def test_assert_judged_failure_reads_well_in_a_report(pytester: pytest.Pytester) -> None:
    pytester.makeini(INI)
    pytester.makepyfile(
        test_judged="""
        from langchain_core.decisions import Noul
        from langchain_jev import JevCriterion, JevJudge
        from langchain_jev.testing import ScriptedDecisionModel, assert_judged

        POLITE = JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)

        def test_rude():
            judge = JevJudge([POLITE], model=ScriptedDecisionModel({"polite": 0.1}))
            assert_judged("Go away.", judge, given="Can you help?")
        """
    )

    result = pytester.runpytest()

    result.assert_outcomes(failed=1)
    result.stdout.re_match_lines(
        [
            r"E +" + re.escape("AssertionError: passed=false [polite=FAILED]") + "$",
            r"E +" + re.escape('polite: not met: "Is `assistant_answer` polite?" (yes at 0.10, needs 0.70)'),
        ],
        consecutive=True,
    )
    assert "assertions.py" not in result.stdout.str()  # the helper's own frames are hidden


def test_loading_the_plugin_does_not_load_langchain() -> None:
    code = "import sys, langchain_jev.testing.plugin; print(any(m.startswith('langchain_core') for m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_every_testing_export_resolves() -> None:
    import langchain_jev.testing as testing

    assert sorted(testing.__all__) == sorted(dir(testing))
    for name in testing.__all__:
        assert getattr(testing, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = testing.nothing
