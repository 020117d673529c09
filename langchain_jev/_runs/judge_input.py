"""A run and its dataset example, mapped to the judge input (the face's table: where each field is read)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langsmith.schemas import Example, RunBase

from langchain_jev._errors import JevInputError
from langchain_jev._input import JevJudgeInput
from langchain_jev._runs.answer import read_reply
from langchain_jev._runs.context import context_from_outputs, retrieved_context
from langchain_jev._runs.expected import expected_from_reference
from langchain_jev._runs.keys import ANSWER_KEYS, CONVERSATION_FIELD, MESSAGES_KEY, STRUCTURED_KEY
from langchain_jev._runs.question import asked_in, from_conversation
from langchain_jev._runs.tool_calls import tool_calls_from_run, tool_calls_of

__all__ = ["judge_input_from_run"]


def judge_input_from_run(run: RunBase, example: Example | None = None) -> JevJudgeInput:
    """Map a run, and the dataset example it ran on, to a judge input.

    See the module documentation for where each field is read from.

    Raises:
        JevInputError: the run yields no answer (the message names the keys looked
            for and the keys the outputs have), or a document cannot be read as text.

    Example:
        >>> import uuid
        >>> from langsmith.schemas import Example, Run
        >>> from datetime import datetime, timezone
        >>> run = Run(id=uuid.uuid4(), name="rag", run_type="chain", trace_id=uuid.uuid4(),
        ...           start_time=datetime.now(timezone.utc),
        ...           inputs={"question": "Capital of France?"},
        ...           outputs={"answer": "Paris.", "context": ["Paris is the capital of France."]})
        >>> example = Example(id=uuid.uuid4(), dataset_id=uuid.uuid4(),
        ...                   inputs={"question": "Capital of France?"}, outputs={"answer": "Paris"})
        >>> sorted(judge_input_from_run(run, example).to_state())
        ['assistant_answer', 'expected_output', 'supporting_context', 'user_question']

    """
    outputs = run.outputs or {}
    reply = read_reply(outputs)
    if reply is None:
        raise JevInputError(_no_answer(run, outputs))
    asked = asked_in(run.inputs or {})
    if asked is None and example is not None:
        asked = asked_in(example.inputs or {})
    if asked is None or asked[1] is None:
        told = from_conversation(reply.asked) if reply.asked else None
        if asked is None:
            asked = told
        elif told is not None and told[1] is not None:
            asked = (asked[0], told[1])
    question, conversation = asked or (None, None)
    expected = expected_from_reference(example.outputs) if example is not None else None
    context = context_from_outputs(outputs)
    if context is None:
        context = retrieved_context(run)
    calls = tool_calls_from_run(run)
    if not calls and reply.messages:
        calls = tool_calls_of(reply.messages)
    fields = {CONVERSATION_FIELD: conversation} if conversation else None
    answer = reply.answer
    return JevJudgeInput(
        question, answer, expected=expected, context=context, tool_calls=calls, fields=fields
    )


def _no_answer(run: RunBase, outputs: Mapping[str, Any]) -> str:
    if run.error:
        lines = [line.strip() for line in run.error.strip().splitlines() if line.strip()]
        return f"the target run {run.name!r} failed, so there is no answer to judge: {lines[-1]}"
    looked = ", ".join(repr(k) for k in (*ANSWER_KEYS, STRUCTURED_KEY))
    where = (
        f"looked for outputs {looked}, or the final AI message of {MESSAGES_KEY!r} or of a list of "
        "messages (the last AI message without tool calls after the last human message)"
    )
    empty = sorted(k for k, v in outputs.items() if v is None or v == [])
    state = f"its outputs have keys {sorted(outputs)}" if outputs else "the run has no outputs"
    if empty:
        state += f", with nothing under {empty}"
    return (
        f"cannot find the answer in run {run.name!r}: {where}; {state}. "
        "Pass prepare=(run, example) -> JevJudgeInput to read it from elsewhere"
    )
