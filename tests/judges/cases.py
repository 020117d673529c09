"""Inputs for the prebuilt judges: one where every question applies, and what the wire answers."""

from __future__ import annotations

from typing import Any

from langchain_jev import JevJudgeInput
from langchain_jev.judges.catalog import judge_names
from tests.fakes import choice, noul, score

RAG_CONTEXT = ["[1] Paris is the capital and largest city of France.", "[2] Lyon is France's third city."]
WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    "required": ["city"],
}
SEARCH_SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
TRAJECTORY = [
    {"name": "search", "arguments": {"q": "Dublin weather"}},
    {"name": "weather", "arguments": {"city": "Dublin", "days": 1}},
]


def levels(judge_levels: int = 4) -> list[str]:
    return [str(i) for i in range(judge_levels)]


def level(value: int) -> dict[str, Any]:
    """A score answer with all its probability on one level of a 0-3 rubric."""
    return score({value: 1.0}, levels())


FULL: dict[str, JevJudgeInput] = {
    "rag": JevJudgeInput(
        "What is the capital of France?",
        "Paris [1].",
        expected="Paris",
        context=RAG_CONTEXT,
    ),
    "correctness": JevJudgeInput("What is 6 x 7?", "The answer is 42.", expected="42"),
    "trajectory": JevJudgeInput(
        "Weather in Dublin tomorrow?",
        "Rain, 12C.",
        tool_calls=TRAJECTORY,
        fields={
            "reference_tool_calls": TRAJECTORY,
            "tool_schemas": {"search": SEARCH_SCHEMA, "weather": WEATHER_SCHEMA},
        },
    ),
    "conversation": JevJudgeInput(
        "And can you change it to Friday?",
        "Done: your table for two is now on Friday at 7pm.",
        tool_calls=[{"name": "update_booking", "arguments": {"day": "Friday"}, "result": "ok"}],
        fields={
            "conversation": [
                {"role": "user", "content": "Book a table for two on Thursday at 7pm."},
                {"role": "assistant", "content": "Booked for Thursday at 7pm."},
            ],
            "system_prompt": "You are a restaurant booking assistant. Be brief.",
        },
    ),
    "summary": JevJudgeInput(
        answer="Q3 sales rose 4%, led by Europe; costs were flat.",
        expected=["sales +4%", "Europe led", "costs flat"],
        context=["Q3 report. Sales rose 4% on the quarter, with Europe growing fastest. Costs were flat."],
    ),
    "sensitive_data": JevJudgeInput(answer="Please use the contact form on our website."),
}
"""An input per judge on which every question applies and every check passes."""

PASSING: dict[str, dict[str, Any]] = {
    "rag": {
        "groundedness": noul(0.93),
        "context_relevance": level(3),
        "answer_relevance": level(3),
        "completeness": noul(0.9),
        "citations": choice("accurate"),
    },
    "correctness": {"agreement": noul(0.91)},
    "trajectory": {"right_tools": noul(0.9), "task_completed": noul(0.88)},
    "conversation": {
        "need_resolved": noul(0.9),
        "tone": noul(0.95),
        "follows_system_prompt": noul(0.9),
        "no_invented_capabilities": noul(0.92),
    },
    "summary": {"faithful": noul(0.95), "key_points": noul(0.85), "concise": level(2)},
    "sensitive_data": {"no_other_sensitive_data": noul(0.97)},
}
"""Answers that pass every question of each judge."""

assert set(FULL) == set(PASSING) == set(judge_names())
