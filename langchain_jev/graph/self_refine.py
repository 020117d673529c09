"""A LangGraph self-refine loop: generate, judge, feed the verdict back, generate again."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, NotRequired

from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langgraph.channels.untracked_value import UntrackedValue
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from langchain_jev.errors import JevConfigurationError
from langchain_jev.judge import JevJudge
from langchain_jev.refine import (
    FeedbackMessage,
    Keep,
    RefinePolicy,
    RunValue,
    SelfRefineDraft,
    ToInput,
    as_answer,
    draft_removals,
    judged_messages,
    state_drafts,
    with_id,
    with_new_id,
)
from langchain_jev.verdict import JevVerdict

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
) -> CompiledStateGraph[SelfRefineState, None, MessagesState, SelfRefineState]:
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

    What the conversation keeps: by default only the kept answer is added. Rejected
    drafts and the feedback messages are in ``messages`` while the loop runs (the
    model needs them to revise), then removed, so a parent graph that runs this one
    as a node gets exactly one new AI message. They stay readable in ``jev_drafts``.
    With ``keep_drafts=True`` they stay in the conversation; if ``keep="best"``
    keeps an earlier draft, a copy of it (with a new id) then closes the
    conversation, so the last message is always the answer kept.

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
    runnable = _as_runnable(model)
    policy = RefinePolicy.of(
        max_attempts=max_attempts,
        keep=keep,
        keep_drafts=keep_drafts,
        feedback_message=feedback_message,
        to_input=to_input,
    )

    def generate(state: SelfRefineState, config: RunnableConfig) -> dict[str, Any]:
        return _draft_update(state, runnable.invoke(state["messages"], config))

    async def agenerate(state: SelfRefineState, config: RunnableConfig) -> dict[str, Any]:
        return _draft_update(state, await runnable.ainvoke(state["messages"], config))

    def judge_draft(state: SelfRefineState, config: RunnableConfig) -> dict[str, Any]:
        return _judged_update(policy, state, judge.invoke(_judge_input(policy, state), config))

    async def ajudge_draft(state: SelfRefineState, config: RunnableConfig) -> dict[str, Any]:
        verdict = await judge.ainvoke(_judge_input(policy, state), config)
        return _judged_update(policy, state, verdict)

    def route(state: SelfRefineState) -> str:
        drafts = state_drafts(state)
        return "generate" if drafts and drafts[-1].feedback is not None else "finish"

    def finish(state: SelfRefineState) -> dict[str, Any]:
        return _finish_update(policy, state)

    builder = StateGraph(SelfRefineState, input_schema=MessagesState)
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


def _draft_update(state: Mapping[str, Any], output: Any) -> dict[str, Any]:
    """Append the draft, with an id no other message of the conversation has."""
    draft = as_answer(output)
    return {"messages": [with_id(draft, (m.id for m in state["messages"]))]}


def _current(state: Mapping[str, Any]) -> AIMessage:
    message = state["messages"][-1]
    if not isinstance(message, AIMessage):  # pragma: no cover - the graph's edges ensure it
        raise RuntimeError("the judge node runs right after a draft was added")
    return message


def _judge_input(policy: RefinePolicy, state: Mapping[str, Any]) -> Any:
    return policy.judge_input(state, judged_messages(state["messages"], state_drafts(state)))


def _judged_update(policy: RefinePolicy, state: Mapping[str, Any], verdict: JevVerdict) -> dict[str, Any]:
    """Record the verdict; when it is retried, add the feedback message."""
    drafts = state_drafts(state)
    taken = (m.id for m in state["messages"])
    drafts.append(policy.judged_draft(_current(state), verdict, len(drafts) + 1, taken))
    update: dict[str, Any] = {"jev_drafts": drafts, "jev_attempts": len(drafts), "jev_verdict": verdict}
    if drafts[-1].feedback is not None:
        update["messages"] = [drafts[-1].feedback]
    return update


def _finish_update(policy: RefinePolicy, state: Mapping[str, Any]) -> dict[str, Any]:
    """End with the kept draft last in the conversation and its verdict in the state."""
    drafts = state_drafts(state)
    kept = drafts[policy.kept(drafts)]
    if policy.keep_drafts:
        if kept is drafts[-1]:
            return {"jev_verdict": kept.verdict}
        return {"jev_verdict": kept.verdict, "messages": [with_new_id(kept.answer)]}
    removed = draft_removals(drafts, state["messages"], keep=kept.answer.id)
    return {"jev_verdict": kept.verdict, "messages": removed}
