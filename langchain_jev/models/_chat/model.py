"""Any LangChain chat model as a decision model."""

from __future__ import annotations

import asyncio
import copy
import json
import threading
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from langchain_core.decisions import (
    Answer,
    BaseDecisionModel,
    Choice,
    ClassifierResponse,
    Noul,
    Question,
    Score,
    State,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.messages.ai import UsageMetadata, add_usage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import ContextThreadPoolExecutor, ensure_config
from pydantic import ConfigDict, Field, PrivateAttr

from langchain_jev._conversation import message_text
from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev.models import _unique_json as unique_json
from langchain_jev.models._chat.errors import ChatModelOutputError, LogprobsUnavailableError
from langchain_jev.models._chat.loading import chat_model_name, chat_model_provider, load_chat_model
from langchain_jev.models._chat.logprobs import answer_from_positions, token_positions, unfit_reason
from langchain_jev.models._chat.parse import Reading, merge, read_payload, read_text
from langchain_jev.models._chat.prompt import (
    DEFAULT_SYSTEM_MESSAGE,
    Part,
    correction_text,
    data_parts,
    logprobs_response_text,
    message_content,
    rubric_parts,
    structured_response_text,
    truncate,
    user_parts,
)
from langchain_jev.models._chat.schema import SCHEMA_TITLE, response_schema
from langchain_jev.models._response import DecisionResponse
from langchain_jev.models._secrets import install_log_filter, redact_error, remember_settings

__all__ = ["STRATEGIES", "ChatModelDecisionModel", "Strategy"]

Strategy = Literal["auto", "structured", "logprobs", "per_question"]
"""How a `ChatModelDecisionModel` gets its answers."""
STRATEGIES: tuple[str, ...] = get_args(Strategy)
"""The strategy names, in the order of the documentation."""


@dataclass(frozen=True)
class _Call:
    """One request to the chat model."""

    messages: tuple[BaseMessage, ...]
    schema: dict[str, Any] | None = None
    """Sent through the model's structured output when set."""
    logprobs: bool = False
    target: Any = None
    """Where a structured call goes and how its reply is read (a `_Rubric`'s), when known."""


@dataclass(frozen=True)
class _Reply:
    """What came back for one request."""

    message: AIMessage
    parsed: Any = None
    """The structured output as the model's parser read it, or None (read the text)."""


_RUBRICS = 256
"""Question sets whose rubric a model keeps."""

_Outcome = _Reply | Exception
_Step = list[_Call] | Future[bool | None]
"""What a procedure asks of its driver: run these calls, or wait for another call's probe."""
_Procedure = Generator[_Step, list[_Outcome], DecisionResponse]


@dataclass
class _Tally:
    """The replies of one classification, for usage and the model name."""

    messages: list[AIMessage] = field(default_factory=list)
    fell_back: bool = False

    def add(self, outcomes: Sequence[_Outcome]) -> None:
        self.messages.extend(o.message for o in outcomes if isinstance(o, _Reply))

    def usage(self) -> UsageMetadata | None:
        total: UsageMetadata | None = None
        for message in self.messages:
            if message.usage_metadata is not None:
                total = add_usage(total, message.usage_metadata)
        return total

    def model(self, default: str) -> str:
        for message in self.messages:
            name = message.response_metadata.get("model_name")
            if isinstance(name, str) and name:
                return name
        return default


def _value(outcome: _Outcome) -> _Reply:
    if isinstance(outcome, Exception):
        raise outcome
    return outcome


def _as_ai(message: Any) -> AIMessage:
    if isinstance(message, AIMessage):
        return message
    if isinstance(message, BaseMessage):
        return AIMessage(content=message.content, response_metadata=message.response_metadata)
    return AIMessage(content=str(message))


def _advance(procedure: _Procedure, outcomes: list[_Outcome] | None) -> _Step | DecisionResponse:
    """Send the outcomes of the last batch (None to start); the next batch, or the response."""
    try:
        return procedure.send(outcomes)  # type: ignore[arg-type]
    except StopIteration as stop:
        response: DecisionResponse = stop.value
        return response


def _message_reply(output: Any) -> _Reply:
    """Read what a plain (or logprobs-bound) chat model call returned."""
    return _Reply(_as_ai(output))


def _structured_reply(output: Any) -> _Reply:
    """Read what ``with_structured_output(..., include_raw=True)`` returned."""
    if isinstance(output, BaseMessage):
        return _Reply(_as_ai(output))
    if isinstance(output, Mapping) and "raw" in output:
        return _Reply(_as_ai(output["raw"]), output.get("parsed"))
    return _Reply(AIMessage(content=json.dumps(output, default=str)), output)


def _native_reply(output: Any) -> _Reply:
    """Read what the model bound for structured output returned: its tool call's arguments, else its text."""
    message = _as_ai(output)
    calls = message.tool_calls
    if calls:
        named = [call for call in calls if call.get("name") == SCHEMA_TITLE]
        return _Reply(message, (named or calls)[0].get("args"))
    return _Reply(message)


def _bound_model(structured: Runnable[Any, Any]) -> Runnable[Any, Any] | None:
    """The chat model as ``with_structured_output(..., include_raw=True)`` binds it, or None.

    LangChain's chat models return ``RunnableMap(raw=bound_model) | parsers``; calling the
    bound model alone sends the same request, and the reply is read here, without the
    parsers' steps (which an async call would run in threads).
    """
    steps = getattr(getattr(structured, "first", None), "steps__", None)
    bound = steps.get("raw") if isinstance(steps, Mapping) and len(steps) == 1 else None
    return bound if isinstance(bound, Runnable) else None


@dataclass(frozen=True)
class _Rubric:
    """What depends only on a set of questions: worked out once per set (see `_rubric`)."""

    questions: tuple[tuple[str, Question, dict[str, Any]], ...]
    """Each question with a deep copy of its fields, to see a question edited in place."""
    chat_model: BaseChatModel
    """The chat model the target was bound from."""
    schema: dict[str, Any]
    parts: list[Part]
    """The ``<questions>`` and ``<response>`` sections of the user message."""
    target: Runnable[Any, Any] | None
    """Where structured calls go (None: the schema is quoted in the prompt)."""
    read: Callable[[Any], _Reply]

    def fits(self, questions: Mapping[str, Question], chat_model: BaseChatModel) -> bool:
        mine = self.questions
        if len(mine) != len(questions) or chat_model is not self.chat_model:
            return False
        for (name, question, fields), (other_name, other) in zip(mine, questions.items(), strict=True):
            if name != other_name or question is not other or fields != other.__dict__:
                return False
        return True


def _raw_text(message: AIMessage) -> str:
    """The reply as text: its text, else its tool-call arguments as sent (or as JSON, once parsed)."""
    text = message_text(message)
    if text.strip():
        return text
    if message.tool_calls:
        sent = next(_sent_arguments(message), None)
        parsed = message.tool_calls[0].get("args", {})
        return sent if sent is not None else json.dumps(parsed, ensure_ascii=False)
    if message.invalid_tool_calls:
        return str(message.invalid_tool_calls[0].get("args") or "")
    return text


def _sent_arguments(message: AIMessage) -> Iterator[str]:
    """The tool-call arguments as the model wrote them (OpenAI's wire form keeps them as JSON text)."""
    calls = message.additional_kwargs.get("tool_calls")
    for call in calls if isinstance(calls, list) else ():
        function = call.get("function") if isinstance(call, Mapping) else None
        arguments = function.get("arguments") if isinstance(function, Mapping) else None
        if isinstance(arguments, str):
            yield arguments


def _as_written(message: AIMessage, parsed: Any) -> Any:
    """A structured reply read from the JSON text it was parsed from, by the one rule of `unique_json`.

    A provider's parser keeps the last of a key given twice; where the reply's JSON
    text is at hand (its tool-call arguments as sent, or its text), the text that
    parses to ``parsed`` is read again so that an answer given twice is seen as
    ambiguous, never picked. Elsewhere ``parsed`` is what there is.
    """
    texts = [*_sent_arguments(message), message_text(message)]
    for text in texts:
        if not text.strip():
            continue
        try:
            if json.loads(text) != parsed:
                continue
            return unique_json.loads(text)[0]
        except (ValueError, RecursionError):
            continue
    return parsed


def _read(reply: _Reply, questions: Mapping[str, Question]) -> Reading:
    if reply.parsed is not None:
        return read_payload(_as_written(reply.message, reply.parsed), questions)
    return read_text(_raw_text(reply.message), questions)


def _check_questions(questions: Mapping[str, Question]) -> None:
    if not questions:
        raise JevInputError("a request needs at least one question")
    for name, question in questions.items():
        if not isinstance(question, (Noul, Choice, Score)):
            kind = getattr(question, "type", type(question).__name__)
            raise JevConfigurationError(
                f"question {name!r}: ChatModelDecisionModel answers noul, choice and score "
                f"questions, not {kind}"
            )


def _positive_int(options: Mapping[str, Any], name: str, minimum: int) -> None:
    value = options.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < minimum):
        raise JevConfigurationError(f"{name} must be an integer >= {minimum}, got {value!r}")


