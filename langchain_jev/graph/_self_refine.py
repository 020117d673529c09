"""A LangGraph self-refine loop: generate, judge, feed the verdict back, generate again."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, NotRequired

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langgraph.channels.untracked_value import UntrackedValue
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from langchain_jev._errors import JevConfigurationError
from langchain_jev._judge import JevJudge
from langchain_jev._refine import (
    FeedbackMessage,
    Keep,
    RefinePolicy,
    RunValue,
    SelfRefineDraft,
    ToInput,
    as_answer,
    draft_config,
    judge_config,
    state_drafts,
    with_id,
    with_new_id,
)
from langchain_jev._verdict import JevVerdict

__all__ = ["SelfRefineState", "create_self_refine_graph"]


class SelfRefineState(MessagesState):
    """The state of the self-refine graph: the conversation, plus how the refinement went.

    The three ``jev_*`` fields belong to one run. They come back from ``invoke`` /
    ``ainvoke`` and later nodes of the same run can read them, but checkpointers do
    not store them (a verdict holds live criteria), and a new run starts them afresh.
    A parent graph that wants them declares the same fields, most simply by using
    this class (or a subclass) as its own state.

    Example:
        >>> sorted(SelfRefineState.__annotations__)
        ['jev_attempts', 'jev_drafts', 'jev_verdict', 'messages']

    """

    jev_verdict: NotRequired[Annotated[JevVerdict | None, UntrackedValue, RunValue("The JevVerdict kept")]]
    """The verdict of the answer the graph ended with."""
    jev_attempts: NotRequired[Annotated[int, UntrackedValue]]
    """How many drafts were generated and judged (one judge request each)."""
    jev_drafts: NotRequired[Annotated[list[SelfRefineDraft], UntrackedValue, RunValue("The judged drafts")]]
    """Every judged draft of the run, in order, with its verdict and feedback message."""


@dataclass(frozen=True)
class _Pending:
    """The draft between ``generate`` and ``judge`` (not a message, so no stream shows it)."""

    answer: AIMessage


class _LoopState(SelfRefineState):
    """The graph's working state: the public one, and the draft under judgement."""

    jev_pending: NotRequired[Annotated[_Pending | None, UntrackedValue, RunValue("The draft being judged")]]


