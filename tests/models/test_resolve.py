"""What ``model=`` accepts: a ``"provider:model"`` string wherever a decision model is accepted."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from langchain_core.decisions import Noul
from pydantic import Field

from langchain_jev import ChatModelDecisionModel, JevConfigurationError, JevCriterion, JevJudge
from langchain_jev.guardrails import HazardBattery
from langchain_jev.models import CachedDecisionModel, JevDecisionModel, as_decision_model
from langchain_jev.spec import load_judge
from langchain_jev.testing import assert_judged
from tests.cli.helpers import ROOT
from tests.models.chat.helpers import ScriptedChatModel, json_reply

POLITE = JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)
REPLY = json_reply({"answers": {"polite": {"reasoning": "Courteous.", "yes_probability": 0.95}}})


@pytest.fixture
def openai_provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[ScriptedChatModel]]:
    """LangChain's ``openai`` provider, played by a scripted chat model (langchain-openai is not installed)."""
    from langchain.chat_models import base

    class ChatOpenAI(ScriptedChatModel):
        model: str = ""
        replies: list[Any] = Field(default_factory=lambda: [lambda messages, kwargs: REPLY])

    module = types.ModuleType("langchain_openai")
    module.ChatOpenAI = ChatOpenAI  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "langchain_openai", module)
    base._get_chat_model_creator.cache_clear()
    yield ChatOpenAI
    base._get_chat_model_creator.cache_clear()


def _chat_of(model: Any) -> Any:
    while isinstance(model, CachedDecisionModel):
        model = model.inner
    assert isinstance(model, ChatModelDecisionModel)
    return model.chat_model


BUILDERS: dict[str, Callable[[str], Any]] = {
    "JevJudge": lambda name: JevJudge([POLITE], model=name).model,
    "JevJudge.from_statements": lambda name: JevJudge.from_statements(["It is polite."], name).model,
    "CachedDecisionModel": lambda name: CachedDecisionModel(name),
    "load_judge": lambda name: load_judge(str(ROOT / "examples" / "weather_judge.yaml"), model=name).model,
    "HazardBattery": lambda name: HazardBattery.output(["hate"], model=name).judge.model,
    "as_decision_model": as_decision_model,
}


@pytest.mark.parametrize("where", list(BUILDERS))
def test_a_provider_string_is_a_chat_model_wherever_a_decision_model_is_accepted(
    openai_provider: type[ScriptedChatModel], where: str
) -> None:
    chat = _chat_of(BUILDERS[where]("openai:gpt-4o-mini"))
    assert isinstance(chat, openai_provider) and chat.model == "gpt-4o-mini"


async def test_a_judge_on_a_provider_string_judges_sync_and_async(openai_provider: type[ScriptedChatModel]) -> None:
    judge = JevJudge([POLITE], model="openai:gpt-4o-mini")
    assert judge.judge("Hi?", "Hello! How can I help?").passed
    assert (await judge.ajudge("Hi?", "Hello! How can I help?")).passed
    assert assert_judged("Hello! How can I help?", judge, given="Hi?", model="openai:gpt-4o-mini").passed


def test_jev_names_itself_in_a_string() -> None:
    for name in ("jev:jev-2", "typesafe:jev-2", " jev : jev-2 "):
        model = as_decision_model(name)
        assert isinstance(model, JevDecisionModel) and model.model == "jev-2"


def test_without_the_chat_extra_the_error_gives_the_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain.chat_models", None)  # as if langchain were not installed
    with pytest.raises(JevConfigurationError, match=r'pip install -e "\.\[chat\]"'):
        JevJudge([POLITE], model="openai:gpt-4o-mini")


def test_an_unknown_provider_is_named_with_what_to_write_instead() -> None:
    with pytest.raises(JevConfigurationError) as error:
        JevJudge([POLITE], model="nosuchprovider:x")
    message = str(error.value)
    assert "'nosuchprovider'" in message and "'provider:model'" in message and "jev:NAME" in message
    assert "model_provider" not in message  # LangChain's advice, which a string cannot follow


@pytest.mark.parametrize("name", ["gpt-4o-mini", "openai:", ":gpt-4o-mini", "  "])
def test_a_string_without_its_provider_is_refused_with_the_form(name: str) -> None:
    with pytest.raises(JevConfigurationError, match="as 'provider:model'"):
        JevJudge([POLITE], model=name)
