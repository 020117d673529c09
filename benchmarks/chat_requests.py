"""Chat-model judging: requests and prompt tokens per verdict, one request vs one per criterion.

A 10-criterion judge runs on a recording chat model (a real LangChain
``BaseChatModel`` with tool calling, so structured output goes through
``with_structured_output`` as it would with a provider). Two patterns:

- ``structured``: ChatModelDecisionModel's default for models without logprobs,
  one request answering every criterion;
- one request per criterion: the pattern of judge libraries such as openevals,
  where each criterion is its own judge prompt holding the full data. It is
  measured with ``strategy="per_question"``, which builds each request with the
  same prompt layout, so the difference is the batching alone. It is not a
  comparison with those libraries: each per-question request here repeats this
  package's system message, which real per-criterion prompts do not carry;
  ``peers.py`` measures openevals itself.

Prompt tokens are counted with a simple deterministic tokenizer: every run of
word characters and every other non-space character is one token (the regex
``\\w+|[^\\w\\s]``), over the text of every message and the JSON of every tool
schema sent. It is not any provider's tokenizer, but both patterns are counted
alike, so the ratio holds.

    python benchmarks/chat_requests.py
"""

from __future__ import annotations

import json
import re
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, print_table, row
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.decisions import Choice, Noul, NoulCriteria, Score
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr

from langchain_jev import ChatModelDecisionModel, JevCriterion, JevJudge, JevJudgeInput

TOKENIZERS = {
    "word and punctuation runs": re.compile(r"\w+|[^\w\s]+"),
    "word runs and single punctuation marks": re.compile(r"\w+|[^\w\s]"),
}
PRIMARY = "word and punctuation runs"
CRITERIA_COUNT = 10
TOKEN_RATIO_GOAL = 4.0
"""Batching alone, against this package's own per-question layout; peers.py compares with openevals."""


def count_tokens(text: str, tokenizer: str = PRIMARY) -> int:
    """Tokens of ``text`` under one of the `TOKENIZERS`."""
    return len(TOKENIZERS[tokenizer].findall(text))


