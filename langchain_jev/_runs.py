"""From a traced run and its dataset example to the input a judge reads.

Pure functions: they read a LangSmith run (``langsmith.schemas.Run`` or a
``RunTree``, including the runs LangChain's tracers record) and an optional
``langsmith.schemas.Example``, and never call anything.

==================  ==========================================================
judge input         where it is read from, first match wins
==================  ==========================================================
``question``        the run's inputs, then the example's: ``question``,
                    ``input``, ``query``, or the last human message of
                    ``messages``. Wrappers are opened first: a Runnable target's run holds
                    the example's inputs under ``input`` (with ``config``
                    beside it), a function's under its argument's name
``conversation``    a field beside the question when it came from a
                    conversation of more than one message: every message as
                    ``{"role", "content"}``, the question last
``answer``          the run's outputs (required; a failed run's error is
                    named), read by `answer_from_outputs`: a known key
                    (``answer``, ``output``, ``response``, ``result``,
                    ``text``, ``generation``, ``content``); else
                    ``structured_response`` (an agent with a
                    ``response_format``) as JSON; else the final AI
                    message of ``messages``; else outputs that are a
                    message's own fields (a target that returned a
                    message); else the one other value; else every other
                    value, as JSON (a pydantic model or a ``TypedDict``).
                    Wherever the answer is a list of messages, it is the
                    final AI message, and the messages before it are the
                    conversation (and give the question) when the inputs
                    give none
``expected``        the example's outputs: ``answer``, ``output``,
                    ``response``, ``expected`` or ``reference``; else the
                    final AI message of ``messages``; else the one value of a
                    one-key mapping; else the whole mapping
``context``         the run's outputs ``context``, ``documents`` or
                    ``source_documents``
                    (``Document`` objects, mappings or strings); else the
                    documents of the run's retriever child runs
``tool_calls``      the run's tool child runs; else the AI messages' tool
                    calls in the outputs' ``messages``, paired with the tool
                    messages that answered them
==================  ==========================================================
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    convert_to_messages,
    messages_from_dict,
)
from langsmith.schemas import Example, RunBase

from langchain_jev._conversation import input_from_messages, message_text
from langchain_jev._errors import JevInputError
from langchain_jev._input import (
    ANSWER_FIELD,
    CONTEXT_FIELD,
    EXPECTED_FIELD,
    FIELD_ALIASES,
    QUESTION_FIELD,
    JevJudgeInput,
    ToolCall,
)

__all__ = [
    "ANSWER_KEYS",
    "CONTEXT_KEYS",
    "CONVERSATION_FIELD",
    "EXPECTED_KEYS",
    "MESSAGES_KEY",
    "QUESTION_KEYS",
    "STRUCTURED_KEY",
    "answer_from_outputs",
    "context_from_outputs",
    "conversation_from_inputs",
    "documents_text",
    "expected_from_reference",
    "judge_input_from_run",
    "question_from_inputs",
    "retrieved_context",
    "tool_calls_from_run",
    "unwrap_inputs",
]

QUESTION_KEYS: tuple[str, ...] = FIELD_ALIASES[QUESTION_FIELD]
"""Input keys read as the question, in order (`FIELD_ALIASES`)."""
ANSWER_KEYS: tuple[str, ...] = FIELD_ALIASES[ANSWER_FIELD]
"""Output keys read as the answer, in order (`FIELD_ALIASES`): what chains, graphs and functions name it."""
EXPECTED_KEYS: tuple[str, ...] = (*ANSWER_KEYS, *FIELD_ALIASES[EXPECTED_FIELD])
"""Reference-output keys read as the expected output, in order: a reference's answer is the expected one."""
CONTEXT_KEYS: tuple[str, ...] = FIELD_ALIASES[CONTEXT_FIELD]
"""Output keys read as the retrieved documents, in order."""
MESSAGES_KEY = "messages"
"""The key of a conversation in inputs or outputs."""
STRUCTURED_KEY = "structured_response"
"""The output key of an agent's structured answer (``create_agent(..., response_format=...)``)."""
CONVERSATION_FIELD = "conversation"
"""The judge-input field holding the conversation a question was asked in."""
RUNNABLE_INPUT_KEY = "input"
"""The key under which a Runnable target's run records the example's inputs."""
_ROLES = {"human": "user", "ai": "assistant"}


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
    reply = _reply(outputs)
    if reply is None:
        raise JevInputError(_no_answer(run, outputs))
    asked = _asked(run.inputs or {})
    if asked is None and example is not None:
        asked = _asked(example.inputs or {})
    if asked is None or asked[1] is None:
        told = _from_conversation(reply.asked) if reply.asked else None
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
        calls = _tool_calls_of(reply.messages)
    fields = {CONVERSATION_FIELD: conversation} if conversation else None
    answer = reply.answer
    return JevJudgeInput(
        question, answer, expected=expected, context=context, tool_calls=calls, fields=fields
    )


