"""Requests and tokens per verdict: the engine's one request against one per question.

A RAG-shaped judge of ten criteria (seven questions, three code checks) runs over
the real typesafe-sdk client and an in-process transport that answers like Jev and
bills like it: the response's usage counts the input tokens of the state and the
questions it was sent (with the word-and-punctuation-runs tokenizer the chat
benchmark uses) and one output token per answer. Requests are counted at the
transport; tokens are read back from ``verdict.response.usage``, as a user would.

The comparison is the same seven questions asked one request each (seven
one-question judges, the pattern of judges that prompt per criterion), which sends
the state seven times. Checks never reach the model in either pattern.

    python benchmarks/engine_requests.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2
from _common import Row, print_table, row
from langchain_core.decisions import Choice, Noul, Score
from typesafe_sdk import RetryPolicy, TypeSafeClient

from langchain_jev import JevCriterion, JevJudge, JevJudgeInput, JevVerdict
from langchain_jev.models import JevDecisionModel

VERDICTS = 40
TOKEN_RATIO_GOAL = 3.0
_TOKEN = re.compile(r"\w+|[^\w\s]+")  # the chat benchmark's primary tokenizer

DOCS = [
    "Met Eireann forecasts persistent rain for Dublin tomorrow from 9am, easing to showers by late "
    "afternoon, with highs of 12 C and fresh south-westerly winds along the coast.",
    "A yellow rainfall warning covers Leinster from 6am to 6pm; up to 30 mm may fall in places, "
    "with localised flooding on roads in low-lying areas.",
    "Outlook for the weekend: drier and brighter, with sunny spells on Saturday and highs of 14 C; "
    "rain returns from the west on Sunday night.",
]


def count_tokens(text: str) -> int:
    """Tokens of ``text``: runs of word characters and runs of punctuation."""
    return len(_TOKEN.findall(text))


class BillingJev:
    """Answers every question well and bills input and output tokens like the API."""

    def __init__(self) -> None:
        self.requests = 0

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests += 1
        body = json.loads(request.content)
        answers: dict[str, Any] = {}
        for name, question in body["questions"].items():
            if question["type"] == "noul":
                answers[name] = {"type": "noul", "noul": 0.9}
            elif question["type"] == "score":
                top = len(question["criteria"]) - 1
                answers[name] = {
                    "type": "score",
                    "score": float(top),
                    "legend": {},
                    "probabilities": {str(top): 1.0},
                    "confidence": 1.0,
                }
            else:
                label = next(iter(question["criteria"]))
                answers[name] = {
                    "type": "choice",
                    "choice": label,
                    "probabilities": {label: 1.0},
                    "confidence": 1.0,
                }
        billed = json.dumps({"state": body["state"], "questions": body["questions"]}, ensure_ascii=False)
        usage = {"input_tokens": count_tokens(billed), "output_tokens": len(answers)}
        return httpx2.Response(200, json={"model": body["model"], "answers": answers, "usage": usage})


def criteria() -> list[JevCriterion]:
    """Seven questions and three checks, as a RAG answer's judge might have."""

    def noul(name: str, text: str) -> JevCriterion:
        return JevCriterion.noul(name, Noul(instructions=text), 0.7)

    return [
        noul("grounded", "Is every claim in `assistant_answer` supported by `supporting_context`?"),
        noul("answers_the_question", "Does `assistant_answer` answer `user_question` directly?"),
        noul("no_made_up_numbers", "Are all numbers in `assistant_answer` taken from `supporting_context`?"),
        noul("mentions_timing", "Does `assistant_answer` say when the rain starts and stops?"),
        JevCriterion.score(
            "helpfulness",
            Score(
                instructions="How well does `assistant_answer` address `user_question`?",
                criteria=["Terrible: irrelevant", "Mostly unhelpful", "Mostly helpful", "Excellent"],
            ),
            2,
        ),
        JevCriterion.score(
            "clarity",
            Score(
                instructions="How clear and well organised is `assistant_answer`?",
                criteria=["Confusing", "Hard to follow", "Clear", "Very clear"],
            ),
            2,
        ),
        JevCriterion.choice(
            "tone",
            Choice(
                instructions="What is the tone of `assistant_answer`?",
                criteria={"neutral": None, "friendly": None, "rude": None},
            ),
            ["neutral", "friendly"],
        ),
        JevCriterion.check("not_empty", lambda d: bool((d.answer or "").strip()), "the answer is empty"),
        JevCriterion.check("short_enough", lambda d: len(d.answer or "") < 2000, "the answer is too long"),
        JevCriterion.check("no_urls", lambda d: "http" not in (d.answer or ""), "the answer links out"),
    ]


