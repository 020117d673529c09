"""Per-category thresholds on the agent middleware: what guardrail-eval suggests, enforced by the guardrail."""

from __future__ import annotations

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage

from langchain_jev import JevConfigurationError
from langchain_jev.middleware import JevGuardrailMiddleware
from langchain_jev.testing import ScriptedDecisionModel


def _turn(guard: JevGuardrailMiddleware) -> str:
    agent = create_agent(GenericFakeChatModel(messages=iter([AIMessage("Sure.")])), middleware=[guard])
    out = agent.invoke({"messages": [HumanMessage("How do I pick a lock?")]})
    return str(out["messages"][-1].content)


@pytest.mark.parametrize(
    ("thresholds", "refused"), [(None, False), ({"S2": 0.4}, True), ({"non_violent_crimes": 0.6}, False)]
)
def test_a_categorys_own_threshold_decides_in_place_of_the_preset(
    thresholds: dict[str, float] | None, refused: bool
) -> None:
    guard = JevGuardrailMiddleware(
        check_output=False,
        categories=["non_violent_crimes"],
        thresholds=thresholds,
        model=ScriptedDecisionModel({"non_violent_crimes": 0.45}),
    )
    assert _turn(guard).startswith("I can't help") is refused


def test_each_rail_takes_the_thresholds_of_the_categories_it_asks() -> None:
    guard = JevGuardrailMiddleware(
        check_tool_results=True,
        thresholds={"S1": 0.42, "jailbreak": 0.8, "prompt_injection": 0.3},
        model=None,
    )
    assert (
        guard.input_rail is not None and guard.output_rail is not None and guard.tool_results_rail is not None
    )
    assert guard.input_rail.battery.thresholds["violent_crimes"] == 0.42
    assert guard.output_rail.battery.thresholds["violent_crimes"] == 0.42
    assert guard.input_rail.battery.thresholds["jailbreak"] == 0.8
    assert guard.tool_results_rail.battery.thresholds == {"prompt_injection": 0.3}


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"thresholds": {"nope": 0.5}}, "'nope'"),
        ({"thresholds": {"S1": 2}}, "'violent_crimes' must be a probability"),
        (
            {"check_input": False, "thresholds": {"jailbreak": 0.5}},
            "['jailbreak'], which no enabled rail asks",
        ),
        ({"thresholds": [0.5]}, "thresholds must map categories"),
    ],
)
def test_a_bad_threshold_is_refused_naming_it(options: dict[str, object], named: str) -> None:
    with pytest.raises(JevConfigurationError, match=named.replace("[", r"\[").replace("]", r"\]")):
        JevGuardrailMiddleware(model=None, **options)  # type: ignore[arg-type]


def test_two_guardrails_differing_only_in_thresholds_have_two_names() -> None:
    plain = JevGuardrailMiddleware(model=None)
    tuned = JevGuardrailMiddleware(thresholds={"S1": 0.42}, model=None)
    assert plain.name != tuned.name
    assert "violent_crimes=0.42" in tuned.name