def unwrap_inputs(inputs: Mapping[str, Any]) -> Mapping[str, Any]:
    """The example inputs inside a run's inputs: wrappers that tracing added are opened.

    LangSmith records a Runnable target (a compiled graph, ``graph.invoke``, an LCEL
    chain, an agent) as ``{"input": <example inputs>, "config": ..., ...}``, and a
    function target under the name of its one argument: ``{"x": <example inputs>}``.
    Both are opened (a few levels at most); anything else is returned as it is.

    Example:
        >>> unwrap_inputs({"input": {"question": "Capital of France?"}, "config": None})
        {'question': 'Capital of France?'}
        >>> unwrap_inputs({"x": {"question": "Capital of France?"}})
        {'question': 'Capital of France?'}
        >>> unwrap_inputs({"question": "Capital of France?"})
        {'question': 'Capital of France?'}

    """
    for _ in range(4):
        wrapped = inputs.get(RUNNABLE_INPUT_KEY)
        others = {*QUESTION_KEYS, MESSAGES_KEY} - {RUNNABLE_INPUT_KEY}
        if not (isinstance(wrapped, Mapping) and not any(inputs.get(k) is not None for k in others)):
            wrapped = next(iter(inputs.values())) if len(inputs) == 1 else None
        if not isinstance(wrapped, Mapping) or _message(wrapped) is not None:
            return inputs
        inputs = wrapped
    return inputs


def question_from_inputs(inputs: Mapping[str, Any]) -> str | None:
    """The question of run or example inputs: a `QUESTION_KEYS` value, else the last human message.

    The inputs are opened first (`unwrap_inputs`). A conversation is read under
    ``messages``, or under a question key that holds a list of messages.

    Example:
        >>> question_from_inputs({"query": "Why is the sky blue?"})
        'Why is the sky blue?'
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> question_from_inputs({"messages": [HumanMessage("Hi"), AIMessage("Hello"),
        ...                                    HumanMessage("How are you?")]})
        'How are you?'
        >>> question_from_inputs({"input": {"question": "Capital of France?"}, "config": None})
        'Capital of France?'

    """
    asked = _asked(inputs)
    return None if asked is None else asked[0]


def conversation_from_inputs(inputs: Mapping[str, Any]) -> list[dict[str, str]] | None:
    """The conversation the question was asked in, when it has more than the question.

    Every message as ``{"role": "user" | "assistant" | "system" | "tool", "content": text}``,
    in order, the question last; None when the question is not read from a
    conversation, or the conversation is the question alone.

    Example:
        >>> conversation_from_inputs({"messages": [
        ...     {"role": "user", "content": "I am planning a trip."},
        ...     {"role": "assistant", "content": "Where to?"},
        ...     {"role": "user", "content": "Paris. Is it safe?"}]})[1]
        {'role': 'assistant', 'content': 'Where to?'}
        >>> conversation_from_inputs({"question": "Is Paris safe?"}) is None
        True

    """
    asked = _asked(inputs)
    return None if asked is None else asked[1]


