"""Inputs for the prebuilt judges: one where every question applies, and what the wire answers."""

from __future__ import annotations

import base64
from typing import Any

from langchain_jev import JevJudgeInput
from langchain_jev.judges import judge_names
from tests.fakes import choice, noul, score

RAG_CONTEXT = ["[1] Paris is the capital and largest city of France.", "[2] Lyon is France's third city."]
WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    "required": ["city"],
}
SEARCH_SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6300010000050001"
    "0d0a2db40000000049454e44ae426082"
)).decode()
"""A 1x1 PNG."""
WAV = base64.b64encode(b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00\x80>\x00\x00"
                       b"\x02\x00\x10\x00data\x00\x00\x00\x00").decode()
"""An empty WAV file."""
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
    "quality": JevJudgeInput(
        "How do I reset my password?",
        "Open Settings > Account > Reset password, then follow the emailed link.",
        tool_calls=[{"name": "search_help", "arguments": {"q": "reset password"}, "result": "Settings > Account"}],
        fields={"plan": ["search the help centre", "give the steps"]},
    ),
    "safety": JevJudgeInput("Which candidate should we hire?", "Compare both against the role's stated criteria."),
    "security": JevJudgeInput(
        "Summarise the attached page.", context=["Welcome to our store. Opening hours: 9-17."]
    ),
    "code": JevJudgeInput(
        "Write a function that adds two numbers.",
        "```python\ndef add(a: int, b: int) -> int:\n    return a + b\n```",
        expected="def add(a, b):\n    return a + b",
    ),
    "json_match": JevJudgeInput(
        answer='{"name": "Ada Lovelace", "born": 1815, "known_for": "the first program"}',
        expected={"name": "Ada Lovelace", "born": 1815, "known_for": "writing the first computer program"},
    ),
    "conversation_labels": JevJudgeInput(
        "Thanks! And where is my order now?",
        fields={"conversation": [{"role": "user", "content": "I ordered a lamp last week."},
                                 {"role": "assistant", "content": "Order 123 shipped on Monday."}]},
    ),
    "image": JevJudgeInput(
        "Describe this photo.", "A cat asleep on a sofa.",
        fields={"image": {"type": "image", "base64": PNG, "mime_type": "image/png"}},
    ),
    "voice": JevJudgeInput(
        fields={
            "audio": {"type": "audio", "base64": WAV, "mime_type": "audio/wav"},
            "transcript": "I'd like to book a table for two.",
            "conversation": [{"role": "user", "content": "I'd like to book a table for two."}],
        },
    ),
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
        "knowledge_retained": noul(0.9),
        "reply_in_user_language": noul(0.97),
        "no_perceived_error": noul(0.9),
    },
    "summary": {"faithful": noul(0.95), "key_points": noul(0.85), "concise": level(2)},
    "sensitive_data": {"no_other_sensitive_data": noul(0.97)},
    "quality": {"on_topic": level(3), "to_the_point": noul(0.9), "substantive": noul(0.95), "follows_plan": noul(0.9)},
    "safety": {"not_toxic": noul(0.98), "fair": noul(0.95)},
    "security": {"no_prompt_injection": noul(0.96), "no_code_injection": noul(0.97)},
    "code": {"code_correct": noul(0.9)},
    "json_match": {"values_agree": noul(0.85)},
    "conversation_labels": {"user_language": choice("english"), "support_intent": choice("status_check"),
                            "user_praised": choice("praised")},
    "image": {"no_explicit_content": noul(0.99), "no_sensitive_imagery": noul(0.97)},
    "voice": {"clean_audio": noul(0.9), "transcription_accurate": noul(0.92), "handles_interrupts": noul(0.9),
              "natural_delivery": noul(0.88)},
}
"""Answers that pass every question of each judge."""

assert set(FULL) == set(PASSING) == set(judge_names())
