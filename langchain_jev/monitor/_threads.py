"""``--threads``: a conversation judged once it is idle, as one thread (pure).

A pass in thread mode reads the root runs of its window as usual and groups
them by their thread (LangSmith's ``thread_id``, from the ``session_id``,
``thread_id`` or ``conversation_id`` metadata). A thread whose last run started
more than ``idle`` ago, and has ended, is idle: its turns are read whole
(``threads.list_traces``) and judged once, the last turn's answer with every
turn before it as the conversation, and the feedback is written on the last
turn. A conversation that goes on later is judged again, as the longer thread
it became (its subject names its last turn).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence

from langsmith import schemas

from langchain_jev._errors import JevInputError
from langchain_jev._input import JevJudgeInput
from langchain_jev._runs import CONVERSATION_FIELD, answer_from_outputs, question_from_inputs
from langchain_jev.monitor._cursor import RunRef

__all__ = ["DEFAULT_IDLE", "group_threads", "is_idle", "thread_input", "thread_subject"]

DEFAULT_IDLE = datetime.timedelta(minutes=15)
"""How long a conversation goes without a new turn before it is judged."""


def group_threads(refs: Iterable[RunRef]) -> tuple[dict[str, list[RunRef]], list[RunRef]]:
    """The runs by thread (each thread's runs in order), and the runs that belong to none.

    Example:
        >>> from datetime import datetime, timezone
        >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
        >>> threads, alone = group_threads([RunRef("a", t, thread_id="t1"), RunRef("b", t)])
        >>> list(threads), [r.id for r in alone]
        (['t1'], ['b'])

    """
    threads: dict[str, list[RunRef]] = {}
    alone: list[RunRef] = []
    for ref in sorted(refs, key=lambda r: r.order):
        if ref.thread_id:
            threads.setdefault(ref.thread_id, []).append(ref)
        else:
            alone.append(ref)
    return threads, alone


def is_idle(refs: Sequence[RunRef], now: datetime.datetime, idle: datetime.timedelta) -> bool:
    """Whether a thread whose runs are ``refs`` is idle at ``now``: every run ended, the last ``idle`` ago."""
    return bool(refs) and all(r.ended for r in refs) and max(r.start_time for r in refs) <= now - idle


def thread_subject(thread_id: str, last_turn: str) -> str:
    """What a thread's feedback ids are derived from: the thread and its last turn."""
    return f"thread:{thread_id}:{last_turn}"


def thread_input(turns: Sequence[schemas.Run]) -> JevJudgeInput:
    """The judge input of a conversation: the last turn's question and answer, every turn before as context.

    Each turn is read as the LangSmith mapping reads a run (its question from the
    inputs, its answer from the outputs); the conversation is every message as
    ``{"role", "content"}``, the last question last.

    Raises:
        JevInputError: the last turn has no question or no answer.

    """
    if not turns:
        raise JevInputError("the thread has no turns")
    messages: list[dict[str, str]] = []
    for turn in turns[:-1]:
        asked = question_from_inputs(turn.inputs or {})
        told = answer_from_outputs(turn.outputs or {})
        if asked:
            messages.append({"role": "user", "content": asked})
        if told:
            messages.append({"role": "assistant", "content": told})
    last = turns[-1]
    question = question_from_inputs(last.inputs or {})
    answer = answer_from_outputs(last.outputs or {})
    if not question or answer is None:
        missing = "question" if not question else "answer"
        raise JevInputError(
            f"the last turn of the thread (trace {last.trace_id}) gives no {missing}: inputs have "
            f"{sorted(last.inputs or {})}, outputs have {sorted(last.outputs or {})}"
        )
    messages.append({"role": "user", "content": question})
    fields = {CONVERSATION_FIELD: messages} if len(messages) > 1 else None
    return JevJudgeInput(question, answer, fields=fields)
