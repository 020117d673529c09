"""Requests and tokens per verdict of the prebuilt judges, against one request per question.

Each prebuilt judge of `langchain_jev.judges` runs over the real typesafe-sdk
client and the billing transport of `engine_requests` (input tokens counted from
the state and questions it receives, one output token per answer), on inputs of
three shapes: everything given, the optional fields left out, and an answer that
code settles (an exact answer for correctness, an email address for sensitive
data). The comparison asks the same questions one request each (one-question
judges with the same conditions, the pattern of judges that prompt per
criterion), so the state is sent once per question. Checks never reach the model
in either pattern.

    python benchmarks/prebuilt_requests.py
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2
from _common import Row, print_table, row
from engine_requests import BillingJev
from typesafe_sdk import RetryPolicy, TypeSafeClient

from langchain_jev import JevJudge, JevJudgeInput, JevVerdict
from langchain_jev.judges import judge_names, prebuilt_judge
from langchain_jev.models import JevDecisionModel

CONTEXT = [
    "[1] Met Eireann forecasts rain for Dublin tomorrow from 9am, easing to showers by late afternoon.",
    "[2] A yellow rainfall warning covers Leinster from 6am to 6pm; up to 30 mm may fall in places.",
]
CALLS = [
    {"name": "search", "arguments": {"q": "Dublin weather tomorrow"}},
    {"name": "forecast", "arguments": {"city": "Dublin", "days": 1}},
]
SCHEMAS = {
    "search": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    "forecast": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}},
}
QUESTION = "Will I need an umbrella in Dublin tomorrow?"
ANSWER = "Yes: rain from 9am, easing to showers by late afternoon, up to 30 mm in places [1][2]."

INPUTS: dict[str, list[JevJudgeInput]] = {
    "rag": [
        JevJudgeInput(QUESTION, ANSWER, expected="Rain is likely; take an umbrella.", context=CONTEXT),
        JevJudgeInput(QUESTION, ANSWER),
    ],
    "correctness": [
        JevJudgeInput(QUESTION, ANSWER, expected="Rain is likely; take an umbrella."),
        JevJudgeInput(answer='{"rain_mm": 30.0}', expected={"rain_mm": 30}),
    ],
    "trajectory": [
        JevJudgeInput(QUESTION, ANSWER, tool_calls=CALLS,
                      fields={"reference_tool_calls": CALLS, "tool_schemas": SCHEMAS}),
    ],
    "conversation": [
        JevJudgeInput(QUESTION, ANSWER, fields={"system_prompt": "You are a weather assistant. Be brief.",
                                                "conversation": [{"role": "user", "content": "Hi"}]}),
        JevJudgeInput(QUESTION, ANSWER),
    ],
    "summary": [JevJudgeInput(answer="Rain tomorrow, up to 30 mm; a yellow warning.", context=CONTEXT)],
    "sensitive_data": [
        JevJudgeInput(answer=ANSWER),
        JevJudgeInput(answer="Ask the forecaster at jane.doe@example.ie."),
    ],
    "quality": [
        JevJudgeInput(QUESTION, ANSWER, fields={"plan": ["read the forecast", "answer"]}),
        JevJudgeInput(QUESTION, ANSWER),
    ],
    "safety": [JevJudgeInput(QUESTION, ANSWER)],
    "security": [JevJudgeInput(QUESTION, context=CONTEXT)],
    "code": [
        JevJudgeInput("Convert mm to inches.", "```python\ndef inches(mm):\n    return mm / 25.4\n```"),
        JevJudgeInput("Convert mm to inches.", "```python\ndef inches(mm) return mm / 25.4\n```"),
    ],
    "json_match": [
        JevJudgeInput(answer='{"rain_mm": 30, "warning": "yellow, Leinster"}',
                      expected={"rain_mm": 30, "warning": "yellow warning for Leinster"}),
        JevJudgeInput(answer='{"rain_mm": 30.0}', expected={"rain_mm": 30}),
    ],
    "conversation_labels": [JevJudgeInput(QUESTION, fields={"conversation": [{"role": "user", "content": "Hi"}]})],
    "image": [JevJudgeInput(QUESTION, ANSWER, fields={"image": {"type": "image", "url": "https://example.com/sky.png"}})],
    "voice": [JevJudgeInput(fields={"audio": {"type": "audio", "url": "https://example.com/call.wav"},
                                    "transcript": QUESTION})],
}
ROUNDS = 20


def _model(wire: BillingJev) -> JevDecisionModel:
    client = TypeSafeClient(
        api_key="sk-bench", transport=httpx2.MockTransport(wire), retry=RetryPolicy(max_retries=0), compression=False
    )
    return JevDecisionModel(client=client)


def _tokens(verdict: JevVerdict) -> int:
    usage = verdict.response.usage if verdict.response is not None else None
    return int(usage["total_tokens"]) if usage else 0


def measure(name: str) -> dict[str, float]:
    """Requests and tokens per verdict of one prebuilt judge, and of one request per question."""
    ours_wire, theirs_wire = BillingJev(), BillingJev()
    ours = prebuilt_judge(name, _model(ours_wire))
    theirs_model = _model(theirs_wire)
    theirs = [JevJudge([c], theirs_model) for c in ours.criteria if c.is_question]
    judge_each: Callable[[JevJudgeInput], int] = lambda data: sum(_tokens(j.judge(data)) for j in theirs)  # noqa: E731
    ours_tokens = theirs_tokens = verdicts = settled = 0
    for _ in range(ROUNDS):
        for data in INPUTS[name]:
            verdict = ours.judge(data)
            verdicts += 1
            settled += verdict.response is None
            ours_tokens += _tokens(verdict)
            theirs_tokens += judge_each(data)
    return {
        "requests": ours_wire.requests / verdicts,
        "tokens": ours_tokens / verdicts,
        "per_question_requests": theirs_wire.requests / verdicts,
        "per_question_tokens": theirs_tokens / verdicts,
        "settled": settled / verdicts,
    }


def run() -> list[Row]:
    """The rows of the prebuilt judges' request benchmark."""
    rows: list[Row] = []
    total_ours = total_theirs = requests_ours = requests_theirs = 0.0
    for name in judge_names():
        m = measure(name)
        total_ours += m["tokens"]
        total_theirs += m["per_question_tokens"]
        requests_ours += m["requests"]
        requests_theirs += m["per_question_requests"]
        rows.append(row(f"{name}: requests per verdict", m["requests"], "<= 1", m["requests"] <= 1, "req"))
        rows.append(row(f"{name}: one request per question", m["per_question_requests"], "(info)", True, "req"))
        if m["settled"]:
            rows.append(row(f"{name}: verdicts settled by code, no request", m["settled"], "(info)", True, "share"))
    ratio = requests_theirs / requests_ours
    rows.append(row("all: requests, one request per question / ours", ratio, ">= 2", ratio >= 2))
    tokens = total_theirs / total_ours  # grows with the state: each extra request resends it
    rows.append(row("all: tokens, one request per question / ours", tokens, "(info)", True))
    return rows


if __name__ == "__main__":
    print_table("prebuilt judges: requests and tokens per verdict", run())
