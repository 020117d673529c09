"""A guardrail given a jury refuses when any member flags: in real graphs, sync and async, whatever
the jury combined by, nested or cached; a member down fails closed; nothing is refused that no member flags."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.decisions import BaseDecisionModel, ClassifierRequest, ClassifierResponse, Question, State
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig

from langchain_jev import ChatModelDecisionModel, JevConfigurationError
from langchain_jev.guardrails import HazardBattery
from langchain_jev.guardrails._policy import WITHHELD_REQUEST
from langchain_jev.models import CachedDecisionModel, InMemoryCache, JuryDecisionModel
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import JevWire
from tests.guardrails.helpers import SAFE, chat, contents, guarded_graph, hazard_wire
from tests.models.chat.helpers import ToolCallingChatModel, tool_reply

MODES = pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
COMBINES = pytest.mark.parametrize("combine", ["mean", "vote"])
REFUSAL = "I can't help with that request: it was flagged for hate."
ANSWER = "Here is a recipe for pasta."


def flagging_chat(p: float = 0.9) -> ChatModelDecisionModel:
    """A real chat model (a fake one answering by tool call) that finds hate with probability ``p``."""
    payload = {"hate": {"reasoning": "Slurs against a group.", "yes_probability": p}}
    replies = [tool_reply(payload) for _ in range(4)]
    return ChatModelDecisionModel(ToolCallingChatModel(replies=replies), strategy="structured")


def three_members(wire: JevWire, asynchronous: bool) -> dict[str, Any]:
    """Jev over the real SDK and a scripted member clear the message; a chat model flags it."""
    return {
        "jev": wire.model("async" if asynchronous else "sync"),
        "chat": flagging_chat(),
        "scripted": ScriptedDecisionModel({"hate": SAFE}, model="scripted"),
    }


def run(graph: Any, asynchronous: bool, text: str = "a message about a group of people") -> dict[str, Any]:
    state = {"messages": [HumanMessage(text)]}
    return asyncio.run(graph.ainvoke(state)) if asynchronous else graph.invoke(state)  # type: ignore[no-any-return]


@MODES
@COMBINES
def test_one_member_s_flag_refuses_the_turn_whatever_the_jury_combined_by(
    asynchronous: bool, combine: str
) -> None:
    """A mean jury averaged the one flag (0.9, 0.02, 0.02 -> 0.31) under the 0.5 bar: the turn went through."""
    wire = hazard_wire()
    jury = JuryDecisionModel(three_members(wire, asynchronous), combine=combine)  # type: ignore[arg-type]
    agent = chat(ANSWER)
    graph = guarded_graph(agent, input_battery=HazardBattery.input(["hate"], model=jury))

    out = run(graph, asynchronous)

    assert agent.calls == 0
    assert contents(out["messages"]) == [WITHHELD_REQUEST, REFUSAL]
    assert out["guardrail"]["refused"] is True and out["guardrail"]["categories"] == {"hate": 0.9}
    assert wire.calls == 1  # every member asked once
    assert jury.combine == combine  # the user's jury is left as it was


@MODES
def test_the_guarded_model_node_refuses_a_reply_one_member_flags(asynchronous: bool) -> None:
    jury = JuryDecisionModel(
        {
            "a": ScriptedDecisionModel({"hate": SAFE}, model="a"),
            "b": ScriptedDecisionModel({"hate": 0.8}, model="b"),
            "c": ScriptedDecisionModel({"hate": SAFE}, model="c"),
        }
    )
    agent = chat("Those people are vermin.")
    graph = guarded_graph(
        agent, output_battery=HazardBattery.output(["hate"], model=jury), output_guard="model"
    )

    out = run(graph, asynchronous, "Tell me about my neighbours.")

    assert "Those people are vermin." not in contents(out["messages"])
    assert contents(out["messages"])[-1] == "I can't share that response: it was flagged for hate."


@MODES
def test_nothing_is_refused_that_no_member_flags(asynchronous: bool) -> None:
    members = {name: ScriptedDecisionModel({"hate": p}, model=name) for name, p in [("a", 0.3), ("b", 0.45)]}
    agent = chat(ANSWER)
    graph = guarded_graph(
        agent, input_battery=HazardBattery.input(["hate"], model=JuryDecisionModel(members))
    )

    out = run(graph, asynchronous)

    assert agent.calls == 1 and contents(out["messages"])[-1] == ANSWER
    assert out["guardrail"]["probabilities"] == {"hate": 0.45}  # the strongest yes, still under the bar


def test_a_jury_among_the_members_flags_on_any_of_its_own_members_too() -> None:
    inner = JuryDecisionModel(
        {
            "x": ScriptedDecisionModel({"hate": SAFE}, model="x"),
            "y": ScriptedDecisionModel({"hate": 0.9}, model="y"),
        }
    )
    jury = JuryDecisionModel({"panel": inner, "z": ScriptedDecisionModel({"hate": SAFE}, model="z")})
    battery = HazardBattery.input(["hate"], model=jury)
    assert battery.model.combine == "max" and battery.model.members[0].combine == "max"  # type: ignore[attr-defined]
    graph = guarded_graph(chat(ANSWER), input_battery=battery)
    assert run(graph, False)["guardrail"]["categories"] == {"hate": 0.9}


def test_a_cached_jury_is_rebuilt_behind_the_same_cache_and_never_served_the_averaged_answers() -> None:
    store = InMemoryCache()
    members = {
        "a": ScriptedDecisionModel({"hate": SAFE}, model="a"),
        "b": ScriptedDecisionModel({"hate": 0.9}, model="b"),
    }
    averaging = CachedDecisionModel(JuryDecisionModel(members), store)
    request: ClassifierRequest = {
        "state": {"user_question": "a message about a group of people"},
        "questions": HazardBattery.input(["hate"], model=averaging).questions,
    }
    assert averaging.invoke(request).answers["hate"].noul == pytest.approx(0.46)  # stored, averaged

    graph = guarded_graph(chat(ANSWER), input_battery=HazardBattery.input(["hate"], model=averaging))
    out = run(graph, False)

    assert out["guardrail"]["categories"] == {"hate": 0.9}
    assert len(store) == 2  # the flagging jury's answer is kept under a key of its own


@MODES
def test_a_member_down_fails_closed_and_with_a_quorum_the_others_flag(asynchronous: bool) -> None:
    down = hazard_wire(status=503)
    members = {
        "jev": down.model("async" if asynchronous else "sync"),
        "chat": flagging_chat(0.2),
        "scripted": ScriptedDecisionModel({"hate": SAFE}, model="scripted"),
    }
    agent = chat(ANSWER)
    everyone = guarded_graph(
        agent, input_battery=HazardBattery.input(["hate"], model=JuryDecisionModel(members))
    )
    out = run(everyone, asynchronous)
    assert agent.calls == 0 and out["guardrail"]["refused"] is True  # undecided: refused, not let through
    assert out["guardrail"]["undecided"] == ["hate"]

    members["chat"] = flagging_chat(0.9)
    two = guarded_graph(
        agent, input_battery=HazardBattery.input(["hate"], model=JuryDecisionModel(members, quorum=2))
    )
    assert run(two, asynchronous)["guardrail"]["categories"] == {"hate": 0.9}


class _Wrapper(BaseDecisionModel):
    """A wrapper of a decision model the guardrail does not know how to rebuild."""

    inner: BaseDecisionModel
    model: str = "wrapped"

    @property
    def _provider(self) -> str:
        return "wrapper"

    def invoke(
        self, input: ClassifierRequest, config: RunnableConfig | None = None, **_: Any
    ) -> ClassifierResponse:
        return self.inner.invoke(input, config)

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        raise AssertionError("not asked")


def test_a_jury_inside_a_wrapper_it_cannot_rebuild_is_refused_rather_than_averaged() -> None:
    members = [ScriptedDecisionModel({}, model="a"), ScriptedDecisionModel({}, model="b")]
    with pytest.raises(
        JevConfigurationError, match=r"inside _Wrapper cannot be rebuilt: wrap jury.with_combine\('max'\)"
    ):
        HazardBattery.input(["hate"], model=_Wrapper(inner=JuryDecisionModel(members)))
    flagging = _Wrapper(inner=JuryDecisionModel(members, combine="max"))
    assert HazardBattery.input(["hate"], model=flagging).model is flagging
