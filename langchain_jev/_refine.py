"""The self-refine policy: judge a draft, word the feedback, choose the answer to keep.

Pure functions and small value types shared by the self-refine graph
(`langchain_jev.graph._self_refine`) and the agent middleware
(`langchain_jev.middleware._self_refine`). Nothing here calls a model or a judge.

The rules, in one place:

- A draft is retried while its verdict did not pass (``verdict.passed`` is False:
  some finding is FAILED; INCONCLUSIVE and ERROR findings only count when the
  judge was built with ``fail_on_inconclusive`` / ``fail_on_error``) and fewer
  than ``max_attempts`` drafts were judged.
- The feedback goes back to the model as a `HumanMessage` quoting the verdict's
  feedback (`DEFAULT_FEEDBACK_TEMPLATE`), or as the caller words it.
- The judge sees the conversation without earlier drafts and feedback messages:
  the last human message is still the user's question, the draft is the answer.
- Rejected drafts and feedback never enter the conversation that is stored (unless
  ``keep_drafts``): the model is shown them while it revises, and they are kept
  in the run's ``jev_drafts`` only.
- ``keep="last"`` keeps the last draft; ``keep="best"`` keeps the best-ranked one
  (see `draft_rank`).
- Streams show the answer, not the workings: the judge's runs are hidden from
  every stream (`judge_config`), and so are the model's drafts unless the caller
  asks to stream them (`draft_config`); drafts are tagged `DRAFT_TAG` with the
  attempt number in their metadata (`ATTEMPT_METADATA`). These runs hold nothing
  secret, so only the streams lose them
  (`langchain_jev.guardrails._hidden.unstreamed_config`): they are started without
  the config's streaming handlers, tagged ``nostream``; tracers and every other
  handler still see them.
"""

from __future__ import annotations

import string
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, cast

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config
from pydantic_core import CoreSchema, core_schema

from langchain_jev._conversation import input_from_messages
from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev._input import JevJudgeInput
from langchain_jev._judge import JudgeInput
from langchain_jev._verdict import JevVerdict, Outcome
from langchain_jev.guardrails._hidden import unstreamed_config

__all__ = [
    "ATTEMPT_METADATA",
    "DEFAULT_FEEDBACK_TEMPLATE",
    "DRAFT_TAG",
    "JUDGE_TAG",
    "FeedbackMessage",
    "Keep",
    "RefinePolicy",
    "RunValue",
    "SelfRefineDraft",
    "ToInput",
    "draft_config",
    "draft_rank",
    "feedback_text",
    "judge_config",
    "kept_index",
]

Keep = Literal["last", "best"]
"""Which draft a refinement ends with: the last one, or the best-ranked one."""

FeedbackMessage = str | Callable[[JevVerdict], BaseMessage | str]
"""How feedback is worded: a template with ``{feedback}``, or ``verdict -> message | str``."""

ToInput = Callable[[Mapping[str, Any]], JevJudgeInput | Mapping[str, Any]]
"""Builds the judge input from the state (its ``messages`` as the judge sees them)."""

DEFAULT_FEEDBACK_TEMPLATE = (
    "A reviewer checked your previous answer and it did not pass. "
    "Fix these points:\n\n{feedback}\n\n"
    "Reply with the complete revised answer only, not a description of the changes."
)
"""The feedback message sent before a retry; ``{feedback}`` is the verdict's feedback."""

DRAFT_TAG = "jev_draft"
"""The tag of a model run whose reply is a draft still to be judged (streamed only on request)."""
JUDGE_TAG = "jev_judge"
"""The tag of a self-refine judge run (never streamed)."""
ATTEMPT_METADATA = "jev_attempt"
"""The metadata key holding a draft's attempt number (1 for the first draft of a reply)."""