def create_self_refine_graph(
    model: Runnable[Any, Any] | Any,
    judge: JevJudge,
    *,
    max_attempts: int = 3,
    keep: Keep = "last",
    feedback_message: FeedbackMessage | None = None,
    to_input: ToInput | None = None,
    keep_drafts: bool = False,
    checkpointer: Checkpointer = None,
    stream_drafts: bool = False,
) -> CompiledStateGraph[_LoopState, None, MessagesState, SelfRefineState]:
    """Build a graph that answers, has the answer judged, and retries with the feedback.

    ``generate`` calls ``model`` on the conversation; ``judge`` asks ``judge`` about
    the draft (exactly one judge request per draft). When the verdict did not pass
    and fewer than ``max_attempts`` drafts were judged, the feedback goes into the
    conversation as a message and the model answers again; otherwise ``finish``
    ends the run with the kept answer last in ``messages`` and its verdict in
    ``jev_verdict``.

    A verdict blocks only on FAILED findings: INCONCLUSIVE and ERROR findings retry
    only when the judge was built with ``fail_on_inconclusive`` / ``fail_on_error``.
    A judge that cannot reach its decision model raises out of the graph.

    What the conversation keeps: by default only the kept answer is added, when the
    loop ends, so a parent graph that runs this one as a node gets exactly one new AI
    message. Rejected drafts and the feedback messages never enter ``messages``: the
    model is shown them after the conversation while it revises, and they stay
    readable in ``jev_drafts`` (a field of the run, never checkpointed). So no
    checkpoint holds a rejected draft, the graph's own included when it runs as a
    subgraph under a checkpointed parent. With ``keep_drafts=True`` they join the
    conversation when the loop ends, before the kept answer; if ``keep="best"``
    keeps an earlier draft, a copy of it (with a new id) then closes the
    conversation, so the last message is always the answer kept.

    Streaming: the judge's runs and the model's drafts are tagged ``nostream``, so
    ``stream_mode="messages"`` shows the answer kept, whole, from ``finish``, and
    never a chat-model judge's output. ``stream_drafts=True`` streams every draft's
    tokens as they come instead, each tagged ``jev_draft`` with its attempt number
    under the ``jev_attempt`` metadata key, so a UI can show them as work in progress.

    Args:
        model: a chat model, or any runnable (or function) taking the list of messages
            and returning an `AIMessage` (or a string). Drafts that call tools are
            refused: nothing here runs tools; use ``JevSelfRefineMiddleware`` with
            ``create_agent`` for a tool-calling model.
        judge: the `JevJudge` the drafts must pass.
        max_attempts: drafts judged at most (1 judges once and never retries).
            Each attempt takes two graph steps, so above 11 raise LangGraph's
            ``recursion_limit`` in the config.
        keep: ``"last"`` ends with the last draft; ``"best"`` with the best one: a
            passing draft first, then the most PASSED findings, then the fewest
            FAILED, the later draft on a tie.
        feedback_message: the wording of the feedback: a template with ``{feedback}``
            (the verdict's feedback), or a callable ``(verdict) -> message | str``
            (a string becomes a `HumanMessage`). Default: `DEFAULT_FEEDBACK_TEMPLATE`.
        to_input: builds the judge input from the state, replacing
            `input_from_messages`. Its ``messages`` are the conversation as the judge
            sees it: earlier drafts and feedback left out, the draft last.
        keep_drafts: keep rejected drafts and feedback messages in the conversation.
        checkpointer: a LangGraph checkpointer for running the graph on its own over
            threads (as a subgraph it uses its parent's).
        stream_drafts: stream the model's tokens as they come, rejected drafts included
            (labelled as above); by default the answer is shown once kept.

    Raises:
        JevConfigurationError: an argument is invalid (named in the message).

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
        >>> from langchain_core.messages import HumanMessage
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = JevJudge(
        ...     [JevCriterion.noul("cites_unit", Noul(
        ...         instructions="Does `assistant_answer` give the unit of every number?"), 0.7)],
        ...     model=ScriptedDecisionModel([{"cites_unit": 0.2}, {"cites_unit": 0.9}]),
        ... )
        >>> model = GenericFakeChatModel(messages=iter(["About 100.", "About 100 degrees Celsius."]))
        >>> graph = create_self_refine_graph(model, judge)
        >>> state = graph.invoke({"messages": [HumanMessage("At what temperature does water boil?")]})
        >>> [m.content for m in state["messages"]]
        ['At what temperature does water boil?', 'About 100 degrees Celsius.']
        >>> state["jev_attempts"], state["jev_verdict"].passed
        (2, True)

    """
    if not isinstance(judge, JevJudge):
        raise JevConfigurationError(f"judge must be a JevJudge, got {type(judge).__name__}")
    if not isinstance(stream_drafts, bool):
        raise JevConfigurationError(f"stream_drafts must be True or False, got {stream_drafts!r}")
    runnable = _as_runnable(model)
    policy = RefinePolicy.of(
        max_attempts=max_attempts,
        keep=keep,
        keep_drafts=keep_drafts,
        feedback_message=feedback_message,
        to_input=to_input,
    )

    def drafting(state: _LoopState, config: RunnableConfig) -> RunnableConfig:
        return draft_config(config, len(state_drafts(state)) + 1, stream=stream_drafts)

    def generate(state: _LoopState, config: RunnableConfig) -> dict[str, Any]:
        return _draft_update(state, runnable.invoke(_working(state), drafting(state, config)))

    async def agenerate(state: _LoopState, config: RunnableConfig) -> dict[str, Any]:
        return _draft_update(state, await runnable.ainvoke(_working(state), drafting(state, config)))

    def judge_draft(state: _LoopState, config: RunnableConfig) -> dict[str, Any]:
        verdict = judge.invoke(_judge_input(policy, state), judge_config(config))
        return _judged_update(policy, state, verdict)

    async def ajudge_draft(state: _LoopState, config: RunnableConfig) -> dict[str, Any]:
        verdict = await judge.ainvoke(_judge_input(policy, state), judge_config(config))
        return _judged_update(policy, state, verdict)

    def route(state: _LoopState) -> str:
        drafts = state_drafts(state)
        return "generate" if drafts and drafts[-1].feedback is not None else "finish"

    def finish(state: _LoopState) -> dict[str, Any]:
        return _finish_update(policy, state)

    builder = StateGraph(_LoopState, input_schema=MessagesState, output_schema=SelfRefineState)
    builder.add_node("generate", RunnableLambda(generate, afunc=agenerate, name="generate"))
    builder.add_node("judge", RunnableLambda(judge_draft, afunc=ajudge_draft, name="judge"))
    builder.add_node("finish", finish)
    builder.add_edge(START, "generate")
    builder.add_edge("generate", "judge")
    builder.add_conditional_edges("judge", route, ["generate", "finish"])
    builder.add_edge("finish", END)
    return builder.compile(checkpointer=checkpointer, name="self_refine")


