"""Real LangChain chat models for tests: scripted replies, every request recorded."""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

Reply = AIMessage | str | Exception | Callable[[list[BaseMessage], dict[str, Any]], Any]

_QUESTION = re.compile(r'<question name="([^"]*)"')


class ScriptedChatModel(BaseChatModel):
    """Answers from a list of replies (in order) or one callable, recording each request.

    A reply is an AIMessage, a string, an exception (raised), or a callable
    ``(messages, kwargs) -> reply``. It has no tool calling, so structured output is
    not available and the judge quotes the JSON schema in the prompt.
    """

    replies: list[Any] = Field(default_factory=list)
    model_name: str = "scripted-chat"
    _calls: list[dict[str, Any]] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "scripted-chat"

    @property
    def calls(self) -> list[dict[str, Any]]:
        """Every request: ``{"messages": [...], "kwargs": {...}}``."""
        return list(self._calls)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            index = len(self._calls)
            self._calls.append({"messages": list(messages), "kwargs": dict(kwargs)})
            if (
                len(self.replies) == 1
                and callable(self.replies[0])
                and not isinstance(self.replies[0], (AIMessage, Exception))
            ):
                reply: Any = self.replies[0]
            elif index < len(self.replies):
                reply = self.replies[index]
            else:
                raise AssertionError(f"ScriptedChatModel has no reply for request {index + 1}")
        if callable(reply) and not isinstance(reply, (AIMessage, Exception)):
            reply = reply(list(messages), dict(kwargs))
        if isinstance(reply, Exception):
            raise reply
        message = AIMessage(content=reply) if isinstance(reply, str) else reply
        return ChatResult(generations=[ChatGeneration(message=message)])


class ToolCallingChatModel(ScriptedChatModel):
    """A ScriptedChatModel with tool calling, so ``with_structured_output`` works natively."""

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)


def tool_reply(payload: Any, *, usage: Mapping[str, int] | None = None) -> AIMessage:
    """A reply that calls the structured-output tool with ``payload`` as arguments."""
    return AIMessage(
        content="",
        tool_calls=[{"name": "judgement", "args": payload, "id": "call_1", "type": "tool_call"}],
        usage_metadata=_usage(usage),
    )


def json_reply(payload: Any, *, usage: Mapping[str, int] | None = None) -> AIMessage:
    """A reply with ``payload`` as JSON text."""
    return AIMessage(content=json.dumps(payload), usage_metadata=_usage(usage))


def _usage(usage: Mapping[str, int] | None) -> Any:
    if usage is None:
        return None
    return {
        "input_tokens": usage["input_tokens"],
        "output_tokens": usage["output_tokens"],
        "total_tokens": usage["input_tokens"] + usage["output_tokens"],
    }


def logprob_reply(
    alternatives: Mapping[str, float] | Sequence[tuple[str, float]],
    *,
    chosen: str | None = None,
    before: Sequence[str] = (),
    probabilities: bool = False,
) -> AIMessage:
    """A reply carrying OpenAI-format ``response_metadata["logprobs"]``.

    ``alternatives`` are the top alternatives of the answer token (token -> logprob, or
    probabilities when ``probabilities=True``); ``chosen`` is the token generated (the
    most likely alternative by default); ``before`` are tokens generated before it.
    """
    pairs = list(alternatives.items()) if isinstance(alternatives, Mapping) else list(alternatives)
    if probabilities:
        pairs = [(token, math.log(p)) for token, p in pairs]
    token = chosen if chosen is not None else max(pairs, key=lambda pair: pair[1])[0]
    own = next((lp for t, lp in pairs if t == token), -0.01)
    content = [{"token": t, "logprob": -0.01, "bytes": list(t.encode()), "top_logprobs": []} for t in before]
    content.append(
        {
            "token": token,
            "logprob": own,
            "bytes": list(token.encode()),
            "top_logprobs": [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in pairs],
        }
    )
    return AIMessage(
        content="".join(before) + token,
        response_metadata={"logprobs": {"content": content, "refusal": None}, "model_name": "scripted-chat"},
    )


def question_asked(messages: Sequence[BaseMessage]) -> str:
    """The name of the (first) question in the user message of a request."""
    user = next(m for m in messages if isinstance(m, HumanMessage))
    text = user.content if isinstance(user.content, str) else json.dumps(user.content)
    match = _QUESTION.search(text)
    assert match, "no <question> in the user message"
    return match.group(1)


def by_question(replies: Mapping[str, Any]) -> Callable[[list[BaseMessage], dict[str, Any]], Any]:
    """A reply chosen by the question in the request (for concurrent per-question requests)."""

    def reply(messages: list[BaseMessage], kwargs: dict[str, Any]) -> Any:
        return replies[question_asked(messages)]

    return reply


def user_text(call: Mapping[str, Any]) -> str:
    """The text of the user message of a recorded request."""
    user = next(m for m in call["messages"] if isinstance(m, HumanMessage))
    if isinstance(user.content, str):
        return user.content
    return "".join(b["text"] for b in user.content if isinstance(b, dict) and b.get("type") == "text")
