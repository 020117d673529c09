"""Self-refine middleware for LangChain agents: judge each final answer, retry with the feedback.

- `SelfRefineAgentState`: what the middleware keeps in the agent state (the last
  refinement under ``jev_*``, each instance's under its name);
- `JevSelfRefineMiddleware`: the loop around the model call;
- `_Turn`: the pure bookkeeping of one model call between the model and the judge.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Annotated, Any, NotRequired, cast

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage
from langchain_core.runnables.config import set_config_context
from langchain_core.runnables.utils import coro_with_context
from langgraph.types import Command

from langchain_jev._errors import JevConfigurationError
from langchain_jev._judge import JevJudge, JudgeInput
from langchain_jev._refine import (
    FeedbackMessage,
    Keep,
    RefinePolicy,
    RunValue,
    SelfRefineDraft,
    ToInput,
    draft_config,
    judge_config,
    judged_messages,
    with_id,
    with_new_id,
)
from langchain_jev._verdict import JevVerdict
from langchain_jev.middleware._agents import (
    AgentState,
    ExtendedModelResponse,
    JevAgentMiddleware,
    ModelRequest,
    ModelResponse,
    OmitFromInput,
    PrivateStateAttr,
)
from langchain_jev.middleware._naming import middleware_name, shown, stable
from langchain_jev.middleware._state import UntrackedByName, by_name, latest_untracked
from langchain_jev.models._cache import model_identity

__all__ = ["JevSelfRefineMiddleware", "SelfRefineAgentState"]


def _legacy(refining: Any) -> bool:
    """True for one refinement as an earlier release checkpointed it (not yet by name)."""
    return isinstance(refining, Mapping) and isinstance(refining.get("attempts"), int)


def _refinings(old: Any, new: Any) -> dict[str, Any]:
    """The refinements under way by name (`by_name`); an earlier release's lone one is replaced."""
    return by_name(None if _legacy(old) else old, new)


class SelfRefineAgentState(AgentState[Any]):
    """The agent state `JevSelfRefineMiddleware` adds to: how the turn's refinement went.

    The ``jev_*`` fields belong to one run (one ``invoke``): they come back in the
    agent's result and later hooks of the run can read them, but checkpointers do
    not store them (a verdict holds live criteria) and each run starts them afresh.
    A private field, checkpointed, carries a refinement across an interrupt that
    falls between a retry's tool call and its answer: the number of answers judged
    and the ids of the messages the judge must not read as the question; never text.

    Several self-refine middlewares in one agent write in the same step: each keeps
    its own under its `JevSelfRefineMiddleware.name` (``jev_refinements`` and the
    private fields), and ``jev_verdict``, ``jev_attempts``, ``jev_drafts`` hold the
    outermost one's (listed first: it judges last).

    Example:
        >>> sorted(k for k in SelfRefineAgentState.__annotations__ if k.startswith("jev_"))
        ['jev_attempts', 'jev_context', 'jev_drafts', 'jev_refinements', 'jev_refining', 'jev_verdict']

    """

    jev_verdict: NotRequired[
        Annotated[JevVerdict | None, latest_untracked(), RunValue("The JevVerdict kept"), OmitFromInput]
    ]
    """The verdict of the final answer kept (None until a final answer was judged)."""
    jev_attempts: NotRequired[Annotated[int, latest_untracked(), OmitFromInput]]
    """How many final answers of this run were judged (one judge request each)."""
    jev_drafts: NotRequired[
        Annotated[list[SelfRefineDraft], latest_untracked(), RunValue("The judged drafts"), OmitFromInput]
    ]
    """Every judged final answer of this run, in order, with its verdict and feedback."""
    jev_refinements: NotRequired[
        Annotated[
            dict[str, dict[str, Any]], UntrackedByName, RunValue("Each refinement by name"), OmitFromInput
        ]
    ]
    """Each self-refine middleware's ``{"verdict", "attempts", "drafts"}`` of this run, by its name."""
    jev_refining: NotRequired[Annotated[dict[str, Any] | None, PrivateStateAttr, _refinings]]
    """Refinements under way across a tool call, by name: ``{"after", "attempts", "hidden"}`` each
    (ids and a count, checkpointed)."""
    jev_context: NotRequired[
        Annotated[dict[str, list[tuple[str, list[BaseMessage]]]], UntrackedByName, PrivateStateAttr]
    ]
    """By name, rejected answers and feedback the model sees again before the tool call that followed them."""