class RecordingChatModel(BaseChatModel):
    """Answers every structured request validly and records the prompt tokens it was sent."""

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _requests: list[str] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "recording-chat"

    @property
    def requests(self) -> list[str]:
        """The prompt text of each request received (messages, then tool schemas as JSON)."""
        return list(self._requests)

    def bind_tools(self, tools: Any, *, tool_choice: str | None = None, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], tool_choice=tool_choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tools = kwargs.get("tools") or []
        text = "".join(_text(m) for m in messages) + "".join(json.dumps(t) for t in tools)
        with self._lock:
            self._requests.append(text)
        schema = tools[0]["function"]["parameters"]
        message = AIMessage(
            content="",
            tool_calls=[{"name": "judgement", "args": _answers(schema), "id": "call_1", "type": "tool_call"}],
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


def _text(message: BaseMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(b["text"] for b in message.content if isinstance(b, dict) and b.get("type") == "text")


def _answers(schema: dict[str, Any]) -> dict[str, Any]:
    """A valid reply to the flat schema: each reasoning a sentence, each noul 0.9, each spread on its last key."""
    answers: dict[str, Any] = {}
    for key, field in schema["properties"].items():
        if field["type"] == "string":
            answers[key] = "It holds."
        elif field["type"] == "number":
            answers[key] = 0.9
        else:
            keys = list(field["properties"])
            answers[key] = {k: (1.0 if k == keys[-1] else 0.0) for k in keys}
    return answers


def _criteria() -> list[JevCriterion]:
    nouls = {
        "answers_the_question": "Does `assistant_answer` answer `user_question` directly?",
        "is_grounded": "Is every claim of `assistant_answer` supported by `supporting_context`?",
        "no_contradiction": "Is `assistant_answer` free of statements that contradict `supporting_context`?",
        "cites_sources": "Does `assistant_answer` say which document each key fact comes from?",
        "is_polite": "Is `assistant_answer` courteous and free of condescension?",
        "is_concise": "Is `assistant_answer` free of padding and repetition?",
        "no_speculation": "Does `assistant_answer` avoid presenting guesses as facts?",
        "gives_next_step": "Does `assistant_answer` tell the user what to do next, where relevant?",
    }
    criteria = [
        JevCriterion.noul(
            name,
            Noul(
                instructions=text,
                criteria=NoulCriteria(true="Clearly and fully so.", false="Not so, only partly, or unclear."),
            ),
            0.7,
        )
        for name, text in nouls.items()
    ]
    criteria.append(
        JevCriterion.score(
            "helpfulness",
            Score(
                instructions="How well does `assistant_answer` address `user_question`?",
                criteria=[
                    "Terrible: irrelevant or off-topic",
                    "Mostly unhelpful: misses the main point",
                    "Mostly helpful: minor gaps remain",
                    "Excellent: fully and correctly addressed",
                ],
            ),
            2,
        )
    )
    criteria.append(
        JevCriterion.choice(
            "tone",
            Choice(
                instructions="What is the tone of `assistant_answer`?",
                criteria={
                    "neutral": "Plain and factual",
                    "warm": "Friendly",
                    "curt": "Short to the point of rude",
                },
            ),
            ["neutral", "warm"],
        )
    )
    assert len(criteria) == CRITERIA_COUNT
    return criteria


def _input(with_context: bool = True) -> JevJudgeInput:
    answer = (
        "Yes, you should pack an umbrella for Dublin tomorrow. The Met Éireann forecast for "
        "Thursday gives a 70 percent chance of rain from late morning, with showers becoming "
        "heavier in the afternoon and easing after about 7 pm. Temperatures will sit between "
        "9 and 13 degrees, and a fresh south-westerly wind of 30 to 40 km/h will make it feel "
        "cooler near the coast, so a light waterproof jacket is a better choice than a large "
        "umbrella if you will be walking along the quays. The morning should stay mostly dry "
        "until around 11 am, so an early start gives you the best window for outdoor plans. "
        "If you are travelling by bus, expect some delays on the routes along the coast road, "
        "where surface water tends to collect during heavy showers. For the weekend the "
        "outlook is brighter, with sunny spells on Saturday and only isolated showers."
    )
    context = [
        "Met Éireann, Thursday forecast for Dublin. Rain will develop from the west during late "
        "morning, reaching the city by around 11 am, with a 70% chance of precipitation through "
        "the afternoon. Showers will turn heavier between 2 pm and 5 pm, with the risk of "
        "localised surface flooding in low-lying areas, before clearing eastwards in the "
        "evening; it will be mostly dry after 7 pm. Highest temperatures of 13 C, lowest of 9 C "
        "overnight. Fresh south-westerly winds of 30 to 40 km/h, gusting to 60 km/h on exposed "
        "coasts, will ease overnight. Friday: a dry and bright start, cloud thickening later "
        "with patchy drizzle near the coast by evening.",
        "Dublin Bus service notice. During periods of heavy rain, delays are likely on coastal "
        "routes, particularly along the Clontarf Road, Strand Road and the Merrion Gates area, "
        "where surface water tends to collect. Some services may be diverted at short notice "
        "if flooding makes a road unsafe. Passengers are advised to allow extra time for their "
        "journeys, to check live departure information in the app or on the real-time signs "
        "before travelling, and to follow the instructions of staff at busy stops. Accessible "
        "services will continue to run, although ramps may not be deployable where kerbs are "
        "under water. Updates are posted every 30 minutes during weather events.",
        "Weekend outlook for Leinster. Saturday will be brighter and drier, with long sunny "
        "spells and only isolated showers, mainly in the west of the province and in the "
        "midlands during the afternoon. Highest temperatures of 12 to 15 C in a light "
        "westerly breeze. Saturday night will be dry and clear, with lows of 5 to 7 C and "
        "some mist forming in sheltered places. Sunday will be cloudier, with a chance of "
        "light rain spreading from the Atlantic later in the day, and freshening southerly "
        "winds. Temperatures near normal for the time of year, and no weather warnings are "
        "expected for the weekend.",
    ]
    question = "Will I need an umbrella in Dublin tomorrow?"
    return JevJudgeInput(question, answer, context=context if with_context else None)


def measure(data: JevJudgeInput) -> dict[str, list[str]]:
    """The prompt text of every request of one verdict, for each pattern."""
    result: dict[str, list[str]] = {}
    for strategy in ("structured", "per_question"):
        chat = RecordingChatModel()
        judge = JevJudge(_criteria(), model=ChatModelDecisionModel(chat, strategy=strategy))
        verdict = judge.judge(data)
        assert verdict.response is not None and len(verdict.response.answers) == CRITERIA_COUNT
        result[strategy] = chat.requests
    return result


def _tokens(requests: list[str], tokenizer: str = PRIMARY) -> int:
    return sum(count_tokens(text, tokenizer) for text in requests)


def run() -> list[Row]:
    """The rows of the chat-model request benchmark."""
    rag, qa = measure(_input()), measure(_input(with_context=False))
    one, many = rag["structured"], rag["per_question"]
    ratio = _tokens(many) / _tokens(one)
    strict = "word runs and single punctuation marks"
    return [
        row("chat: requests per verdict, structured, 10 criteria", len(one), "== 1", len(one) == 1, "req"),
        row("chat: requests per verdict, one per criterion", len(many), "(info)", True, "req"),
        row(
            "chat: prompt tokens per verdict, structured (RAG input)", _tokens(one), "(info)", True, "tokens"
        ),
        row(
            "chat: prompt tokens per verdict, one per criterion (RAG)",
            _tokens(many),
            "(info)",
            True,
            "tokens",
        ),
        row(
            "chat: prompt tokens, one per criterion / structured (RAG)",
            ratio,
            f">= {TOKEN_RATIO_GOAL:g}",
            ratio >= TOKEN_RATIO_GOAL,
        ),
        row(
            "chat: same ratio, question and answer only (no context)",
            _tokens(qa["per_question"]) / _tokens(qa["structured"]),
            "(info)",
            True,
        ),
        row(
            "chat: same ratio (RAG), single punctuation marks counted",
            _tokens(many, strict) / _tokens(one, strict),
            "(info)",
            True,
        ),
    ]


if __name__ == "__main__":
    print_table(f"Chat-model judging, 10 criteria (tokens: {PRIMARY}, regex \\w+|[^\\w\\s]+)", run())
