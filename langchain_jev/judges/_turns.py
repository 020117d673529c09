"""Conversation judges over a whole thread: every turn's criteria asked in one request.

`conversation_thread_judge` judges a thread (its messages, a `ThreadTrajectory`, or
a compiled graph and the thread's config): the conversation judge's criteria on the
last reply, with the earlier turns as ``conversation``, and the per-turn criteria
below once for every user turn, named by turn (``turn_answered.turn_2``). All of
them go in ONE request, however many turns the thread has.

=============================  =====================================================
per-turn criterion             asks, for each turn of ``turns``
=============================  =====================================================
``turn_answered``              is the user's message of the turn answered
``clarification_when_needed``  when the message was ambiguous or lacked what was
                               needed to act, did the assistant ask instead of guessing
=============================  =====================================================

A turn is a user message and what followed it up to the next user message:
``{"turn": n, "user": text, "assistant": text or null, "tool_calls": [...]}``,
counted from 1, in the ``turns`` state field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.decisions import Noul, NoulCriteria
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig

from langchain_jev._conversation import input_from_messages, message_text, tool_calls_from_messages
from langchain_jev._criteria import JevCriterion
from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev._input import JevJudgeInput
from langchain_jev._judge import JevJudge
from langchain_jev._runs import CONVERSATION_FIELD, conversation_from_inputs
from langchain_jev._verdict import JevVerdict
from langchain_jev.judges._factories import conversation_criteria
from langchain_jev.judges._threads import ThreadTrajectory, aread_thread, read_thread

__all__ = ["PER_TURN", "TURNS_FIELD", "ThreadJudge", "conversation_thread_judge", "thread_turns"]

TURNS_FIELD = "turns"
"""The state field holding the thread's turns."""

PER_TURN: Mapping[str, tuple[str, str, str]] = {
    "turn_answered": (
        "Is the user's message of this turn answered by the assistant in the same turn?",
        "The reply answers what the user asked or said, or gives a clear next step.",
        "The message is ignored, misread, or left without an answer.",
    ),
    "clarification_when_needed": (
        "If the user's message of this turn was ambiguous, or lacked something needed to act on it, "
        "did the assistant ask for it instead of guessing? (Yes when nothing needed asking.)",
        "It asked when it had to, or nothing needed asking.",
        "It guessed, or acted, where it should have asked; or asked for what it had been told.",
    ),
}
"""The per-turn criteria: name -> (instructions, what yes means, what no means)."""

Thread = ThreadTrajectory | Sequence[BaseMessage] | Any
"""A thread: its messages, a `ThreadTrajectory`, or a compiled graph (with the thread's config)."""