def judge_config(config: RunnableConfig | None = None) -> RunnableConfig:
    """The config of a judge run inside a self-refine loop: hidden from streams, tagged `JUDGE_TAG`.

    Without a config, the enclosing run's (a graph node, a model call) is used, so
    the judge's run nests under it in the trace. No stream (``stream_mode="messages"``,
    ``astream_events``) sees the judge's run or its model's (a chat model's JSON
    verdict, say); tracers do.

    Example:
        >>> judge_config({"tags": ["mine"]})["tags"]
        ['mine', 'nostream', 'langsmith:nostream', 'jev_judge']

    """
    return unstreamed_config(config, JUDGE_TAG)


def draft_config(config: RunnableConfig | None, attempt: int, *, stream: bool) -> RunnableConfig:
    """The config of the model call that writes the ``attempt``-th draft.

    Tagged `DRAFT_TAG` with the attempt under `ATTEMPT_METADATA`, so a UI that
    streams drafts can tell them from the answer; with ``stream=False`` also hidden
    from every stream (see `judge_config`), so the answer kept is shown once judged.

    Example:
        >>> config = draft_config(None, 2, stream=True)
        >>> config["tags"], config["metadata"]
        (['jev_draft'], {'jev_attempt': 2})
        >>> draft_config(None, 2, stream=False)["tags"]
        ['nostream', 'langsmith:nostream', 'jev_draft']

    """
    base = ensure_config(config)
    base = {**base, "metadata": {**(base.get("metadata") or {}), ATTEMPT_METADATA: attempt}}
    if not stream:
        return unstreamed_config(base, DRAFT_TAG)
    return {**base, "tags": [*(base.get("tags") or []), DRAFT_TAG]}


class RunValue:
    """State-field metadata: a Python object of one run, taken as is by pydantic.

    LangGraph and LangChain build JSON schemas of a graph's state with pydantic; a
    verdict holds live criteria (predicates, questions) that have no schema. With
    this marker the field validates as any value and shows as a described object.

    Example:
        >>> from typing import Annotated
        >>> from pydantic import TypeAdapter
        >>> TypeAdapter(Annotated[JevVerdict, RunValue("The verdict.")]).json_schema()
        {'description': 'The verdict.'}

    """

    def __init__(self, description: str) -> None:
        self.description = description

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> CoreSchema:
        """Accept any value, without looking inside the type."""
        return core_schema.any_schema()

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: Any) -> dict[str, Any]:
        """Describe the field in words."""
        return {"description": self.description}

    def __repr__(self) -> str:
        return f"RunValue({self.description!r})"


@dataclass(frozen=True)
class SelfRefineDraft:
    """One judged draft: the answer, its verdict, and the feedback sent after it.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> from langchain_jev import JevVerdict
        >>> draft = SelfRefineDraft(AIMessage("Paris."), JevVerdict(True, (), None, ""))
        >>> draft.passed, draft.feedback is None
        (True, True)

    """

    answer: AIMessage
    """The draft as the model returned it (with an id)."""
    verdict: JevVerdict
    """The judge's verdict on it."""
    feedback: BaseMessage | None = None
    """The feedback message sent to the model after it (None when it was not retried)."""

    @property
    def passed(self) -> bool:
        """Whether the draft's verdict passed."""
        return self.verdict.passed

    def message_ids(self) -> list[str]:
        """The ids of the draft and of its feedback message."""
        ids = [self.answer.id, self.feedback.id if self.feedback is not None else None]
        return [i for i in ids if i is not None]


def feedback_text(verdict: JevVerdict) -> str:
    """The text handed back to the model: the verdict's feedback, else its failed findings.

    Example:
        >>> from langchain_jev import JevCriterion, JevFinding, JevVerdict, Outcome
        >>> check = JevCriterion.check("short", lambda d: False, "too long")
        >>> finding = JevFinding(check, None, Outcome.FAILED, "short: too long")
        >>> feedback_text(JevVerdict(False, (finding,), None, ""))
        'short: too long'

    """
    if verdict.feedback.strip():
        return verdict.feedback
    details = "\n".join(finding.detail for finding in verdict.failures())
    return details or verdict.summary()