def _check_options(options: Mapping[str, Any]) -> None:
    strategy = options.get("strategy", "auto")
    if strategy not in STRATEGIES:
        listed = ", ".join(repr(s) for s in STRATEGIES)
        raise JevConfigurationError(f"strategy must be one of {listed}; got {strategy!r}")
    message = options.get("system_message")
    if message is not None and (not isinstance(message, str) or not message.strip()):
        raise JevConfigurationError(
            f"system_message must be a non-empty string, or None for the default; got {message!r}"
        )
    _positive_int(options, "top_logprobs", 1)
    _positive_int(options, "max_concurrency", 1)
    _positive_int(options, "raw_output_limit", 0)


class ChatModelDecisionModel(BaseDecisionModel):
    """Answer `Noul`, `Choice` and `Score` questions with any LangChain chat model.

    It returns the typed answers Jev gives (``NoulAnswer.noul``, ``ChoiceAnswer``
    with ``choice``/``probabilities``/``confidence``, ``ScoreAnswer`` with
    ``score``/``legend``/``probabilities``/``confidence``) in a `DecisionResponse`,
    so every judge of this package runs on it unchanged: swap one object.

    Args:
        chat_model: a ``BaseChatModel``, or a ``"provider:model"`` string resolved by
            ``langchain.chat_models.init_chat_model`` (needs the ``chat`` extra).
        strategy: how answers are obtained (default ``"auto"``):

            - ``"structured"``: ONE request answers every question, through a JSON
              schema built for exactly these questions (one flat object: per question a
              short reasoning, ``<name>_reasoning``, then under its name the probability
              of yes, or one per label or level), sent through the
              model's structured output, or quoted in the prompt when the model has
              none (the JSON is then read from the reply's text). Probabilities are
              validated and renormalised. A reply that does not parse or validate gets
              one corrective retry telling the model what was wrong; if the reply still
              cannot be read, `ChatModelOutputError` says why and shows the truncated
              raw output. A reply that skips questions keeps the answers it has; an
              answer still invalid after the retry goes to ``response.unreadable``. The
              judge reports both as ERROR findings.
            - ``"logprobs"``: one request per question, run concurrently, asked as a
              single label token (yes/no, a letter per label, a digit per level); the
              probabilities are the softmax over the label tokens among the top token
              alternatives (``top_logprobs``), summing a label's variants (``" B"``,
              ``"B"``). A reply without log-probabilities raises
              `LogprobsUnavailableError`: numbers are never invented.
            - ``"per_question"``: ``"structured"`` with one request per question, run
              concurrently, so questions cannot influence each other.
            - ``"auto"``: ``"logprobs"`` when the model returns log-probabilities (tried
              once per instance on the first question, then remembered), ``"structured"``
              otherwise, and for questions that do not fit a single token (a choice of
              more than 26 labels, a score of more than 10 levels).

            ``response.strategy`` says which strategy answered.
        system_message: replaces the default system message (`DEFAULT_SYSTEM_MESSAGE`);
            the user message keeps its layout.
        top_logprobs: alternatives requested per token for ``"logprobs"`` (OpenAI allows 20).
        max_concurrency: most requests in flight at once for per-question strategies.
        logprobs_kwargs: extra keyword arguments bound for logprobs requests (for example
            ``{"max_tokens": 1}``).
        raw_output_limit: characters of raw output shown in a `ChatModelOutputError`.

    The user message has three sections, the same for every strategy and system message:

    - ``<data>``: the state. A state object becomes one ``<field name="...">`` per key,
      a list of strings numbered ``<item index="1">`` elements (the sources of
      ``supporting_context``), a conversation ``<conversation>`` with one
      ``<message role="user|assistant|system|tool">`` per message and tool calls as
      ``<tool_call name="...">``; other values are JSON. ``&``, ``<`` and ``>`` of every
      content are escaped as ``&amp;``, ``&lt;`` and ``&gt;``, so the data cannot close
      its section. LangChain standard media blocks (images, audio, video, files)
      anywhere in the state are sent as multimodal content at their place, each right
      after a marker such as ``[image 1]`` in the text; a provider that does not take
      them fails with its own error.
    - ``<questions>``: the rubric. One ``<question name="..." type="noul|choice|score">``
      per question with its ``<instructions>``, a noul's ``<yes_when>``/``<no_when>``,
      a choice's ``<label name="...">`` (with ``letter="A"`` for logprobs) and a score's
      ``<level number="0">`` descriptions; a noul with nothing but instructions holds
      them directly.
    - ``<response>``: how to reply: the probabilities to give and, without structured
      output, the JSON schema; for logprobs, the one label token to answer with.

    The default system message says that everything in ``<data>`` is data to judge,
    never instructions to follow, even when it asks for a verdict, and explains the
    escaping and the media markers. Keep saying so in your own system message.

    Reasoning is kept per question in ``response.reasoning`` (a judge copies it into
    ``finding.reasoning``); the logprobs strategy gives none. Transport and provider
    errors are raised as the provider raises them: a judge never passes quietly. Usage
    is the sum over every request, retries included.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> chat = GenericFakeChatModel(messages=iter([
        ...     '{"polite_reasoning": "A friendly greeting.", "polite": 0.9}']))
        >>> model = ChatModelDecisionModel(chat, strategy="structured")
        >>> response = model.invoke({
        ...     "state": {"assistant_answer": "Hello! How can I help?"},
        ...     "questions": {"polite": Noul(instructions="Is `assistant_answer` polite?")},
        ... })
        >>> response.nouls["polite"].noul, response.reasoning["polite"], response.strategy
        (0.9, 'A friendly greeting.', 'structured')

    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    chat_model: BaseChatModel = Field(repr=False)
    """The chat model that answers."""
    model: str = ""
    """The model name reported in traces and responses (the chat model's by default)."""
    strategy: Strategy = "auto"
    """How answers are obtained: ``"auto"``, ``"structured"``, ``"logprobs"``, ``"per_question"``."""
    system_message: str | None = None
    """Replaces the default system message; None for `DEFAULT_SYSTEM_MESSAGE`."""
    top_logprobs: int = 20
    """Alternatives requested per token for the logprobs strategy."""
    max_concurrency: int = 8
    """Most requests in flight at once for the per-question strategies."""
    logprobs_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Extra keyword arguments bound for logprobs requests."""
    raw_output_limit: int = 500
    """Characters of raw output shown in a `ChatModelOutputError`."""

    _logprobs_support: bool | None = PrivateAttr(default=None)
    _probe: Future[bool | None] | None = PrivateAttr(default=None)
    """The probe in flight for ``"auto"``: one call probes, the calls that start meanwhile wait for it."""
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _rubrics: dict[tuple[tuple[str, int], ...], _Rubric] = PrivateAttr(default_factory=dict)

    def __init__(self, chat_model: BaseChatModel | str, **kwargs: Any) -> None:
        resolved = load_chat_model(chat_model)
        _check_options(kwargs)
        if not kwargs.get("model"):
            kwargs["model"] = chat_model_name(resolved)
        super().__init__(chat_model=resolved, **kwargs)
        remember_settings(resolved)  # its key (api_key=, a header...) is redacted wherever the package writes
        install_log_filter()  # a provider's log lines never carry a known key

    @property
    def _provider(self) -> str:
        return chat_model_provider(self.chat_model)

    # ------------------------------------------------------------------ the drivers (I/O)

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        config = ensure_config()
        procedure = self._procedure(state, questions)
        try:
            step = _advance(procedure, None)
            while not isinstance(step, DecisionResponse):
                if isinstance(step, Future):
                    step.result()  # another call is probing for log-probabilities
                    step = _advance(procedure, [])
                else:
                    step = _advance(procedure, self._run_calls(step, config))
            return step
        except Exception as error:  # the provider's error may hold an echoed key (body, headers)
            failure = redact_error(error)
        finally:
            procedure.close()  # an interrupted call gives up its probe at once
        raise failure  # outside the handler: no unredacted error rides along as its context

    async def _aclassify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        config = ensure_config()
        procedure = self._procedure(state, questions)
        try:
            step = _advance(procedure, None)
            while not isinstance(step, DecisionResponse):
                if isinstance(step, Future):
                    # another call is probing for log-probabilities; leaving early must not cancel it
                    await asyncio.shield(asyncio.wrap_future(step))
                    step = _advance(procedure, [])
                else:
                    step = _advance(procedure, await self._arun_calls(step, config))
            return step
        except Exception as error:  # the provider's error may hold an echoed key (body, headers)
            failure = redact_error(error)
        finally:
            procedure.close()  # a cancelled call gives up its probe at once
        raise failure  # outside the handler: no unredacted error rides along as its context

    def _run_calls(self, calls: Sequence[_Call], config: RunnableConfig) -> list[_Outcome]:
        def run(call: _Call) -> _Outcome:
            try:
                return self._run_call(call, config)
            except Exception as error:  # handed to the procedure, which raises it
                return error

        if len(calls) == 1:
            return [run(calls[0])]
        with ContextThreadPoolExecutor(max_workers=min(len(calls), self.max_concurrency)) as pool:
            return list(pool.map(run, calls))

    async def _arun_calls(self, calls: Sequence[_Call], config: RunnableConfig) -> list[_Outcome]:
        gate = asyncio.Semaphore(self.max_concurrency)

        async def run(call: _Call) -> _Outcome:
            async with gate:
                try:
                    return await self._arun_call(call, config)
                except Exception as error:  # handed to the procedure, which raises it
                    return error

        return list(await asyncio.gather(*(run(call) for call in calls)))

    def _run_call(self, call: _Call, config: RunnableConfig) -> _Reply:
        runnable, read = self._target(call)
        return read(runnable.invoke(list(call.messages), config))

    async def _arun_call(self, call: _Call, config: RunnableConfig) -> _Reply:
        runnable, read = self._target(call)
        return read(await runnable.ainvoke(list(call.messages), config))

    def _target(self, call: _Call) -> tuple[Runnable[Any, Any], Callable[[Any], _Reply]]:
        """What a call is sent to, and how its output is read."""
        if call.target is not None:
            target: tuple[Runnable[Any, Any], Callable[[Any], _Reply]] = call.target
            return target
        if call.schema is not None:
            return self.chat_model.with_structured_output(call.schema, include_raw=True), _structured_reply
        if call.logprobs:
            return self._logprobs_model(), _message_reply
        return self.chat_model, _message_reply

    def _logprobs_model(self) -> Any:
        return self.chat_model.bind(logprobs=True, top_logprobs=self.top_logprobs, **self.logprobs_kwargs)

    # ------------------------------------------------------------------ the procedure

    def _procedure(self, state: State, questions: Mapping[str, Question]) -> _Procedure:
        """Everything but the requests: yields batches of calls, gets their outcomes back."""
        _check_questions(questions)
        tally = _Tally()
        strategy = self._choose(questions)
        if strategy in ("logprobs", "auto"):
            found = yield from self._by_logprobs(state, questions, tally, strategy == "auto")
            if found is not None:
                return found
        if strategy == "per_question":
            groups = [{name: question} for name, question in questions.items()]
        else:
            groups = [dict(questions)]
        label = "per_question" if strategy == "per_question" else "structured"
        response = yield from self._by_structure(state, questions, groups, tally, label)
        if tally.fell_back:
            with self._lock:
                self._logprobs_support = False
        return response

    def _choose(self, questions: Mapping[str, Question]) -> str:
        if self.strategy == "logprobs":
            for name, question in questions.items():
                reason = unfit_reason(question)
                if reason is not None:
                    raise JevConfigurationError(
                        f"question {name!r} cannot be asked with strategy='logprobs': {reason}; "
                        "use strategy='structured' or 'auto'"
                    )
        if self.strategy == "auto" and (
            self._logprobs_support is False
            or any(unfit_reason(question) is not None for question in questions.values())
        ):
            return "structured"
        return self.strategy

    def _system(self) -> SystemMessage:
        return SystemMessage(content=self.system_message or DEFAULT_SYSTEM_MESSAGE)

    def _logprobs_call(self, state: State, name: str, question: Question) -> _Call:
        parts = user_parts(state, {name: question}, logprobs_response_text(name, question), lettered=True)
        return _Call((self._system(), HumanMessage(content=message_content(parts))), logprobs=True)

    def _structured_call(self, state: State, questions: Mapping[str, Question]) -> _Call:
        rubric = self._rubric(questions)
        user = HumanMessage(content=message_content(data_parts(state) + rubric.parts))
        if rubric.target is None:  # the schema is quoted in the prompt
            return _Call((self._system(), user))
        return _Call((self._system(), user), rubric.schema, target=(rubric.target, rubric.read))

    def _rubric(self, questions: Mapping[str, Question]) -> _Rubric:
        """The schema, prompt sections and structured-output target of a question set, kept per set."""
        key = tuple((name, id(question)) for name, question in questions.items())
        rubric = self._rubrics.get(key)
        if rubric is not None and rubric.fits(questions, self.chat_model):
            return rubric
        schema = response_schema(questions)
        try:
            structured = self.chat_model.with_structured_output(schema, include_raw=True)
        except NotImplementedError:
            target, read = None, _structured_reply
        else:
            bound = _bound_model(structured)
            target, read = (structured, _structured_reply) if bound is None else (bound, _native_reply)
        quoted = None if target is not None else json.dumps(schema, ensure_ascii=False)
        rubric = _Rubric(
            tuple((name, q, copy.deepcopy(q.__dict__)) for name, q in questions.items()),
            self.chat_model,
            schema,
            rubric_parts(questions, structured_response_text(quoted, questions)),
            target,
            read,
        )
        with self._lock:
            if len(self._rubrics) >= _RUBRICS:
                self._rubrics.clear()
            self._rubrics[key] = rubric
        return rubric

    def _by_logprobs(
        self, state: State, questions: Mapping[str, Question], tally: _Tally, auto: bool
    ) -> Generator[_Step, list[_Outcome], DecisionResponse | None]:
        calls = {name: self._logprobs_call(state, name, q) for name, q in questions.items()}
        names = list(calls)
        outcomes: dict[str, _Outcome] = {}
        while auto and self._logprobs_support is None:
            with self._lock:
                probing = self._probe
                if probing is None:
                    mine: Future[bool | None] = Future()
                    self._probe = mine
            if probing is not None:
                yield probing  # the driver waits until that probe has settled support
                continue
            supported: bool | None = None
            try:
                (probe,) = yield [calls[names[0]]]
                tally.add([probe])
                supported = not (
                    isinstance(probe, Exception) or token_positions(probe.message.response_metadata) is None
                )
            finally:
                self._settle_probe(mine, supported)
            if not supported:
                tally.fell_back = True
                return None
            outcomes[names[0]] = probe
        if auto and self._logprobs_support is False:
            tally.fell_back = True
            return None
        rest = [name for name in names if name not in outcomes]
        if rest:
            results = yield [calls[name] for name in rest]
            tally.add(results)
            outcomes.update(zip(rest, results, strict=True))
        answers: dict[str, Answer] = {}
        unreadable: dict[str, str] = {}
        for name in names:
            reply = _value(outcomes[name])
            positions = token_positions(reply.message.response_metadata)
            if positions is None:
                if auto:
                    tally.fell_back = True
                    return None
                raise LogprobsUnavailableError(
                    f"strategy='logprobs' needs token log-probabilities, but the reply of "
                    f"{self.model!r} to question {name!r} has none in "
                    "response_metadata['logprobs']; use a provider that returns them "
                    "(ChatOpenAI, vLLM, Ollama's OpenAI-compatible API) or strategy='structured'"
                )
            answer, problem = answer_from_positions(questions[name], positions)
            if answer is not None:
                answers[name] = answer
            else:
                unreadable[name] = problem or "no answer could be read"
        return self._response(tally, questions, Reading(answers, {}, unreadable), "logprobs")

    def _settle_probe(self, probe: Future[bool | None], supported: bool | None) -> None:
        """Record what the probe found (None: it was abandoned; the next call probes again)."""
        with self._lock:
            if supported is not None:
                self._logprobs_support = supported
            self._probe = None
        if not probe.done():
            probe.set_result(supported)

    def _by_structure(
        self,
        state: State,
        questions: Mapping[str, Question],
        groups: Sequence[Mapping[str, Question]],
        tally: _Tally,
        label: str,
    ) -> Generator[list[_Call], list[_Outcome], DecisionResponse]:
        calls = [self._structured_call(state, group) for group in groups]
        outcomes = yield calls
        tally.add(outcomes)
        replies = [_value(outcome) for outcome in outcomes]
        readings = [_read(reply, group) for reply, group in zip(replies, groups, strict=True)]
        again = [index for index, reading in enumerate(readings) if reading.needs_retry]
        if again:
            corrections = [
                _Call(
                    (
                        *calls[i].messages,
                        AIMessage(content=_raw_text(replies[i].message)),
                        HumanMessage(content=correction_text(readings[i].problems)),
                    ),
                    calls[i].schema,
                    target=calls[i].target,
                )
                for i in again
            ]
            retried = yield corrections
            tally.add(retried)
            for index, outcome in zip(again, retried, strict=True):
                reply = _value(outcome)
                second = _read(reply, groups[index])
                if second.problem is None:
                    readings[index] = merge(readings[index], second)
                elif readings[index].problem is not None:
                    raise ChatModelOutputError(self._failure(second, reply))
        combined = Reading(
            {k: v for r in readings for k, v in r.answers.items()},
            {k: v for r in readings for k, v in r.reasoning.items()},
            {k: v for r in readings for k, v in r.invalid.items()},
        )
        return self._response(tally, questions, combined, label)

    def _failure(self, reading: Reading, reply: _Reply) -> str:
        raw = _raw_text(reply.message)
        shown = truncate(raw, self.raw_output_limit)
        return (
            f"the reply of {self.model!r} could not be read, even after a corrective retry: "
            f"{'; '.join(reading.problems)}. Raw output: {shown!r}"
        )

    def _response(
        self, tally: _Tally, questions: Mapping[str, Question], reading: Reading, strategy: str
    ) -> DecisionResponse:
        return DecisionResponse(
            model=tally.model(self.model),
            answers={name: reading.answers[name] for name in questions if name in reading.answers},
            unreadable={name: reading.invalid[name] for name in questions if name in reading.invalid},
            reasoning={name: reading.reasoning[name] for name in questions if name in reading.reasoning},
            strategy=strategy,
            usage=tally.usage(),
        )