class JevSelfRefineMiddleware(JevAgentMiddleware[SelfRefineAgentState]):
    """Judge the agent's final answers and have the model revise the ones that fail.

    Wraps each model call. A response that calls tools passes through untouched
    (structured output given through a tool call, ``ToolStrategy``, counts as one).
    A final answer (an AI message without tool calls) is judged, one judge request
    per answer; when the verdict did not pass and fewer than ``max_attempts``
    answers were judged for this reply, the model is called again with the rejected
    answer and a feedback message added to its request. The kept answer goes into
    the conversation, its verdict into ``jev_verdict``.

    A verdict blocks only on FAILED findings: INCONCLUSIVE and ERROR findings retry
    only when the judge was built with ``fail_on_inconclusive`` / ``fail_on_error``.
    A judge that cannot reach its decision model raises out of the agent.

    The judge sees the conversation without rejected answers and feedback, so the
    user's last message stays the question, and the tool calls of the turn (with
    their results) become the input's ``tool_calls``.

    What the conversation keeps: by default only the kept answer. Rejected answers
    and feedback live in the model's request while it retries and never reach the
    agent state, a checkpoint or a stream. If a retry calls tools (the feedback
    asked for a search, say), only the tool call joins the state; the model is
    shown the rejected answer and its feedback again before that call when it
    answers after the tools, within the same run. Should the run be interrupted
    there (``HumanInTheLoopMiddleware``, ``interrupt_before=["tools"]``) and
    resumed, the answers already judged still count towards ``max_attempts`` and
    ``jev_attempts``, the judge still reads the user's question, and the model
    goes on from the tool results (the rejected text was never stored, so it is
    not shown again). All judged answers of a run stay readable in ``jev_drafts``.
    With ``keep_drafts=True`` the rejected answers and feedback stay in the
    conversation, before the kept answer (or before the tool call a retry made);
    if ``keep="best"`` keeps an earlier answer, a copy of it (with a new id) closes
    the turn.

    Streaming: the judge's runs are tagged ``nostream``, so ``stream_mode="messages"``
    never shows a chat-model judge's output. The model's drafts are tagged
    ``nostream`` too, so the stream shows the answer kept, whole, once judged (and
    any tool call, once the model asked for it). ``stream_drafts=True`` streams every
    draft's tokens as they come instead, each tagged ``jev_draft`` with its attempt
    number under the ``jev_attempt`` metadata key, so a UI can show them as work in
    progress.

    Args:
        judge: the `JevJudge` final answers must pass.
        max_attempts: answers judged at most before one is kept (1 judges once, no
            retry). Should the agent come back to the model after a kept answer (another
            middleware jumping back, say), the next final answer starts a new count.
        keep: ``"last"`` keeps the last answer; ``"best"`` the best one: a passing
            answer first, then the most PASSED findings, then the fewest FAILED, the
            later answer on a tie.
        keep_drafts: keep rejected answers and feedback messages in the conversation.
        feedback_message: the wording of the feedback: a template with ``{feedback}``,
            or a callable ``(verdict) -> message | str`` (a string becomes a
            `HumanMessage`). Default: ``langchain_jev._refine.DEFAULT_FEEDBACK_TEMPLATE``.
        to_input: builds the judge input from the agent state, replacing
            `input_from_messages`; its ``messages`` are the conversation as the judge
            sees it, with the answer being judged last.
        stream_drafts: stream the model's tokens as they come, rejected drafts
            included (labelled as above); by default each answer is shown once kept.
        name: the middleware's name in the agent (``create_agent`` takes no two of one
            name) and its key under ``jev_refinements``. None: made from the judge, as
            ``JevSelfRefineMiddleware[cites_unit, 1f0c9a2e]`` (its criteria's names and a
            digest of the criteria, the judge's model and the settings that are not
            their defaults), so two loops that differ never share a name.

    Raises:
        JevConfigurationError: an argument is invalid (named in the message).

    Example:
        >>> from langchain.agents import create_agent
        >>> from langchain_core.decisions import Noul
        >>> from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = JevJudge(
        ...     [JevCriterion.noul("cites_unit", Noul(
        ...         instructions="Does `assistant_answer` give the unit of every number?"), 0.7)],
        ...     model=ScriptedDecisionModel([{"cites_unit": 0.2}, {"cites_unit": 0.9}]),
        ... )
        >>> model = GenericFakeChatModel(messages=iter(["About 100.", "About 100 degrees Celsius."]))
        >>> agent = create_agent(model, middleware=[JevSelfRefineMiddleware(judge)])
        >>> result = agent.invoke({"messages": [{"role": "user", "content": "When does water boil?"}]})
        >>> [m.content for m in result["messages"]]
        ['When does water boil?', 'About 100 degrees Celsius.']
        >>> result["jev_attempts"], result["jev_verdict"].passed
        (2, True)

    """

    state_schema = SelfRefineAgentState

    def __init__(
        self,
        judge: JevJudge,
        *,
        max_attempts: int = 3,
        keep: Keep = "last",
        keep_drafts: bool = False,
        feedback_message: FeedbackMessage | None = None,
        to_input: ToInput | None = None,
        stream_drafts: bool = False,
        name: str | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(judge, JevJudge):
            raise JevConfigurationError(f"judge must be a JevJudge, got {type(judge).__name__}")
        if not isinstance(stream_drafts, bool):
            raise JevConfigurationError(f"stream_drafts must be True or False, got {stream_drafts!r}")
        self.judge = judge
        """The judge final answers must pass."""
        self.stream_drafts = stream_drafts
        """Whether the model's tokens stream as they come, rejected drafts included."""
        self.policy = RefinePolicy.of(
            max_attempts=max_attempts,
            keep=keep,
            keep_drafts=keep_drafts,
            feedback_message=feedback_message,
            to_input=to_input,
        )
        """The validated settings of the loop."""
        readable = [shown([c.name for c in judge.criteria])]
        described = {**_described(judge, self.policy), **({"stream_drafts": True} if stream_drafts else {})}
        self._name = middleware_name(name, type(self).__name__, readable, described)

    @property
    def name(self) -> str:
        """The middleware's name in the agent, and its key under ``jev_refinements``."""
        return self._name

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]:
        """Call the model; judge a final answer and call it again while it fails."""
        turn = _Turn(self.policy, request, self._name)
        retry: ModelRequest[Any] | None = turn.request
        while retry is not None:
            with set_config_context(draft_config(None, turn.attempt, stream=self.stream_drafts)) as context:
                response = context.run(handler, retry)
            answer = turn.answer(response)
            if answer is None:
                return turn.tool_call(response)
            verdict = self.judge.invoke(turn.judge_input(answer), judge_config())
            retry = turn.judged(response, answer, verdict)
        return turn.finish()

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]:
        """Asynchronous `wrap_model_call`."""
        turn = _Turn(self.policy, request, self._name)
        retry: ModelRequest[Any] | None = turn.request
        while retry is not None:
            with set_config_context(draft_config(None, turn.attempt, stream=self.stream_drafts)) as context:
                response = await coro_with_context(handler(retry), context)
            answer = turn.answer(response)
            if answer is None:
                return turn.tool_call(response)
            verdict = await self.judge.ainvoke(turn.judge_input(answer), judge_config())
            retry = turn.judged(response, answer, verdict)
        return turn.finish()

    def __repr__(self) -> str:
        policy = self.policy
        return (
            f"JevSelfRefineMiddleware({self.judge!r}, max_attempts={policy.max_attempts}, "
            f"keep={policy.keep!r}, keep_drafts={policy.keep_drafts}"
            f"{', stream_drafts=True' if self.stream_drafts else ''})"
        )