def _as_runnable(model: Any) -> Runnable[Any, Any]:
    if isinstance(model, Runnable):
        return model
    if callable(model):
        return RunnableLambda(model)
    raise JevConfigurationError(
        "model must be a chat model, a runnable or a function returning an AIMessage, "
        f"got {type(model).__name__}"
    )


def _transcript(drafts: list[SelfRefineDraft]) -> list[BaseMessage]:
    """The rejected drafts and their feedback messages, in order."""
    return [m for d in drafts if d.feedback is not None for m in (d.answer, d.feedback)]


def _working(state: Mapping[str, Any]) -> list[BaseMessage]:
    """What the model is shown: the conversation, then the rejected drafts and their feedback."""
    return [*state["messages"], *_transcript(state_drafts(state))]


def _draft_update(state: Mapping[str, Any], output: Any) -> dict[str, Any]:
    """Hold the draft for the judge, with an id no other message of the conversation has."""
    draft = as_answer(output)
    taken = [m.id for m in _working(state)]
    return {"jev_pending": _Pending(with_id(draft, taken))}


def _current(state: Mapping[str, Any]) -> AIMessage:
    pending = state.get("jev_pending")
    if not isinstance(pending, _Pending):  # pragma: no cover - the graph's edges ensure it
        raise RuntimeError("the judge node runs right after a draft was generated")
    return pending.answer


def _judge_input(policy: RefinePolicy, state: Mapping[str, Any]) -> Any:
    return policy.judge_input(state, [*state["messages"], _current(state)])


def _judged_update(policy: RefinePolicy, state: Mapping[str, Any], verdict: JevVerdict) -> dict[str, Any]:
    """Record the verdict (and, when the draft is retried, its feedback message)."""
    drafts = state_drafts(state)
    taken = [m.id for m in _working(state)]
    drafts.append(policy.judged_draft(_current(state), verdict, len(drafts) + 1, taken))
    return {"jev_drafts": drafts, "jev_attempts": len(drafts), "jev_verdict": verdict, "jev_pending": None}


def _finish_update(policy: RefinePolicy, state: Mapping[str, Any]) -> dict[str, Any]:
    """End with the kept draft last in the conversation and its verdict in the state."""
    drafts = state_drafts(state)
    kept = drafts[policy.kept(drafts)]
    if not policy.keep_drafts:
        return {"jev_verdict": kept.verdict, "messages": [kept.answer]}
    messages = [m for d in drafts for m in (d.answer, d.feedback) if m is not None]
    if kept is not drafts[-1]:
        messages.append(with_new_id(kept.answer))
    return {"jev_verdict": kept.verdict, "messages": messages}