def draft_rank(verdict: JevVerdict) -> tuple[bool, int, int]:
    """How a draft ranks for ``keep="best"``; a higher tuple is better.

    First a passing verdict, then the most PASSED findings, then the fewest FAILED.
    Ties go to the later draft (it has seen more feedback), see `kept_index`.

    Example:
        >>> from langchain_jev import JevVerdict
        >>> draft_rank(JevVerdict(True, (), None, ""))
        (True, 0, 0)

    """
    passed = sum(1 for finding in verdict.findings if finding.outcome is Outcome.PASSED)
    failed = sum(1 for finding in verdict.findings if finding.outcome is Outcome.FAILED)
    return (verdict.passed, passed, -failed)


def kept_index(verdicts: Sequence[JevVerdict], keep: Keep) -> int:
    """The index of the draft to keep: the last, or the best-ranked (latest on a tie).

    Example:
        >>> from langchain_jev import JevVerdict
        >>> kept_index([JevVerdict(False, (), None, "x")] * 3, "best")
        2

    """
    if not verdicts:
        raise ValueError("no draft was judged")
    if keep == "last":
        return len(verdicts) - 1
    return max(range(len(verdicts)), key=lambda i: (draft_rank(verdicts[i]), i))


_M = TypeVar("_M", bound=BaseMessage)


def with_id(message: _M, taken: Iterable[str | None] = ()) -> _M:
    """The message with an id of its own: kept when set and not in ``taken``, else a new one."""
    if message.id is not None and message.id not in set(taken):
        return message
    return message.model_copy(update={"id": str(uuid.uuid4())})


def as_answer(output: Any, source: str = "the model") -> AIMessage:
    """Read a generated draft: an `AIMessage` without tool calls, or a plain string.

    Raises:
        JevInputError: the output is neither, or it calls tools (nothing runs them here).

    """
    if isinstance(output, str):
        return AIMessage(content=output)
    if not isinstance(output, AIMessage):
        raise JevInputError(f"{source} must return an AIMessage or a string, got {type(output).__name__}")
    if output.tool_calls:
        names = ", ".join(call["name"] for call in output.tool_calls)
        raise JevInputError(
            f"{source} returned tool calls ({names}); the self-refine graph runs no tools. "
            "Use JevSelfRefineMiddleware with create_agent for a tool-calling model"
        )
    return output


def with_new_id(message: _M) -> _M:
    """A copy of the message under a new id (a kept draft closing a conversation that holds it)."""
    return with_id(message.model_copy(update={"id": None}))


def judged_messages(messages: Sequence[BaseMessage], drafts: Sequence[SelfRefineDraft]) -> list[BaseMessage]:
    """The conversation as the judge sees it: without the drafts and feedback already judged."""
    hidden = {i for draft in drafts for i in draft.message_ids()}
    return [message for message in messages if message.id is None or message.id not in hidden]


def state_drafts(state: Mapping[str, Any]) -> list[SelfRefineDraft]:
    """The judged drafts a state records under ``jev_drafts`` (a new list; empty when none)."""
    return list(state.get("jev_drafts") or [])