def _described(judge: JevJudge, policy: RefinePolicy) -> dict[str, Any]:
    """What tells self-refine loops apart: the judge's criteria and model, the settings not their defaults."""
    criteria = [
        {
            "kind": c.kind,
            "name": c.name,
            "question": c.question.model_dump(mode="json") if c.question is not None else None,
            "minimum": c.minimum,
            "accepted": sorted(c.accepted),
            "predicate": stable(c.predicate),
            "condition": stable(c.condition),
            "depends_on": repr(c.depends_on),
        }
        for c in judge.criteria
    ]
    described: dict[str, Any] = {
        "criteria": criteria,
        "model": model_identity(judge.model),
        "fail_on": [judge.fail_on_inconclusive, judge.fail_on_error],
    }
    defaults = RefinePolicy.of()
    for item in fields(RefinePolicy):
        value = getattr(policy, item.name)
        if value != getattr(defaults, item.name):
            described[item.name] = value
    return described


@dataclass
class _Turn:
    """The bookkeeping of one model call: pure steps between the model and the judge."""

    policy: RefinePolicy
    request: ModelRequest[Any]
    name: str
    """The middleware's name: where its own bookkeeping lives in the state."""
    finished: list[SelfRefineDraft] = field(init=False)
    """The run's judged answers of refinements already decided (kept or exhausted)."""
    drafts: list[SelfRefineDraft] = field(init=False)
    """The answers of the refinement under way, those of earlier model calls first."""
    earlier: int = field(init=False)
    """How many of ``drafts`` came from earlier model calls of this run."""
    unseen: int = field(init=False)
    """Answers of the refinement under way judged before an interrupt (not in ``drafts``)."""
    hidden: set[str] = field(init=False)
    """Ids of rejected answers and feedback in the conversation (kept drafts, or an interrupt)."""
    pending: list[BaseMessage] = field(default_factory=list)
    """Rejected answers and feedback of this call, not yet in the state."""
    responses: list[ModelResponse[Any]] = field(default_factory=list)
    """The response of each answer judged in this call."""

    def __post_init__(self) -> None:
        state = cast(Mapping[str, Any], self.request.state)
        own = (state.get("jev_refinements") or {}).get(self.name) or {}
        every: list[SelfRefineDraft] = list(own.get("drafts") or ())
        # A draft sent back without feedback closed its refinement: it was kept.
        start = max((i + 1 for i, draft in enumerate(every) if draft.feedback is None), default=0)
        self.finished, self.drafts = every[:start], every[start:]
        self.earlier = len(self.drafts)
        refining = _refining(state, self.name)
        self.unseen = max(0, int(refining.get("attempts", 0)) - len(self.drafts))
        self.hidden = {str(i) for i in refining.get("hidden", ())}
        context = self._context() if self.drafts else []
        if context:
            self.request = self.request.override(messages=_with_context(self.request.messages, context))

    @property
    def attempt(self) -> int:
        """The number of the next answer of the refinement under way (1 for the first)."""
        return self.unseen + len(self.drafts) + 1

    def answer(self, response: ModelResponse[Any]) -> AIMessage | None:
        """The final answer of a response, or None when it calls tools."""
        messages = [m for m in response.result if isinstance(m, AIMessage)]
        if not messages or messages[-1].tool_calls:
            return None
        return messages[-1]

    def judge_input(self, answer: AIMessage) -> JudgeInput:
        """The judge input: the conversation without rejected answers, and this answer."""
        rejected = [draft for draft in self.finished if draft.feedback is not None]
        conversation = judged_messages(self.request.messages, [*rejected, *self.drafts])
        conversation = [m for m in conversation if m.id is None or m.id not in self.hidden]
        return self.policy.judge_input(self.request.state, [*conversation, answer])

    def judged(
        self, response: ModelResponse[Any], answer: AIMessage, verdict: JevVerdict
    ) -> ModelRequest[Any] | None:
        """Record a verdict; return the retry's request, or None when the turn is decided."""
        taken = [m.id for m in self._known()]
        answer = with_id(answer, taken)
        response = _replace_last_ai(response, answer)
        draft = self.policy.judged_draft(answer, verdict, self.attempt, [*taken, answer.id])
        self.drafts.append(draft)
        self.responses.append(response)
        if draft.feedback is None:
            return None
        self.pending.extend([*response.result, draft.feedback])
        messages = cast(list[AnyMessage], [*self.request.messages, *self.pending])
        return self.request.override(messages=messages)

    def tool_call(self, response: ModelResponse[Any]) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
        """A response that calls tools: untouched, unless a retry led to it."""
        if not self.pending:
            return response
        # The model called tools after feedback. The rejected answers and feedback stay out
        # of the state (unless kept on purpose): the model sees them again before this call
        # when it answers after the tools. A checkpointed count carries the attempts over an
        # interrupt before the tools run.
        result = list(response.result)
        index = max(i for i, m in enumerate(result) if isinstance(m, AIMessage))
        call = with_id(result[index], [m.id for m in self._known()])
        result[index] = call
        hidden = sorted({*self.hidden, *(m.id for m in self.pending if m.id is not None)})
        refining = {"after": self._question_id(), "attempts": self.attempt - 1, "hidden": hidden}
        update = {
            **self._record(),
            "jev_refining": {self.name: refining},
            "jev_context": {self.name: [*self._context(), (str(call.id), list(self.pending))]},
        }
        if self.policy.keep_drafts:
            result = [*self.pending, *result]
        return ExtendedModelResponse(
            model_response=ModelResponse(result=result, structured_response=response.structured_response),
            command=Command(update=update),
        )

    def finish(self) -> ExtendedModelResponse[Any]:
        """The kept answer as the response; the verdict, attempts and drafts into the state."""
        index = self.policy.kept(self.drafts)
        kept = self.drafts[index]
        local = index - self.earlier
        if local >= 0 and (local == len(self.responses) - 1 or not self.policy.keep_drafts):
            final = self.responses[local]
            messages: list[BaseMessage] = list(final.result)
            structured = final.structured_response
        else:
            # An answer already in the conversation is kept: it closes the turn again,
            # under a new id.
            messages = [with_new_id(kept.answer)]
            structured = self.responses[local].structured_response if local >= 0 else None
        if self.policy.keep_drafts:
            messages = [*self.pending, *messages]
        update = {
            **self._record(kept.verdict),
            "jev_verdict": kept.verdict,
            "jev_refining": {self.name: None},
            "jev_context": {self.name: None},
        }
        result = ModelResponse(result=messages, structured_response=structured)
        return ExtendedModelResponse(model_response=result, command=Command(update=update))

    def _record(self, verdict: JevVerdict | None = None) -> dict[str, Any]:
        every = [*self.finished, *self.drafts]
        attempts = self.unseen + len(every)
        own = {"drafts": every, "attempts": attempts, "verdict": verdict}
        if verdict is None:  # a tool call: the verdict kept so far stays
            kept = cast(Mapping[str, Any], self.request.state).get("jev_refinements") or {}
            earlier = kept.get(self.name) or {}
            own["verdict"] = earlier.get("verdict")
        return {"jev_drafts": every, "jev_attempts": attempts, "jev_refinements": {self.name: own}}

    def _context(self) -> list[tuple[str, list[BaseMessage]]]:
        every = cast(Mapping[str, Any], self.request.state).get("jev_context") or {}
        return list(every.get(self.name) or ()) if isinstance(every, Mapping) else []

    def _question_id(self) -> str | None:
        return _last_human_id(self.request.state.get("messages", []), self.hidden)

    def _known(self) -> Sequence[AnyMessage | BaseMessage]:
        return [*self.request.state.get("messages", []), *self.request.messages, *self.pending]


