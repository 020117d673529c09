"""``--jev-cache`` serves every Jev request of the session, whichever judge makes it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest
from typesafe_sdk import TypeSafeClient

# Loaded here so that in-process pytester runs share these modules with this process
# (pytester forgets modules first imported during a run, which would split classes in two).
from langchain_jev import JevCriterion, JevJudge
from langchain_jev.models import CachedDecisionModel, InMemoryCache, JevDecisionModel, SQLiteCache  # noqa: F401
from langchain_jev.models._shared_cache import share_cache
from langchain_jev.testing import aassert_judged, assert_judged  # noqa: F401
from langchain_jev.testing.server import JevServer
from tests.fakes import JevWire, noul
from tests.testing.helpers import GOOD, judge_on
from tests.testing.helpers import POLITE as POLITE_QUESTION

pytest_plugins = ["pytester"]

KEY = "sk-session-cache-test"
POLITE = JevCriterion.noul("polite", POLITE_QUESTION, 0.7)
INI = "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"

SUITE = """
from langchain_core.decisions import Noul
from langchain_jev import JevCriterion, JevJudge
from langchain_jev.models import JevDecisionModel
from langchain_jev.testing import aassert_judged, assert_judged  # noqa: F401

POLITE = JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)
JUDGE = JevJudge([POLITE])  # Jev from the environment, built at import

def test_assert_judged_with_its_own_judge():
    assert_judged("Hello! How can I help?", JUDGE, given="Hi?")

async def test_aassert_judged_with_its_own_judge():
    await aassert_judged("Good morning! What can I do for you?", JUDGE, given="Hi?")

def test_assert_judged_with_statements():
    assert_judged("Bonjour !", "It is a greeting.")

def test_a_judge_called_directly_with_an_explicit_model():
    judge = JevJudge([POLITE], model=JevDecisionModel(model="jev-latest"))
    assert judge.judge("Hi?", "Hey there, welcome!").passed

def test_jev_model(jev_model):
    assert_judged("Hello!", "It is polite.", model=jev_model)
"""


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[JevServer]:
    with JevServer(GOOD, default_noul=0.9) as jev:  # any other noul 0.9
        monkeypatch.delenv("TYPESAFE_DEFAULT_MODEL", raising=False)
        monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
        monkeypatch.setenv("TYPESAFE_BASE_URL", jev.base_url)
        yield jev


@pytest.mark.slow
def test_a_rerun_with_jev_cache_asks_jev_nothing_whichever_judge_asked(
    pytester: pytest.Pytester, server: JevServer
) -> None:
    pytester.makeini(INI)
    pytester.makepyfile(test_judged=SUITE)

    first = pytester.runpytest("--jev-cache", "cache/jev.sqlite")
    first.assert_outcomes(passed=5)
    asked = server.request_count
    assert asked == 5  # one request per test, none answered before
    assert (pytester.path / "cache" / "jev.sqlite").is_file()

    again = pytester.runpytest("--jev-cache", "cache/jev.sqlite")
    again.assert_outcomes(passed=5)
    assert server.request_count == asked, "the rerun asked Jev again despite --jev-cache"
    assert share_cache(None) is None  # each session stopped sharing its cache when it ended


@pytest.mark.slow
def test_without_jev_cache_every_run_asks(pytester: pytest.Pytester, server: JevServer) -> None:
    pytester.makeini(INI)
    pytester.makepyfile(test_judged=SUITE)

    pytester.runpytest().assert_outcomes(passed=5)
    pytester.runpytest().assert_outcomes(passed=5)

    assert server.request_count == 10


@pytest.fixture
def shared() -> Iterator[InMemoryCache]:
    cache = InMemoryCache()
    previous = share_cache(cache)
    try:
        yield cache
    finally:
        share_cache(previous)


async def test_a_shared_cache_serves_models_that_make_their_own_clients(
    shared: InMemoryCache, server: JevServer
) -> None:
    model = JevDecisionModel(api_key=KEY, base_url=server.base_url)
    verdicts = [judge_on(model).judge("Hi?", "Hello!"), await judge_on(model).ajudge("Hi?", "Hello!")]
    other = JevDecisionModel(api_key=KEY, base_url=server.base_url)
    verdicts.append(judge_on(other).judge("Hi?", "Hello!"))

    assert [v.response.cache_hit for v in verdicts] == [False, True, True]
    assert server.request_count == 1 and len(shared) == 1


def test_a_shared_cache_never_serves_a_model_given_its_own_client(shared: InMemoryCache) -> None:
    wire = JevWire({"polite": noul(0.93)})
    client = TypeSafeClient(api_key=KEY, transport=httpx2.MockTransport(wire))
    judge = JevJudge([POLITE], model=JevDecisionModel(client=client))

    for _ in range(2):
        assert judge.judge("Hi?", "Hello!").passed

    assert wire.calls == 2 and len(shared) == 0


def test_share_cache_refuses_what_is_not_a_cache() -> None:
    with pytest.raises(ValueError, match="share_cache takes a DecisionCache"):
        share_cache("jev.sqlite")  # type: ignore[arg-type]