def answer_from_outputs(outputs: Mapping[str, Any]) -> str | None:
    """The answer of run outputs, whatever the shape of what the target returned; None when there is none.

    In order: outputs that are a message's own fields (LangSmith records a target
    that returned a message so) give its text; an `ANSWER_KEYS` value; an agent's
    ``structured_response`` (an agent built with a ``response_format``, whose last
    AI message is the call of the structured-output tool), as JSON; the final AI
    message of ``messages``; else the one value beside the documents; else those
    values together, as JSON (LangSmith records a pydantic model or a dataclass
    returned as a mapping so as its fields). A value that is a list of messages
    gives its final AI message: the last one without tool calls after the last
    human message. Messages, documents and other values are read as text.

    Outputs that name an answer key, ``messages`` or ``structured_response`` but
    give nothing under it have no answer.

    Example:
        >>> answer_from_outputs({"output": "Rayleigh scattering."})
        'Rayleigh scattering.'
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> answer_from_outputs({"output": AIMessage("Hello!")})
        'Hello!'
        >>> answer_from_outputs({"output": [HumanMessage("Hi"), AIMessage("Hello!")]})
        'Hello!'
        >>> answer_from_outputs({"content": "Hello!", "type": "ai", "tool_calls": []})
        'Hello!'
        >>> answer_from_outputs({"messages": [{"role": "user", "content": "Hi"},
        ...                                   {"role": "assistant", "content": "Hello!"}]})
        'Hello!'
        >>> answer_from_outputs({"messages": [], "structured_response": {"city": "Paris"}})
        '{"city": "Paris"}'
        >>> answer_from_outputs({"label": "positive"})
        'positive'
        >>> answer_from_outputs({"city": "Paris", "country": "France"})
        '{"city": "Paris", "country": "France"}'

    """
    reply = _reply(outputs)
    return None if reply is None else reply.answer


def expected_from_reference(reference: Mapping[str, Any] | None) -> Any:
    """The expected output of an example's reference outputs, or None when there are none.

    A message's own fields (a message recorded as the reference) give its text; an
    `EXPECTED_KEYS` value (a list of messages gives its final AI message); else the
    final AI message of a conversation under ``messages``; else the single value of
    a one-key mapping; else the whole mapping. Messages and documents become text;
    the rest stays as it is (any JSON value).

    Example:
        >>> expected_from_reference({"answer": "Paris"})
        'Paris'
        >>> expected_from_reference({"label": "positive"})
        'positive'
        >>> expected_from_reference({"city": "Paris", "country": "France"})
        {'city': 'Paris', 'country': 'France'}
        >>> expected_from_reference({"messages": [{"role": "user", "content": "Capital?"},
        ...                                       {"role": "assistant", "content": "Paris"}]})
        'Paris'

    """
    if not reference:
        return None
    message = _message(reference)
    if message is not None:
        return message_text(message)
    key = _first_key(reference, EXPECTED_KEYS)
    if key is not None:
        return _expected_value(reference[key])
    messages = _messages(reference.get(MESSAGES_KEY))
    if messages:
        final = input_from_messages(messages).answer
        if final is not None:
            return final
    if len(reference) == 1:
        return _expected_value(next(iter(reference.values())))
    return _plain(dict(reference))


def _expected_value(value: Any) -> Any:
    """A reference value: a list of messages gives its final AI message; anything else as `_plain`."""
    listed = isinstance(value, Sequence) and not isinstance(value, (str, bytes))
    reply = _value_reply(value) if listed else None
    if reply is not None and reply.messages:
        return reply.answer
    return _plain(value)


def context_from_outputs(outputs: Mapping[str, Any]) -> list[str] | None:
    """The documents in run outputs under `CONTEXT_KEYS`, as text; None when there is no such key.

    Raises:
        JevInputError: a document is neither a ``Document``, a mapping with its text,
            nor a string (the message names the key and the position).

    Example:
        >>> from langchain_core.documents import Document
        >>> context_from_outputs({"documents": [Document("Paris is in France."), "It is big."]})
        ['Paris is in France.', 'It is big.']

    """
    key = _first_key(outputs, CONTEXT_KEYS)
    if key is None:
        return None
    return documents_text(outputs[key], where=f"outputs[{key!r}]")


def documents_text(value: Any, *, where: str = "documents") -> list[str]:
    """Read retrieved documents as text: one entry per document.

    Accepts a string, a ``Document``, a mapping with ``page_content`` (also the
    serialized ``{"lc": 1, "kwargs": {"page_content": ...}}`` form), ``content``
    or ``text``, or a list of these.

    Raises:
        JevInputError: an entry cannot be read as text; ``where`` names it.

    Example:
        >>> documents_text([{"page_content": "a", "metadata": {}}, {"text": "b"}])
        ['a', 'b']

    """
    items = [value] if isinstance(value, (str, Mapping)) or _is_document(value) else value
    if not isinstance(items, Sequence):
        raise JevInputError(
            f"{where} must be a list of documents, a document or a string, got {type(value).__name__}"
        )
    texts: list[str] = []
    for index, item in enumerate(items):
        text = _document_text(item)
        if text is None:
            raise JevInputError(
                f"{where}[{index}] is a {type(item).__name__}: expected a Document, a mapping "
                "with 'page_content', 'content' or 'text', or a string"
            )
        texts.append(text)
    return texts