def _last_human_id(messages: Sequence[BaseMessage], hidden: Collection[str] = ()) -> str | None:
    """The id of the last human message that is not a feedback message (not in ``hidden``)."""
    return next(
        (m.id for m in reversed(messages) if isinstance(m, HumanMessage) and m.id not in hidden), None
    )


def _refining(state: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """The refinement of the middleware ``name`` a checkpoint carries, for the turn under way; else empty.

    A refinement an earlier release checkpointed (one, not by name) is taken.
    """
    every = state.get("jev_refining")
    refining = every if _legacy(every) else every.get(name) if isinstance(every, Mapping) else None
    if not isinstance(refining, Mapping):
        return {}
    hidden = [str(i) for i in refining.get("hidden", ())]
    if refining.get("after") != _last_human_id(state.get("messages", []), hidden):
        return {}  # a new turn began: the interrupted refinement was abandoned
    return refining


def _with_context(
    messages: Sequence[BaseMessage], context: Sequence[tuple[str, list[BaseMessage]]]
) -> list[AnyMessage]:
    """The conversation with each rejected answer and feedback before the tool call that followed."""
    before = dict(context)
    present = {m.id for m in messages}
    out: list[BaseMessage] = []
    for message in messages:
        for earlier in before.get(message.id or "", ()):
            if earlier.id not in present:
                out.append(earlier)
        out.append(message)
    return cast(list[AnyMessage], out)


def _replace_last_ai(response: ModelResponse[Any], answer: AIMessage) -> ModelResponse[Any]:
    """The response with its last AI message replaced by ``answer`` (the same, with an id)."""
    result = list(response.result)
    for i in range(len(result) - 1, -1, -1):
        if isinstance(result[i], AIMessage):
            if result[i] is answer:
                return response
            result[i] = answer
            break
    return ModelResponse(result=result, structured_response=response.structured_response)
