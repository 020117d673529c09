"""The cache knows every endpoint: a model asked at another server is asked again, whatever wraps it.

Each model kind is put behind one `CachedDecisionModel` store twice, once per
loopback server; the servers answer differently, so a request served from the
first server's entry would carry the first server's answer. Every kind must ask
the second server and return its answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from langchain_core.decisions import BaseDecisionModel, ClassifierResponse, Noul, Question, State
from pydantic import ConfigDict
from typesafe_sdk import RetryPolicy

from langchain_jev import ChatModelDecisionModel
from langchain_jev.models import JevDecisionModel, as_decision_model
from langchain_jev.models._cache import CachedDecisionModel, InMemoryCache, model_identity
from langchain_jev.testing.server import JevServer
from tests.models.chat.helpers import ScriptedChatModel

KEY = "sk-cache-endpoints-0123456789"
REQUEST: Any = {"state": "Is it ok?", "questions": {"ok": Noul(instructions="Is it ok?")}}


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[JevServer, JevServer]]:
    with JevServer({"ok": 0.1}, api_key=KEY) as a, JevServer({"ok": 0.9}, api_key=KEY) as b:
        yield a, b


def jev(server: JevServer) -> JevDecisionModel:
    return JevDecisionModel(api_key=KEY, base_url=server.base_url, retry=RetryPolicy(max_retries=0))


def classifier(server: JevServer) -> BaseDecisionModel:
    from langchain_typesafe import TypeSafeClassifier

    return as_decision_model(TypeSafeClassifier(api_key=KEY, base_url=server.base_url))


class FirstOf(BaseDecisionModel):
    """A wrapper holding its models in a list (as a jury does): the first one answers."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    models: list[BaseDecisionModel]
    model: str = "first-of"

    @property
    def _provider(self) -> str:
        return "test"

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        return self.models[0]._classify(state, questions)

    async def _aclassify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        return await self.models[0]._aclassify(state, questions)


KINDS: dict[str, Callable[[JevServer], BaseDecisionModel]] = {
    "jev": jev,
    "typesafe-classifier": classifier,
    "jury-like wrapper": lambda server: FirstOf(models=[jev(server)]),
    "wrapper of a classifier": lambda server: FirstOf(models=[classifier(server)]),
    "a cache over jev": lambda server: CachedDecisionModel(jev(server), InMemoryCache()),
}


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("kind", list(KINDS))
async def test_the_second_endpoint_is_asked_not_served_the_first_ones_answer(
    servers: tuple[JevServer, JevServer], kind: str, mode: str
) -> None:
    a, b = servers
    before = (a.request_count, b.request_count)
    store = InMemoryCache()
    at_a, at_b = (CachedDecisionModel(KINDS[kind](server), store) for server in (a, b))

    async def ask(model: CachedDecisionModel) -> ClassifierResponse:
        return model.invoke(REQUEST) if mode == "sync" else await model.ainvoke(REQUEST)

    assert (await ask(at_a)).nouls["ok"].noul == 0.1
    answer = await ask(at_b)
    assert answer.nouls["ok"].noul == 0.9 and not getattr(answer, "cache_hit", False)
    assert (a.request_count - before[0], b.request_count - before[1]) == (1, 1)
    assert (await ask(at_a)).nouls["ok"].noul == 0.1  # each endpoint still answered from its own entry
    assert a.request_count - before[0] == 1


class EndpointChatModel(ScriptedChatModel):
    """A chat model with a base URL, as most providers' classes have one."""

    base_url: str = ""


def test_a_chat_models_base_url_is_part_of_the_identity() -> None:
    one, other = (
        model_identity(ChatModelDecisionModel(EndpointChatModel(base_url=url), strategy="structured"))
        for url in ("http://a.test/v1", "http://b.test/v1/")
    )
    assert (one["endpoint"], other["endpoint"]) == ("http://a.test/v1", "http://b.test/v1")


def test_the_identity_of_the_parts_never_holds_a_key(servers: tuple[JevServer, JevServer]) -> None:
    identity = model_identity(FirstOf(models=[classifier(servers[0]), jev(servers[1])]))
    adapter, jev_part = identity["parts"]["models"]
    assert adapter["parts"]["classifier"]["endpoint"] == servers[0].base_url
    assert adapter["parts"]["classifier"]["class"] == "langchain_typesafe.classifier.TypeSafeClassifier"
    assert jev_part["endpoint"] == servers[1].base_url
    assert KEY not in repr(identity)


def test_a_cached_model_s_identity_names_it_by_its_face_so_stored_keys_keep_matching() -> None:
    from langchain_jev.testing import ScriptedDecisionModel

    inner = CachedDecisionModel(ScriptedDecisionModel({}), InMemoryCache())
    identity = model_identity(CachedDecisionModel(inner, InMemoryCache()))
    # the class path is part of every key of a model made of caches: it is the one it had before the split
    assert identity["parts"]["inner"]["class"] == "langchain_jev.models._cache.CachedDecisionModel"