def retrieved_context(run: RunBase) -> list[str]:
    """The documents returned by the retriever runs under ``run``, in the order they ran.

    Example:
        >>> import uuid
        >>> from langsmith.run_trees import RunTree
        >>> root = RunTree(name="rag", run_type="chain", inputs={"question": "q"})
        >>> retriever = root.create_child(name="search", run_type="retriever", inputs={"query": "q"})
        >>> retriever.end(outputs={"documents": [{"page_content": "Paris is in France."}]})
        >>> retrieved_context(root)
        ['Paris is in France.']

    """
    texts: list[str] = []
    for child in _descendants(run, stop_at=("retriever",)):
        if child.run_type == "retriever":
            documents = (child.outputs or {}).get("documents")
            if documents is not None:
                texts.extend(documents_text(documents, where=f"retriever run {child.name!r}"))
    return texts


def tool_calls_from_run(run: RunBase) -> list[ToolCall]:
    """The tool runs under ``run``, as tool calls: name, inputs as arguments, output as result.

    A tool run that failed has ``{"error": ...}`` as its result.

    Example:
        >>> from langsmith.run_trees import RunTree
        >>> root = RunTree(name="agent", run_type="chain", inputs={"question": "q"})
        >>> tool = root.create_child(name="search", run_type="tool", inputs={"q": "Dublin"})
        >>> tool.end(outputs={"output": "Rain, 12C"})
        >>> tool_calls_from_run(root)[0].to_dict()
        {'name': 'search', 'arguments': {'q': 'Dublin'}, 'result': 'Rain, 12C'}

    """
    calls: list[ToolCall] = []
    for child in _descendants(run, stop_at=("tool",)):
        if child.run_type != "tool":
            continue
        outputs = child.outputs or {}
        result: Any = outputs.get("output", outputs) if outputs else None
        if result is None and child.error:
            result = {"error": child.error}
        calls.append(ToolCall(child.name, _plain(dict(child.inputs or {})), _plain(result)))
    return calls


# ---------------------------------------------------------------------- helpers


def _first_key(mapping: Mapping[str, Any], keys: Sequence[str]) -> str | None:
    """The first of ``keys`` that ``mapping`` holds a value (not None) under."""
    return next((key for key in keys if mapping.get(key) is not None), None)


@dataclasses.dataclass(frozen=True)
class _Reply:
    """The answer read from outputs, and the conversation it closes when it came from messages."""

    answer: str
    messages: Sequence[BaseMessage] = ()
    """The messages the answer was read from (their tool calls are the turn's)."""
    asked: Sequence[BaseMessage] = ()
    """The messages before the answer, up to the last human message (the question)."""


def _reply(outputs: Mapping[str, Any]) -> _Reply | None:
    """Where `answer_from_outputs` finds the answer."""
    message = _message(outputs)
    if message is not None:
        return _Reply(message_text(message), [message])
    key = _first_key(outputs, ANSWER_KEYS)
    if key is not None:
        return _value_reply(outputs[key])
    if outputs.get(STRUCTURED_KEY) is not None:
        return _Reply(_text(outputs[STRUCTURED_KEY]))
    messages = _messages(outputs.get(MESSAGES_KEY))
    if messages:
        return _messages_reply(messages)
    if any(name in outputs for name in (*ANSWER_KEYS, STRUCTURED_KEY, MESSAGES_KEY)):
        return None  # the answer's own key is there, empty: nothing else stands in for it
    rest = {k: v for k, v in outputs.items() if k not in CONTEXT_KEYS and v is not None}
    if not rest:
        return None
    if len(rest) == 1:
        return _value_reply(next(iter(rest.values())))
    return _Reply(_text(rest))


def _value_reply(value: Any) -> _Reply | None:
    """An output value as the answer: a list of messages gives its final AI message."""
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) and value:
        messages = [_message(item) for item in value]
        if all(m is not None for m in messages):
            return _messages_reply([m for m in messages if m is not None])
    return _Reply(_text(value))


