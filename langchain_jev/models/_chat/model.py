"""Any LangChain chat model as a decision model: `ChatModelDecisionModel`, its options and its strategies.

The class checks its options, drives each classification (`drive`: the sync and the async
entry points share one driver) and holds the strategies' procedure: which strategy
answers, the logprobs probe of ``"auto"``, the one corrective retry, the response. What
is sent is built in `calls`, what comes back is read in `replies`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Generator, Mapping, Sequence
from concurrent.futures import Future
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
from langchain_core.messages import SystemMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import ContextThreadPoolExecutor, ensure_config
from pydantic import ConfigDict, Field, PrivateAttr

from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev.models._chat.calls import (
    RUBRICS,
    Call,
    Rubric,
    build_rubric,
    correction_call,
    logprobs_call,
    structured_call,
)
from langchain_jev.models._chat.drive import Outcome, Procedure, Step, drive, run_now, value_of
from langchain_jev.models._chat.errors import ChatModelOutputError, LogprobsUnavailableError
from langchain_jev.models._chat.loading import chat_model_name, chat_model_provider, load_chat_model
from langchain_jev.models._chat.logprobs import answer_from_positions, token_positions, unfit_reason
from langchain_jev.models._chat.parse import Reading, merge
from langchain_jev.models._chat.prompt import DEFAULT_SYSTEM_MESSAGE, truncate
from langchain_jev.models._chat.replies import (
    Reply,
    Tally,
    message_reply,
    raw_text,
    read_reply,
    structured_reply,
)
from langchain_jev.models._response import DecisionResponse
from langchain_jev.models._secrets import install_log_filter, remember_settings

__all__ = ["STRATEGIES", "ChatModelDecisionModel", "Strategy"]

Strategy = Literal["auto", "structured", "logprobs", "per_question"]
"""How a `ChatModelDecisionModel` gets its answers."""
STRATEGIES: tuple[str, ...] = get_args(Strategy)
"""The strategy names, in the order of the documentation."""


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
    _rubrics: dict[tuple[tuple[str, int], ...], Rubric] = PrivateAttr(default_factory=dict)

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

        async def run(calls: list[Call]) -> list[Outcome]:
            return self._run_calls(calls, config)

        async def wait(probe: Future[bool | None]) -> None:
            probe.result()

        return run_now(drive(self._procedure(state, questions), run, wait))

    async def _aclassify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        config = ensure_config()

        async def run(calls: list[Call]) -> list[Outcome]:
            return await self._arun_calls(calls, config)

        async def wait(probe: Future[bool | None]) -> None:
            await asyncio.shield(asyncio.wrap_future(probe))  # leaving early must not cancel the probe

        return await drive(self._procedure(state, questions), run, wait)

    def _run_calls(self, calls: Sequence[Call], config: RunnableConfig) -> list[Outcome]:
        def run(call: Call) -> Outcome:
            try:
                return self._run_call(call, config)
            except Exception as error:  # handed to the procedure, which raises it
                return error

        if len(calls) == 1:
            return [run(calls[0])]
        with ContextThreadPoolExecutor(max_workers=min(len(calls), self.max_concurrency)) as pool:
            return list(pool.map(run, calls))

    async def _arun_calls(self, calls: Sequence[Call], config: RunnableConfig) -> list[Outcome]:
        gate = asyncio.Semaphore(self.max_concurrency)

        async def run(call: Call) -> Outcome:
            async with gate:
                try:
                    return await self._arun_call(call, config)
                except Exception as error:  # handed to the procedure, which raises it
                    return error

        return list(await asyncio.gather(*(run(call) for call in calls)))

    def _run_call(self, call: Call, config: RunnableConfig) -> Reply:
        runnable, read = self._target(call)
        return read(runnable.invoke(list(call.messages), config))

    async def _arun_call(self, call: Call, config: RunnableConfig) -> Reply:
        runnable, read = self._target(call)
        return read(await runnable.ainvoke(list(call.messages), config))

    def _target(self, call: Call) -> tuple[Runnable[Any, Any], Callable[[Any], Reply]]:
        """What a call is sent to, and how its output is read."""
        if call.target is not None:
            target: tuple[Runnable[Any, Any], Callable[[Any], Reply]] = call.target
            return target
        if call.schema is not None:
            return self.chat_model.with_structured_output(call.schema, include_raw=True), structured_reply
        if call.logprobs:
            return self._logprobs_model(), message_reply
        return self.chat_model, message_reply

    def _logprobs_model(self) -> Any:
        return self.chat_model.bind(logprobs=True, top_logprobs=self.top_logprobs, **self.logprobs_kwargs)

    # ------------------------------------------------------------------ the procedure

    def _procedure(self, state: State, questions: Mapping[str, Question]) -> Procedure:
        """Everything but the requests: yields batches of calls, gets their outcomes back."""
        _check_questions(questions)
        tally = Tally()
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

    def _rubric(self, questions: Mapping[str, Question]) -> Rubric:
        """The rubric of a question set (`build_rubric`), kept per set."""
        key = tuple((name, id(question)) for name, question in questions.items())
        rubric = self._rubrics.get(key)
        if rubric is not None and rubric.fits(questions, self.chat_model):
            return rubric
        rubric = build_rubric(self.chat_model, questions)
        with self._lock:
            if len(self._rubrics) >= RUBRICS:
                self._rubrics.clear()
            self._rubrics[key] = rubric
        return rubric

    def _by_logprobs(
        self, state: State, questions: Mapping[str, Question], tally: Tally, auto: bool
    ) -> Generator[Step, list[Outcome], DecisionResponse | None]:
        calls = {name: logprobs_call(self._system(), state, name, q) for name, q in questions.items()}
        names = list(calls)
        outcomes: dict[str, Outcome] = {}
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
            reply = value_of(outcomes[name])
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
        tally: Tally,
        label: str,
    ) -> Generator[list[Call], list[Outcome], DecisionResponse]:
        calls = [structured_call(self._system(), state, self._rubric(group)) for group in groups]
        outcomes = yield calls
        tally.add(outcomes)
        replies = [value_of(outcome) for outcome in outcomes]
        readings = [read_reply(reply, group) for reply, group in zip(replies, groups, strict=True)]
        again = [index for index, reading in enumerate(readings) if reading.needs_retry]
        if again:
            corrections = [correction_call(calls[i], replies[i], readings[i].problems) for i in again]
            retried = yield corrections
            tally.add(retried)
            for index, outcome in zip(again, retried, strict=True):
                reply = value_of(outcome)
                second = read_reply(reply, groups[index])
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

    def _failure(self, reading: Reading, reply: Reply) -> str:
        raw = raw_text(reply.message)
        shown = truncate(raw, self.raw_output_limit)
        return (
            f"the reply of {self.model!r} could not be read, even after a corrective retry: "
            f"{'; '.join(reading.problems)}. Raw output: {shown!r}"
        )

    def _response(
        self, tally: Tally, questions: Mapping[str, Question], reading: Reading, strategy: str
    ) -> DecisionResponse:
        return DecisionResponse(
            model=tally.model(self.model),
            answers={name: reading.answers[name] for name in questions if name in reading.answers},
            unreadable={name: reading.invalid[name] for name in questions if name in reading.invalid},
            reasoning={name: reading.reasoning[name] for name in questions if name in reading.reasoning},
            strategy=strategy,
            usage=tally.usage(),
        )