@dataclass(frozen=True)
class RefinePolicy:
    """The validated settings of a self-refine loop, and the pure steps that use them.

    Build it with `RefinePolicy.of`, which checks every argument.

    Example:
        >>> policy = RefinePolicy.of(max_attempts=2, keep="best")
        >>> policy.max_attempts, policy.keep
        (2, 'best')
        >>> RefinePolicy.of(max_attempts=0)
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JevConfigurationError: max_attempts must be an integer of at least 1, got 0

    """

    max_attempts: int
    """Drafts judged at most (one judge request each)."""
    keep: Keep
    """``"last"`` or ``"best"``: the draft the loop ends with."""
    keep_drafts: bool
    """Keep rejected drafts and feedback messages in the conversation."""
    feedback_message: FeedbackMessage | None
    """The caller's wording of the feedback, or None for `DEFAULT_FEEDBACK_TEMPLATE`."""
    to_input: ToInput | None
    """The caller's judge-input builder, or None for `input_from_messages`."""

    @classmethod
    def of(
        cls,
        *,
        max_attempts: int = 3,
        keep: str = "last",
        keep_drafts: bool = False,
        feedback_message: FeedbackMessage | None = None,
        to_input: ToInput | None = None,
    ) -> RefinePolicy:
        """Check the settings and build the policy.

        Raises:
            JevConfigurationError: a setting is invalid; the message names it and its value.

        """
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise JevConfigurationError(
                f"max_attempts must be an integer of at least 1, got {max_attempts!r}"
            )
        if keep not in ("last", "best"):
            raise JevConfigurationError(f'keep must be "last" or "best", got {keep!r}')
        if not isinstance(keep_drafts, bool):
            raise JevConfigurationError(f"keep_drafts must be True or False, got {keep_drafts!r}")
        if isinstance(feedback_message, str):
            _check_template(feedback_message)
        elif feedback_message is not None and not callable(feedback_message):
            raise JevConfigurationError(
                "feedback_message must be a template string with {feedback} or a callable "
                f"(verdict) -> message or str, got {type(feedback_message).__name__}"
            )
        if to_input is not None and not callable(to_input):
            raise JevConfigurationError(
                f"to_input must be a callable (state) -> JevJudgeInput, got {type(to_input).__name__}"
            )
        return cls(max_attempts, cast(Keep, keep), keep_drafts, feedback_message, to_input)

    def retries(self, verdict: JevVerdict, attempts: int) -> bool:
        """Whether a draft with this verdict, the ``attempts``-th, is retried."""
        return not verdict.passed and attempts < self.max_attempts

    def feedback(self, verdict: JevVerdict, taken: Iterable[str | None] = ()) -> BaseMessage:
        """The feedback message for a failed verdict, with an id of its own.

        Raises:
            JevConfigurationError: a ``feedback_message`` callable returned something else
                than a message or a string.

        """
        wording = self.feedback_message
        if wording is None or isinstance(wording, str):
            template = DEFAULT_FEEDBACK_TEMPLATE if wording is None else wording
            message: BaseMessage = HumanMessage(template.format(feedback=feedback_text(verdict)))
        else:
            made = wording(verdict)
            if isinstance(made, str):
                message = HumanMessage(made)
            elif isinstance(made, BaseMessage):
                message = made
            else:
                raise JevConfigurationError(
                    f"feedback_message must return a message or a string, got {type(made).__name__}"
                )
        return with_id(message, taken)

    def judged_draft(
        self, answer: AIMessage, verdict: JevVerdict, attempt: int, taken: Iterable[str | None] = ()
    ) -> SelfRefineDraft:
        """The ``attempt``-th draft with its verdict, and a feedback message when it is retried.

        The feedback gets an id none of ``taken`` has.
        """
        feedback = self.feedback(verdict, taken) if self.retries(verdict, attempt) else None
        return SelfRefineDraft(answer, verdict, feedback)

    def judge_input(self, state: Mapping[str, Any], messages: Sequence[BaseMessage]) -> JudgeInput:
        """The judge input of a draft; ``messages`` is the conversation as the judge sees it.

        Raises:
            JevInputError: ``to_input`` returned something a judge cannot take.

        """
        if self.to_input is None:
            return input_from_messages(messages)
        made = self.to_input({**state, "messages": list(messages)})
        if not isinstance(made, (JevJudgeInput, Mapping)):
            raise JevInputError(
                f"to_input must return a JevJudgeInput or a state mapping, got {type(made).__name__}"
            )
        return made

    def kept(self, drafts: Sequence[SelfRefineDraft]) -> int:
        """The index of the draft the loop ends with."""
        return kept_index([draft.verdict for draft in drafts], self.keep)


def _check_template(template: str) -> None:
    try:
        fields = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
        template.format(feedback="")
    except (ValueError, KeyError, IndexError) as error:
        raise JevConfigurationError(
            f"feedback_message template {template!r} cannot be filled with only {{feedback}} "
            f"({error}); write literal braces as {{{{ and }}}}"
        ) from None
    if "feedback" not in fields:
        raise JevConfigurationError(
            f"feedback_message template {template!r} must contain {{feedback}}, "
            "or the model would never see what to fix"
        )
