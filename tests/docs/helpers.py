"""What the documentation's examples run against: a scripted Jev server policy and fake chat models.

The README's snippets use Jev from the environment (``TYPESAFE_API_KEY``,
``TYPESAFE_BASE_URL``), so the README test points them at the loopback server of
`tests.support.jev_server` with `answer_policy` as its script. The policy answers
every question of every snippet: by the answer being judged where the README
shows a specific outcome (`ANSWERS`), by keyword for the hazard categories of the
guardrail examples, and otherwise with the server's defaults (a noul 0.9, a score
its top level, a choice its first label).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from langchain_jev.graph import HAZARDS

# answer judged -> {question name: script entry}, for the outcomes the README shows
ANSWERS: dict[str, dict[str, Any]] = {
    # quickstart: unhelpful but plausible
    "Dublin has a mild, wet climate all year round.": {"helpfulness": {1: 0.8, 2: 0.2}},
    # judge file rows (examples/weather.jsonl)
    "Which Springfield do you mean: Illinois, Massachusetts, or another one?": {
        "mode": "clarification_needed"
    },
    "Oslo is usually around -5C in winter.": {"helpfulness": {1: 0.8, 2: 0.2}, "has_details": 0.25},
    "Heavy snow, 40 cm, is expected in Tokyo tomorrow.": {"is_grounded": 0.04},
    "It will be nice.": {"helpfulness": {1: 0.7, 2: 0.3}, "has_details": 0.1},
    # LangSmith experiment: an app's unhelpful answer
    "Paris is lovely in every season.": {"helpfulness": {1: 0.8, 2: 0.2}},
    # self-refine: the first draft fails
    "It might rain.": {"helpfulness": {1: 0.8, 2: 0.2}},
}

# hazard category -> phrases that make the scripted server say yes
HAZARD_TRIGGERS: dict[str, tuple[str, ...]] = {
    "violent_crimes": ("hurt my neighbour",),
    "indiscriminate_weapons": ("nerve agent",),
    "jailbreak": ("no rules",),
    "prompt_injection": ("ignore your instructions",),
}
_HAZARD_NAMES = frozenset(hazard.name for hazard in HAZARDS)


# the answer a comparison prefers, shown first or second (pairwise questions read `comparison_1`/`_2`)
PREFERRED = "Yes: rain is expected from 9am to 3pm, about 8 mm in all."


def _compared(state: Mapping[str, Any], questions: Mapping[str, Any]) -> dict[str, Any]:
    entries: dict[str, Any] = {}
    for name in questions:
        pair = state.get("comparison_1" if name.endswith("__1") else "comparison_2", {})
        better = [label for label in ("answer_1", "answer_2") if pair.get(label) == PREFERRED]
        entries[name] = better[0] if better else "equally_good"
    return entries


def answer_policy(state: Any, questions: Mapping[str, Any]) -> dict[str, Any]:
    """The loopback server's script for the README: an entry for every question asked."""
    if isinstance(state, Mapping) and "comparison_1" in state:
        return _compared(state, questions)
    answer = state.get("assistant_answer") if isinstance(state, Mapping) else None
    scripted = ANSWERS.get(answer, {}) if isinstance(answer, str) else {}
    text = json.dumps(state).lower()
    entries: dict[str, Any] = {}
    for name in questions:
        if name in scripted:
            entries[name] = scripted[name]
        elif name in _HAZARD_NAMES:
            hit = any(phrase in text for phrase in HAZARD_TRIGGERS.get(name, ()))
            entries[name] = 0.96 if hit else 0.02
    return entries


class WriterChatModel(GenericFakeChatModel):
    """A chat model replaying fixed replies; it accepts tools so agents can bind them."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self


def writer(*replies: str | AIMessage) -> WriterChatModel:
    """A writer replaying ``replies`` in order."""
    return WriterChatModel(messages=iter([AIMessage(r) if isinstance(r, str) else r for r in replies]))


_QUESTION = re.compile(r'<question name="([^"]+)" type="(noul|choice|score)">(.*?)</question>', re.S)
_LABEL = re.compile(r'<label name="([^"]+)"')
_LEVEL = re.compile(r'<level number="(\d+)"')


class JudgeChatModel(BaseChatModel):
    """A chat model that answers the judge prompt of ``ChatModelDecisionModel`` in JSON.

    It has no tool calling, so the decision model quotes the reply schema in the
    prompt and reads the JSON from the text; nor log-probabilities, so ``"auto"``
    falls back to ``"structured"``. It replies as the schema asks: each question's
    reasoning (``<name>_reasoning``), then its answer: every noul 0.9, every choice
    0.9 on its first label, every score 0.9 on its top level.
    """

    model_name: str = "judge-chat-fake"

    @property
    def _llm_type(self) -> str:
        return "judge-chat-fake"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        user = next(m for m in reversed(messages) if isinstance(m, HumanMessage))
        text = user.content if isinstance(user.content, str) else json.dumps(user.content)
        reply: dict[str, Any] = {}
        for name, kind, body in _QUESTION.findall(text):
            reply[f"{name}_reasoning"] = f"The answer meets what {name} asks."
            if kind == "noul":
                reply[name] = 0.9
                continue
            keys = _LABEL.findall(body) if kind == "choice" else _LEVEL.findall(body)
            rest = 0.1 / (len(keys) - 1) if len(keys) > 1 else 0.0
            top = keys[0] if kind == "choice" else keys[-1]
            reply[name] = {key: 0.9 if key == top else rest for key in keys}
        message = AIMessage(json.dumps(reply), response_metadata={"model_name": self.model_name})
        return ChatResult(generations=[ChatGeneration(message=message)])
