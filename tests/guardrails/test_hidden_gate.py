"""The gate of hidden runs: no handler but an allowed tracer is given a run started inside one (invariant 3).

Round 10 found handlers a model holds where the strip of its own handlers did not
look (a dict, tuples, a private attribute, deep fallbacks, a function). The gate
closes the class where handlers are gathered: every run started inside a hidden
run is given only the allowed tracers and the handlers the hidden run's own
config held. Generated holders, nested at random and deeper than any walk, show
it; so does a model that makes a callback manager of its own in ``_generate``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableBranch, RunnableLambda, RunnableParallel

from langchain_jev.graph import guard_model
from langchain_jev.guardrails._hidden import enter_hidden, hidden_config
from tests.fakes import ReplyingChatModel
from tests.guardrails.helpers import SEQUENTIAL
from tests.guardrails.lossless_kit import OUTPUT_REFUSAL, perfect
from tests.guardrails.test_redteam_round5 import batteries
from tests.guardrails.test_redteam_round10 import DRAFT, MARK, Holding, Posting, Wrapping, _private

HOLDERS = {
    "parallel": lambda m: RunnableParallel(a=m) | RunnableLambda(lambda d: d["a"]),
    "branch": lambda m: RunnableBranch((lambda _: True, m), m),
    "fallbacks": lambda m: m.with_fallbacks([ReplyingChatModel(replies=["A fallback."])]),
    "function": lambda m: RunnableLambda(lambda messages, config: m.invoke(messages, config)),
    "wrapper": Wrapping,
    "tuple field": lambda m: Holding(routes=[("a", m)]),
    "private attribute": _private,
    "retry": lambda m: m.with_retry(stop_after_attempt=1),
    "config": lambda m: m.with_config(tags=["mine"]),
}


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(sorted(HOLDERS)), min_size=1, max_size=12))
def test_a_handler_of_a_model_held_in_any_nesting_is_never_given_the_refused_draft(path: list[str]) -> None:
    handler = Posting()
    held: Any = ReplyingChatModel(replies=[DRAFT, DRAFT], callbacks=[handler])
    for holder in path:
        held = HOLDERS[holder](held)
    reply = guard_model(held, *batteries(perfect()), **SEQUENTIAL).invoke([HumanMessage("Hello.")])
    assert reply.content == OUTPUT_REFUSAL
    assert not any(MARK in text for text in handler.posted), path


class OwnManager(BaseChatModel):
    """A model that gathers a handler of its own for a run it starts inside ``_generate``."""

    handler: Any

    @property
    def _llm_type(self) -> str:
        return "own-manager-test-chat"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Any:
        inner = ReplyingChatModel(replies=[DRAFT])
        manager = CallbackManager.configure(local_callbacks=[self.handler])
        reply = inner.invoke(messages, {"callbacks": manager})
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply.content))])


def test_a_manager_a_model_gathers_itself_inside_a_hidden_run_holds_no_handler_of_its_own() -> None:
    handler = Posting()
    reply = guard_model(OwnManager(handler=handler), *batteries(perfect()), **SEQUENTIAL).invoke("Hello.")
    assert reply.content == OUTPUT_REFUSAL
    assert handler.posted == []


class Recording(BaseCallbackHandler):
    def __init__(self) -> None:
        self.ended = 0

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self.ended += 1


class AllowedTracer(Recording):
    """A record-only tracer a guardrail's ``allowed_tracers`` names."""


def test_the_gate_admits_the_allowed_tracers_and_the_hidden_runs_own_handlers_and_acts_nowhere_else() -> None:
    own, local, tracer = Recording(), Recording(), AllowedTracer()
    chat = ReplyingChatModel(replies=["a", "b", "c"], callbacks=[local])
    hidden = {**hidden_config(None, "test", tracers=(AllowedTracer,)), "callbacks": [own, tracer]}
    with enter_hidden(hidden, (AllowedTracer,)) as context:
        manager = context.run(CallbackManager.configure, [own, tracer], [local, Recording()])
        context.run(chat.invoke, "hi")
    assert own in manager.handlers and tracer in manager.handlers
    assert local not in manager.handlers and len(manager.handlers) == 2
    assert local.ended == 0
    chat.invoke("hi")  # outside a hidden run the gate lets every handler be
    assert local.ended == 1
