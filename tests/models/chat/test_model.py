"""Building the decision model: options, model strings, names, tracing, concurrency."""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest
from langchain_core.decisions import Noul
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.tracers.context import collect_runs
from langchain_core.tracers.schemas import Run

from langchain_jev import ChatModelDecisionModel, JevConfigurationError, JevCriterion, JevJudge
from tests.models.chat.helpers import ScriptedChatModel, ToolCallingChatModel, logprob_reply, tool_reply

POLITE = Noul(instructions="Is `assistant_answer` polite?")
REPLY = {"polite": {"reasoning": "Kind.", "yes_probability": 0.8}}


def test_a_judge_wraps_a_chat_model_given_as_its_model() -> None:
    chat = ToolCallingChatModel(replies=[lambda messages, kwargs: tool_reply(REPLY)])

    judge = JevJudge([JevCriterion.noul("polite", POLITE, 0.5)], model=chat)

    assert isinstance(judge.model, ChatModelDecisionModel)
    assert judge.model.chat_model is chat
    assert judge.model.strategy == "auto"
    assert judge.judge("Hi?", "Hello!").passed


def test_the_model_name_comes_from_the_chat_model() -> None:
    model = ChatModelDecisionModel(ScriptedChatModel(replies=[]))

    assert model.model == "scripted-chat"
    assert ChatModelDecisionModel(ScriptedChatModel(replies=[]), model="my-judge").model == "my-judge"


def test_generic_fake_chat_model_answers_through_json_in_the_prompt() -> None:
    chat = GenericFakeChatModel(
        messages=iter(['Here you go: {"polite": {"reasoning": "Warm.", "yes_probability": 0.75}}'])
    )
    model = ChatModelDecisionModel(chat, strategy="structured")

    response = model.invoke({"state": {"assistant_answer": "Hello!"}, "questions": {"polite": POLITE}})

    assert response.model == "generic-fake-chat-model"
    assert response.nouls["polite"].noul == 0.75
    assert response.reasoning == {"polite": "Warm."}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"strategy": "fast"},
            "strategy must be one of 'auto', 'structured', 'logprobs', 'per_question'; got 'fast'",
        ),
        ({"top_logprobs": 0}, "top_logprobs must be an integer >= 1, got 0"),
        ({"max_concurrency": True}, "max_concurrency must be an integer >= 1, got True"),
        ({"system_message": "  "}, "system_message must be a non-empty string"),
        ({"raw_output_limit": -1}, "raw_output_limit must be an integer >= 0, got -1"),
    ],
)
def test_bad_options_get_a_clear_error(options: dict[str, Any], message: str) -> None:
    with pytest.raises(JevConfigurationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ChatModelDecisionModel(ScriptedChatModel(replies=[]), **options)


def test_a_chat_model_of_the_wrong_type_is_refused() -> None:
    with pytest.raises(
        JevConfigurationError,
        match="chat_model must be a LangChain BaseChatModel or a 'provider:model' string, got int",
    ):
        ChatModelDecisionModel(42)  # type: ignore[arg-type]


def test_a_model_string_goes_to_init_chat_model() -> None:
    pytest.importorskip("langchain.chat_models")
    if "langchain_openai" in sys.modules or _importable("langchain_openai"):
        pytest.skip("langchain-openai is installed; the integration tests cover it")

    with pytest.raises(ImportError, match="langchain-openai"):
        ChatModelDecisionModel("openai:gpt-4o-mini")


def test_a_model_string_without_langchain_names_the_chat_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain.chat_models", None)

    with pytest.raises(
        JevConfigurationError,
        match=r'install the chat extra: pip install -e "\.\[chat\]" in a checkout of langchain-jev, or pip install "langchain_jev-VERSION-py3-none-any\.whl\[chat\]" from a wheel',
    ):
        ChatModelDecisionModel("openai:gpt-4o-mini")


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def _names(run: Run) -> list[str]:
    return [run.name] + [name for child in run.child_runs for name in _names(child)]


def test_chat_model_requests_are_traced_under_the_decision_model_run() -> None:
    chat = ToolCallingChatModel(replies=[tool_reply(REPLY)])
    judge = JevJudge(
        [JevCriterion.noul("polite", POLITE, 0.5)], model=ChatModelDecisionModel(chat, strategy="structured")
    )

    with collect_runs() as collector:
        judge.invoke({"assistant_answer": "Hello!"})

    (root,) = collector.traced_runs
    assert root.name == "JevJudge"
    (decision,) = root.child_runs
    assert (decision.name, decision.run_type) == ("ChatModelDecisionModel", "llm")
    assert "ToolCallingChatModel" in _names(decision)


def test_sync_logprobs_requests_run_concurrently() -> None:
    barrier = threading.Barrier(3, timeout=10)

    def reply(messages: list[Any], kwargs: dict[str, Any]) -> Any:
        barrier.wait()  # breaks unless the three requests are in flight together
        return logprob_reply({"yes": -0.1, "no": -2.5})

    questions = {name: Noul(instructions=f"{name}?") for name in ("a", "b", "c")}
    model = ChatModelDecisionModel(ScriptedChatModel(replies=[reply]), strategy="logprobs")

    response = model.invoke({"state": "x", "questions": questions})

    assert set(response.answers) == {"a", "b", "c"}


def test_the_repr_shows_no_chat_model_internals() -> None:
    model = ChatModelDecisionModel(ScriptedChatModel(replies=[]), strategy="structured")

    assert "replies" not in repr(model)
    assert "strategy='structured'" in repr(model)