def _messages_reply(messages: Sequence[BaseMessage]) -> _Reply | None:
    """The final AI message of a conversation (the last without tool calls after the last human one)."""
    last_human = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    for index in range(len(messages) - 1, last_human, -1):
        message = messages[index]
        if isinstance(message, AIMessage) and not message.tool_calls:
            return _Reply(message_text(message), messages, messages[: last_human + 1])
    return None


def _asked(inputs: Mapping[str, Any]) -> tuple[str, list[dict[str, str]] | None] | None:
    """The question of inputs and the conversation it was asked in (see `question_from_inputs`)."""
    inputs = unwrap_inputs(inputs)
    key = _first_key(inputs, QUESTION_KEYS)
    if key is not None:
        messages = _messages(inputs[key])
        return _from_conversation(messages) if messages else (_text(inputs[key]), None)
    messages = _messages(inputs.get(MESSAGES_KEY))
    if messages:
        return _from_conversation(messages)
    return None


def _from_conversation(messages: Sequence[BaseMessage]) -> tuple[str, list[dict[str, str]] | None] | None:
    """The last human message, and the whole conversation when it holds more than that."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            if len(messages) == 1:
                return message_text(message), None
            turns = [{"role": _ROLES.get(m.type, m.type), "content": message_text(m)} for m in messages]
            return message_text(message), turns
    return None


def _tool_calls_of(messages: Sequence[BaseMessage]) -> list[ToolCall]:
    """The tool calls of the conversation's last turn, paired with their results, as plain data."""
    calls = input_from_messages(messages).tool_calls
    return [ToolCall(c.name, _plain(c.arguments), _plain(c.result)) for c in calls]


def _descendants(run: RunBase, *, stop_at: tuple[str, ...]) -> Iterator[RunBase]:
    """Every run below ``run``, depth first in order; the children of ``stop_at`` types are skipped."""
    for child in getattr(run, "child_runs", None) or ():
        yield child
        if child.run_type not in stop_at:
            yield from _descendants(child, stop_at=stop_at)


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


def _messages(value: Any) -> list[BaseMessage]:
    """Read a conversation: messages or message dicts; a list of lists gives its last list."""
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)) or not value:
        return []
    if all(isinstance(item, Sequence) and not isinstance(item, (str, tuple)) for item in value):
        value = value[-1]
    messages: list[BaseMessage] = []
    for item in value:
        message = _message(item)
        if message is not None:
            messages.append(message)
    return messages


def _message(value: Any) -> BaseMessage | None:
    if isinstance(value, BaseMessage):
        return value
    if not isinstance(value, Mapping):
        return None
    try:
        if "data" in value and "type" in value and "content" not in value:
            return messages_from_dict([dict(value)])[0]
        if value.get("lc") == 1 or (("role" in value or "type" in value) and "content" in value):
            return convert_to_messages([dict(value)])[0]
    except (ValueError, TypeError, KeyError, NotImplementedError):
        return None
    return None


def _is_document(value: Any) -> bool:
    return hasattr(value, "page_content") and isinstance(value.page_content, str)


def _document_text(item: Any) -> str | None:
    if isinstance(item, str):
        return item
    if _is_document(item):
        return str(item.page_content)
    if isinstance(item, Mapping):
        kwargs = item.get("kwargs")
        if item.get("lc") == 1 and isinstance(kwargs, Mapping):
            item = kwargs
        for key in ("page_content", "content", "text"):
            if isinstance(item.get(key), str):
                return str(item[key])
    return None


def _text(value: Any) -> str:
    """Any output value as the text a judge reads."""
    if isinstance(value, str):
        return str(value)
    message = _message(value) if isinstance(value, Mapping) else value
    if isinstance(message, BaseMessage):
        return message_text(message)
    if _is_document(value):
        return str(value.page_content)
    plain = _plain(value)
    if isinstance(plain, str):
        return plain
    return json.dumps(plain, ensure_ascii=False, sort_keys=True)


def _plain(value: Any) -> Any:
    """A JSON-ready copy: messages and documents become text, unknown objects ``str``."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, BaseMessage):
        return message_text(value)
    if _is_document(value):
        return str(value.page_content)
    if isinstance(value, Mapping):
        if value.get("lc") == 1:
            message = _message(value)
            if message is not None:
                return message_text(message)
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if callable(getattr(value, "model_dump", None)) and not isinstance(value, type):
        return _plain(value.model_dump(mode="json"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain(dataclasses.asdict(value))
    return str(value)
