"""What the documentation's examples run against, beyond what the package ships: a chat model that judges.

The pages' snippets use Jev from the environment, which the docs test points at
the loopback server answering from ``examples/weather_answers.json``, and write
answers with ``langchain_jev.testing.scripted_chat_model()``, as the pages show.
The one thing the package does not ship is a chat model that answers the judge
prompt of ``ChatModelDecisionModel`` ("Any chat model"): `JudgeChatModel`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult

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