def judge_input(index: int) -> JevJudgeInput:
    return JevJudgeInput(
        question=f"Will I need an umbrella in Dublin tomorrow? (case {index})",
        answer="Yes: rain is expected from 9am, easing to showers by late afternoon, with up to 30 mm in places.",
        expected="Rain is likely; bring an umbrella.",
        context=DOCS,
    )


def _judge(items: list[JevCriterion], wire: BillingJev) -> JevJudge:
    client = TypeSafeClient(
        api_key="sk-bench",
        transport=httpx2.MockTransport(wire),
        retry=RetryPolicy(max_retries=0),
        compression=False,
    )
    return JevJudge(items, model=JevDecisionModel(client=client))


def _tokens(verdict: JevVerdict) -> int:
    usage = verdict.response.usage if verdict.response is not None else None
    return int(usage["total_tokens"]) if usage else 0


def measure() -> dict[str, float]:
    """Requests and tokens per verdict for the three patterns."""
    items = criteria()
    one_wire = BillingJev()
    one = _judge(items, one_wire)
    one_tokens = sum(_tokens(one.judge(judge_input(i))) for i in range(VERDICTS))

    per_wire = BillingJev()
    per_question = [_judge([c], per_wire) for c in items if c.is_question]
    per_tokens = sum(_tokens(j.judge(judge_input(i))) for i in range(VERDICTS) for j in per_question)

    none_wire = BillingJev()
    never = _judge([c.applies_when(lambda d: False) if c.is_question else c for c in items], none_wire)
    for i in range(VERDICTS):
        assert never.judge(judge_input(i)).response is None
    return {
        "requests": one_wire.requests / VERDICTS,
        "tokens": one_tokens / VERDICTS,
        "per_question_requests": per_wire.requests / VERDICTS,
        "per_question_tokens": per_tokens / VERDICTS,
        "requests_when_nothing_applies": none_wire.requests / VERDICTS,
    }


def run() -> list[Row]:
    """The rows of the engine request benchmark."""
    m = measure()
    ratio = m["per_question_tokens"] / m["tokens"]
    return [
        row(
            "engine: requests per verdict, 7 questions + 3 checks",
            m["requests"],
            "== 1",
            m["requests"] == 1,
            "req",
        ),
        row(
            "engine: requests per verdict when no question applies",
            m["requests_when_nothing_applies"],
            "== 0",
            m["requests_when_nothing_applies"] == 0,
            "req",
        ),
        row(
            "engine: requests per verdict, one request per question",
            m["per_question_requests"],
            "(info)",
            True,
            "req",
        ),
        row(
            "engine: tokens per verdict, one request (response usage)", m["tokens"], "(info)", True, "tokens"
        ),
        row(
            "engine: tokens per verdict, one request per question",
            m["per_question_tokens"],
            "(info)",
            True,
            "tokens",
        ),
        row(
            "engine: tokens, one request per question / one request",
            ratio,
            f">= {TOKEN_RATIO_GOAL:g}",
            ratio >= TOKEN_RATIO_GOAL,
        ),
    ]


if __name__ == "__main__":
    print_table("Engine requests and tokens per verdict (RAG input, 10 criteria)", run())