def thread_turns(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """The turns of a conversation, each a user message and what followed it.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> thread_turns([HumanMessage("Hi"), AIMessage("Hello"), HumanMessage("Bye")])[1]
        {'turn': 2, 'user': 'Bye', 'assistant': None, 'tool_calls': []}

    """
    starts = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    turns: list[dict[str, Any]] = []
    ends = [*starts[1:], len(messages)] if starts else []
    for number, (start, end) in enumerate(zip(starts, ends, strict=True), 1):
        after = list(messages[start + 1 : end])
        replies = [m for m in after if isinstance(m, AIMessage) and not m.tool_calls]
        turns.append(
            {
                "turn": number,
                "user": message_text(messages[start]),
                "assistant": message_text(replies[-1]) if replies else None,
                "tool_calls": [call.to_dict() for call in tool_calls_from_messages(after)],
            }
        )
    return turns


@dataclass(frozen=True)
class ThreadJudge:
    """Judges a whole thread in one request: the conversation criteria, and each turn's.

    Use `conversation_thread_judge` to build one.
    """

    model: Any
    whole: tuple[JevCriterion, ...]
    per_turn: tuple[tuple[str, float], ...]
    options: Mapping[str, Any]

    def judge(self, thread: Thread, config: RunnableConfig | None = None) -> JevVerdict:
        """The verdict on ``thread`` (a graph needs ``config``, the thread's)."""
        if _is_graph(thread):
            thread = read_thread(thread, _needs(config))
        judge, data = self._plan(thread)
        return judge.judge(data)

    async def ajudge(self, thread: Thread, config: RunnableConfig | None = None) -> JevVerdict:
        """`judge`, asynchronously (a graph is read with ``aget_state_history``)."""
        if _is_graph(thread):
            thread = await aread_thread(thread, _needs(config))
        judge, data = self._plan(thread)
        return await judge.ajudge(data)

    def _plan(self, thread: ThreadTrajectory | Sequence[BaseMessage]) -> tuple[JevJudge, JevJudgeInput]:
        messages = list(thread.messages if isinstance(thread, ThreadTrajectory) else thread)
        turns = thread_turns(messages)
        if not turns:
            raise JevInputError("the thread has no user message, so it has no turn to judge")
        criteria = [*self.whole, *(c for turn in turns for c in self._for_turn(turn["turn"]))]
        return JevJudge(criteria, self.model, **self.options), _input(messages, turns)

    def _for_turn(self, number: int) -> list[JevCriterion]:
        criteria = []
        for name, minimum in self.per_turn:
            asks, yes, no = PER_TURN[name]
            where = (
                f'For turn {number} of `turns` (its entry with "turn": {number}, after the turns before it)'
            )
            instructions = f"{where}: {asks}"
            question = Noul(instructions=instructions, criteria=NoulCriteria(true=yes, false=no))
            criteria.append(JevCriterion.noul(f"{name}.turn_{number}", question, minimum))
        return criteria


def conversation_thread_judge(
    model: Any = None,
    *,
    per_turn: Sequence[str] = tuple(PER_TURN),
    whole: bool = True,
    thresholds: Mapping[str, float] | None = None,
    **options: Any,
) -> ThreadJudge:
    """The conversation judge over a whole thread, each turn's criteria in the same request.

    Args:
        model: anything `JevJudge` accepts; None for Jev from the environment.
        per_turn: the per-turn criteria to ask for every turn (see `PER_TURN`).
        whole: False leaves out the conversation judge's criteria on the last reply.
        thresholds: criterion name -> minimum (a per-turn name sets it for every turn).
        options: `JevJudge` options.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> names = [f"{c}.turn_{n}" for n in (1, 2) for c in PER_TURN]
        >>> judge = conversation_thread_judge(ScriptedDecisionModel(dict.fromkeys(names, 0.9)), whole=False)
        >>> verdict = judge.judge([HumanMessage("Refund?"), AIMessage("Which order?"),
        ...                        HumanMessage("#12"), AIMessage("Refunded.")])
        >>> [finding.criterion.name for finding in verdict.findings][:3]
        ['turn_answered.turn_1', 'clarification_when_needed.turn_1', 'turn_answered.turn_2']

    """
    unknown = [name for name in per_turn if name not in PER_TURN]
    if unknown:
        raise JevConfigurationError(
            f"per_turn: no per-turn criterion {unknown[0]!r} (they are: {', '.join(PER_TURN)})"
        )
    limits = dict(thresholds or {})
    minimums = tuple((name, float(limits.pop(name, 0.7))) for name in per_turn)
    if not whole and limits:
        raise JevConfigurationError(
            f"thresholds: {next(iter(limits))!r} is no per-turn criterion of this judge"
        )
    whole_criteria = tuple(conversation_criteria(thresholds=limits)) if whole else ()
    return ThreadJudge(model, whole_criteria, minimums, options)


def _input(messages: Sequence[BaseMessage], turns: list[dict[str, Any]]) -> JevJudgeInput:
    last = input_from_messages(messages)
    asked = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
    fields: dict[str, Any] = {TURNS_FIELD: turns}
    conversation = conversation_from_inputs({"messages": list(messages[: asked + 1])})
    if conversation:
        fields[CONVERSATION_FIELD] = conversation
    system = [message_text(m) for m in messages if isinstance(m, SystemMessage)]
    if system:
        fields["system_prompt"] = "\n\n".join(system)
    return JevJudgeInput(last.question, last.answer, tool_calls=last.tool_calls, fields=fields)


def _is_graph(thread: Any) -> bool:
    return hasattr(thread, "get_state_history")


def _needs(config: RunnableConfig | None) -> RunnableConfig:
    if config is None:
        raise JevInputError("a graph is judged by one of its threads: pass the thread's config")
    return config
