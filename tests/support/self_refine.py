"""Shared parts of the self-refine tests: judges, and a Jev wire answering in turn."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.decisions import Noul
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.testing import ScriptedDecisionModel

QUESTION = "At what temperature does water boil at sea level?"

UNITS = Noul(
    instructions="Does `assistant_answer` give the unit of every number it states?",
    criteria={"false": "A number is given without its unit"},
)
SOURCED = Noul(instructions="Does `assistant_answer` name a source for its claim?")
BRIEF = Noul(instructions="Is `assistant_answer` at most two sentences long?")


async def run(app: Any, inputs: dict[str, Any], mode: str, config: dict[str, Any] | None = None) -> Any:
    """Run a graph or an agent through ``invoke`` (mode "sync") or ``ainvoke``."""
    if mode == "sync":
        return app.invoke(inputs, config)
    return await app.ainvoke(inputs, config)


def ask(question: str = QUESTION) -> dict[str, Any]:
    return {"messages": [HumanMessage(question)]}


def calls_tool(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


def unit_judge(*probabilities: float, **options: Any) -> tuple[JevJudge, ScriptedDecisionModel]:
    """A one-criterion judge answering successive requests with these probabilities of yes."""
    model = ScriptedDecisionModel([{"cites_unit": p} for p in probabilities])
    return JevJudge([JevCriterion.noul("cites_unit", UNITS, 0.7)], model=model, **options), model


def three_judge(*scripts: dict[str, Any], **options: Any) -> tuple[JevJudge, ScriptedDecisionModel]:
    """A three-criterion judge (cites_unit, sourced, brief) answering from successive scripts."""
    model = ScriptedDecisionModel(list(scripts))
    criteria = [
        JevCriterion.noul("cites_unit", UNITS, 0.7),
        JevCriterion.noul("sourced", SOURCED, 0.7),
        JevCriterion.noul("brief", BRIEF, 0.7),
    ]
    return JevJudge(criteria, model=model, **options), model


def contents(messages: Sequence[BaseMessage]) -> list[tuple[str, Any]]:
    return [(message.type, message.content) for message in messages]


